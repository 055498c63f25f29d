//! A run's decision log as the runner writes it: the header of a run's log (what run it
//! belongs to), and the log of a few games played one after another. The log's format
//! (`crate::decision_log`) knows nothing of runs.

use aeroplane_core::Bot;

use super::{PlayOptions, RunError, RunSpec};
use crate::bots::BotSpec;
use crate::decision_log::{
    DECISION_FIELDS, DEFAULT_LOG_POSITIONS, FORMAT, Header, HeaderBot, LogEncoder, LogFormat,
    LogStyle, VERSION,
};

impl Header {
    /// The header of a run's log, with the position on every `positions`-th decision line.
    pub fn of(spec: &RunSpec, positions: u32) -> Header {
        Header {
            format: FORMAT.to_string(),
            version: VERSION,
            decision_fields: DECISION_FIELDS.iter().map(|f| f.to_string()).collect(),
            log_positions: Some(positions.max(1)),
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            rules: spec.rules,
            players: spec.players(),
            seats: aeroplane_core::Seat::in_play(spec.players())
                .iter()
                .map(|s| s.index())
                .collect(),
            bots: spec
                .lineup
                .iter()
                .map(|b| HeaderBot {
                    name: b.name.clone(),
                    kind: b.kind.clone(),
                })
                .collect(),
            seed: spec.seed,
            first_deal: spec.first_deal,
            deals: spec.deals,
            rotate_seats: spec.rotate_seats,
        }
    }
}

/// Plays games `games` of `spec` one after another and returns their log, header first, with
/// the default key positions ([`DEFAULT_LOG_POSITIONS`]): the bytes a run of those games
/// writes (for tests and small logs; a run writes logs through its workers).
pub fn log_games(
    spec: &RunSpec,
    games: std::ops::Range<u64>,
    format: LogFormat,
) -> Result<Vec<u8>, RunError> {
    log_games_with(
        spec,
        games,
        LogStyle {
            format,
            positions: DEFAULT_LOG_POSITIONS,
        },
    )
}

/// [`log_games`] in a given style (format and key positions).
pub fn log_games_with(
    spec: &RunSpec,
    games: std::ops::Range<u64>,
    style: LogStyle,
) -> Result<Vec<u8>, RunError> {
    let format = style.format;
    let mut out = Header::of(spec, style.positions).encoded(format);
    let mut enc = LogEncoder::new(style).map_err(RunError::Sink)?;
    let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(BotSpec::build).collect();
    let start = aeroplane_core::Game::new(spec.rules, spec.players())?;
    for game in games {
        let (deal, rotation) = spec.locate(game);
        enc.lines().begin(game, &start, spec.bot_at_seat(rotation));
        let with = PlayOptions {
            bots: Some(&mut bots),
            ..Default::default()
        };
        let played = spec.play(game, enc.lines(), with)?;
        enc.finish_game(deal, rotation, &played.record, &mut out)
            .map_err(RunError::Sink)?;
    }
    Ok(out)
}

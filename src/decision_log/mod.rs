//! Decision logs: every decision of a run, one JSON line each, for imitation learning and
//! offline analysis (the equivalent of cutechess's `-pgnout`, OpenSpiel's trajectories).
//! `docs/LOG.md` is the schema.
//!
//! A log is JSON lines: a header line, then for every game in game order one line per
//! decision (a seat with two or more legal moves, whose bot chose) and a result line. Each
//! line is written by [`lines::GameLines`] while the game is played. Compressed logs
//! (`.jsonl.zst`) hold the header and then every game as its own zstd frame, compressed by the
//! worker that played it: a log is the same bytes for any thread count, chunk size, resume or
//! shard split, because a game's frame depends on the game alone. Any zstd reader reads the
//! frames as one stream.
//!
//! [`read`] reads a log back (bounded lines, errors naming the line), and [`check`] replays a
//! logged game with the engine, checking every position.

pub mod check;
pub mod encode;
pub mod lines;
pub mod read;

use serde::{Deserialize, Serialize};

use crate::runner::RunSpec;
use aeroplane_core::Rules;
pub use encode::{LogEncoder, LogFormat, LogNameError, ZSTD_LEVEL};

/// The header's `format`.
pub const FORMAT: &str = "aeroplane-decisions";
/// The schema version this build writes and reads.
pub const VERSION: u32 = 1;
/// A lineup entry in the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeaderBot {
    /// The bot's display name (its profile and inline parameters).
    pub name: String,
    /// Its kind.
    pub kind: String,
}

/// The first line of a log: what run it belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The schema version, [`VERSION`].
    pub version: u32,
    /// The tool version that wrote it.
    pub tool_version: String,
    /// The rules.
    pub rules: Rules,
    /// Number of players.
    pub players: usize,
    /// The seats in play.
    pub seats: Vec<usize>,
    /// The lineup: a decision's `bot` indexes it.
    pub bots: Vec<HeaderBot>,
    /// The master seed.
    pub seed: u64,
    /// The run's first deal.
    pub first_deal: u64,
    /// The run's deals.
    pub deals: u64,
    /// Whether every deal was played once per rotation of the lineup.
    pub rotate_seats: bool,
}

impl Header {
    /// The header of a run's log.
    pub fn of(spec: &RunSpec) -> Header {
        Header {
            format: FORMAT.to_string(),
            version: VERSION,
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

    /// The header line (with its newline) as the log stores it: a frame of its own in a
    /// compressed log.
    pub fn encoded(&self, format: LogFormat) -> Vec<u8> {
        let mut line = serde_json::to_vec(self).expect("a header serializes");
        line.push(b'\n');
        match format {
            LogFormat::Plain => line,
            LogFormat::Zstd => zstd::bulk::compress(&line, ZSTD_LEVEL).expect("compressing"),
        }
    }
}

/// Plays games `games` of `spec` one after another and returns their log, header first: the
/// bytes a run of those games writes (for tests and small logs; a run writes logs through its
/// workers).
pub fn log_games(
    spec: &RunSpec,
    games: std::ops::Range<u64>,
    format: LogFormat,
) -> Result<Vec<u8>, crate::runner::RunError> {
    let mut out = Header::of(spec).encoded(format);
    let mut enc = LogEncoder::new(format).map_err(crate::runner::RunError::Sink)?;
    let mut bots: Vec<Box<dyn aeroplane_core::Bot>> = spec
        .lineup
        .iter()
        .map(crate::bots::registry::BotSpec::build)
        .collect();
    let start = aeroplane_core::Game::new(spec.rules, spec.players())?;
    for game in games {
        let (deal, rotation) = spec.locate(game);
        enc.lines().begin(game, &start, spec.bot_at_seat(rotation));
        let played = spec.play_with(game, &mut bots, enc.lines())?;
        enc.finish_game(deal, rotation, &played.record, &mut out)
            .map_err(crate::runner::RunError::Sink)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::read::{LogError, LogReader};
    use super::*;
    use crate::config::parse_lineup;
    use crate::trajectory::Recorder;
    use aeroplane_core::{Game, Preset};

    fn spec(preset: Preset, bots: &str, deals: u64, rotate: bool) -> RunSpec {
        RunSpec {
            rules: preset.rules(),
            lineup: parse_lineup(bots, "bots".as_ref()).unwrap(),
            seed: 9,
            first_deal: 0,
            deals,
            rotate_seats: rotate,
        }
    }

    fn reader(bytes: Vec<u8>) -> Result<LogReader, LogError> {
        LogReader::new(std::io::Cursor::new(bytes), "log".into())
    }

    fn decompress(bytes: &[u8]) -> String {
        String::from_utf8(zstd::stream::decode_all(bytes).unwrap()).unwrap()
    }

    #[test]
    fn positions_are_written_as_the_notation_writes_them() {
        for preset in Preset::ALL {
            let s = spec(preset, "random,random,random", 20, false);
            for game in 0..20 {
                let mut rec = Recorder::default();
                s.play(game, &mut rec).unwrap();
                for step in &rec.steps {
                    for g in [step.before, step.decision(), step.after] {
                        let mut out = Vec::new();
                        lines::push_position(&mut out, &g, None);
                        assert_eq!(String::from_utf8(out).unwrap(), g.to_string());
                    }
                    let mut out = Vec::new();
                    lines::push_position(&mut out, &step.before, Some(step.roll));
                    if !step.legal.is_empty() {
                        assert_eq!(String::from_utf8(out).unwrap(), step.decision().to_string());
                    }
                }
            }
        }
    }

    #[test]
    fn a_log_reads_back_and_every_game_checks() {
        let s = spec(Preset::Classic, "expectimax:depth=1,random,greedy", 4, true);
        let zst = log_games(&s, 0..12, LogFormat::Zstd).unwrap();
        let plain = log_games(&s, 0..12, LogFormat::Plain).unwrap();
        assert_eq!(decompress(&zst), String::from_utf8(plain.clone()).unwrap());
        for bytes in [zst, plain] {
            let mut r = reader(bytes).unwrap();
            assert_eq!(r.header(), &Header::of(&s));
            let mut n = 0;
            while let Some(game) = r.next_game().unwrap() {
                assert_eq!(game.game, n);
                let checked = check::check_game("log", r.header(), &game).unwrap();
                // One line per roll that offered two or more moves.
                let mut rec = Recorder::default();
                let played = s.play(n, &mut rec).unwrap();
                let asked = rec.steps.iter().filter(|st| st.legal.len() > 1).count();
                assert_eq!(game.decisions.len(), asked);
                assert_eq!(checked.record, played.record);
                assert_eq!(
                    checked.rolls,
                    rec.steps.iter().map(|st| st.roll).collect::<Vec<_>>()
                );
                for (_, d) in &game.decisions {
                    let expectimax = s.bot_at_seat(game.result.1.rotation)[d.seat] == 0;
                    assert_eq!(d.values.is_some(), expectimax);
                }
                n += 1;
            }
            assert_eq!(n, 12);
        }
    }

    #[test]
    fn bad_logs_name_the_line_and_what_is_wrong() {
        let s = spec(Preset::AppFreeGame, "greedy,random", 3, false);
        let plain = log_games(&s, 0..3, LogFormat::Plain).unwrap();
        let zst = log_games(&s, 0..3, LogFormat::Zstd).unwrap();
        let check_all = |bytes: Vec<u8>| -> Result<u64, LogError> {
            let mut r = reader(bytes)?;
            let mut n = 0;
            while let Some(g) = r.next_game()? {
                check::check_game("log", r.header(), &g)?;
                n += 1;
            }
            Ok(n)
        };
        assert_eq!(check_all(plain.clone()).unwrap(), 3);
        let text = String::from_utf8(plain.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Cut short: inside a line, and between a game's lines.
        let cut = &plain[..plain.len() - 10];
        let e = check_all(cut.to_vec()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("line {}", lines.len())) && e.contains("truncated"),
            "{e}"
        );
        let upto: usize = lines[..5].iter().map(|l| l.len() + 1).sum();
        let e = check_all(plain[..upto].to_vec()).unwrap_err().to_string();
        assert!(
            e.contains("no result line") && e.contains("truncated"),
            "{e}"
        );
        let e = check_all(zst[..zst.len() - 3].to_vec())
            .unwrap_err()
            .to_string();
        assert!(e.contains("cut short"), "{e}");
        // A damaged frame (its checksum catches it).
        let mut bad = zst.clone();
        let at = bad.len() - 40;
        bad[at] ^= 0x55;
        let e = check_all(bad).unwrap_err().to_string();
        assert!(e.contains("damaged") || e.contains("not a"), "{e}");
        // Foreign files.
        for foreign in [
            &b"game,deal\n1,2\n"[..],
            b"{\"a\":1}\n",
            b"",
            b"\x00\x01\x02",
        ] {
            let e = check_all(foreign.to_vec()).unwrap_err().to_string();
            assert!(e.contains("line 1"), "{e}");
        }
        // A position the engine disagrees with: named with its game and decision.
        let d = lines
            .iter()
            .position(|l| l.contains("\"action\"") && l.contains("\"game\":1,"))
            .unwrap();
        let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        // The turn count, the position's last field, one more than it is.
        let at = edited[d].find("\",\"seat\"").unwrap();
        let turns_at = edited[d][..at].rfind(' ').unwrap() + 1;
        let turns: u32 = edited[d][turns_at..at].parse().unwrap();
        edited[d] = format!(
            "{}{}{}",
            &edited[d][..turns_at],
            turns + 1,
            &edited[d][at..]
        );
        let e = check_all((edited.join("\n") + "\n").into_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("line {}", d + 1)) && e.contains("game 1, decision"),
            "{e}"
        );
        assert!(e.contains("not the engine's"), "{e}");
        // Not JSON, a missing key, games out of order.
        let mut broken: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        broken[2] = broken[2].replace("\"legal\"", "\"legals\"");
        let e = check_all((broken.join("\n") + "\n").into_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("legal"), "{e}");
        let mut swapped: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let last = swapped.len() - 1;
        swapped.swap(1, last);
        let e = check_all((swapped.join("\n") + "\n").into_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn a_game_is_found_by_its_index() {
        let s = spec(Preset::Chinese, "greedy,greedy,greedy,greedy", 30, false);
        let zst = log_games(&s, 5..30, LogFormat::Zstd).unwrap();
        let mut r = reader(zst.clone()).unwrap();
        let g = r.find_game(17).unwrap();
        assert_eq!(g.game, 17);
        check::check_game("log", r.header(), &g).unwrap();
        let e = reader(zst.clone())
            .unwrap()
            .find_game(3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no game 3"), "{e}");
        let e = reader(zst).unwrap().find_game(30).unwrap_err().to_string();
        assert!(e.contains("no game 30") && e.contains("5..=29"), "{e}");
        let _ = Game::new(s.rules, 4).unwrap();
    }
}

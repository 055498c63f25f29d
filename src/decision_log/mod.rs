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

use aeroplane_core::Rules;
pub use encode::{LogEncoder, LogFormat, LogNameError, LogStyle, ZSTD_LEVEL};

/// The header's `format`.
pub const FORMAT: &str = "aeroplane-decisions";
/// The schema version this build writes.
pub const VERSION: u32 = 2;
/// The schema versions this build reads.
pub const READS: [u32; 2] = [1, 2];
/// The elements of a decision line (version 2), in order; the last two are present only when
/// there is something to say (docs/LOG.md).
pub const DECISION_FIELDS: [&str; 9] = [
    "game", "seat", "bot", "roll", "legal", "action", "forced", "values", "position",
];
/// The position is written on every `DEFAULT_LOG_POSITIONS`-th decision line of a game (the
/// first included) unless a run says otherwise: 100,000 greedy games log in about 90 MB.
pub const DEFAULT_LOG_POSITIONS: u32 = 32;
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
    /// The schema version, [`VERSION`] (or an older one this build reads, [`READS`]).
    pub version: u32,
    /// The names of a decision line's elements, [`DECISION_FIELDS`] (version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decision_fields: Vec<String>,
    /// The position is on every `log_positions`-th decision line of a game, the first
    /// included (version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_positions: Option<u32>,
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

//! The messages of the bot protocol (`docs/PROTOCOL.md`): one JSON object per line, tagged by
//! `type`. The harness writes [`ToBot`] messages and reads [`FromBot`] ones.
//!
//! Steps are written as in the engine except the hangar, which is `-1`; planes and captured
//! planes are lists rather than bit sets. Move ids are the moves' notation (`launch`, `14`,
//! `18:fly`, `18:stay`), stable across versions and unique among the moves of one roll.

use aeroplane_core::Counter;
use serde::{Deserialize, Serialize};

use aeroplane_core::Game;
use aeroplane_core::GameRecord;
use aeroplane_core::Move;
use aeroplane_core::{HANGAR, PLANES, Seat};

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// A message from the harness to the bot.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot<'a> {
    /// The first message of a process: who the bot is and what it plays.
    Hello {
        /// [`PROTOCOL_VERSION`].
        protocol: u32,
        /// Always `aeroplane`.
        tool: &'static str,
        /// The harness's version.
        tool_version: &'static str,
        /// The bot's display name (its profile).
        bot: &'a str,
        /// Every rule option.
        rules: serde_json::Value,
        /// Number of players.
        players: usize,
        /// The seats in play, in turn order.
        seats: Vec<usize>,
        /// The bot's seat in its first game (each `new_game` names the seat of that game).
        seat: usize,
        /// The parameters of the bot's profile.
        params: serde_json::Value,
    },
    /// A game begins.
    NewGame {
        /// The game's index in the run.
        game: u64,
        /// The bot's seat.
        seat: usize,
        /// A seed for the bot's own randomness (0..2^64).
        seed: u64,
    },
    /// The bot must choose a move.
    Choose {
        /// The game's index.
        game: u64,
        /// The die.
        roll: u8,
        /// The whole position.
        state: State,
        /// The distinct legal moves, in canonical order.
        moves: Vec<MoveJson>,
    },
    /// A game ended.
    GameOver {
        /// The game's index.
        game: u64,
        /// What it counted.
        record: RecordJson,
    },
    /// Liveness check: answer `pong` with the same id.
    Ping {
        /// Echoed back.
        id: u64,
    },
    /// The end: the bot should exit.
    Quit,
}

/// A message from the bot to the harness.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromBot {
    /// The answer to `hello`.
    Ready {
        /// The protocol version the bot speaks.
        protocol: u32,
        /// The bot's own name.
        name: String,
        /// Its author.
        #[serde(default)]
        author: String,
    },
    /// The answer to `choose`: the id of one of the moves.
    Move {
        /// A move's `id`.
        id: String,
    },
    /// The answer to `ping`.
    Pong {
        /// The ping's id.
        id: u64,
    },
    /// The bot cannot go on (e.g. it does not speak the protocol version of `hello`).
    Error {
        /// Why.
        message: String,
    },
}

/// A step as written in the protocol: `-1` for the hangar.
fn step(s: u8) -> i16 {
    if s == HANGAR { -1 } else { i16::from(s) }
}

fn planes(bits: u8) -> Vec<u8> {
    (0..PLANES as u8).filter(|i| bits & (1 << i) != 0).collect()
}

/// The whole position of a game, as the bot sees it (everything: the protocol hides nothing).
#[derive(Debug, Serialize)]
pub struct State {
    /// The seat to move (the bot's).
    pub to_move: usize,
    /// Per seat (index = seat), the steps of its four planes (`-1` = hangar); `null` for
    /// seats not in play.
    pub steps: [Option<[i16; PLANES]>; 4],
    /// Per seat, its rank so far (`null` = none yet, or not in play).
    pub ranks: [Option<u8>; 4],
    /// Sixes rolled in a row so far in this turn (0: this roll starts the turn).
    pub sixes: u8,
    /// Planes of the seat to move moved earlier in this turn.
    pub moved_this_turn: Vec<u8>,
    /// Planes moved by the latest move of this turn.
    pub moved_last: Vec<u8>,
    /// Turns begun before this roll, all players together (the current turn counts from its
    /// second roll on).
    pub turns: u32,
    /// The centre's step (`51 + home_lane_cells`).
    pub centre: u8,
}

impl State {
    /// The state of `game`.
    pub fn of(game: &Game) -> State {
        let mut steps = [None; 4];
        let mut ranks = [None; 4];
        for s in Seat::ALL {
            if game.in_play(s) {
                steps[s.index()] = Some(game.steps(s).map(step));
                ranks[s.index()] = game.rank(s);
            }
        }
        State {
            to_move: game.to_move().index(),
            steps,
            ranks,
            sixes: game.sixes_this_turn(),
            moved_this_turn: planes(game.planes_moved_this_turn()),
            moved_last: planes(game.planes_moved_last()),
            turns: game.turns(),
            centre: game.rules().centre(),
        }
    }
}

/// A legal move as the bot sees it.
#[derive(Debug, Serialize)]
pub struct MoveJson {
    /// The move's id: its notation (`launch`, `14`, `18:fly`, `18:stay`).
    pub id: String,
    /// Starting step (`-1`: a launch from the hangar).
    pub from: i16,
    /// Final step, after any jump, flight or bounce.
    pub to: i16,
    /// The mover's planes that move (more than one for a stack).
    pub planes: Vec<u8>,
    /// Opponent planes sent to their hangars, as `[seat, plane]`.
    pub captures: Vec<[u8; 2]>,
    /// A launch.
    pub launch: bool,
    /// Takes a colour jump.
    pub jump: bool,
    /// Takes the flight.
    pub flight: bool,
    /// Bounces back from the centre.
    pub bounce: bool,
    /// Declines an optional flight.
    pub stay: bool,
    /// Reaches the centre.
    pub finish: bool,
}

impl MoveJson {
    /// The protocol form of `m`.
    pub fn of(m: &Move) -> MoveJson {
        let captured = m.captured();
        MoveJson {
            id: m.notation(),
            from: step(m.from()),
            to: step(m.to()),
            planes: planes(m.planes()),
            captures: (0..16u8)
                .filter(|b| captured & (1 << b) != 0)
                .map(|b| [b / 4, b % 4])
                .collect(),
            launch: m.is_launch(),
            jump: m.jumps(),
            flight: m.flies(),
            bounce: m.bounces(),
            stay: m.stays(),
            finish: m.finishes(),
        }
    }
}

/// A game's record as the bot sees it.
#[derive(Debug, Serialize)]
pub struct RecordJson {
    /// The winning seat, if any.
    pub winner: Option<usize>,
    /// Per seat, its rank (`null`: none, or not in play).
    pub ranks: [Option<u8>; 4],
    /// The seat that forfeited the game (its bot failed), if any.
    pub forfeit: Option<usize>,
    /// Turns.
    pub turns: u32,
    /// Rolls.
    pub rolls: u32,
    /// Chosen moves.
    pub moves: u32,
    /// Launches.
    pub launches: u32,
    /// Captured planes.
    pub captures: u32,
    /// Planes sent back by the third six.
    pub penalties: u32,
    /// Jumps.
    pub jumps: u32,
    /// Flights.
    pub flights: u32,
    /// Bounces.
    pub bounces: u32,
    /// Rolls without a legal move.
    pub passes: u32,
    /// Stopped by `max_turns`.
    pub unfinished: bool,
}

impl RecordJson {
    /// The protocol form of `r`.
    pub fn of(r: &GameRecord) -> RecordJson {
        RecordJson {
            winner: r.winner.map(Seat::index),
            ranks: r.ranks.map(|x| (x != 0).then_some(x)),
            forfeit: r.forfeit.map(Seat::index),
            turns: r.counters[Counter::Turns],
            rolls: r.counters[Counter::Rolls],
            moves: r.counters[Counter::Moves],
            launches: r.counters[Counter::Launches],
            captures: r.counters[Counter::Captures],
            penalties: r.counters[Counter::Penalties],
            jumps: r.counters[Counter::Jumps],
            flights: r.counters[Counter::Flights],
            bounces: r.counters[Counter::Bounces],
            passes: r.counters[Counter::Passes],
            unfinished: r.unfinished,
        }
    }
}

/// Whether `id` has the form of a move id (`launch`, a step, a step with `:fly` or `:stay`),
/// to tell an illegal move from an unknown id.
pub fn looks_like_move_id(id: &str) -> bool {
    let head = id
        .strip_suffix(":fly")
        .or_else(|| id.strip_suffix(":stay"))
        .unwrap_or(id);
    id == "launch"
        || (!head.is_empty() && head.len() <= 3 && head.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_ids_are_told_apart_from_garbage() {
        for ok in ["launch", "0", "14", "18:fly", "18:stay"] {
            assert!(looks_like_move_id(ok), "{ok}");
        }
        for bad in ["", "banana", ":fly", "1 4", "launch:fly", "-1", "1234"] {
            assert!(!looks_like_move_id(bad), "{bad}");
        }
    }

    #[test]
    fn bot_messages_parse_and_unknown_types_are_refused() {
        let m: FromBot = serde_json::from_str(r#"{"type":"move","id":"14"}"#).unwrap();
        assert_eq!(m, FromBot::Move { id: "14".into() });
        let r: FromBot =
            serde_json::from_str(r#"{"type":"ready","protocol":1,"name":"x"}"#).unwrap();
        assert!(matches!(r, FromBot::Ready { protocol: 1, .. }));
        assert!(serde_json::from_str::<FromBot>(r#"{"type":"move"}"#).is_err());
        assert!(serde_json::from_str::<FromBot>(r#"{"type":"dance"}"#).is_err());
    }
}

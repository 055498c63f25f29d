//! A page game as a decision log (docs/LOG.md, schema version 2, plain `.jsonl`): the file the
//! page downloads and `aeroplane replay --log FILE --game N` reads. The lines are byte for byte
//! what `aeroplane run --log-games` writes for the same game, game N of its run
//! (`tests/web/node_test.js` and `web/tests/session.rs` compare them): a header, one line per
//! decision (a roll with two or more legal moves), a result line.
//! A person's seat is a lineup entry of kind [`PERSON`](crate::bots::PERSON).
//!
//! [`parse`] reads such a log back for the page's upload, every line checked, and splits a
//! run's log into its games.

use aeroplane_core::{ActionId, Game, GameRecord, Move, NUM_ACTIONS, Rules};
use serde::{Deserialize, Serialize};

/// The header's `format`.
pub const FORMAT: &str = "aeroplane-decisions";
/// The schema version written and read.
pub const VERSION: u32 = 2;
/// A decision line's elements, in order.
pub const DECISION_FIELDS: [&str; 9] = [
    "game", "seat", "bot", "roll", "legal", "action", "forced", "values", "position",
];
/// The position is written on decision lines 0, K, 2K, ... of the game (`run`'s default K).
pub const LOG_POSITIONS: u32 = 32;

/// A lineup entry of the header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeaderBot {
    /// The bot's name (`person` for a person).
    pub name: String,
    /// Its kind.
    pub kind: String,
}

/// The first line: the rules, the seats and their players, the seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// [`DECISION_FIELDS`].
    pub decision_fields: Vec<String>,
    /// [`LOG_POSITIONS`].
    pub log_positions: Option<u32>,
    /// The version of the program that wrote it.
    pub tool_version: String,
    /// The rules.
    pub rules: Rules,
    /// Number of players.
    pub players: usize,
    /// The seats in play.
    pub seats: Vec<usize>,
    /// One entry per seat in play, in seat order.
    pub bots: Vec<HeaderBot>,
    /// The seed: game `g`'s dice are `SeededDice::new(seed, deal of g)`.
    pub seed: u64,
    /// The first deal (a page game: its game's deal).
    pub first_deal: u64,
    /// Number of deals (a page game: 1).
    pub deals: u64,
    /// Whether each deal is played once per rotation of the lineup around the seats.
    pub rotate_seats: bool,
}

impl Header {
    /// The header of a page game of game 0: one deal, no rotation ([`Header::with_deal`] for
    /// another game of a run).
    pub fn new(rules: Rules, seats: Vec<usize>, bots: Vec<HeaderBot>, seed: u64) -> Header {
        Header {
            format: FORMAT.to_string(),
            version: VERSION,
            decision_fields: DECISION_FIELDS.iter().map(|s| s.to_string()).collect(),
            log_positions: Some(LOG_POSITIONS),
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            rules,
            players: seats.len(),
            seats,
            bots,
            seed,
            first_deal: 0,
            deals: 1,
            rotate_seats: false,
        }
    }

    /// This header for one deal of a run, `first_deal` = `deal` (`deals` = 1), rotated or not.
    pub fn with_deal(mut self, deal: u64, rotate_seats: bool) -> Header {
        self.first_deal = deal;
        self.deals = 1;
        self.rotate_seats = rotate_seats;
        self
    }

    /// Games per deal: the number of players with rotation, else 1.
    pub fn games_per_deal(&self) -> u64 {
        if self.rotate_seats {
            self.players.max(1) as u64
        } else {
            1
        }
    }

    /// The (deal, rotation) of game `game`, when the header's deals hold it.
    pub fn locate(&self, game: u64) -> Option<(u64, u64)> {
        let per = self.games_per_deal();
        let (deal, rotation) = (game / per, game % per);
        let end = self.first_deal.checked_add(self.deals)?;
        end.checked_mul(per)?;
        (deal >= self.first_deal && deal < end).then_some((deal, rotation))
    }

    /// The header line, with its newline.
    pub fn line(&self) -> String {
        let mut s = serde_json::to_string(self).expect("a header serializes");
        s.push('\n');
        s
    }
}

/// A value as `run` writes it: the shortest decimal that reads back as the same `f32`, `null`
/// when not finite.
fn value(out: &mut String, v: f32) {
    if v.is_finite() {
        out.push_str(&v.to_string());
    } else {
        out.push_str("null");
    }
}

/// The legal action ids of `moves`, ascending, as digits.
fn legal_digits(moves: &[Move]) -> String {
    let mut bits = 0u8;
    for m in moves {
        bits |= 1 << ActionId::of_move(m).index();
    }
    (0..NUM_ACTIONS as u8)
        .filter(|&i| bits & (1 << i) != 0)
        .map(|i| char::from(b'0' + i))
        .collect()
}

/// A decision as it was played: the position before the roll, the lineup entry that chose
/// (`bot`), the roll, its legal moves, the one chosen, the forced rolls since the last decision
/// line and the bot's values in `moves`' order.
#[derive(Clone, Copy, Debug)]
pub struct Decided<'a> {
    /// The game index in its run.
    pub game_index: u64,
    /// The position before the roll.
    pub game: &'a Game,
    /// The lineup entry that chose.
    pub bot: usize,
    /// The roll.
    pub roll: u8,
    /// The legal moves of the roll.
    pub moves: &'a [Move],
    /// The index of the move chosen in `moves`.
    pub chosen: usize,
    /// The forced rolls since the last decision line, as digits.
    pub forced: &'a str,
    /// The bot's values, in `moves`' order.
    pub values: Option<&'a [f32]>,
}

/// One decision line (with its newline). `decision` counts the game's decision lines before
/// it (every [`LOG_POSITIONS`]-th, the first included, carries the position).
pub fn decision_line(d: &Decided<'_>, decision: u32) -> String {
    let Decided {
        game_index,
        game,
        bot,
        roll,
        moves,
        chosen,
        forced,
        values,
    } = *d;
    let seat = game.to_move().index();
    let action = ActionId::of_move(&moves[chosen]).index();
    let mut s = format!(
        "[{game_index},{seat},{bot},{roll},\"{}\",{action},\"{forced}\"",
        legal_digits(moves)
    );
    let key = decision % LOG_POSITIONS == 0;
    match values.filter(|v| v.len() == moves.len()) {
        Some(values) => {
            let mut order: Vec<usize> = (0..moves.len()).collect();
            order.sort_by_key(|&k| ActionId::of_move(&moves[k]).index());
            s.push_str(",[");
            for (i, &k) in order.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                value(&mut s, values[k]);
            }
            s.push(']');
        }
        None if key => s.push_str(",null"),
        None => {}
    }
    if key {
        let mut at = *game;
        at.apply_roll(roll)
            .expect("a decision's roll is a legal roll with moves");
        s.push_str(&format!(",\"{at}\""));
    }
    s.push_str("]\n");
    s
}

/// Where a game is in its run: its index, deal and rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The game index.
    pub game: u64,
    /// Its deal (the dice's stream).
    pub deal: u64,
    /// Its rotation of the lineup around the seats.
    pub rotation: u64,
}

/// The result line (with its newline) of game `place` that ended in `last`.
pub fn result_line(
    place: Place,
    last: &Game,
    bot_at_seat: &[Option<usize>; 4],
    forced: &str,
    record: &GameRecord,
) -> String {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "null".to_string());
    let bots: Vec<String> = bot_at_seat
        .iter()
        .map(|b| opt(b.map(|b| b.to_string())))
        .collect();
    let ranks: Vec<String> = record
        .ranks
        .iter()
        .map(|&r| opt((r != 0).then(|| r.to_string())))
        .collect();
    let mut s = format!(
        "{{\"game\":{},\"deal\":{},\"rotation\":{},\"bots\":[{}],\"forced\":\"{forced}\",\"winner\":{},\"ranks\":[{}],\"turns\":{}",
        place.game,
        place.deal,
        place.rotation,
        bots.join(","),
        opt(record.winner.map(|w| w.index().to_string())),
        ranks.join(","),
        record.counters[aeroplane_core::Counter::Turns]
    );
    if record.unfinished {
        s.push_str(",\"unfinished\":true");
    }
    s.push_str(&format!(",\"position\":\"{last}\"}}\n"));
    s
}

/// A decision line read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The line number (1 is the header).
    pub line: usize,
    /// The game index.
    pub game: u64,
    /// The seat that chose.
    pub seat: usize,
    /// Its lineup index.
    pub bot: usize,
    /// The roll.
    pub roll: u8,
    /// The legal action ids.
    pub legal: Vec<u8>,
    /// The action chosen.
    pub action: u8,
    /// The rolls played without a choice before it.
    pub forced: Vec<u8>,
    /// The bot's value of each legal action, in `legal`'s order.
    pub values: Option<Vec<Option<f32>>>,
    /// The position at the decision, on a key line.
    pub position: Option<String>,
}

/// The result line read back.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ResultLine {
    /// The game index.
    pub game: u64,
    /// Its deal.
    #[serde(default)]
    pub deal: u64,
    /// Its rotation.
    #[serde(default)]
    pub rotation: u64,
    /// The lineup index in each seat.
    pub bots: [Option<usize>; 4],
    /// The rolls after the last decision, as digits.
    pub forced: String,
    /// The winning seat.
    pub winner: Option<usize>,
    /// Each seat's rank.
    pub ranks: [Option<u8>; 4],
    /// Turns played.
    pub turns: u32,
    /// The game hit `max_turns`.
    #[serde(default)]
    pub unfinished: bool,
    /// The final position.
    pub position: String,
}

/// One game of a log: its decisions and, for a finished game, its result.
#[derive(Clone, Debug)]
pub struct LoggedGame {
    /// The game index.
    pub game: u64,
    /// The decision lines, in order.
    pub decisions: Vec<Decision>,
    /// The result line with its line number (`None`: a game saved before its end).
    pub result: Option<(usize, ResultLine)>,
}

/// A log read back: its header and its games, in order (a page record holds one; a run's
/// `--log-games` log one per game).
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The header.
    pub header: Header,
    /// The games, in increasing index order.
    pub games: Vec<LoggedGame>,
}

/// Digits as numbers, each at most `max`.
fn digits(text: &str, max: u8, what: &str) -> Result<Vec<u8>, String> {
    text.bytes()
        .map(|b| {
            b.checked_sub(b'0')
                .filter(|&d| d <= max)
                .ok_or_else(|| format!("`{what}` must be digits 0 to {max}, not {text:?}"))
        })
        .collect()
}

fn decision(line: usize, v: &serde_json::Value) -> Result<Decision, String> {
    let a = v.as_array().ok_or("not a decision line")?;
    if !(7..=9).contains(&a.len()) {
        return Err(format!(
            "a decision line has 7 to 9 elements ({}), not {}",
            DECISION_FIELDS.join(", "),
            a.len()
        ));
    }
    let num = |i: usize, max: u64| -> Result<u64, String> {
        a[i].as_u64()
            .filter(|&n| n <= max)
            .ok_or_else(|| format!("`{}` must be a number 0 to {max}", DECISION_FIELDS[i]))
    };
    let text = |i: usize| -> Result<&str, String> {
        a[i].as_str()
            .ok_or_else(|| format!("`{}` must be a string", DECISION_FIELDS[i]))
    };
    let values = match a.get(7) {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Array(vs)) => Some(
            vs.iter()
                .map(|x| match x {
                    serde_json::Value::Null => Ok(None),
                    x => x
                        .as_f64()
                        .map(|f| Some(f as f32))
                        .ok_or("`values` must be numbers or null"),
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("`values` must be an array or null".into()),
    };
    let position = match a.get(8) {
        None => None,
        Some(p) => Some(p.as_str().ok_or("`position` must be a string")?.to_string()),
    };
    Ok(Decision {
        line,
        game: num(0, u64::MAX)?,
        seat: num(1, 3)? as usize,
        bot: num(2, 3)? as usize,
        roll: num(3, 6)? as u8,
        legal: digits(text(4)?, NUM_ACTIONS as u8 - 1, "legal")?,
        action: num(5, NUM_ACTIONS as u64 - 1)? as u8,
        forced: digits(text(6)?, 6, "forced")?,
        values,
        position,
    })
}

/// Reads a log's text, checking the shape of every line; the moves
/// themselves are checked by replaying them ([`crate::session::Session::from_log`]).
pub fn parse(text: &str) -> Result<Parsed, String> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let foreign = "not an aeroplane game record: its first line must be the header {\"format\":\"aeroplane-decisions\",...} (a file the page downloaded, or a run's --log-games log)";
    let Some((_, first)) = lines.next() else {
        return Err(
            "the file is empty: an aeroplane game record starts with its header line".into(),
        );
    };
    let value: serde_json::Value = serde_json::from_str(first.trim_start_matches('\u{feff}'))
        .map_err(|_| foreign.to_string())?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(foreign.into());
    }
    let version = value.get("version").and_then(|v| v.as_u64());
    if version != Some(u64::from(VERSION)) {
        return Err(format!(
            "line 1: a decision log of version {}: the page reads version {VERSION}",
            version.map_or("?".to_string(), |v| v.to_string())
        ));
    }
    let header: Header = serde_json::from_value(value).map_err(|e| {
        format!(
            "line 1: a bad header: {}",
            aeroplane_core::excerpt::excerpt(&e.to_string())
        )
    })?;
    let mut games: Vec<LoggedGame> = Vec::new();
    for (n, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(l).map_err(|e| {
            format!(
                "line {n}: not JSON ({}): the file is damaged or cut short",
                aeroplane_core::excerpt::excerpt(&e.to_string())
            )
        })?;
        let (game, line) = if v.is_object() {
            let r: ResultLine = serde_json::from_value(v).map_err(|e| {
                format!(
                    "line {n}: a bad result line: {}",
                    aeroplane_core::excerpt::excerpt(&e.to_string())
                )
            })?;
            (r.game, Err((n, r)))
        } else {
            let d = decision(n, &v).map_err(|e| format!("line {n}: {e}"))?;
            (d.game, Ok(d))
        };
        // A game's lines are together, its result line last; games in increasing order.
        let open = games
            .last()
            .is_some_and(|g| g.game == game && g.result.is_none());
        if !open {
            if let Some(last) = games.last() {
                if last.result.is_none() {
                    return Err(format!(
                        "line {n}: a line of game {game} before game {}'s result line: a game's lines come together, its result line last",
                        last.game
                    ));
                }
                if game <= last.game {
                    return Err(format!(
                        "line {n}: a line of game {game} after game {}'s result line: games come in increasing order, each once",
                        last.game
                    ));
                }
            }
            games.push(LoggedGame {
                game,
                decisions: Vec::new(),
                result: None,
            });
        }
        let g = games.last_mut().expect("a game was pushed");
        match line {
            Ok(d) => g.decisions.push(d),
            Err(r) => g.result = Some(r),
        }
    }
    Ok(Parsed { header, games })
}

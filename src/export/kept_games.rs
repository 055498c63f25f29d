//! `checkpoint.games`: the games a stopped job had finished beyond the whole units its
//! checkpoint keeps (games of the units in flight at the stop, and of units that finished
//! after one that had not), so that `resume` does not play them again.
//!
//! Written whole when the job stops (under a temporary name, synced, renamed), read back by
//! the resume, removed with the checkpoint when the job completes. Lines are checksummed like
//! the checkpoint's and bound to it (by its header's checksum): line 1 `{"kept_games":1}`, then
//! one line per game, then `"end"`. Every game in it is exactly what playing it again gives
//! (a game is a function of the job and its index), so the file is a saving, never a source of
//! results of its own: one that is damaged, cut short or of another job is not used, with a
//! note, and its games are played again.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use aeroplane_core::{Counter, Counters, GameRecord, PLANES, Seat};
use serde::{Deserialize, Serialize};

use super::ExportError;
use super::checkpoint::bound_sum;
use crate::files::fsops;
use crate::runner::{FinishedGame, ForfeitNote, KeptGames};
use crate::stats::Played;

/// The file's name in an output folder.
pub const KEPT_GAMES_FILE: &str = "checkpoint.games";

/// The format written and read.
const FORMAT: u32 = 1;

/// The longest line read back (a game with a long decision log).
const MAX_LINE: u64 = 64 << 20;

/// The most bytes read from the file.
const MAX_FILE: u64 = 1 << 30;

/// The last line.
const END: &str = "\"end\"";

/// One kept game, as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameLine {
    part: usize,
    game: u64,
    players: u8,
    winner: Option<u8>,
    ranks: [u8; 4],
    counters: Vec<u32>,
    unfinished: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    forfeit_seat: Option<u8>,
    final_steps: [[u8; PLANES]; 4],
    bot_at_seat: [u8; 4],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    forfeit: Option<ForfeitNote>,
    /// The game's decision-log bytes, in hex.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    log: String,
}

impl GameLine {
    fn of(g: &FinishedGame) -> GameLine {
        let r = &g.played.record;
        GameLine {
            part: g.part,
            game: g.game,
            players: r.players,
            winner: r.winner.map(|s| s.index() as u8),
            ranks: r.ranks,
            counters: r.counters.iter().map(|(_, v)| v).collect(),
            unfinished: r.unfinished,
            forfeit_seat: r.forfeit.map(|s| s.index() as u8),
            final_steps: r.final_steps,
            bot_at_seat: g.played.bot_at_seat,
            forfeit: g.forfeit.clone(),
            log: hex(&g.log),
        }
    }

    fn into_game(self) -> Result<FinishedGame, String> {
        let seat = |s: Option<u8>, what: &str| -> Result<Option<Seat>, String> {
            s.map(|i| Seat::new(usize::from(i)).ok_or_else(|| format!("{what} {i} is not a seat")))
                .transpose()
        };
        if !(2..=4).contains(&self.players) {
            return Err(format!("{} players", self.players));
        }
        if self.counters.len() != Counter::ALL.len() {
            return Err(format!(
                "{} counters where there are {}",
                self.counters.len(),
                Counter::ALL.len()
            ));
        }
        let mut counters = Counters::<u32>::default();
        for (c, v) in Counter::ALL.into_iter().zip(&self.counters) {
            counters.add(c, *v);
        }
        let record = GameRecord {
            players: self.players,
            winner: seat(self.winner, "winner")?,
            ranks: self.ranks,
            counters,
            unfinished: self.unfinished,
            forfeit: seat(self.forfeit_seat, "forfeiting seat")?,
            final_steps: self.final_steps,
        };
        Ok(FinishedGame {
            part: self.part,
            game: self.game,
            played: Played {
                record,
                bot_at_seat: self.bot_at_seat,
            },
            forfeit: self.forfeit,
            log: unhex(&self.log).ok_or("its decision-log bytes are not hex")?,
        })
    }
}

/// Writes `games` to `path` for the checkpoint whose header checksum is `key`, replacing what
/// was there; with no games, removes the file.
pub fn write_kept_games(path: &Path, key: u64, games: &KeptGames) -> Result<(), ExportError> {
    let lines = games
        .iter()
        .map(|g| serde_json::to_string(&GameLine::of(g)).expect("kept games serialize"));
    write_kept_lines(path, key, &header(), lines)
}

/// Reads the games kept at `path` for the checkpoint whose header checksum is `key`: `Ok(None)`
/// when there is no such file, `Err` with why when it cannot be used (its games are then played
/// again).
pub fn read_kept_games(path: &Path, key: u64) -> Result<Option<KeptGames>, String> {
    let mut games = KeptGames::new();
    let found = read_kept_lines(path, key, &header(), |json| {
        let line: GameLine = serde_json::from_str(json).map_err(|e| e.to_string())?;
        games.insert(line.into_game()?);
        Ok(())
    })?;
    Ok(found.then_some(games))
}

/// What a resume says when it uses `games` games kept at a stop.
pub fn kept_used_note(games: u64) -> String {
    format!(
        "{games} games finished before the stop, beyond the whole units kept, are used: they are not played again"
    )
}

/// What a resume that measures luck says of the `games` games kept at a stop: a kept game
/// carries no luck, so each is played again (the same game, from its seed).
pub fn kept_replayed_for_luck_note(games: u64) -> String {
    format!(
        "{games} games finished before the stop, beyond the whole units kept, are played again to measure their luck (the same games)"
    )
}

/// What a resume says when the file of kept work at `path` cannot be used, and `why`.
pub fn kept_unusable_note(path: &Path, why: &str) -> String {
    format!(
        "{} cannot be used ({why}): its games are played again",
        aeroplane_core::excerpt::path(path)
    )
}

/// What a stop says when the `games` games finished beyond the last whole unit could not be
/// kept, because of `error`.
pub fn kept_lost_note(games: u64, error: &str) -> String {
    format!(
        "the {games} games finished beyond the last whole unit could not be kept ({error}): the resume plays them again"
    )
}

fn header() -> String {
    format!("{{\"kept_games\":{FORMAT}}}")
}

/// Writes a file of work kept at a stop beside the checkpoint whose header checksum is `key`:
/// `header`, then one JSON line per item of `lines`, then `"end"`, every line checksummed and
/// bound to `key`; written whole (a temporary name, synced, renamed). With no lines, removes
/// the file.
pub fn write_kept_lines(
    path: &Path,
    key: u64,
    header: &str,
    lines: impl Iterator<Item = String>,
) -> Result<(), ExportError> {
    let mut text = String::new();
    let mut line = |json: &str| {
        text.push_str(json);
        text.push_str(&format!("\t{:016x}\n", bound_sum(key, json)));
    };
    line(header);
    let mut any = false;
    for json in lines {
        line(&json);
        any = true;
    }
    if !any {
        return fsops::remove(path).map_err(|e| ExportError::new(path, e));
    }
    line(END);
    fsops::write_whole(path, text.as_bytes()).map_err(|e| ExportError::new(path, e))
}

/// Reads a file written by [`write_kept_lines`] for the checkpoint whose header checksum is
/// `key`, giving `item` each line's JSON: `Ok(false)` when there is no such file, `Err` naming
/// the line and why when it cannot be used (damaged, cut short, of another job or format, or
/// refused by `item`).
pub fn read_kept_lines(
    path: &Path,
    key: u64,
    header: &str,
    mut item: impl FnMut(&str) -> Result<(), String>,
) -> Result<bool, String> {
    let file = match crate::files::no_follow::read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("cannot be read: {e}")),
    };
    let mut reader = BufReader::new(file.take(MAX_FILE));
    let mut buf = Vec::new();
    let mut number = 0u64;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("cannot be read: {e}"))?;
        number += 1;
        if n == 0 || buf.last() != Some(&b'\n') {
            return Err(format!("line {number}: cut short (no end line)"));
        }
        buf.pop();
        let text = std::str::from_utf8(&buf).map_err(|_| format!("line {number}: not UTF-8"))?;
        let (json, sum) = text
            .rsplit_once('\t')
            .ok_or_else(|| format!("line {number}: no checksum"))?;
        if u64::from_str_radix(sum, 16).ok() != Some(bound_sum(key, json)) || sum.len() != 16 {
            return Err(format!(
                "line {number}: the checksum does not match (a file of another job, or edited)"
            ));
        }
        if number == 1 {
            if json != header {
                return Err(format!("line 1: not the header {header}"));
            }
            continue;
        }
        if json == END {
            return Ok(true);
        }
        item(json).map_err(|e| format!("line {number}: {e}"))?;
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::FaultKind;

    fn game(part: usize, index: u64, log: &[u8]) -> FinishedGame {
        let mut record = GameRecord::new(3);
        record.winner = Seat::new(1);
        record.ranks = [2, 1, 3, 0];
        record.counters.add(Counter::Turns, 77);
        record.final_steps[1] = [57, 57, 57, 57];
        FinishedGame {
            part,
            game: index,
            played: Played {
                record,
                bot_at_seat: [0, 2, 1, crate::stats::NO_BOT],
            },
            forfeit: (index == 5).then(|| ForfeitNote {
                game: 5,
                seat: 2,
                bot: 1,
                cause: FaultKind::Timeout,
                message: "no answer".into(),
            }),
            log: log.to_vec(),
        }
    }

    #[test]
    fn kept_games_round_trip_and_a_damaged_file_is_not_used() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(KEPT_GAMES_FILE);
        assert_eq!(read_kept_games(&path, 7), Ok(None));
        let games: KeptGames = [
            game(0, 4, b""),
            game(0, 5, b"\x28\xb5\x2f\xfd"),
            game(2, 1, b"x"),
        ]
        .into_iter()
        .collect();
        write_kept_games(&path, 7, &games).unwrap();
        assert_eq!(read_kept_games(&path, 7), Ok(Some(games.clone())));

        // Another checkpoint's key, an edit, a cut: not used, with the line.
        let e = read_kept_games(&path, 8).unwrap_err();
        assert!(e.contains("line 1") && e.contains("another job"), "{e}");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("\"game\":4", "\"game\":6", 1)).unwrap();
        let e = read_kept_games(&path, 7).unwrap_err();
        assert!(e.contains("line 2") && e.contains("checksum"), "{e}");
        let cut = &text[..text.len() - 30];
        std::fs::write(&path, cut).unwrap();
        let e = read_kept_games(&path, 7).unwrap_err();
        assert!(e.contains("cut short") || e.contains("checksum"), "{e}");

        // No games: no file.
        write_kept_games(&path, 7, &KeptGames::new()).unwrap();
        assert!(!path.exists());
    }
}

//! `games.csv`: one row per game, streamed in game order.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::runner::{GameRow, GameSink};
use crate::stats::NO_BOT;
use aeroplane_core::Counter;

use super::ExportError;

/// The header of `games.csv` (stable). `bot_seatJ` is the lineup index (summary.csv's `bot`)
/// of the bot in seat J; `rank_seatJ` its rank; both empty when seat J is not in play or has no
/// rank. `winner_seat`/`winner_bot` are empty when nobody won (an unfinished game).
/// The counter columns are [`Counter::ALL`]'s names, in order.
pub const GAMES_HEADER: &str = match std::str::from_utf8(&HEADER_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("the header is ASCII"),
};

/// The columns before the counters.
const HEADER_START: &str = "game,deal,rotation,bot_seat0,bot_seat1,bot_seat2,bot_seat3,winner_seat,winner_bot,rank_seat0,rank_seat1,rank_seat2,rank_seat3";
/// The column after them.
const HEADER_END: &str = ",unfinished";

const fn header_len() -> usize {
    let mut n = HEADER_START.len() + HEADER_END.len();
    let mut i = 0;
    while i < Counter::ALL.len() {
        n += 1 + Counter::ALL[i].name().len();
        i += 1;
    }
    n
}

const HEADER_BYTES: [u8; header_len()] = {
    const fn put(out: &mut [u8; header_len()], at: usize, s: &str) -> usize {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            out[at + i] = b[i];
            i += 1;
        }
        at + b.len()
    }
    let mut out = [0u8; header_len()];
    let mut at = put(&mut out, 0, HEADER_START);
    let mut i = 0;
    while i < Counter::ALL.len() {
        at = put(&mut out, at, ",");
        at = put(&mut out, at, Counter::ALL[i].name());
        i += 1;
    }
    put(&mut out, at, HEADER_END);
    out
};

/// Writes one `games.csv` row (with its newline), without allocating.
pub fn write_game_row(w: &mut impl Write, row: &GameRow) -> std::io::Result<()> {
    write_game_fields(w, row)?;
    w.write_all(b"\n")
}

fn write_game_fields(w: &mut impl Write, row: &GameRow) -> std::io::Result<()> {
    let r = &row.played.record;
    let at = &row.played.bot_at_seat;
    write!(w, "{},{},{}", row.game, row.deal, row.rotation)?;
    for &b in at {
        if b == NO_BOT {
            w.write_all(b",")?;
        } else {
            write!(w, ",{b}")?;
        }
    }
    match r.winner {
        Some(s) => write!(w, ",{},{}", s.index(), at[s.index()])?,
        None => w.write_all(b",,")?,
    }
    for &rank in &r.ranks {
        if rank == 0 {
            w.write_all(b",")?;
        } else {
            write!(w, ",{rank}")?;
        }
    }
    for (_, n) in r.counters.iter() {
        write!(w, ",{n}")?;
    }
    write!(w, ",{}", u8::from(r.unfinished))
}

/// Streams rows into `games.csv`, flushing after every unit so that an interrupted run keeps
/// every unit written so far, each row whole.
pub struct GamesCsv {
    out: BufWriter<File>,
    path: std::path::PathBuf,
    len: u64,
    forfeits: bool,
}

impl GamesCsv {
    /// The name `games.csv` has while it is written; renamed when the job is complete.
    pub const PARTIAL: &'static str = "games.csv.partial";

    /// Creates `path` and writes the header.
    pub fn create(path: &Path) -> Result<GamesCsv, ExportError> {
        Self::open(path, false)
    }

    /// [`GamesCsv::create`] with a last column `forfeit_seat` (the seat whose bot failed and
    /// forfeited the game, empty for none): for runs with `recover`.
    pub fn create_with_forfeits(path: &Path) -> Result<GamesCsv, ExportError> {
        Self::open(path, true)
    }

    fn open(path: &Path, forfeits: bool) -> Result<GamesCsv, ExportError> {
        let file = super::no_follow::create(path).map_err(|e| ExportError::new(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let extra = if forfeits { ",forfeit_seat" } else { "" };
        writeln!(out, "{GAMES_HEADER}{extra}")
            .and_then(|_| out.flush())
            .map_err(|e| ExportError::new(path, e))?;
        Ok(GamesCsv {
            out,
            path: path.to_path_buf(),
            len: (GAMES_HEADER.len() + extra.len()) as u64 + 1,
            forfeits,
        })
    }

    /// Opens a file written before (a resume), cut back to `len` bytes: the end of the last
    /// unit whose record the checkpoint kept.
    pub fn reopen(path: &Path, len: u64, forfeits: bool) -> Result<GamesCsv, ExportError> {
        let err = |e| ExportError::new(path, e);
        let file = super::no_follow::append(path).map_err(err)?;
        if file.metadata().map_err(err)?.len() < len {
            return Err(err(std::io::Error::other(format!(
                "shorter than the {len} bytes the checkpoint says were written"
            ))));
        }
        file.set_len(len).map_err(err)?;
        Ok(GamesCsv {
            out: BufWriter::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
            len,
            forfeits,
        })
    }

    /// Appends one unit's rows, flushed, and returns the file's length after them.
    pub fn append(&mut self, rows: &[GameRow]) -> Result<u64, ExportError> {
        let mut line = Vec::with_capacity(128);
        for row in rows {
            line.clear();
            self.write_row(&mut line, row).expect("writing to memory");
            self.out
                .write_all(&line)
                .map_err(|e| ExportError::new(&self.path, e))?;
            self.len += line.len() as u64;
        }
        self.out
            .flush()
            .map_err(|e| ExportError::new(&self.path, e))?;
        Ok(self.len)
    }

    /// One row, with the `forfeit_seat` column if the file has it.
    fn write_row(&self, w: &mut Vec<u8>, row: &GameRow) -> std::io::Result<()> {
        write_game_fields(w, row)?;
        if self.forfeits {
            match row.played.record.forfeit {
                Some(s) => write!(w, ",{}", s.index())?,
                None => w.write_all(b",")?,
            }
        }
        w.write_all(b"\n")
    }

    /// The length of the header line.
    pub fn header_len(forfeits: bool) -> u64 {
        (GAMES_HEADER.len() + if forfeits { ",forfeit_seat".len() } else { 0 }) as u64 + 1
    }

    /// Flushes and syncs what was written.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_all()
    }
}

impl GameSink for GamesCsv {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        self.append(rows).map(|_| ()).map_err(|e| e.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_the_stable_one() {
        assert_eq!(
            GAMES_HEADER,
            "game,deal,rotation,bot_seat0,bot_seat1,bot_seat2,bot_seat3,winner_seat,winner_bot,rank_seat0,rank_seat1,rank_seat2,rank_seat3,turns,rolls,moves,launches,captures,penalties,jumps,flights,bounces,passes,unfinished"
        );
    }
}

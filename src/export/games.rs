//! `games.csv`: one row per game, streamed in game order.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::runner::{GameRow, GameSink};
use crate::stats::NO_BOT;
use aeroplane_core::Counter;

use super::ExportError;
use crate::files::fsops::{self, StepFile};

/// The game record's columns of `games.csv` (stable), the row [`write_game_row`] writes (and
/// `replay` prints). `bot_seatJ` is the lineup index (summary.csv's `bot`) of the bot in seat
/// J; `rank_seatJ` its rank; both empty when seat J is not in play or has no rank.
/// `winner_seat`/`winner_bot` are empty when nobody won (an unfinished game). The counter
/// columns are [`Counter::ALL`]'s names, in order. The file adds [`NAME_COLUMNS`] after them
/// (and [`FORFEIT_COLUMNS`] with `recover`).
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

/// The columns `games.csv` has after [`GAMES_HEADER`]: `name_seatJ`, the name (summary.csv's
/// `name`) of the bot in seat J, empty when seat J is not in play.
pub const NAME_COLUMNS: &str = ",name_seat0,name_seat1,name_seat2,name_seat3";

/// Writes one game record row (with its newline), without allocating: `games.csv`'s columns
/// through `unfinished` ([`GAMES_HEADER`]).
pub fn write_game_row(w: &mut impl Write, row: &GameRow) -> std::io::Result<()> {
    write_game_fields(w, row, None)?;
    w.write_all(b"\n")
}

/// Writes one `games.csv` row as a run's file has it without `recover` (with its newline): the
/// record, then the `name_seatJ` columns from `names` (the lineup's names, by lineup index).
pub fn write_game_row_with_names(
    w: &mut impl Write,
    row: &GameRow,
    names: &[String],
) -> std::io::Result<()> {
    let names: Vec<Vec<u8>> = names.iter().map(|n| csv_field(n)).collect();
    write_game_fields(w, row, None)?;
    write_names(w, row, &names, None)?;
    w.write_all(b"\n")
}

/// The bot a file names for lineup index `b` (not [`NO_BOT`]): `b` itself, or `bots[b]` when
/// the file numbers the bots otherwise (a league's pool).
fn file_bot(b: u8, bots: Option<&[usize]>) -> usize {
    match bots {
        Some(m) => m[usize::from(b)],
        None => usize::from(b),
    }
}

/// The `name_seatJ` fields of a row, each after its comma.
fn write_names(
    w: &mut impl Write,
    row: &GameRow,
    names: &[Vec<u8>],
    bots: Option<&[usize]>,
) -> std::io::Result<()> {
    for &b in &row.played.bot_at_seat {
        w.write_all(b",")?;
        if b != NO_BOT
            && let Some(name) = names.get(file_bot(b, bots))
        {
            w.write_all(name)?;
        }
    }
    Ok(())
}

fn write_game_fields(
    w: &mut impl Write,
    row: &GameRow,
    bots: Option<&[usize]>,
) -> std::io::Result<()> {
    let r = &row.played.record;
    let at = &row.played.bot_at_seat;
    write!(w, "{},{},{}", row.game, row.deal, row.rotation)?;
    for &b in at {
        if b == NO_BOT {
            w.write_all(b",")?;
        } else {
            write!(w, ",{}", file_bot(b, bots))?;
        }
    }
    match r.winner {
        Some(s) => write!(w, ",{},{}", s.index(), file_bot(at[s.index()], bots))?,
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
    out: BufWriter<StepFile>,
    len: u64,
    forfeits: bool,
    /// Each lineup entry's name as a CSV field (quoted where it needs to be).
    names: Vec<Vec<u8>>,
}

/// A name as one CSV field: quoted (its quotes doubled) when it holds a comma, a quote or a
/// line break.
fn csv_field(name: &str) -> Vec<u8> {
    if name.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", name.replace('"', "\"\"")).into_bytes()
    } else {
        name.as_bytes().to_vec()
    }
}

/// Where one unit's rows end in `games.csv.partial`, and their checksum (FNV-1a 64 of their
/// bytes): what a checkpoint record keeps to find and check them again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowsAt {
    /// The file's length after them.
    pub end: u64,
    /// FNV-1a 64 of their bytes.
    pub fnv: u64,
}

impl GamesCsv {
    /// The name `games.csv` has while it is written; renamed when the job is complete.
    pub const PARTIAL: &'static str = "games.csv.partial";

    /// Creates `path` and writes the header; `names` are the lineup's names, by lineup index
    /// (the `name_seatJ` columns).
    pub fn create(path: &Path, names: &[String]) -> Result<GamesCsv, ExportError> {
        Self::open(path, false, names)
    }

    /// [`GamesCsv::create`] with the last columns `forfeit_seat` (the seat whose bot failed
    /// and forfeited the game, empty for none) and `forfeit_cause` (why): for runs with
    /// `recover`.
    pub fn create_with_forfeits(path: &Path, names: &[String]) -> Result<GamesCsv, ExportError> {
        Self::open(path, true, names)
    }

    fn open(path: &Path, forfeits: bool, names: &[String]) -> Result<GamesCsv, ExportError> {
        let file = fsops::create(path).map_err(|e| ExportError::new(path, e))?;
        let mut out = BufWriter::with_capacity(
            1 << 16,
            StepFile {
                file,
                path: path.to_path_buf(),
            },
        );
        out.write_all(Self::header(forfeits).as_bytes())
            .and_then(|_| out.flush())
            .map_err(|e| ExportError::new(path, e))?;
        Ok(GamesCsv {
            out,
            len: Self::header_len(forfeits),
            forfeits,
            names: names.iter().map(|n| csv_field(n)).collect(),
        })
    }

    /// The header line, with its newline.
    pub fn header(forfeits: bool) -> String {
        let extra = if forfeits { FORFEIT_COLUMNS } else { "" };
        format!("{GAMES_HEADER}{NAME_COLUMNS}{extra}\n")
    }

    /// Opens a file written before (a resume), cut back to `len` bytes: the end of the last
    /// unit whose record the checkpoint kept.
    pub fn reopen(
        path: &Path,
        len: u64,
        forfeits: bool,
        names: &[String],
    ) -> Result<GamesCsv, ExportError> {
        let err = |e| ExportError::new(path, e);
        let file = crate::files::no_follow::append(path).map_err(err)?;
        if file
            .metadata()
            .map_err(|e| ExportError::read(path, e))?
            .len()
            < len
        {
            return Err(err(std::io::Error::other(format!(
                "shorter than the {len} bytes the checkpoint says were written"
            ))));
        }
        fsops::set_len(&file, path, len).map_err(err)?;
        Ok(GamesCsv {
            out: BufWriter::with_capacity(
                1 << 16,
                StepFile {
                    file,
                    path: path.to_path_buf(),
                },
            ),
            len,
            forfeits,
            names: names.iter().map(|n| csv_field(n)).collect(),
        })
    }

    /// Appends one unit's rows, flushed; returns where they end and their checksum.
    pub fn append(&mut self, rows: &[GameRow]) -> Result<RowsAt, ExportError> {
        self.append_of(rows, None)
    }

    /// [`GamesCsv::append`] of rows whose lineup indices the file numbers as `bots` says
    /// (`bots[i]`: the file's bot for lineup index `i`; a league's table member's pool index),
    /// the names then being those of the file's bots.
    pub fn append_of(
        &mut self,
        rows: &[GameRow],
        bots: Option<&[usize]>,
    ) -> Result<RowsAt, ExportError> {
        let mut line = Vec::with_capacity(128);
        let mut fnv = super::fnv1a(b"");
        for row in rows {
            line.clear();
            self.write_row(&mut line, row, bots)
                .expect("writing to memory");
            fnv = super::fnv1a_from(fnv, &line);
            self.out
                .write_all(&line)
                .map_err(|e| ExportError::new(self.path(), e))?;
            self.len += line.len() as u64;
        }
        self.out
            .flush()
            .map_err(|e| ExportError::new(self.path(), e))?;
        Ok(RowsAt { end: self.len, fnv })
    }

    fn path(&self) -> &Path {
        &self.out.get_ref().path
    }

    /// One row: the record, the bots' names, and the forfeit columns if the file has them.
    fn write_row(
        &self,
        w: &mut Vec<u8>,
        row: &GameRow,
        bots: Option<&[usize]>,
    ) -> std::io::Result<()> {
        write_game_fields(w, row, bots)?;
        write_names(w, row, &self.names, bots)?;
        if self.forfeits {
            match row.played.record.forfeit {
                Some(s) => write!(
                    w,
                    ",{},{}",
                    s.index(),
                    row.forfeit_cause.map_or("", |c| c.word())
                )?,
                None => w.write_all(b",,")?,
            }
        }
        w.write_all(b"\n")
    }

    /// The length of the header line.
    pub fn header_len(forfeits: bool) -> u64 {
        Self::header(forfeits).len() as u64
    }

    /// Flushes and syncs what was written.
    pub fn sync(&mut self) -> Result<(), ExportError> {
        let path = self.path().to_path_buf();
        self.out.flush().map_err(|e| ExportError::new(&path, e))?;
        let f = &self.out.get_ref().file;
        fsops::sync(f, &path).map_err(|e| ExportError::new(&path, e))
    }

    /// Flushes and syncs what was written.
    pub fn finish(mut self) -> Result<(), ExportError> {
        self.sync()
    }
}

/// Reads back the rows of a `games.csv.partial` unit by unit, checking each against the
/// place and checksum its checkpoint record gives (a resume, a merge).
pub struct RowsReader {
    path: std::path::PathBuf,
    reader: std::io::BufReader<File>,
    pos: u64,
    /// Line breaks read so far.
    breaks: u64,
    buf: Vec<u8>,
}

impl RowsReader {
    /// Opens `path` and checks its header; `Ok(None)` when the file is shorter than its
    /// header or has another one (it was cut short before its first sync).
    pub fn open(path: &Path, forfeits: bool) -> Result<Option<RowsReader>, ExportError> {
        Self::open_with_header(path, GamesCsv::header(forfeits).as_bytes())
    }

    /// [`RowsReader::open`] of a streamed file whose first bytes are `header` (a decision
    /// log's units are read back the same way).
    pub fn open_with_header(path: &Path, header: &[u8]) -> Result<Option<RowsReader>, ExportError> {
        let file = crate::files::no_follow::read(path).map_err(|e| ExportError::read(path, e))?;
        let mut r = RowsReader {
            path: path.to_path_buf(),
            reader: std::io::BufReader::with_capacity(1 << 16, file),
            pos: 0,
            breaks: 0,
            buf: Vec::new(),
        };
        Ok(match r.read_exact_len(header.len() as u64)? {
            Some(bytes) if bytes == header => Some(r),
            _ => None,
        })
    }

    /// Reads the next `len` bytes; `None` if the file ends first.
    fn read_exact_len(&mut self, len: u64) -> Result<Option<&[u8]>, ExportError> {
        use std::io::Read;
        self.buf.clear();
        let got = (&mut self.reader)
            .take(len)
            .read_to_end(&mut self.buf)
            .map_err(|e| ExportError::read(&self.path, e))?;
        self.pos += got as u64;
        self.breaks += line_breaks(&self.buf);
        Ok((got as u64 == len).then_some(&self.buf[..]))
    }

    /// Reads the next unit's rows, which end at `at.end`: whether they are there whole with
    /// the checksum `at.fnv`. Streams: a unit's rows are read in pieces.
    pub fn next_unit(&mut self, at: RowsAt) -> Result<bool, ExportError> {
        use std::io::Read;
        if at.end < self.pos {
            return Ok(false);
        }
        let mut left = at.end - self.pos;
        let mut fnv = super::fnv1a(b"");
        let mut chunk = [0u8; 1 << 16];
        while left > 0 {
            let want = chunk.len().min(left as usize);
            let n = self
                .reader
                .read(&mut chunk[..want])
                .map_err(|e| ExportError::read(&self.path, e))?;
            if n == 0 {
                return Ok(false);
            }
            fnv = super::fnv1a_from(fnv, &chunk[..n]);
            left -= n as u64;
            self.pos += n as u64;
            self.breaks += line_breaks(&chunk[..n]);
        }
        Ok(fnv == at.fnv)
    }

    /// Bytes read so far.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// The 1-based number of the line the next unit's rows start on (of a text file).
    pub fn line(&self) -> u64 {
        self.breaks + 1
    }
}

fn line_breaks(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

impl GameSink for GamesCsv {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        self.append(rows).map(|_| ()).map_err(|e| e.source)
    }
}

/// The columns a run with `recover` adds at the end of `games.csv`.
pub const FORFEIT_COLUMNS: &str = ",forfeit_seat,forfeit_cause";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_csv_fields() {
        assert_eq!(csv_field("greedy"), b"greedy");
        assert_eq!(csv_field("expectimax:depth=2"), b"expectimax:depth=2");
        assert_eq!(csv_field("a,b"), b"\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), b"\"say \"\"hi\"\"\"");
        assert_eq!(
            GamesCsv::header(true),
            format!(
                "{GAMES_HEADER},name_seat0,name_seat1,name_seat2,name_seat3,forfeit_seat,forfeit_cause\n"
            )
        );
    }

    #[test]
    fn the_header_is_the_stable_one() {
        assert_eq!(
            GAMES_HEADER,
            "game,deal,rotation,bot_seat0,bot_seat1,bot_seat2,bot_seat3,winner_seat,winner_bot,rank_seat0,rank_seat1,rank_seat2,rank_seat3,turns,rolls,moves,launches,captures,penalties,jumps,flights,bounces,passes,unfinished"
        );
    }
}

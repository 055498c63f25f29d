//! `checkpoint`: the finished units of a job, one record per line, appended and synced as each
//! unit finishes, so a stopped or killed job resumes where it was.
//!
//! The first line is a header naming the job (its manifest's identity: tool version, command,
//! rules, bots, seed, games, options, shard); each further line is one unit's record as JSON,
//! a tab, and the FNV-1a 64 checksum of the JSON in hex. A record whose checksum does not match
//! is an edited or damaged file and is refused; a last line without its newline is a record cut
//! short by a crash: it is dropped (its unit is played again) and said so.
//!
//! Each record is written as its unit finishes, so a killed process loses only the units in
//! flight. Records reach the disk (fsync) at most [`SYNC_EVERY`] apart and when the job stops:
//! a sync costs milliseconds here, and syncing after each of thousands of fast units would
//! slow a run down several times over; a power loss can cost the last interval's units, which
//! are then played again.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::ExportError;

/// The checkpoint's file name in an output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint";

/// The longest time between two syncs of the checkpoint to disk.
pub const SYNC_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// The longest line read back (a unit's record is a few KB).
const MAX_LINE: usize = 16 << 20;

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] ExportError),
    /// A record does not match its checksum, or is not a record.
    #[error(
        "{file}, line {line}: {what}; the checkpoint was edited or damaged and cannot be trusted (start again with --force, or restore the file)"
    )]
    Damaged {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

/// FNV-1a 64 of bytes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn line_of(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("checkpoint records serialize");
    format!("{json}\t{:016x}\n", fnv1a(json.as_bytes()))
}

/// An open checkpoint, appended to as units finish.
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    file: File,
    synced: std::time::Instant,
    unsynced: bool,
}

/// What a checkpoint held when it was opened again.
#[derive(Debug)]
pub struct Loaded<H, R> {
    /// The header.
    pub header: H,
    /// The records, in the order written.
    pub records: Vec<R>,
    /// Whether a last record cut short by a crash was dropped.
    pub dropped_partial: bool,
}

impl Checkpoint {
    /// Starts a new checkpoint with its header (replacing any file of that name).
    pub fn create(path: &Path, header: &impl Serialize) -> Result<Checkpoint, ExportError> {
        let err = |e| ExportError::new(path, e);
        let mut file = super::no_follow::create(path).map_err(err)?;
        file.write_all(line_of(header).as_bytes()).map_err(err)?;
        file.sync_all().map_err(err)?;
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            synced: std::time::Instant::now(),
            unsynced: false,
        })
    }

    /// Reads a checkpoint back, checking every record, and opens it for appending (a dropped
    /// partial last record is cut off the file first).
    pub fn open<H: DeserializeOwned, R: DeserializeOwned>(
        path: &Path,
    ) -> Result<(Checkpoint, Loaded<H, R>), CheckpointError> {
        let err = |e| ExportError::new(path, e);
        let (loaded, good_len) = Checkpoint::read_with_len(path)?;
        let file = super::no_follow::append(path).map_err(err)?;
        if loaded.dropped_partial {
            file.set_len(good_len).map_err(err)?;
            file.sync_all().map_err(err)?;
        }
        Ok((
            Checkpoint {
                path: path.to_path_buf(),
                file,
                synced: std::time::Instant::now(),
                unsynced: false,
            },
            loaded,
        ))
    }

    /// Reads a checkpoint back, checking every record, without changing the file.
    pub fn read<H: DeserializeOwned, R: DeserializeOwned>(
        path: &Path,
    ) -> Result<Loaded<H, R>, CheckpointError> {
        Ok(Checkpoint::read_with_len(path)?.0)
    }

    fn read_with_len<H: DeserializeOwned, R: DeserializeOwned>(
        path: &Path,
    ) -> Result<(Loaded<H, R>, u64), CheckpointError> {
        let err = |e| ExportError::new(path, e);
        let file = File::open(path).map_err(err)?;
        let mut reader = BufReader::new(file);
        let mut header = None;
        let mut records = Vec::new();
        let mut good_len = 0u64;
        let mut dropped_partial = false;
        let mut buf = Vec::new();
        let mut line = 0usize;
        loop {
            buf.clear();
            let n = (&mut reader)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buf)
                .map_err(err)?;
            if n == 0 {
                break;
            }
            line += 1;
            let damaged = |what: String| CheckpointError::Damaged {
                file: path.display().to_string(),
                line,
                what,
            };
            if buf.last() != Some(&b'\n') {
                if n > MAX_LINE {
                    return Err(damaged(format!("a line longer than {MAX_LINE} bytes")));
                }
                // A record cut short by a crash while it was written.
                dropped_partial = true;
                break;
            }
            let text =
                std::str::from_utf8(&buf[..n - 1]).map_err(|_| damaged("not UTF-8".into()))?;
            let (json, sum) = text
                .rsplit_once('\t')
                .ok_or_else(|| damaged("no checksum".into()))?;
            let want = format!("{:016x}", fnv1a(json.as_bytes()));
            if sum != want {
                return Err(damaged(format!(
                    "checksum {sum} does not match the record (expected {want})"
                )));
            }
            if header.is_none() {
                header = Some(
                    serde_json::from_str(json)
                        .map_err(|e| damaged(format!("not a checkpoint header: {e}")))?,
                );
            } else {
                records.push(
                    serde_json::from_str(json)
                        .map_err(|e| damaged(format!("not a unit record: {e}")))?,
                );
            }
            good_len += n as u64;
        }
        let header = header.ok_or_else(|| CheckpointError::Damaged {
            file: path.display().to_string(),
            line: 1,
            what: "no header".into(),
        })?;
        Ok((
            Loaded {
                header,
                records,
                dropped_partial,
            },
            good_len,
        ))
    }

    /// Appends one record (one `write`); syncs to disk if the last sync is [`SYNC_EVERY`] ago.
    pub fn append(&mut self, record: &impl Serialize) -> Result<(), ExportError> {
        self.file
            .write_all(line_of(record).as_bytes())
            .map_err(|e| ExportError::new(&self.path, e))?;
        self.unsynced = true;
        if self.synced.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Syncs every record written to disk.
    pub fn sync(&mut self) -> Result<(), ExportError> {
        if self.unsynced {
            self.file
                .sync_data()
                .map_err(|e| ExportError::new(&self.path, e))?;
            self.unsynced = false;
        }
        self.synced = std::time::Instant::now();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_damage_is_detected() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(CHECKPOINT_FILE);
        let mut c = Checkpoint::create(&path, &"job").unwrap();
        for i in 0..3u32 {
            c.append(&vec![i, i + 1]).unwrap();
        }
        drop(c);
        let (_, l) = Checkpoint::open::<String, Vec<u32>>(&path).unwrap();
        assert_eq!((l.header.as_str(), l.records.len()), ("job", 3));
        assert!(!l.dropped_partial);

        // A record cut short is dropped and cut off the file; appending goes on after it.
        let full = fs_len(&path);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"[9,9").unwrap();
        drop(f);
        let (mut c, l) = Checkpoint::open::<String, Vec<u32>>(&path).unwrap();
        assert!(l.dropped_partial && l.records.len() == 3);
        assert_eq!(fs_len(&path), full);
        c.append(&vec![7u32]).unwrap();
        let (_, l) = Checkpoint::open::<String, Vec<u32>>(&path).unwrap();
        assert_eq!(l.records[3], vec![7]);

        // An edited record is refused, naming the line.
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replacen("[1,2]", "[1,3]", 1);
        std::fs::write(&path, text).unwrap();
        let e = Checkpoint::open::<String, Vec<u32>>(&path).unwrap_err();
        assert!(
            e.to_string().contains("line 3") && e.to_string().contains("checksum"),
            "{e}"
        );
    }

    fn fs_len(p: &Path) -> u64 {
        std::fs::metadata(p).unwrap().len()
    }
}

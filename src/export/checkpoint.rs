//! `checkpoint`: the finished units of a job, one record per line, appended as each unit
//! finishes, so a stopped or killed job resumes where it was.
//!
//! **Format 2.** Every line is some JSON, a tab, and a checksum (FNV-1a 64, hex):
//! - line 1, the header: `{"checkpoint":2,"job":{...}}`, the job's identity (its manifest
//!   without status), checksummed alone;
//! - then unit records (`{"unit":I,...}`, written by the job) and sync marks (the JSON string
//!   `"synced"`), each checksummed together with the header's checksum: a line is bound to its
//!   job, so a line spliced in from another job's checkpoint does not check.
//!
//! A line whose checksum does not match is an edited or damaged file and is refused; a last
//! line without its newline is one cut short by a crash: it is dropped (its unit is played
//! again) and said so.
//!
//! **Syncs.** Records reach the disk (fsync) at most [`SYNC_EVERY`] apart and when the job
//! stops: a sync costs milliseconds, and syncing after each of thousands of fast units would
//! slow a run down several times over. Before a sync the job syncs the rows its records point
//! to (`games.csv.partial`), then appends a sync mark and syncs the checkpoint: the records
//! before the last mark are known to have their rows on the disk; those after it may not
//! (after a power cut), and a resume that finds their rows missing plays them again.
//!
//! **Versions.** [`CHECKPOINT_FORMAT`] is the format this build writes and reads; a header of
//! another format is refused naming both (the format before 2 had no `checkpoint` key).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::ExportError;
use crate::files::fsops;

/// The checkpoint's file name in an output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint";

/// The checkpoint format this build writes and reads.
pub const CHECKPOINT_FORMAT: u32 = 2;

/// The longest time between two syncs of the checkpoint to disk.
pub const SYNC_EVERY: Duration = Duration::from_millis(500);

/// The longest line read back (a unit's record is a few KB).
const MAX_LINE: usize = 16 << 20;

/// The text of a sync mark.
const SYNCED: &str = "\"synced\"";

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] ExportError),
    /// A record does not match its checksum, or is not a record.
    #[error(
        "{file}, line {line}: {what}; the checkpoint was edited or damaged and cannot be trusted (start again, replacing the folder with the setting `force`, or restore the file)"
    )]
    Damaged {
        /// The file.
        file: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        what: String,
    },
    /// The rows (or decision-log bytes) a checkpoint record points to are not there as it
    /// recorded them.
    #[error(
        "{file}: {what}; the file was edited or damaged and cannot be trusted (start again, replacing the folder with the setting `force`, or restore the file)"
    )]
    RowsDamaged {
        /// The rows' file (`games.csv.partial`, a decision log).
        file: String,
        /// Which rows, where, and what is wrong.
        what: String,
    },
    /// Written in another format.
    #[error(
        "{file} is a checkpoint of format {found}; this build reads format {CHECKPOINT_FORMAT}: {advice}"
    )]
    Format {
        /// The file.
        file: String,
        /// Its format.
        found: u32,
        /// What to do.
        advice: &'static str,
    },
}

/// FNV-1a 64 of bytes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_from(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a 64 of bytes, going on from the state `h` (of the bytes before them).
pub fn fnv1a_from(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The checksum of a line after the header: bound to the job by the header's checksum.
pub(crate) fn bound_sum(key: u64, json: &str) -> u64 {
    fnv1a_from(
        fnv1a_from(0xcbf2_9ce4_8422_2325, &key.to_le_bytes()),
        json.as_bytes(),
    )
}

/// The header line.
#[derive(Serialize, serde::Deserialize)]
struct Header<J> {
    checkpoint: u32,
    job: J,
}

/// An open checkpoint, appended to as units finish.
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    file: File,
    key: u64,
    synced: Instant,
    unsynced: bool,
}

/// What a checkpoint holds, found by [`Checkpoint::scan`] without keeping its records.
#[derive(Debug)]
pub struct Scan {
    /// The job identity of its header.
    pub job: serde_json::Value,
    /// Unit records.
    pub records: u64,
    /// Records before the last sync mark: their rows are known to be on the disk.
    pub durable: u64,
    /// Whether a last line cut short by a crash was found (it is dropped).
    pub dropped_partial: bool,
    key: u64,
    /// Where the header line ends.
    header_end: u64,
    /// Where the whole lines end.
    good_len: u64,
}

impl Scan {
    /// Where the header line ends (the checkpoint with no record kept).
    pub fn header_end(&self) -> u64 {
        self.header_end
    }

    /// The header's checksum, which binds the checkpoint's lines (and the games kept beside
    /// it) to its job.
    pub fn key(&self) -> u64 {
        self.key
    }
}

/// One record read back, with where its line ends in the file.
#[derive(Debug)]
pub struct Stored<R> {
    /// The record.
    pub record: R,
    /// 0-based position among the records.
    pub index: u64,
    /// The byte offset just after its line.
    pub end: u64,
    /// Whether a sync mark follows it (its rows were on the disk).
    pub durable: bool,
}

impl Checkpoint {
    /// Starts a new checkpoint for the job `job` (its identity): written under a temporary
    /// name with its header, synced and renamed into place, so a checkpoint is never there
    /// without its header.
    pub fn create(path: &Path, job: &impl Serialize) -> Result<Checkpoint, ExportError> {
        let header = serde_json::to_string(&Header {
            checkpoint: CHECKPOINT_FORMAT,
            job,
        })
        .expect("headers serialize");
        let key = fnv1a(header.as_bytes());
        let tmp = path.with_file_name(format!(
            ".{}.tmp",
            path.file_name()
                .and_then(|f| f.to_str())
                .unwrap_or(CHECKPOINT_FILE)
        ));
        let make = || -> std::io::Result<File> {
            fsops::remove(&tmp)?;
            let mut f = fsops::create(&tmp)?;
            fsops::write_all(&mut f, &tmp, format!("{header}\t{key:016x}\n").as_bytes())?;
            fsops::sync(&f, &tmp)?;
            fsops::rename(&tmp, path)?;
            Ok(f)
        };
        let file = make().map_err(|e| {
            let _ = fsops::remove(&tmp);
            ExportError::new(path, e)
        })?;
        // Appending from here on.
        let file = reopen_append(file).map_err(|e| ExportError::new(path, e))?;
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            key,
            synced: Instant::now(),
            unsynced: false,
        })
    }

    /// Reads a checkpoint through, checking every line, without keeping its records.
    pub fn scan(path: &Path) -> Result<Scan, CheckpointError> {
        let mut lines = Lines::open(path)?;
        let Some(first) = lines.next_line()? else {
            return Err(lines.damaged(1, "no header".into()));
        };
        if first.partial {
            return Err(lines.damaged(1, "the header is cut short".into()));
        }
        let (json, sum) = lines.split()?;
        let want = fnv1a(json.as_bytes());
        if sum != want {
            return Err(lines.damaged(
                1,
                format!("checksum {sum:016x} does not match the header (expected {want:016x})"),
            ));
        }
        let header: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| lines.damaged(1, format!("not a checkpoint header: {e}")))?;
        let format = match header.get("checkpoint") {
            Some(f) => f.as_u64().map_or(0, |f| f.min(u64::from(u32::MAX)) as u32),
            // Format 1: the header was the identity itself.
            None if header.get("tool").is_some() => 1,
            None => return Err(lines.damaged(1, "not a checkpoint header".into())),
        };
        if format != CHECKPOINT_FORMAT {
            return Err(CheckpointError::Format {
                file: aeroplane_core::excerpt::path(path),
                found: format,
                advice: if format < CHECKPOINT_FORMAT {
                    "it was written by an earlier build; finish the job with the build that started it, or start it again, replacing the folder with the setting `force`"
                } else {
                    "it was written by a newer build; use that build"
                },
            });
        }
        let job = header.get("job").cloned().unwrap_or_default();
        let mut scan = Scan {
            job,
            records: 0,
            durable: 0,
            dropped_partial: false,
            key: want,
            header_end: first.end,
            good_len: first.end,
        };
        while let Some(at) = lines.next_line()? {
            if at.partial {
                scan.dropped_partial = true;
                break;
            }
            let (json, sum) = lines.split()?;
            let want = bound_sum(scan.key, json);
            if sum != want {
                return Err(lines.damaged(
                    at.number,
                    format!(
                        "checksum {sum:016x} does not match the line (expected {want:016x}): a line of another job, or edited"
                    ),
                ));
            }
            if json == SYNCED {
                scan.durable = scan.records;
            } else {
                scan.records += 1;
            }
            scan.good_len = at.end;
        }
        Ok(scan)
    }

    /// The records of a scanned checkpoint, read one at a time, in the order written.
    pub fn records<R: DeserializeOwned>(
        path: &Path,
        scan: &Scan,
    ) -> Result<impl Iterator<Item = Result<Stored<R>, CheckpointError>>, CheckpointError> {
        let mut lines = Lines::open(path)?;
        lines.next_line()?;
        let (records, durable) = (scan.records, scan.durable);
        let mut index = 0u64;
        Ok(std::iter::from_fn(move || {
            loop {
                if index >= records {
                    return None;
                }
                let at = match lines.next_line() {
                    Ok(Some(at)) if !at.partial => at,
                    Ok(_) => {
                        return Some(Err(lines.damaged(0, "changed while it was read".into())));
                    }
                    Err(e) => return Some(Err(e)),
                };
                let json = match lines.split() {
                    Ok((json, _)) => json,
                    Err(e) => return Some(Err(e)),
                };
                if json == SYNCED {
                    continue;
                }
                let record = match serde_json::from_str(json) {
                    Ok(r) => r,
                    Err(e) => {
                        return Some(Err(
                            lines.damaged(at.number, format!("not a unit record: {e}"))
                        ));
                    }
                };
                let read = Stored {
                    record,
                    index,
                    end: at.end,
                    durable: index < durable,
                };
                index += 1;
                return Some(Ok(read));
            }
        }))
    }

    /// Opens a scanned checkpoint to append to it, keeping the lines up to byte `keep`
    /// (the end of the last record kept; `None`: every whole line). What follows is cut off.
    pub fn open(path: &Path, scan: &Scan, keep: Option<u64>) -> Result<Checkpoint, ExportError> {
        let keep = keep.unwrap_or(scan.good_len).max(scan.header_end);
        let file =
            crate::files::no_follow::read_write(path).map_err(|e| ExportError::new(path, e))?;
        let len = file
            .metadata()
            .map_err(|e| ExportError::read(path, e))?
            .len();
        if len != keep {
            fsops::set_len(&file, path, keep).map_err(|e| ExportError::new(path, e))?;
            fsops::sync(&file, path).map_err(|e| ExportError::new(path, e))?;
        }
        let file = reopen_append(file).map_err(|e| ExportError::new(path, e))?;
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            key: scan.key,
            synced: Instant::now(),
            unsynced: false,
        })
    }

    /// The header's checksum ([`Scan::key`]).
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Appends one record (one `write`).
    pub fn append(&mut self, record: &impl Serialize) -> Result<(), ExportError> {
        let json = serde_json::to_string(record).expect("checkpoint records serialize");
        self.write_line(&json)
    }

    fn write_line(&mut self, json: &str) -> Result<(), ExportError> {
        let line = format!("{json}\t{:016x}\n", bound_sum(self.key, json));
        fsops::write_all(&mut self.file, &self.path, line.as_bytes())
            .map_err(|e| ExportError::new(&self.path, e))?;
        self.unsynced = true;
        Ok(())
    }

    /// Its length in bytes, as written so far.
    pub fn size(&self) -> Result<u64, ExportError> {
        Ok(self
            .file
            .metadata()
            .map_err(|e| ExportError::read(&self.path, e))?
            .len())
    }

    /// Renames the checkpoint to `path` (replacing the file there), kept open for appending.
    pub fn rename(&mut self, path: &Path) -> Result<(), ExportError> {
        fsops::rename(&self.path, path).map_err(|e| ExportError::new(path, e))?;
        self.path = path.to_path_buf();
        Ok(())
    }

    /// Whether a sync is due (`SYNC_EVERY` since the last; after every record while the
    /// crash-point test hook is on).
    pub fn sync_due(&self) -> bool {
        self.unsynced && (fsops::testing() || self.synced.elapsed() >= SYNC_EVERY)
    }

    /// Marks every record written so far as having its rows on the disk and syncs the
    /// checkpoint: call it after syncing those rows.
    pub fn sync(&mut self) -> Result<(), ExportError> {
        if self.unsynced {
            self.write_line(SYNCED)?;
            fsops::sync(&self.file, &self.path).map_err(|e| ExportError::new(&self.path, e))?;
            self.unsynced = false;
        }
        self.synced = Instant::now();
        Ok(())
    }
}

/// `file` (opened for writing) reopened in append mode.
fn reopen_append(file: File) -> std::io::Result<File> {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on the descriptor `file` owns.
    unsafe {
        let fd = file.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_APPEND) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    let mut file = file;
    file.seek(SeekFrom::End(0))?;
    Ok(file)
}

/// The lines of a checkpoint.
struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    buf: Vec<u8>,
    pos: u64,
    number: u64,
}

/// Where the line last read is.
#[derive(Clone, Copy)]
struct At {
    number: u64,
    end: u64,
    /// Cut short: no newline at the end of the file.
    partial: bool,
}

impl Lines {
    fn open(path: &Path) -> Result<Lines, CheckpointError> {
        let file = crate::files::no_follow::read(path).map_err(|e| ExportError::read(path, e))?;
        Ok(Lines {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, file),
            buf: Vec::new(),
            pos: 0,
            number: 0,
        })
    }

    fn damaged(&self, line: u64, what: String) -> CheckpointError {
        CheckpointError::Damaged {
            file: aeroplane_core::excerpt::path(&self.path),
            line: if line == 0 { self.number } else { line },
            what,
        }
    }

    /// Reads the next line; its text is [`Lines::split`]'s.
    fn next_line(&mut self) -> Result<Option<At>, CheckpointError> {
        self.buf.clear();
        let n = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| ExportError::read(&self.path, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        self.pos += n as u64;
        let partial = self.buf.last() != Some(&b'\n');
        if partial && n > MAX_LINE {
            return Err(self.damaged(0, format!("a line longer than {MAX_LINE} bytes")));
        }
        if !partial {
            self.buf.pop();
        }
        Ok(Some(At {
            number: self.number,
            end: self.pos,
            partial,
        }))
    }

    /// The JSON of the line last read, and its checksum.
    fn split(&self) -> Result<(&str, u64), CheckpointError> {
        let damaged = |what: &str| self.damaged(0, what.to_string());
        let text = std::str::from_utf8(&self.buf).map_err(|_| damaged("not UTF-8"))?;
        let (json, sum) = text
            .rsplit_once('\t')
            .ok_or_else(|| damaged("no checksum"))?;
        let sum = (sum.len() == 16)
            .then(|| u64::from_str_radix(sum, 16).ok())
            .flatten()
            .ok_or_else(|| damaged("the checksum is not 16 hex digits"))?;
        Ok((json, sum))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn read_all(path: &Path) -> (Scan, Vec<Vec<u32>>) {
        let scan = Checkpoint::scan(path).unwrap();
        let records = Checkpoint::records::<Vec<u32>>(path, &scan)
            .unwrap()
            .map(|r| r.unwrap().record)
            .collect();
        (scan, records)
    }

    #[test]
    fn records_round_trip_and_damage_is_detected() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(CHECKPOINT_FILE);
        let mut c = Checkpoint::create(&path, &"job").unwrap();
        for i in 0..3u32 {
            c.append(&vec![i, i + 1]).unwrap();
        }
        c.sync().unwrap();
        c.append(&vec![3u32, 4]).unwrap();
        drop(c);
        let (scan, records) = read_all(&path);
        assert_eq!((scan.job.as_str(), records.len()), (Some("job"), 4));
        assert_eq!((scan.records, scan.durable), (4, 3));
        assert!(!scan.dropped_partial);

        // A record cut short is dropped and cut off the file; appending goes on after it.
        let full = fs_len(&path);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"[9,9").unwrap();
        drop(f);
        let scan = Checkpoint::scan(&path).unwrap();
        assert!(scan.dropped_partial && scan.records == 4);
        let mut c = Checkpoint::open(&path, &scan, None).unwrap();
        assert_eq!(fs_len(&path), full);
        c.append(&vec![7u32]).unwrap();
        drop(c);
        let (_, records) = read_all(&path);
        assert_eq!(records[4], vec![7]);

        // An edited record is refused, naming the line.
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replacen("[1,2]", "[1,3]", 1);
        std::fs::write(&path, text).unwrap();
        let e = Checkpoint::scan(&path).unwrap_err();
        assert!(
            e.to_string().contains("line 3") && e.to_string().contains("checksum"),
            "{e}"
        );
    }

    #[test]
    fn a_line_of_another_job_does_not_check() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for (p, job) in [(&a, "job a"), (&b, "job b")] {
            let mut c = Checkpoint::create(p, &job).unwrap();
            c.append(&vec![1u32]).unwrap();
            c.append(&vec![2u32]).unwrap();
        }
        // b's second record spliced into a, where a's second was: the JSON is the same.
        let line_b = std::fs::read_to_string(&b)
            .unwrap()
            .lines()
            .nth(2)
            .unwrap()
            .to_string();
        let mut lines: Vec<String> = std::fs::read_to_string(&a)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        assert_eq!(lines[2].split('\t').next(), line_b.split('\t').next());
        lines[2] = line_b;
        std::fs::write(&a, lines.join("\n") + "\n").unwrap();
        let e = Checkpoint::scan(&a).unwrap_err();
        assert!(
            e.to_string().contains("line 3") && e.to_string().contains("another job"),
            "{e}"
        );
    }

    #[test]
    fn a_checkpoint_of_another_format_is_refused_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join(CHECKPOINT_FILE);
        // Format 1: the manifest's identity as the header, checksummed alone.
        let json = r#"{"format":1,"tool":"aeroplane"}"#;
        std::fs::write(&p, format!("{json}\t{:016x}\n", fnv1a(json.as_bytes()))).unwrap();
        let e = Checkpoint::scan(&p).unwrap_err().to_string();
        assert!(
            e.contains("format 1") && e.contains("reads format 2") && e.contains("earlier build"),
            "{e}"
        );
        let json = r#"{"checkpoint":3,"job":{}}"#;
        std::fs::write(&p, format!("{json}\t{:016x}\n", fnv1a(json.as_bytes()))).unwrap();
        let e = Checkpoint::scan(&p).unwrap_err().to_string();
        assert!(e.contains("format 3") && e.contains("newer build"), "{e}");
    }

    fn fs_len(p: &Path) -> u64 {
        std::fs::metadata(p).unwrap().len()
    }
}

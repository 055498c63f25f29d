//! An output directory that never holds a mix of runs or a file cut short.
//!
//! - A directory that already holds results of this tool is refused unless `force`, which
//!   first removes the files this tool writes (and nothing else).
//! - A lock refuses a second writer while the first one runs: an exclusive `flock` on the lock
//!   file, which the kernel releases when its holder ends however it ends (a `kill -9`, a
//!   reboot), so a stale lock is never "taken over" by a race. The file says who holds it
//!   (pid and host: a requeued Slurm task may run on another node).
//! - Every file is written under a temporary name, synced and renamed into place when
//!   complete, so a crash or a full disk never leaves a table that looks finished;
//!   `games.csv` is streamed as `games.csv.partial` and renamed when the job is complete.
//! - `run.json` is written through space set aside when the folder was opened (two spares),
//!   so a job that fills the disk can still record that it failed.
//!
//! ARCHITECTURE.md ("The output folder's states") says which files exist in which state and
//! in which order they are written and synced.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::ExportError;
use super::manifest::{MANIFEST_FILE, Manifest};
use super::table::Table;
use crate::files::fsops;

/// The lock file's name.
pub const LOCK_FILE: &str = ".aeroplane.lock";

/// The board viewers `report` writes beside `report.html` (the games to watch), in the order
/// the page lists them: this tool's files too.
pub const VIEWER_FILES: [&str; 4] = [
    "game-longest.html",
    "game-shortest.html",
    "game-captures.html",
    "game-random.html",
];

/// Files (and suffixes) this tool writes into an output directory: what `--force` removes and
/// what makes a directory count as holding results (with [`VIEWER_FILES`] and the decision
/// log `run.json` names).
pub const OWN_FILES: [&str; 48] = [
    "run.json",
    "summary.json",
    "summary.csv",
    "seats.csv",
    "lengths.csv",
    "length_stats.csv",
    "events.csv",
    "games.csv",
    "games.csv.partial",
    "sweep.csv",
    "compare.csv",
    "effects.csv",
    "match.csv",
    "league.csv",
    "pairs.csv",
    "sprt.json",
    "history.csv",
    "tuned.toml",
    "checkpoint",
    "checkpoint.games",
    "report.html",
    "forfeits.csv",
    "PARTIAL-summary.csv",
    "PARTIAL-seats.csv",
    "PARTIAL-lengths.csv",
    "PARTIAL-length_stats.csv",
    "PARTIAL-events.csv",
    "PARTIAL-games.csv",
    "PARTIAL-sweep.csv",
    "PARTIAL-compare.csv",
    "PARTIAL-effects.csv",
    "PARTIAL-match.csv",
    "PARTIAL-league.csv",
    "PARTIAL-pairs.csv",
    "PARTIAL-forfeits.csv",
    "solve.json",
    "table.bin",
    "solve.checkpoint",
    "rules.toml",
    "grade.json",
    "grade.csv",
    "blunders.csv",
    "grade.checkpoint",
    "grade.checkpoint.deals",
    "train.json",
    "train.checkpoint",
    "train.best",
    "net.safetensors",
];

/// Whether `name` may name a job's decision log in its output folder: a plain file name (not
/// empty, in no folder, not hidden) that is none of the folder's own files, whole or partial.
/// Its ending (`.jsonl.zst` or `.jsonl`) is the log format's to check.
pub fn is_log_name(name: &str) -> bool {
    let plain =
        !name.is_empty() && !name.contains('/') && !name.contains('\\') && !name.starts_with('.');
    let own = OWN_FILES
        .iter()
        .any(|f| *f == name || f.strip_suffix(".partial") == Some(name));
    plain && !own && !name.ends_with(".partial")
}

/// What a table's file is called in the folder of a partial merge: the name says the table
/// covers only some of the job's games (CSV has no place to say so inside).
pub const PARTIAL_PREFIX: &str = "PARTIAL-";

/// Hidden files that hold space for the next writes of the folder's status record (`run.json`,
/// `solve.json`, `grade.json` or `train.json`, whichever job the folder holds).
const SPARES: [&str; 2] = [".status.spare-1", ".status.spare-2"];

/// The spares' names before they were named for any job's status record: a folder an older
/// version left after a kill may still hold them.
const OLD_SPARES: [&str; 2] = [".run.json.spare-1", ".run.json.spare-2"];

/// The size of each spare: a status record is a few KB (one larger than this, a league of 256
/// bots, is written the ordinary way).
const SPARE_BYTES: usize = 64 << 10;

/// The most bytes read from a lock file.
const MAX_LOCK_BYTES: u64 = 4096;

/// Why an output directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// It holds results of an earlier run.
    #[error(
        "output directory {dir} already holds results ({files}): {hint}choose another output folder, or replace them (the setting `force`)"
    )]
    NotEmpty {
        /// The directory.
        dir: String,
        /// The result files found.
        files: String,
        /// How to go on with an unfinished job found there.
        hint: String,
    },
    /// It holds files by the names this tool writes, but no record of an earlier job that
    /// wrote them: they may be someone's own, so `force` does not remove them.
    #[error(
        "output directory {dir} holds {files} but no record of an earlier job of this tool (run.json, solve.json, grade.json or train.json) that wrote them: the setting `force` replaces only an earlier job's files, so these may be your own and stay; move or remove them yourself, or choose another output folder"
    )]
    NotOurs {
        /// The directory.
        dir: String,
        /// The files in the way.
        files: String,
    },
    /// Something that is not a regular file stands at one of this tool's names in a folder
    /// to go on with.
    #[error(
        "{path} is not this tool's file, so the job cannot go on with it there: remove it (`{how}`) and resume again (anything that file would have saved is played again)"
    )]
    InTheWay {
        /// The path.
        path: String,
        /// The command that removes it.
        how: String,
        /// What it is.
        #[source]
        source: std::io::Error,
    },
    /// Another process writes into it.
    #[error(
        "output directory {dir} is in use by another aeroplane process ({holder}; lock file {lock}): wait for it to end{advice}"
    )]
    Locked {
        /// The directory.
        dir: String,
        /// Who holds the lock, as its file says (`pid 1234 on host node7`).
        holder: String,
        /// The lock file.
        lock: String,
        /// What else to do.
        advice: String,
    },
    /// The directory cannot be created.
    #[error("cannot create output directory {dir}")]
    Create {
        /// The directory.
        dir: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The path exists and is not a directory.
    #[error("the output folder {0} exists and is not a folder")]
    NotADirectory(String),
    /// A folder of results to add to does not exist.
    #[error("{0} is not a folder: give the output folder of a run, sweep or league")]
    NoFolder(String),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] ExportError),
}

/// An output directory locked for one job.
#[derive(Debug)]
pub struct OutputDir {
    path: PathBuf,
    lock: PathBuf,
    /// The locked file (closing it releases the lock).
    lock_file: Option<File>,
    written: Mutex<Vec<String>>,
    /// Tables are written as `PARTIAL-<name>` (a partial merge).
    partial: bool,
}

impl OutputDir {
    /// Creates (or opens) `path` for a new job: refuses a directory holding results unless
    /// `force`, and takes the lock.
    pub fn create(path: &Path, force: bool) -> Result<OutputDir, OutDirError> {
        if path.exists() && !path.is_dir() {
            return Err(OutDirError::NotADirectory(aeroplane_core::excerpt::path(
                path,
            )));
        }
        fsops::make_dir(path).map_err(|source| OutDirError::Create {
            dir: aeroplane_core::excerpt::path(path),
            source,
        })?;
        let dir = OutputDir::lock(path)?;
        let found = dir.own_files();
        if !found.is_empty() {
            if !force {
                let hint = if [
                    "checkpoint",
                    "solve.checkpoint",
                    "grade.checkpoint",
                    "train.checkpoint",
                ]
                .iter()
                .any(|c| found.iter().any(|f| f == c))
                {
                    format!(
                        "it holds an unfinished job: to finish it, run `aeroplane resume {}`; or ",
                        aeroplane_core::excerpt::path(path)
                    )
                } else {
                    String::new()
                };
                return Err(OutDirError::NotEmpty {
                    dir: aeroplane_core::excerpt::path(path),
                    files: found.join(", "),
                    hint,
                });
            }
            if !dir.has_job_record() {
                return Err(OutDirError::NotOurs {
                    dir: aeroplane_core::excerpt::path(path),
                    files: found.join(", "),
                });
            }
            for f in found {
                let p = path.join(f);
                fsops::remove(&p).map_err(|e| ExportError::doing("remove", &p, e))?;
            }
        }
        dir.clean()?;
        Ok(dir)
    }

    /// Opens the directory of an earlier job to go on with it (a resume): takes the lock and
    /// keeps every file but the temporary ones a stop left behind.
    pub fn reopen(path: &Path) -> Result<OutputDir, OutDirError> {
        if !path.is_dir() {
            return Err(OutDirError::NotADirectory(aeroplane_core::excerpt::path(
                path,
            )));
        }
        let dir = OutputDir::lock(path)?;
        // A folder, fifo or link at one of this tool's names would make the job fail at its
        // end, and every resume after it: refused now, with the way out.
        for name in dir.own_files() {
            let p = dir.file(&name);
            if let Err(source) = crate::files::no_follow::replaceable(&p) {
                let shown = aeroplane_core::excerpt::path(&p);
                return Err(OutDirError::InTheWay {
                    how: format!("rm -r {shown}"),
                    path: shown,
                    source,
                });
            }
        }
        dir.clean()?;
        Ok(dir)
    }

    /// Opens a folder that already holds a job's results to add a file to it (a report):
    /// takes the lock, so a job still writing there is not read half-way, and removes nothing.
    pub fn open_existing(path: &Path) -> Result<OutputDir, OutDirError> {
        if !path.is_dir() {
            return Err(OutDirError::NoFolder(aeroplane_core::excerpt::path(path)));
        }
        OutputDir::lock(path)
    }

    /// This tool's files in the folder.
    fn own_files(&self) -> Vec<String> {
        let mut names: Vec<String> = OWN_FILES
            .iter()
            .chain(&VIEWER_FILES)
            .map(|f| f.to_string())
            .collect();
        // The decision log an earlier job named (`run --log-games`), whole or partial.
        if let Some(log) = self.logged_name() {
            names.push(format!("{log}.partial"));
            names.push(log);
        }
        names.retain(|f| self.path.join(f).symlink_metadata().is_ok());
        names
    }

    /// Whether the folder holds the status record of a job of this tool (`run.json`,
    /// `solve.json`, `grade.json` or `train.json`: a regular file holding a JSON object whose `tool` is
    /// `aeroplane`), which makes the tool's files there an earlier job's.
    fn has_job_record(&self) -> bool {
        ["run.json", "solve.json", "grade.json", "train.json"]
            .iter()
            .any(|name| {
                crate::files::no_follow::read_text(&self.file(name), crate::files::MAX_TEXT_BYTES)
                    .ok()
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                    .is_some_and(|v| v.get("tool").and_then(|t| t.as_str()) == Some("aeroplane"))
            })
    }

    /// The decision log the folder's `run.json` names, if it is a name a job may give its log
    /// ([`is_log_name`]).
    fn logged_name(&self) -> Option<String> {
        let text = crate::files::no_follow::read_text(&self.file(MANIFEST_FILE), 1 << 20).ok()?;
        let m: Manifest = serde_json::from_str(&text).ok()?;
        m.log_games.filter(|name| is_log_name(name))
    }

    /// Removes what a stopped job leaves besides its files (temporary names) and sets space
    /// aside for its status record: a folder without room for that is refused before anything is
    /// written, so a job that fills the disk later can always record so.
    fn clean(&self) -> Result<(), ExportError> {
        for f in OWN_FILES {
            let _ = fsops::remove(&self.file(&format!(".{f}.tmp")));
        }
        for old in OLD_SPARES {
            let _ = fsops::remove(&self.file(old));
        }
        for spare in SPARES {
            let p = self.file(spare);
            self.make_spare(spare)
                .map_err(|e| ExportError::doing("set space aside in", &p, e))?;
        }
        Ok(())
    }

    /// Writes a spare: a hidden file holding [`SPARE_BYTES`] of disk space for the status
    /// record.
    fn make_spare(&self, name: &str) -> std::io::Result<()> {
        let p = self.file(name);
        if std::fs::symlink_metadata(&p)
            .is_ok_and(|m| m.is_file() && m.len() as usize >= SPARE_BYTES)
        {
            return Ok(());
        }
        let made = (|| {
            let mut f = fsops::create(&p)?;
            fsops::write_all(&mut f, &p, &vec![0u8; SPARE_BYTES])?;
            fsops::sync(&f, &p)
        })();
        if made.is_err() {
            let _ = fsops::remove(&p);
        }
        made
    }

    /// Removes one of this tool's files (the checkpoint of a finished job).
    pub fn remove(&self, name: &str) -> Result<(), ExportError> {
        let p = self.file(name);
        self.written.lock().expect("lock").retain(|w| *w != name);
        fsops::remove(&p).map_err(|e| ExportError::doing("remove", &p, e))
    }

    /// Takes the directory's lock.
    fn lock(path: &Path) -> Result<OutputDir, OutDirError> {
        let lock = path.join(LOCK_FILE);
        let io = |action, e| OutDirError::Io(ExportError::doing(action, &lock, e));
        for _ in 0..100 {
            let (file, created) = match fsops::create_new(&lock) {
                Ok(f) => (f, true),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    match crate::files::no_follow::read_write(&lock) {
                        Ok(f) => (f, false),
                        // Removed meanwhile by the holder that was leaving: try again.
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(io("open the lock", e)),
                    }
                }
                Err(e) => return Err(io("create the lock", e)),
            };
            match try_flock(&file) {
                Ok(true) => {
                    // The holder before us removes the file as it lets go: make sure the file
                    // we locked is still the one at that name.
                    if !same_file(&file, &lock) {
                        continue;
                    }
                }
                Ok(false) => {
                    return Err(OutDirError::Locked {
                        dir: aeroplane_core::excerpt::path(path),
                        holder: holder(&lock),
                        lock: aeroplane_core::excerpt::path(&lock),
                        advice: String::new(),
                    });
                }
                // No file locks on this file system: the lock is the file's exclusive creation.
                Err(_) if created => {}
                Err(_) => {
                    return Err(OutDirError::Locked {
                        dir: aeroplane_core::excerpt::path(path),
                        holder: holder(&lock),
                        lock: aeroplane_core::excerpt::path(&lock),
                        advice: "; this file system has no file locks (flock), so a lock left by a process that ended is not taken over: if it is gone, remove the lock file".into(),
                    });
                }
            }
            fsops::set_len(&file, &lock, 0).map_err(|e| io("write", e))?;
            fsops::overwrite(&file, &lock, whoami().as_bytes()).map_err(|e| io("write", e))?;
            return Ok(OutputDir {
                path: path.to_path_buf(),
                lock,
                lock_file: Some(file),
                written: Mutex::new(Vec::new()),
                partial: false,
            });
        }
        Err(OutDirError::Locked {
            dir: aeroplane_core::excerpt::path(path),
            holder: "unknown".into(),
            lock: aeroplane_core::excerpt::path(&lock),
            advice: String::new(),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of a file in it.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// From now on, tables are written as `PARTIAL-<name>.csv`: the folder holds a summary of
    /// an incomplete set of shards.
    pub fn mark_partial(&mut self) {
        self.partial = true;
    }

    /// Whether tables are written as partial ([`OutputDir::mark_partial`]).
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// The name a table of the job has in this folder.
    pub fn table_name(&self, name: &str) -> String {
        if self.partial {
            format!("{PARTIAL_PREFIX}{name}")
        } else {
            name.to_string()
        }
    }

    /// Writes `name` completely under a temporary name, syncs it, then renames it into place.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.file(name);
        let tmp = self.file(&format!(".{name}.tmp"));
        let write = || -> std::io::Result<()> {
            // The temporary name is this tool's: whatever a crash (or anyone) left there goes.
            fsops::remove(&tmp)?;
            let mut f = fsops::create(&tmp)?;
            fsops::write_all(&mut f, &tmp, bytes)?;
            fsops::sync(&f, &tmp)?;
            fsops::rename(&tmp, &path)
        };
        write().map_err(|e| {
            let _ = fsops::remove(&tmp);
            ExportError::new(&path, e)
        })?;
        self.note(name);
        Ok(())
    }

    /// Writes `run.json` (or another small file that must be writable on a full disk) into
    /// the space of a spare, then renames it into place and syncs the folder; the spare is
    /// made again afterwards if there is room.
    pub fn write_manifest(&self, name: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.file(name);
        let tmp = self.file(&format!(".{name}.tmp"));
        let spare = SPARES
            .iter()
            .copied()
            .find(|s| std::fs::symlink_metadata(self.file(s)).is_ok_and(|m| m.is_file()));
        let (Some(spare), true) = (spare, bytes.len() <= SPARE_BYTES) else {
            self.write(name, bytes)?;
            return fsops::sync_dir(&self.path).map_err(|e| ExportError::new(&path, e));
        };
        let write = || -> std::io::Result<()> {
            fsops::remove(&tmp)?;
            fsops::rename(&self.file(spare), &tmp)?;
            let f = crate::files::no_follow::read_write(&tmp)?;
            fsops::overwrite(&f, &tmp, bytes)?;
            fsops::set_len(&f, &tmp, bytes.len() as u64)?;
            fsops::sync(&f, &tmp)?;
            fsops::rename(&tmp, &path)?;
            fsops::sync_dir(&self.path)
        };
        write().map_err(|e| {
            let _ = fsops::remove(&tmp);
            ExportError::new(&path, e)
        })?;
        self.note(name);
        // Room for the next status: if the disk is full, the other spare is still there.
        let _ = self.make_spare(spare);
        Ok(())
    }

    /// Writes a table as CSV (named `PARTIAL-<file>` in a partial folder).
    pub fn write_table(&self, table: &Table) -> Result<(), ExportError> {
        self.write(&self.table_name(table.file), &table.to_csv())
    }

    /// Writes a value as pretty JSON with a final newline.
    pub fn write_json(&self, name: &str, value: &impl serde::Serialize) -> Result<(), ExportError> {
        let mut text = serde_json::to_string_pretty(value).map_err(|e| {
            ExportError::new(&self.file(name), std::io::Error::other(e.to_string()))
        })?;
        text.push('\n');
        self.write(name, text.as_bytes())
    }

    /// Renames a streamed file from its temporary name into place (a finished `games.csv`).
    pub fn finish_stream(&self, partial: &str, name: &str) -> Result<(), ExportError> {
        let path = self.file(name);
        fsops::rename(&self.file(partial), &path)
            .map_err(|e| ExportError::doing("rename", &path, e))?;
        self.note(name);
        Ok(())
    }

    /// Syncs the folder itself, so every rename and removal before reaches the disk before
    /// anything after.
    pub fn sync(&self) -> Result<(), ExportError> {
        fsops::sync_dir(&self.path).map_err(|e| ExportError::new(&self.path, e))
    }

    fn note(&self, name: &str) {
        let mut w = self.written.lock().expect("lock");
        if !w.iter().any(|n| n == name) {
            w.push(name.to_string());
        }
    }

    /// The files written so far, in the order first written.
    pub fn written(&self) -> Vec<String> {
        self.written.lock().expect("lock").clone()
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        for spare in SPARES {
            let _ = fsops::remove(&self.file(spare));
        }
        if self.lock_file.is_some() {
            // Removed while still locked, then unlocked by closing it.
            let _ = fsops::remove(&self.lock);
        }
        self.lock_file = None;
    }
}

/// `flock(LOCK_EX | LOCK_NB)`: `Ok(true)` when locked, `Ok(false)` when another holds it,
/// an error when the file system has no such locks.
fn try_flock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor `file` owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// Whether `file` is the file now at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// What a lock file says of its holder (a few bytes of it, never more).
fn holder(lock: &Path) -> String {
    match crate::files::no_follow::read_text(lock, MAX_LOCK_BYTES) {
        Ok(text) if !text.trim().is_empty() => aeroplane_core::excerpt::excerpt(text.trim()),
        Ok(_) => "a process that has not written its name yet".into(),
        Err(e) => format!("unreadable lock file: {e}"),
    }
}

/// `pid 1234 on host node7`: this process, as its lock file says.
fn whoami() -> String {
    format!("pid {} on host {}\n", std::process::id(), hostname())
}

/// This machine's name.
pub(crate) fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if ok && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "unknown".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_name_is_a_plain_file_name_of_no_own_file() {
        for ok in ["games.jsonl.zst", "log.jsonl", "a b.jsonl"] {
            assert!(is_log_name(ok), "{ok}");
        }
        for bad in [
            "",
            "logs/games.jsonl",
            "..\\games.jsonl",
            ".games.jsonl",
            "games.csv",
            "games.csv.partial",
            "games.jsonl.partial",
        ] {
            assert!(!is_log_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_folder_with_results_is_refused_unless_forced() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("out");
        {
            let dir = OutputDir::create(&d, false).unwrap();
            dir.write("summary.csv", b"x\n").unwrap();
            // Without a job's record, `force` removes nothing: the file may be a user's.
            drop(dir);
            let e = OutputDir::create(&d, true).unwrap_err();
            assert!(matches!(e, OutDirError::NotOurs { .. }), "{e}");
            assert!(d.join("summary.csv").exists());
            let dir = OutputDir::create(&d, false).unwrap_err();
            assert!(matches!(dir, OutDirError::NotEmpty { .. }), "{dir}");
            let dir = OutputDir::reopen(&d).unwrap();
            dir.write("run.json", b"{\"tool\": \"aeroplane\"}\n")
                .unwrap();
            assert!(d.join(LOCK_FILE).exists());
            // A second writer is refused while the first holds the lock.
            let e = OutputDir::create(&d, true).unwrap_err();
            assert!(matches!(e, OutDirError::Locked { .. }), "{e}");
            assert!(
                e.to_string()
                    .contains(&format!("pid {} on host ", std::process::id())),
                "{e}"
            );
        }
        assert!(!d.join(LOCK_FILE).exists());
        assert!(!SPARES.iter().any(|s| d.join(s).exists()), "spares go");
        std::fs::write(d.join("notes.txt"), "mine").unwrap();
        let e = OutputDir::create(&d, false).unwrap_err();
        assert!(
            e.to_string().contains("summary.csv") && e.to_string().contains("the setting `force`"),
            "{e}"
        );
        let dir = OutputDir::create(&d, true).unwrap();
        assert!(!d.join("summary.csv").exists() && !d.join("run.json").exists());
        assert!(
            d.join("notes.txt").exists(),
            "--force removes only this tool's files"
        );
        assert!(dir.written().is_empty());
    }

    #[test]
    fn a_stale_lock_file_is_taken_without_a_race() {
        let tmp = tempfile::tempdir().unwrap();
        // A lock file left by a process that ended: nobody holds its lock.
        std::fs::write(tmp.path().join(LOCK_FILE), "pid 4294967294 on host gone\n").unwrap();
        assert!(OutputDir::create(tmp.path(), false).is_ok());
        // Many takers at once, again and again: never two holders at a time.
        let holders = std::sync::atomic::AtomicUsize::new(0);
        let wins = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..200 {
                        if let Ok(d) = OutputDir::reopen(tmp.path()) {
                            let now = holders.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            assert_eq!(now, 0, "two holders of one folder's lock");
                            wins.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            holders.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                            drop(d);
                        }
                    }
                });
            }
        });
        assert!(wins.into_inner() > 0);
    }

    #[test]
    fn the_lock_file_is_read_within_bounds_and_never_through_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", tmp.path().join(LOCK_FILE)).unwrap();
        let e = OutputDir::create(tmp.path(), false).unwrap_err();
        let mut text = e.to_string();
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            text.push_str(&format!(": {c}"));
            cause = c.source();
        }
        assert!(text.contains("symbolic link"), "{text}");
        // A fifo where the lock goes is refused at once.
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join(LOCK_FILE);
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(OutputDir::create(tmp.path(), false).is_err());
    }

    #[test]
    fn the_manifest_is_written_through_a_spare() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = OutputDir::create(tmp.path(), false).unwrap();
        assert!(SPARES.iter().all(|s| tmp.path().join(s).exists()));
        dir.write_manifest("run.json", b"{}\n").unwrap();
        assert_eq!(std::fs::read(tmp.path().join("run.json")).unwrap(), b"{}\n");
        assert!(
            SPARES.iter().all(|s| tmp.path().join(s).exists()),
            "made again"
        );
        assert!(!tmp.path().join(".run.json.tmp").exists());
    }

    /// The spares serve every job's status record, so their names speak of none (a solve
    /// folder held `.run.json.spare-1`: issue 31 item 26); those an older version left are
    /// removed when the folder is opened.
    #[test]
    fn spares_name_no_job_and_old_ones_go() {
        let tmp = tempfile::tempdir().unwrap();
        for old in OLD_SPARES {
            std::fs::write(tmp.path().join(old), b"").unwrap();
        }
        let dir = OutputDir::create(tmp.path(), false).unwrap();
        dir.write_manifest("solve.json", b"{}\n").unwrap();
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        let spares: Vec<&String> = names.iter().filter(|n| n.contains("spare")).collect();
        assert_eq!(spares.len(), 2, "{names:?}");
        assert!(names.iter().all(|n| !n.contains("run.json")), "{names:?}");
    }
}

//! An output directory that never holds a mix of runs or a file cut short.
//!
//! - A directory that already holds results of this tool is refused unless `force`, which
//!   first removes the files this tool writes (and nothing else).
//! - A lock file refuses a second writer while the first one runs.
//! - Every file is written under a temporary name and renamed into place when complete, so a
//!   crash or a full disk never leaves a table that looks finished; `games.csv` is streamed as
//!   `games.csv.partial` and renamed when the job is complete.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::ExportError;
use super::table::Table;

/// The lock file's name.
pub const LOCK_FILE: &str = ".aeroplane.lock";

/// Files (and suffixes) this tool writes into an output directory: what `--force` removes and
/// what makes a directory count as holding results.
pub const OWN_FILES: [&str; 18] = [
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
    "checkpoint",
    "report.html",
];

/// Why an output directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// It holds results of an earlier run.
    #[error(
        "output directory {dir} already holds results ({files}): {hint}choose another --out, or pass --force to replace them"
    )]
    NotEmpty {
        /// The directory.
        dir: String,
        /// The result files found.
        files: String,
        /// How to go on with an unfinished job found there.
        hint: String,
    },
    /// Another process writes into it.
    #[error(
        "output directory {dir} is in use by another aeroplane process (pid {pid}, lock file {lock}); wait for it, or remove the lock file if that process is gone"
    )]
    Locked {
        /// The directory.
        dir: String,
        /// The other writer.
        pid: String,
        /// The lock file.
        lock: String,
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
    #[error("--out {0} exists and is not a directory")]
    NotADirectory(String),
    /// A folder of results to add to does not exist.
    #[error("{0} is not a folder: give the --out folder of a run, sweep or league")]
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
    written: Mutex<Vec<&'static str>>,
}

impl OutputDir {
    /// Creates (or opens) `path` for a new job: refuses a directory holding results unless
    /// `force`, and takes the lock.
    pub fn create(path: &Path, force: bool) -> Result<OutputDir, OutDirError> {
        if path.exists() && !path.is_dir() {
            return Err(OutDirError::NotADirectory(path.display().to_string()));
        }
        std::fs::create_dir_all(path).map_err(|source| OutDirError::Create {
            dir: path.display().to_string(),
            source,
        })?;
        let dir = OutputDir::lock(path)?;
        let found: Vec<&str> = OWN_FILES
            .iter()
            .copied()
            .filter(|f| path.join(f).symlink_metadata().is_ok())
            .collect();
        if !found.is_empty() {
            if !force {
                let hint = if found.contains(&"checkpoint") {
                    format!(
                        "it holds an unfinished job: to finish it, run `aeroplane resume {}`; or ",
                        path.display()
                    )
                } else {
                    String::new()
                };
                return Err(OutDirError::NotEmpty {
                    dir: path.display().to_string(),
                    files: found.join(", "),
                    hint,
                });
            }
            for f in found {
                let p = path.join(f);
                std::fs::remove_file(&p).map_err(|e| ExportError::new(&p, e))?;
            }
        }
        Ok(dir)
    }

    /// Opens the directory of an earlier job to go on with it (a resume): takes the lock and
    /// keeps every file.
    pub fn reopen(path: &Path) -> Result<OutputDir, OutDirError> {
        if !path.is_dir() {
            return Err(OutDirError::NotADirectory(path.display().to_string()));
        }
        OutputDir::lock(path)
    }

    /// Opens a folder that already holds a job's results to add a file to it (a report):
    /// takes the lock, so a job still writing there is not read half-way, and removes nothing.
    pub fn open_existing(path: &Path) -> Result<OutputDir, OutDirError> {
        if !path.is_dir() {
            return Err(OutDirError::NoFolder(path.display().to_string()));
        }
        OutputDir::lock(path)
    }

    /// Removes one of this tool's files (the checkpoint of a finished job).
    pub fn remove(&self, name: &str) -> Result<(), ExportError> {
        let p = self.file(name);
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(ExportError::new(&p, e)),
            _ => Ok(()),
        }
    }

    /// Takes the directory's lock (a file holding this process's id); a lock left by a process
    /// that no longer runs is taken over.
    fn lock(path: &Path) -> Result<OutputDir, OutDirError> {
        let lock = path.join(LOCK_FILE);
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&lock) {
                Ok(mut f) => {
                    writeln!(f, "{}", std::process::id())
                        .map_err(|e| ExportError::new(&lock, e))?;
                    return Ok(OutputDir {
                        path: path.to_path_buf(),
                        lock,
                        written: Mutex::new(Vec::new()),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let pid = std::fs::read_to_string(&lock).unwrap_or_default();
                    let pid = pid.trim().to_string();
                    if process_is_gone(&pid) {
                        let _ = std::fs::remove_file(&lock);
                        continue;
                    }
                    return Err(OutDirError::Locked {
                        dir: path.display().to_string(),
                        pid,
                        lock: lock.display().to_string(),
                    });
                }
                Err(e) => return Err(ExportError::new(&lock, e).into()),
            }
        }
        Err(OutDirError::Locked {
            dir: path.display().to_string(),
            pid: "unknown".into(),
            lock: lock.display().to_string(),
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

    /// Writes `name` completely under a temporary name, then renames it into place.
    pub fn write(&self, name: &'static str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.file(name);
        let tmp = self.file(&format!(".{name}.tmp"));
        let write = || -> std::io::Result<()> {
            // The temporary name is this tool's: whatever a crash (or anyone) left there goes.
            match std::fs::remove_file(&tmp) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            let mut f = super::no_follow::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            ExportError::new(&path, e)
        })?;
        self.note(name);
        Ok(())
    }

    /// Writes a table as CSV.
    pub fn write_table(&self, table: &Table) -> Result<(), ExportError> {
        self.write(table.file, &table.to_csv())
    }

    /// Writes a value as pretty JSON with a final newline.
    pub fn write_json(
        &self,
        name: &'static str,
        value: &impl serde::Serialize,
    ) -> Result<(), ExportError> {
        let mut text = serde_json::to_string_pretty(value).map_err(|e| {
            ExportError::new(&self.file(name), std::io::Error::other(e.to_string()))
        })?;
        text.push('\n');
        self.write(name, text.as_bytes())
    }

    /// Renames a streamed file from its temporary name into place (a finished `games.csv`).
    pub fn finish_stream(&self, partial: &str, name: &'static str) -> Result<(), ExportError> {
        let path = self.file(name);
        std::fs::rename(self.file(partial), &path).map_err(|e| ExportError::new(&path, e))?;
        self.note(name);
        Ok(())
    }

    fn note(&self, name: &'static str) {
        let mut w = self.written.lock().expect("lock");
        if !w.contains(&name) {
            w.push(name);
        }
    }

    /// The files written so far, in the order first written.
    pub fn written(&self) -> Vec<&'static str> {
        self.written.lock().expect("lock").clone()
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.lock);
    }
}

/// Whether the process a lock file names has ended (Linux: no `/proc/PID`; elsewhere a lock is
/// never taken over).
fn process_is_gone(pid: &str) -> bool {
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    if pid == std::process::id() {
        return false;
    }
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_with_results_is_refused_unless_forced() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("out");
        {
            let dir = OutputDir::create(&d, false).unwrap();
            dir.write("summary.csv", b"x\n").unwrap();
            assert!(d.join(LOCK_FILE).exists());
            // A second writer is refused while the first holds the lock.
            let e = OutputDir::create(&d, true).unwrap_err();
            assert!(matches!(e, OutDirError::Locked { .. }), "{e}");
        }
        assert!(!d.join(LOCK_FILE).exists());
        std::fs::write(d.join("notes.txt"), "mine").unwrap();
        let e = OutputDir::create(&d, false).unwrap_err();
        assert!(
            e.to_string().contains("summary.csv") && e.to_string().contains("--force"),
            "{e}"
        );
        let dir = OutputDir::create(&d, true).unwrap();
        assert!(!d.join("summary.csv").exists());
        assert!(
            d.join("notes.txt").exists(),
            "--force removes only this tool's files"
        );
        assert!(dir.written().is_empty());
    }

    #[test]
    fn a_stale_lock_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(LOCK_FILE), "4294967294\n").unwrap();
        assert!(OutputDir::create(tmp.path(), false).is_ok());
    }
}

//! Every file-system step of an output folder in one place: creating, writing, syncing,
//! renaming and removing files. Each step is counted, so the crash-point tests can stop the
//! process at any one of them (as `kill -9`, an OOM kill or a power cut would), or make it and
//! every later step that needs disk space fail as a full disk does.
//!
//! The test hook is the environment variable `AEROPLANE_TEST_FAULT`:
//! - `kill@N`: the process kills itself (`SIGKILL`) just before step `N` (1-based);
//! - `enospc@N`: step `N` and every later step that takes space (creating a file, writing to
//!   one) fail with `ENOSPC` ("No space left on device"); renames, removals, syncs and writes
//!   into space reserved earlier (the manifest's spares) still succeed, as on a full disk;
//! - with `AEROPLANE_TEST_FAULT_LOG=FILE` every step is appended to `FILE` as one line
//!   (`N kind name`), so a test can count the steps of a job and name the one it stopped at.
//!
//! While the hook is set, the checkpoint is synced after every unit rather than on a timer, so
//! a job's steps are the same in every run.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What a step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Creates (or truncates) a file.
    Create,
    /// Writes bytes that take new space.
    Write,
    /// Writes bytes into space the file already holds.
    Overwrite,
    /// Changes a file's length.
    Truncate,
    /// Syncs a file's data to the disk.
    Sync,
    /// Renames a file.
    Rename,
    /// Removes a file.
    Remove,
    /// Syncs a folder (its names) to the disk.
    SyncDir,
    /// Creates a folder.
    MakeDir,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Create => "create",
            Step::Write => "write",
            Step::Overwrite => "overwrite",
            Step::Truncate => "truncate",
            Step::Sync => "sync",
            Step::Rename => "rename",
            Step::Remove => "remove",
            Step::SyncDir => "sync-dir",
            Step::MakeDir => "mkdir",
        }
    }

    /// Whether the step takes disk space (fails on a full disk).
    fn allocates(self) -> bool {
        matches!(self, Step::Create | Step::Write | Step::MakeDir)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Kill(u64),
    NoSpace(u64),
}

struct Hook {
    fault: Option<Fault>,
    log: Option<std::path::PathBuf>,
}

fn hook() -> &'static Option<Hook> {
    static HOOK: OnceLock<Option<Hook>> = OnceLock::new();
    HOOK.get_or_init(|| {
        let spec = std::env::var("AEROPLANE_TEST_FAULT").ok();
        let log = std::env::var_os("AEROPLANE_TEST_FAULT_LOG").map(Into::into);
        if spec.is_none() && log.is_none() {
            return None;
        }
        let fault = spec.as_deref().and_then(|s| {
            let (kind, n) = s.split_once('@')?;
            let n: u64 = n.trim().parse().ok()?;
            match kind {
                "kill" => Some(Fault::Kill(n)),
                "enospc" => Some(Fault::NoSpace(n)),
                _ => None,
            }
        });
        Some(Hook { fault, log })
    })
}

/// Whether the crash-point test hook is on (then syncs follow every unit, not a timer).
pub(crate) fn testing() -> bool {
    hook().is_some()
}

static STEPS: AtomicU64 = AtomicU64::new(0);
static DISK_FULL: AtomicBool = AtomicBool::new(false);

/// Counts one step on `path`; with the test hook, stops the process or fails as a full disk.
pub(crate) fn step(kind: Step, path: &Path) -> io::Result<()> {
    let Some(h) = hook() else {
        return Ok(());
    };
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(log) = &h.log {
        let name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{n} {} {name}", kind.name());
        }
    }
    match h.fault {
        Some(Fault::Kill(at)) if n == at => {
            // SAFETY: raise has no memory effects; SIGKILL ends the process here.
            unsafe {
                libc::raise(libc::SIGKILL);
            }
        }
        Some(Fault::NoSpace(at)) if n >= at => {
            DISK_FULL.store(true, Ordering::SeqCst);
        }
        _ => {}
    }
    if kind.allocates() && DISK_FULL.load(Ordering::SeqCst) {
        return Err(io::Error::from_raw_os_error(libc::ENOSPC));
    }
    Ok(())
}

/// Creates (or truncates) `path` for writing, never through a symbolic link.
pub(crate) fn create(path: &Path) -> io::Result<File> {
    step(Step::Create, path)?;
    super::no_follow::create(path)
}

/// Creates `path`, which must not exist, for writing.
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    step(Step::Create, path)?;
    super::no_follow::create_new(path)
}

/// Writes all of `bytes` to `file` (named `path`).
pub(crate) fn write_all(file: &mut File, path: &Path, bytes: &[u8]) -> io::Result<()> {
    step(Step::Write, path)?;
    file.write_all(bytes)
}

/// Writes `bytes` at the start of `file`, over space it already holds (a spare).
pub(crate) fn overwrite(file: &File, path: &Path, bytes: &[u8]) -> io::Result<()> {
    step(Step::Overwrite, path)?;
    std::os::unix::fs::FileExt::write_all_at(file, bytes, 0)
}

/// Cuts `file` (named `path`) to `len` bytes.
pub(crate) fn set_len(file: &File, path: &Path, len: u64) -> io::Result<()> {
    step(Step::Truncate, path)?;
    file.set_len(len)
}

/// Syncs `file`'s data and length to the disk.
pub(crate) fn sync(file: &File, path: &Path) -> io::Result<()> {
    step(Step::Sync, path)?;
    file.sync_all()
}

/// Renames `from` to `to`, replacing it if it is a regular file; anything else there (a fifo,
/// a device node, a folder, a link) is refused and left as it is.
pub(crate) fn rename(from: &Path, to: &Path) -> io::Result<()> {
    super::no_follow::replaceable(to)?;
    step(Step::Rename, to)?;
    std::fs::rename(from, to)
}

/// Removes `path`; a file that is not there is not an error.
pub(crate) fn remove(path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    step(Step::Remove, path)?;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Syncs a folder, so the renames and removals in it reach the disk in order.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    step(Step::SyncDir, dir)?;
    File::open(dir)?.sync_all()
}

/// Creates a folder and its parents.
pub(crate) fn make_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    step(Step::MakeDir, dir)?;
    std::fs::create_dir_all(dir)
}

/// Writes a whole file: under a temporary name beside it (`.NAME.tmp`), synced, then renamed
/// onto `path`, so `path` is either what it was or complete. Never through a link, and never
/// over anything but a regular file.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let tmp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    // Checked before anything is written, and again by the rename.
    super::no_follow::replaceable(path)?;
    let write = || -> io::Result<()> {
        remove(&tmp)?;
        let mut f = create(&tmp)?;
        write_all(&mut f, &tmp, bytes)?;
        sync(&f, &tmp)?;
        rename(&tmp, path)
    };
    write().inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// A file whose writes are steps (for buffered writers of streamed files).
#[derive(Debug)]
pub(crate) struct StepFile {
    pub file: File,
    pub path: std::path::PathBuf,
}

impl Write for StepFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        step(Step::Write, &self.path)?;
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

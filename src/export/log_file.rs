//! A decision log being written into an output folder (`run --log-games`): streamed like
//! `games.csv` under `NAME.partial`, one unit's bytes at a time, each unit's end and checksum
//! kept in its checkpoint record, synced before the checkpoint, renamed to `NAME` when the job
//! is complete. The bytes themselves are made by [`crate::decision_log`].

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{ExportError, RowsAt};
use crate::files::fsops::{self, StepFile};

/// An open `NAME.partial`, appended to unit by unit.
#[derive(Debug)]
pub struct LogFile {
    out: StepFile,
    len: u64,
}

impl LogFile {
    /// The name a log `name` has while its job runs.
    pub fn partial(name: &str) -> String {
        format!("{name}.partial")
    }

    /// Creates `path` holding `header` (the log's first bytes).
    pub fn create(path: &Path, header: &[u8]) -> Result<LogFile, ExportError> {
        let err = |e| ExportError::new(path, e);
        let mut file = fsops::create(path).map_err(err)?;
        fsops::write_all(&mut file, path, header).map_err(err)?;
        Ok(LogFile {
            out: StepFile {
                file,
                path: path.to_path_buf(),
            },
            len: header.len() as u64,
        })
    }

    /// Opens `path` to go on after its first `len` bytes (what the checkpoint kept), cutting
    /// off anything after them.
    pub fn reopen(path: &Path, len: u64) -> Result<LogFile, ExportError> {
        let err = |e| ExportError::new(path, e);
        let file: File = crate::files::no_follow::append(path).map_err(err)?;
        let have = file
            .metadata()
            .map_err(|e| ExportError::read(path, e))?
            .len();
        if have < len {
            return Err(err(std::io::Error::other(format!(
                "shorter than the {len} bytes the checkpoint says were written"
            ))));
        }
        fsops::set_len(&file, path, len).map_err(err)?;
        Ok(LogFile {
            out: StepFile {
                file,
                path: path.to_path_buf(),
            },
            len,
        })
    }

    /// Appends a unit's bytes: where they end and their checksum.
    pub fn append(&mut self, bytes: &[u8]) -> Result<RowsAt, ExportError> {
        self.out
            .write_all(bytes)
            .map_err(|e| ExportError::new(&self.out.path, e))?;
        self.len += bytes.len() as u64;
        Ok(RowsAt {
            end: self.len,
            fnv: super::fnv1a(bytes),
        })
    }

    /// Syncs the bytes written to the disk.
    pub fn sync(&mut self) -> Result<(), ExportError> {
        fsops::sync(&self.out.file, &self.out.path).map_err(|e| ExportError::new(&self.out.path, e))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.out.path
    }

    /// Syncs and closes the file (the caller renames it into place).
    pub fn finish(mut self) -> Result<PathBuf, ExportError> {
        self.sync()?;
        Ok(self.out.path)
    }
}

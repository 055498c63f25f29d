//! Opening output files without following symbolic links: a link planted in a results folder
//! (`summary.csv -> ~/.bashrc`) must not make a run overwrite the file it points to.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The error for a symbolic link where an output file goes.
fn link_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "it is a symbolic link: output is never written through a link (remove the link, or \
         choose another --out)",
    )
}

/// Refuses `path` if it is a symbolic link (a clear message; the `O_NOFOLLOW` flag below
/// covers a link made after this check).
fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(link_error()),
        _ => Ok(()),
    }
}

fn no_follow(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    refuse_link(path)?;
    options
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                link_error()
            } else {
                e
            }
        })
}

/// Creates (or truncates) `path` for writing, unless it is a symbolic link.
pub(crate) fn create(path: &Path) -> io::Result<File> {
    no_follow(
        OpenOptions::new().write(true).create(true).truncate(true),
        path,
    )
}

/// Opens an existing `path` to append to it, unless it is a symbolic link.
pub(crate) fn append(path: &Path) -> io::Result<File> {
    no_follow(OpenOptions::new().append(true), path)
}

/// Writes a whole file: under a temporary name beside it (`.NAME.tmp`), synced, then renamed
/// onto `path`, so `path` is either what it was or complete. Never through a link.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let tmp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    refuse_link(path)?;
    let write = || -> io::Result<()> {
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut f = create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_refused_and_their_targets_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("summary.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for e in [create(&link).unwrap_err(), append(&link).unwrap_err()] {
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        let plain = dir.path().join("plain.csv");
        std::io::Write::write_all(&mut create(&plain).unwrap(), b"a").unwrap();
        std::io::Write::write_all(&mut append(&plain).unwrap(), b"b").unwrap();
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), "ab");
    }
}

//! Opening the files of a results folder safely: never through a symbolic link (a link planted
//! in a folder, `summary.csv -> ~/.bashrc`, must not make a run overwrite the file it points
//! to), and never anything but a regular file. Every open is non-blocking, so a fifo planted
//! at a name the tool reads or writes (`run.json`, `checkpoint`, the lock) is refused at once
//! instead of hanging the process; the flag is cleared on the regular file that is opened.

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
pub(crate) fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(link_error()),
        _ => Ok(()),
    }
}

fn no_follow(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    refuse_link(path)?;
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => link_error(),
            // A fifo opened for writing without a reader.
            Some(libc::ENXIO) => not_regular("a fifo"),
            _ => e,
        })?;
    regular(file)
}

fn not_regular(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "it is {what}, not a regular file: this tool reads and writes only regular files \
             (remove it, or choose another name)"
        ),
    )
}

/// What a file type is, in words, when it is not a regular file.
fn kind_of(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a folder")
    } else if t.is_fifo() {
        Some("a fifo")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("something else")
    }
}

/// Refuses to replace `path` (by a rename onto it) unless nothing is there or it is a regular
/// file: a fifo, device node, socket, folder or symbolic link planted where an output goes
/// is never replaced (nor written through).
pub(crate) fn replaceable(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(link_error()),
        Ok(m) => match kind_of(m.file_type()) {
            Some(what) => Err(not_regular(what)),
            None => Ok(()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates the folder `path` (and its parents) unless it is a folder already; a symbolic link
/// or anything else at `path` is refused, so the files made in it (bot programs' logs in
/// `DIR/logs/`) are never written through a link planted in a results folder.
pub(crate) fn make_dir(path: &Path) -> io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::create_dir(path) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let m = std::fs::symlink_metadata(path)?;
    if m.file_type().is_symlink() {
        Err(link_error())
    } else if !m.is_dir() {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "it is {}, not a folder",
                kind_of(m.file_type()).unwrap_or("a file")
            ),
        ))
    } else {
        Ok(())
    }
}

/// `file` if it is a regular file, in blocking mode.
fn regular(file: File) -> io::Result<File> {
    if let Some(what) = kind_of(file.metadata()?.file_type()) {
        return Err(not_regular(what));
    }
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on the descriptor `file` owns.
    unsafe {
        let fd = file.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(file)
}

/// Creates (or truncates) `path` for writing, unless it is a symbolic link or not a regular
/// file.
pub(crate) fn create(path: &Path) -> io::Result<File> {
    // Not truncated by `open`: a fifo or device there is refused before anything is cut.
    let file = no_follow(OpenOptions::new().write(true).create(true), path)?;
    file.set_len(0)?;
    Ok(file)
}

/// Creates `path`, which must not exist yet, for writing.
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    no_follow(OpenOptions::new().write(true).create_new(true), path)
}

/// Opens an existing `path` to append to it, unless it is a symbolic link or not a regular
/// file.
pub(crate) fn append(path: &Path) -> io::Result<File> {
    no_follow(OpenOptions::new().append(true), path)
}

/// Opens an existing regular file `path` to read it (never blocks on a fifo, never follows a
/// link).
pub(crate) fn read(path: &Path) -> io::Result<File> {
    no_follow(OpenOptions::new().read(true), path)
}

/// Opens an existing regular file `path` to read and write it in place.
pub(crate) fn read_write(path: &Path) -> io::Result<File> {
    no_follow(OpenOptions::new().read(true).write(true), path)
}

/// Reads a whole regular file of at most `limit` bytes as UTF-8 text (a folder's own small
/// files: the lock, run.json, summary.json).
pub(crate) fn read_text(path: &Path, limit: u64) -> io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    read(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "larger than the {} this file can be",
                crate::files::human_bytes(limit)
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
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

    #[test]
    fn fifos_and_devices_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("run.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Each of these would block for ever on a fifo without a writer or reader.
        for e in [
            read(&fifo).unwrap_err(),
            create(&fifo).unwrap_err(),
            append(&fifo).unwrap_err(),
            read_write(&fifo).unwrap_err(),
            read_text(&fifo, 10).unwrap_err(),
        ] {
            assert!(e.to_string().contains("a fifo, not a regular file"), "{e}");
        }
        let e = read(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");
        let e = read(dir.path()).unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
        let big = dir.path().join("big");
        std::fs::write(&big, "x".repeat(11)).unwrap();
        assert!(read_text(&big, 10).is_err());
        assert_eq!(read_text(&big, 11).unwrap().len(), 11);
    }
}

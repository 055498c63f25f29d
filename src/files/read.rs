//! Reading input files within bounds: a size limit on every file read whole, and short
//! excerpts of bad input in error messages.
//!
//! A config, rules file, profile or manifest is a few kilobytes; a file larger than
//! [`MAX_TEXT_BYTES`] (`/dev/zero`, a log named by mistake) is refused after reading at most
//! that much, so a wrong path costs bounded time and memory instead of all of both. Errors
//! quote input through [`aeroplane_core::excerpt`].

use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// The most bytes read from a text input file (rules, profile, run or sweep config,
/// manifest): 4 MiB.
pub const MAX_TEXT_BYTES: u64 = 4 << 20;

/// Opens an input file to read it (streamed: dice lists, decision logs, value tables): never
/// blocks on a fifo, and refuses what cannot be a file's contents. A folder is an error of
/// kind [`io::ErrorKind::IsADirectory`]; a fifo or a socket is refused at once (opening one
/// would wait for a writer for ever, and its bytes could not be read again); devices are
/// opened (a limit on what is read from them is the caller's).
pub fn open_input(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking: a fifo is refused below instead of hanging the open.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a folder, not a file",
        ));
    }
    if meta.file_type().is_fifo() || meta.file_type().is_socket() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a fifo or a socket, not a file",
        ));
    }
    // Reads of a regular file or a device never block; clear the flag anyway.
    // SAFETY: fcntl on the descriptor `file` owns.
    unsafe {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok(file)
}

/// Reads a UTF-8 text file of at most `limit` bytes. Larger files (and endless ones, such as
/// devices) are an error of kind [`io::ErrorKind::FileTooLarge`] after reading `limit + 1`
/// bytes; so are folders (the operating system's error) and text that is not UTF-8.
pub fn read_text_limited(path: &Path, limit: u64) -> io::Result<String> {
    let file = open_input(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "larger than the {} allowed for this file (is it the right file?)",
                human_bytes(limit)
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (byte {} is not part of a UTF-8 character)",
                e.utf8_error().valid_up_to() + 1
            ),
        )
    })
}

/// Reads a text input file of at most [`MAX_TEXT_BYTES`].
pub fn read_text(path: &Path) -> io::Result<String> {
    read_text_limited(path, MAX_TEXT_BYTES)
}

/// `4 MiB`, `512 KiB`, `100 bytes`.
pub fn human_bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

/// Whether `path` names a regular file (following symbolic links), and if it exists but is
/// not one, what it is instead: `a folder`, `a fifo`, `a device`, `a socket`.
pub fn not_a_file(path: &Path) -> Option<&'static str> {
    let meta = std::fs::metadata(path).ok()?;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a folder")
    } else if t.is_fifo() {
        Some("a fifo")
    } else if t.is_block_device() || t.is_char_device() {
        Some("a device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_sizes_folders_and_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.toml");
        std::fs::write(&p, "x = 1\n").unwrap();
        assert_eq!(read_text_limited(&p, 6).unwrap(), "x = 1\n");
        let e = read_text_limited(&p, 5).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            e.to_string(),
            "larger than the 5 bytes allowed for this file (is it the right file?)"
        );
        // An endless device stops at the limit.
        let e = read_text(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("4 MiB"), "{e}");
        let e = read_text(dir.path()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
        std::fs::write(&p, b"ok\xff").unwrap();
        let e = read_text(&p).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not UTF-8 text (byte 3 is not part of a UTF-8 character)"
        );
        assert_eq!(not_a_file(&p), None);
        assert_eq!(not_a_file(dir.path()), Some("a folder"));
        assert_eq!(not_a_file(Path::new("/dev/null")), Some("a device"));
        assert_eq!(not_a_file(&dir.path().join("missing")), None);
        // A fifo without a writer is refused at once, not waited on.
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_text(&fifo).unwrap_err();
        assert!(e.to_string().contains("fifo"), "{e}");
    }
}

//! The browser page (`web/`: play against the bots, the engine and the bots in WebAssembly),
//! written by the binary with no toolchain. The page is one self-contained HTML file, the same
//! bytes `web/build.sh` writes as `target/web/aeroplane.html`: `web/page/index.html` with the
//! viewer's stylesheet, the page's stylesheet and script, and the bound WebAssembly module and
//! its JavaScript glue (`web/dist/`, committed, built reproducibly by
//! `web/build.sh --dist`; the module as base64), all compiled into this crate.

use std::io;
use std::path::{Path, PathBuf};

const INDEX_HTML: &str = include_str!("../web/page/index.html");
const VIEWER_CSS: &str = include_str!("viewer/viewer.css");
const PAGE_CSS: &str = include_str!("../web/page/page.css");
const PAGE_JS: &str = include_str!("../web/page/page.js");
const BINDGEN_JS: &str = include_str!("../web/dist/aeroplane_web.js");
const WASM: &[u8] = include_bytes!("../web/dist/aeroplane_web_bg.wasm");

/// The placeholders of `web/page/index.html` and what replaces each, in the order
/// `web/build.sh` replaces them (each is replaced in the text the ones before it left).
fn parts() -> [(&'static str, String); 5] {
    [
        ("@@VIEWER_CSS@@", VIEWER_CSS.to_string()),
        ("@@PAGE_CSS@@", PAGE_CSS.to_string()),
        ("@@BINDGEN_JS@@", BINDGEN_JS.to_string()),
        ("@@WASM_BASE64@@", base64(WASM)),
        ("@@PAGE_JS@@", PAGE_JS.to_string()),
    ]
}

/// The page: one HTML file that plays from `file://` with no network.
pub fn html() -> String {
    let mut html = INDEX_HTML.to_string();
    for (key, text) in parts() {
        html = html.replace(key, &text);
    }
    html
}

/// Standard base64 with padding (RFC 4648), as Python's `base64.b64encode`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Why the page could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The path is a folder.
    #[error("{} is a folder: the page is one file (name one, such as {})", .0.display(), .0.join("aeroplane.html").display())]
    Folder(PathBuf),
    /// The folder the page would go in does not exist, or is not a folder.
    #[error("cannot write the page to {}: {} {what}", .path.display(), .folder.display())]
    NoFolder {
        /// The path asked for.
        path: PathBuf,
        /// Its parent folder.
        folder: PathBuf,
        /// `does not exist` or `is not a folder`.
        what: &'static str,
    },
    /// Any other failure to write it (no permission, a full disk, a link or a fifo there).
    #[error("cannot write the page to {}: {source}", .path.display())]
    Write {
        /// The path asked for.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

/// Writes [`html`] to `path`, whole or not at all (under a temporary name beside it, then
/// renamed), never through a symbolic link nor over anything but a regular file. Returns the
/// bytes written.
pub fn write(path: &Path) -> Result<usize, PageError> {
    if path.is_dir() {
        return Err(PageError::Folder(path.to_path_buf()));
    }
    let folder = match path.parent() {
        Some(p) if p.as_os_str().is_empty() => Path::new("."),
        Some(p) => p,
        None => return Err(PageError::Folder(path.to_path_buf())),
    };
    if !folder.is_dir() {
        return Err(PageError::NoFolder {
            path: path.to_path_buf(),
            folder: folder.to_path_buf(),
            what: if folder.exists() {
                "is not a folder"
            } else {
                "does not exist"
            },
        });
    }
    let html = html();
    crate::files::write_whole(path, html.as_bytes()).map_err(|source| PageError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(html.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        // RFC 4648, section 10.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in cases {
            assert_eq!(base64(plain.as_bytes()), coded, "{plain:?}");
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    }

    #[test]
    fn every_placeholder_once_and_no_script_end_in_a_script() {
        let mut html = INDEX_HTML.to_string();
        for (key, text) in parts() {
            assert_eq!(html.matches(key).count(), 1, "{key} in web/page/index.html");
            if key.ends_with("JS@@") {
                assert!(!text.to_lowercase().contains("</script"), "{key}");
            }
            html = html.replace(key, &text);
        }
        assert!(!html.contains("@@"), "a placeholder is left");
        assert_eq!(html, super::html());
    }

    #[test]
    fn the_page_holds_the_module_and_its_glue() {
        let html = html();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains(&base64(WASM)));
        assert!(html.contains(BINDGEN_JS));
        // The module is WebAssembly: its magic number and version 1.
        assert_eq!(&WASM[..8], b"\0asm\x01\0\0\0");
        assert!(html.len() > WASM.len() * 4 / 3);
    }

    #[test]
    fn write_refuses_a_folder_and_a_missing_folder_and_writes_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let e = write(dir.path()).unwrap_err();
        assert!(matches!(e, PageError::Folder(_)), "{e}");
        assert!(e.to_string().contains("is a folder"), "{e}");
        let missing = dir.path().join("no/such/page.html");
        let e = write(&missing).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        // A path through a regular file.
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let e = write(&file.join("page.html")).unwrap_err();
        assert!(e.to_string().contains("file is not a folder"), "{e}");

        let page = dir.path().join("aeroplane.html");
        std::fs::write(&page, "old").unwrap();
        let n = write(&page).unwrap();
        let written = std::fs::read_to_string(&page).unwrap();
        assert_eq!(written.len(), n);
        assert_eq!(written, html());
        // No temporary file left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn write_never_follows_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("aeroplane.html");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write(&link).unwrap_err();
        assert!(matches!(e, PageError::Write { .. }), "{e}");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }
}

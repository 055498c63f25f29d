//! Writing the browser page (`aeroplane::page`): the CLI side of `aeroplane play --page FILE`
//! (`play.rs` calls [`write_page`] when `--page` is given).

use std::io::{IsTerminal, Write};
use std::path::Path;

use anyhow::{Context, bail};

/// Writes the page to `path` (whole, or nothing: a temporary name, then a rename), or to
/// standard output for `-` unless it is a terminal, and says where on stderr.
pub fn write_page(path: &Path) -> anyhow::Result<()> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        if out.is_terminal() {
            bail!(
                "--page -: standard output is a terminal, and the page is megabytes of HTML: \
                 redirect it (--page - > aeroplane.html) or name a file (--page aeroplane.html)"
            );
        }
        out.write_all(aeroplane::page::html().as_bytes())
            .and_then(|()| out.flush())
            .context("cannot write --page - to standard output")?;
        return Ok(());
    }
    let bytes = aeroplane::page::write(path)?;
    say!(
        "wrote {} ({bytes} bytes): open it in a browser to play against the bots (it needs no \
         network)",
        path.display()
    );
    Ok(())
}

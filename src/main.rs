//! The `aeroplane` command line: thin glue over the library.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Orphans of bot programs (children that left their process group and outlived it) come
    // back to this process, which kills and reaps them: no bot process outlives a job.
    aeroplane::bots::external::process::adopt_orphans();
    let code = run();
    aeroplane::bots::external::process::reap_orphans();
    code
}

fn run() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            // A message can quote input: never more than a screenful of it, nor an escape
            // sequence the terminal would obey.
            let message =
                aeroplane::excerpt::clip_lines(&cli::words::as_flags(&format!("{err:#}")), 1000);
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "error: {message}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        let kind = e
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            // serde_json wraps the IO error and does not expose it as a source.
            .or_else(|| e.downcast_ref::<serde_json::Error>()?.io_error_kind());
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

//! Clean stops: SIGINT (Ctrl-C), SIGTERM, SIGHUP (the terminal closed) and SIGUSR1 (what Slurm
//! sends before a time limit with `--signal`) set one flag that running jobs poll; the job
//! keeps every finished game (its whole units in the checkpoint, the others in
//! `checkpoint.games`), marks its run.json `interrupted` and says how to resume. The games in
//! flight end: a built-in bot's game is played to its end and kept, while waits on bot programs
//! give up at once ([`request_stop`]: that game is played again on resume) and the bots are
//! closed as usual.
//!
//! A second SIGINT, SIGTERM or SIGHUP (an impatient Ctrl-C, or GNU `timeout`, which signals
//! the process and its group) kills every bot program at once ([`stop_all`]), for a bot that
//! does not take its `quit`; the job still records its status, reaps every bot and exits as
//! after the first. Only SIGKILL ends the process without that.

use std::sync::atomic::{AtomicBool, Ordering};

use aeroplane::bots::external::process::{any_running, request_stop, stop_all};

static FLAG: AtomicBool = AtomicBool::new(false);

/// What the first Ctrl-C says on a terminal (written by the handler with one `write`), with
/// bot programs running.
const FIRST: &[u8] =
    b"\nstopping: every finished game is kept (press Ctrl-C again to kill bot programs at once)\n";
/// The same without a bot program: a second Ctrl-C would change nothing.
const FIRST_NO_PROGRAMS: &[u8] = b"\nstopping: every finished game is kept\n";

/// What the first Ctrl-C says, as bot programs run or not.
fn first_message(programs: bool) -> &'static [u8] {
    if programs { FIRST } else { FIRST_NO_PROGRAMS }
}

/// The flag, registered for the signals on first use.
pub fn interrupt_flag() -> &'static AtomicBool {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1};
        use std::io::IsTerminal as _;
        let terminal = std::io::stderr().is_terminal();
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] {
            // SAFETY: the action only touches atomics, calls `stop_all`, which is
            // async-signal-safe (atomics and kill), and `write`s a static message.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    let again = FLAG.swap(true, Ordering::SeqCst);
                    if again && sig != SIGUSR1 {
                        stop_all();
                    } else {
                        request_stop();
                        if !again && sig == SIGINT && terminal {
                            let text = first_message(any_running());
                            libc::write(2, text.as_ptr().cast(), text.len());
                        }
                    }
                })
            };
        }
    });
    &FLAG
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 31, item 24: the first Ctrl-C offers to kill bot programs only when there are some.
    #[test]
    fn the_first_ctrl_c_mentions_bot_programs_only_when_there_are_some() {
        let none = String::from_utf8_lossy(first_message(false));
        assert!(!none.contains("bot programs"), "{none}");
        assert!(String::from_utf8_lossy(first_message(true)).contains("kill bot programs"));
        assert!(!any_running());
    }
}

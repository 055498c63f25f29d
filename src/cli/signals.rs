//! Clean stops: SIGINT (Ctrl-C), SIGTERM and SIGUSR1 (what Slurm sends before a time limit
//! with `--signal`) set one flag that running jobs poll; the job keeps its finished units and
//! says how to resume. A second SIGINT or SIGTERM ends the process at once.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

/// The flag, registered for the signals on first use.
pub fn interrupt_flag() -> &'static AtomicBool {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};
            for sig in [SIGINT, SIGTERM] {
                // The second signal, with the flag already set, exits at once.
                let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone());
                let _ = signal_hook::flag::register(sig, flag.clone());
            }
            let _ = signal_hook::flag::register(SIGUSR1, flag.clone());
        }
        flag
    })
}

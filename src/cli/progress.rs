//! The progress display: workers bump a shared counter per finished game; a timer thread
//! draws it, so the hot path pays one relaxed atomic add per game and nothing for drawing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A progress bar over a job's games, read from [`Progress::counter`] on a timer.
pub struct Progress {
    counter: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    bar: ProgressBar,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    /// A bar over `total` games (hidden with `quiet`).
    pub fn new(total: u64, quiet: bool) -> Progress {
        let counter = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let bar =
            if quiet {
                ProgressBar::hidden()
            } else {
                let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
                bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {human_pos}/{human_len} games  {rate}  elapsed {elapsed}  ETA {eta}",
                )
                .expect("valid template")
                .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{} games/s", HumanCount(s.per_sec() as u64));
                }),
            );
                bar
            };
        let ticker = (!quiet).then(|| {
            let (counter, done, bar) = (counter.clone(), done.clone(), bar.clone());
            std::thread::spawn(move || {
                let mut first = true;
                while !done.load(Ordering::Relaxed) {
                    let at = counter.load(Ordering::Relaxed);
                    bar.set_position(at);
                    if first && at > 0 {
                        // A resume starts from the games already done: the rate and ETA are
                        // those of what is left.
                        bar.reset_eta();
                        first = false;
                    }
                    std::thread::park_timeout(Duration::from_millis(100));
                }
            })
        });
        Progress {
            counter,
            done,
            bar,
            ticker,
        }
    }

    /// The counter workers add finished games to.
    pub fn counter(&self) -> &AtomicU64 {
        &self.counter
    }

    /// Prints a line on stderr above the bar (the bar is redrawn after it).
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    /// Stops the timer and clears the bar.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

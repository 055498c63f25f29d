//! The progress display: workers bump a shared counter per finished game; a timer thread
//! draws it, so the hot path pays one relaxed atomic add per game and nothing for drawing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// When a job that is still running states what it will cost.
const ESTIMATE_AFTER: Duration = Duration::from_secs(10);

/// Jobs with less left than this at [`ESTIMATE_AFTER`] say nothing.
const WORTH_ESTIMATING: Duration = Duration::from_secs(60);

/// The cost statement of a job that has run [`ESTIMATE_AFTER`] and finished `done` games with
/// `left` still to play: `None` if it ends within [`WORTH_ESTIMATING`].
fn estimate(done: u64, left: u64) -> Option<String> {
    let secs = ESTIMATE_AFTER.as_secs();
    if done == 0 {
        return (left > 0).then(|| {
            format!(
                "note: no game finished in the first {secs} s and {} are planned: this job may take \
                 very long (Ctrl-C stops it; with --out the finished games are kept for resume)",
                HumanCount(left)
            )
        });
    }
    let remaining = Duration::from_secs_f64(left as f64 * secs as f64 / done as f64);
    (remaining > WORTH_ESTIMATING).then(|| {
        format!(
            "estimate: {} games in the first {secs} s; the {} left take about {} more at this speed",
            HumanCount(done),
            HumanCount(left),
            indicatif::HumanDuration(remaining)
        )
    })
}

/// A progress bar over a job's games, read from [`Progress::counter`] on a timer.
pub struct Progress {
    counter: Arc<AtomicU64>,
    restored: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    bar: ProgressBar,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    /// A bar over `total` games (hidden with `quiet`).
    pub fn new(total: u64, quiet: bool) -> Progress {
        let counter = Arc::new(AtomicU64::new(0));
        let restored = Arc::new(AtomicU64::new(0));
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
        // The timer runs under `quiet` too, for the one cost estimate of a long job.
        let ticker = Some({
            let (counter, restored, done, bar) =
                (counter.clone(), restored.clone(), done.clone(), bar.clone());
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut seen_restored = 0;
                let mut estimated = false;
                while !done.load(Ordering::Relaxed) {
                    let at = counter.load(Ordering::Relaxed);
                    bar.set_position(at);
                    let base = restored.load(Ordering::Relaxed);
                    if base != seen_restored {
                        // A resume starts from the games restored: the rate and the ETA are
                        // those of the games this process plays.
                        bar.reset_eta();
                        seen_restored = base;
                    }
                    if !estimated && start.elapsed() >= ESTIMATE_AFTER {
                        estimated = true;
                        if let Some(line) = estimate(at - base.min(at), total - at.min(total)) {
                            bar.suspend(|| say!("{line}"));
                        }
                    }
                    std::thread::park_timeout(Duration::from_millis(100));
                }
            })
        });
        Progress {
            counter,
            restored,
            done,
            bar,
            ticker,
        }
    }

    /// The counter workers add finished games to.
    pub fn counter(&self) -> &AtomicU64 {
        &self.counter
    }

    /// Says that `games` of the counter's games were restored from an earlier session, not
    /// played by this process: the rate, the ETA and the cost estimate leave them out.
    pub fn restored(&self, games: u64) {
        self.bar.set_position(self.counter.load(Ordering::Relaxed));
        self.restored.store(games, Ordering::Relaxed);
        self.bar.reset_eta();
    }

    /// Prints a line on stderr above the bar (the bar is redrawn after it).
    pub fn println(&self, line: &str) {
        self.bar.suspend(|| say!("{line}"));
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

#[cfg(test)]
mod tests {
    use super::estimate;

    #[test]
    fn long_jobs_state_their_cost_and_short_ones_do_not() {
        assert_eq!(estimate(1_000, 5_000), None);
        assert_eq!(
            estimate(1_000, 1_000_000).unwrap(),
            "estimate: 1,000 games in the first 10 s; the 1,000,000 left take about 3 hours more at this speed"
        );
        assert!(
            estimate(0, 4)
                .unwrap()
                .starts_with("note: no game finished in the first 10 s and 4 are planned")
        );
        assert_eq!(estimate(0, 0), None);
    }
}

//! What the job commands add for bot programs: their stderr logs under `--out DIR/logs/`.

use std::path::Path;

use aeroplane::experiment::Job;
use aeroplane::runner::RunSpec;

/// The folder of bot programs' stderr logs in an output directory.
pub const LOGS_DIR: &str = "logs";

/// Sends the stderr of every bot program of a job (run, sweep, league, resumed or not) to
/// `out/logs/<bot>-<n>.log`.
pub fn attach_job_logs(job: &mut Job, out: Option<&Path>) {
    if let Some(dir) = out {
        job.set_bot_log_dir(&dir.join(LOGS_DIR));
    }
}

/// Sends the stderr of every bot program of the lineup to `out/logs/<bot>-<n>.log`.
pub fn attach_logs(spec: &mut RunSpec, out: Option<&Path>) {
    if let Some(dir) = out {
        for bot in &mut spec.lineup {
            if let Some(ext) = &mut bot.external {
                ext.log_dir = Some(dir.join(LOGS_DIR));
            }
        }
    }
}

//! What both front ends (the command line and the Python package) share when they turn their
//! flags or keywords into a job: the default lineups, the notes on profiles of the bots folder
//! that shadow built-in ones, and where bot programs' stderr logs go in an output folder.

use std::path::Path;

use super::Job;
use crate::bots::BotSpec;
use crate::runner::RunSpec;

/// The lineup a run (`aeroplane run`, `aeroplane.run`) plays when none is given.
pub const DEFAULT_RUN_BOTS: &str = "greedy,random,random,random";

/// The lineup a sweep (`aeroplane sweep`, `aeroplane.sweep`) plays when none is given.
pub const DEFAULT_SWEEP_BOTS: &str = "greedy,greedy,greedy,greedy";

/// The folder of bot programs' stderr logs in an output folder.
pub const LOGS_DIR: &str = "logs";

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

/// Sends the stderr of every bot program of a job (run, sweep, league, resumed or not) to
/// `out/logs/<bot>-<n>.log`.
pub fn attach_job_logs(job: &mut Job, out: Option<&Path>) {
    if let Some(dir) = out {
        job.set_bot_log_dir(&dir.join(LOGS_DIR));
    }
}

/// The notes, one per profile named (in the order first named), where a profile of
/// `bots_dir` shadows the built-in one of its name; `bots` are the lineup's texts (`greedy`,
/// `expectimax:depth=2`). A text that names no profile is passed over (resolving it says why).
pub fn shadowing_notes<'t>(
    bots: impl IntoIterator<Item = &'t str>,
    bots_dir: &Path,
) -> Vec<String> {
    let mut seen = Vec::new();
    let mut notes = Vec::new();
    for bot in bots {
        let Ok(head) = BotSpec::head(bot) else {
            continue;
        };
        if seen.contains(&head) {
            continue;
        }
        seen.push(head);
        notes.extend(crate::config::shadowing_note(head, bots_dir));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shadowing_profile_is_noted_once_in_the_order_first_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("greedy.toml"), "kind = \"random\"\n").unwrap();
        std::fs::write(dir.path().join("random.toml"), "kind = \"greedy\"\n").unwrap();
        let notes = shadowing_notes(
            [
                "greedy",
                "random:x=1",
                "greedy",
                "expectimax",
                "",
                "a/greedy.toml",
            ],
            dir.path(),
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("shadows the built-in greedy (kind greedy)"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("shadows the built-in random (kind random)"),
            "{notes:?}"
        );
        assert!(shadowing_notes(["expectimax", "mcts"], dir.path()).is_empty());
    }
}

//! The library names a setting as "the setting `name`" (its name in run.json, the config files
//! and the Python keywords); the command line says the flag instead.

use aeroplane::experiment::{InvalidJob, JobError, Setting};

/// A setting's flag: `--name`, with dashes for underscores.
pub fn flag(setting: Setting) -> String {
    format!("--{}", setting.name().replace('_', "-"))
}

/// The command line's words for a job the library did not make of its settings: each
/// setting named by its flag, and a report without an output folder or a sweep without an
/// axis as this command line has always said it (naming its options); other errors as they
/// are (their settings become flags when printed).
pub fn refused(e: JobError) -> anyhow::Error {
    match e {
        JobError::Invalid(InvalidJob::Setting(s)) => anyhow::anyhow!(s.worded(flag)),
        JobError::Invalid(InvalidJob::NeedsOut {
            setting: "report", ..
        }) => {
            anyhow::anyhow!("--report writes report.html into the output directory: give --out DIR")
        }
        JobError::Invalid(InvalidJob::NothingToVary) => anyhow::anyhow!(
            "nothing to vary: give --vary OPTION=v1,v2, a [sweep] table in --config, or --manifest"
        ),
        e => e.into(),
    }
}

/// The settings the library's messages name, each a flag of this command line.
const FLAGS: [&str; 29] = [
    "allow_partial",
    "alpha",
    "alpha_end",
    "batch",
    "bootstrap",
    "bots",
    "bots_dir",
    "compare",
    "eval_deals",
    "eval_every",
    "explore",
    "force",
    "games",
    "hidden",
    "lambda",
    "log_games",
    "log_positions",
    "luck",
    "luck_ply",
    "memory_limit",
    "out",
    "per_game",
    "players",
    "recover",
    "shard",
    "sort",
    "sprt",
    "threads",
    "vary",
];

/// `text` with each "the setting `name`" of a known setting written as its flag, `--name`
/// with dashes for underscores.
pub fn as_flags(text: &str) -> String {
    const MARK: &str = "the setting `";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        match after.find('`').map(|end| &after[..end]) {
            Some(name) if FLAGS.contains(&name) => {
                out.push_str(&rest[..at]);
                out.push_str("--");
                out.push_str(&name.replace('_', "-"));
                rest = &after[name.len() + 1..];
            }
            _ => {
                out.push_str(&rest[..at + MARK.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::as_flags;

    #[test]
    fn settings_become_flags() {
        assert_eq!(
            as_flags("the setting `per_game` writes games.csv: give the setting `out`"),
            "--per-game writes games.csv: give --out"
        );
        assert_eq!(
            as_flags("replace them (the setting `force`)."),
            "replace them (--force)."
        );
    }

    #[test]
    fn other_text_is_kept() {
        for text in [
            "",
            "no settings here",
            "the setting `unknown` stays",
            "the setting `out",
            "the setting `",
            "a `force` alone stays",
        ] {
            assert_eq!(as_flags(text), text);
        }
    }
}

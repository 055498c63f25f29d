//! The command line that makes a job's folder again, generated from its typed manifest.
//!
//! `aeroplane <command> --manifest DIR/run.json` always reproduces a job exactly. This is the
//! readable equivalent, as a user would type it: the rules as a preset name, the file they came
//! from (when it still holds them), or else a rules file to save first; the bots by name (each
//! checked to resolve to the recorded kind and parameters); every option that is not the
//! default (`--sort`, `--bootstrap`, `--compare`, ...).

use aeroplane_core::{Preset, Rules};

use super::{DEFAULT_BOOTSTRAP, DEFAULT_SORT, Manifest};
use crate::config::{load_rules, parse_bot};
use crate::files::RulesToml;

/// The file name the command uses when the rules must be saved first.
pub const RULES_FILE: &str = "RULES.toml";

/// A job's command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reproduction {
    /// The words after `aeroplane`, unquoted; `--out DIR` is left to the caller.
    pub args: Vec<String>,
    /// The rules to save as [`RULES_FILE`] first (TOML, every option written out), when they
    /// are neither a preset nor in a file that still holds them (e.g. an inline `[rules]` table
    /// of a config).
    pub rules_file: Option<String>,
    /// What the command cannot promise (a bot whose name no longer gives the recorded
    /// parameters); `--manifest` reproduces those too.
    pub caveats: Vec<String>,
}

impl Reproduction {
    /// The command as one shell line: `aeroplane run --rules classic ... --out DIR`, each word
    /// quoted where the shell would read it otherwise.
    pub fn shell(&self, out: &str) -> String {
        let mut words = vec!["aeroplane".to_string()];
        words.extend(self.args.iter().map(|w| quote(w)));
        words.push("--out".into());
        words.push(quote(out));
        words.join(" ")
    }
}

/// A word quoted for a POSIX shell when it needs it.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=.,/:+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Manifest {
    /// The command line that makes this job again (see the module docs).
    pub fn reproduction(&self) -> Reproduction {
        let mut caveats = Vec::new();
        let rules = self.rules("run.json").ok();
        let (rules_arg, mut rules_file) = rules_argument(&self.rules_name, rules);
        let names: Vec<String> = self.bots.iter().map(|b| b.as_given().to_string()).collect();
        for b in &self.bots {
            let same = parse_bot(b.as_given(), "bots".as_ref()).is_ok_and(|spec| {
                let recorded: Vec<(String, serde_json::Value)> =
                    b.params.clone().into_iter().collect();
                let resolved: Vec<(String, serde_json::Value)> = spec
                    .params
                    .iter()
                    .map(|(k, v)| (k.to_string(), serde_json::to_value(v).expect("param")))
                    .collect();
                spec.kind == b.kind && resolved == recorded && spec.external == b.external
            });
            if !same {
                caveats.push(format!(
                    "the bot named `{}` does not resolve to the recorded kind and parameters here \
                     (a profile that changed, or one from another --bots-dir): the --manifest \
                     form below reproduces it exactly",
                    b.name
                ));
            }
        }
        let w = |s: &str| s.to_string();
        let mut args = vec![w(&self.command)];
        match self.command.as_str() {
            "sweep" => {
                let s = self.sweep.as_ref();
                // With the axis `base` each variant's rules are its preset's: no --rules.
                let presets = s.is_some_and(|s| {
                    s.vary
                        .iter()
                        .any(|v| v.split_once('=').is_some_and(|(o, _)| o.trim() == "base"))
                });
                if presets {
                    rules_file = None;
                } else {
                    pair(&mut args, "--rules", rules_arg);
                }
                pair(
                    &mut args,
                    "--bots",
                    s.map_or_else(|| names.join(","), |s| s.bots.clone()),
                );
                pair(&mut args, "--games", self.games.to_string());
                pair(&mut args, "--seed", self.seed.to_string());
                for v in s.map(|s| s.vary.clone()).unwrap_or_default() {
                    pair(&mut args, "--vary", v);
                }
                if self.rotate_seats {
                    args.push(w("--rotate-seats"));
                }
                if let Some([a, b]) = s.and_then(|s| s.compare) {
                    pair(&mut args, "--compare", format!("{a},{b}"));
                }
                if let Some(sort) = s.map(|s| &s.sort).filter(|s| s.as_str() != DEFAULT_SORT) {
                    // `--sort=-x`: a value starting with `-` must be attached.
                    args.push(format!("--sort={sort}"));
                }
                for net in &self.luck {
                    pair(&mut args, "--luck", net.clone());
                }
                if !self.luck_ply.is_zero() {
                    pair(&mut args, "--luck-ply", self.luck_ply.to_string());
                }
            }
            "league" => {
                pair(&mut args, "--rules", rules_arg);
                pair(&mut args, "--bots", names.join(","));
                pair(&mut args, "--players", self.players.to_string());
                pair(&mut args, "--games", self.games.to_string());
                pair(&mut args, "--seed", self.seed.to_string());
                if let Some(l) = self
                    .league
                    .as_ref()
                    .filter(|l| l.bootstrap != DEFAULT_BOOTSTRAP)
                {
                    pair(&mut args, "--bootstrap", l.bootstrap.to_string());
                }
                for net in &self.luck {
                    pair(&mut args, "--luck", net.clone());
                }
                if !self.luck_ply.is_zero() {
                    pair(&mut args, "--luck-ply", self.luck_ply.to_string());
                }
            }
            _ => {
                pair(&mut args, "--rules", rules_arg);
                pair(&mut args, "--bots", names.join(","));
                match &self.sprt {
                    Some(sprt) => {
                        pair(&mut args, "--sprt", sprt.test.clone());
                        pair(&mut args, "--max-games", self.games.to_string());
                        pair(&mut args, "--chunk-size", sprt.chunk_deals.to_string());
                    }
                    None => pair(&mut args, "--games", self.games.to_string()),
                }
                pair(&mut args, "--seed", self.seed.to_string());
                if self.first_game > 0 {
                    pair(&mut args, "--first-game", self.first_game.to_string());
                }
                if self.rotate_seats && self.sprt.is_none() {
                    args.push(w("--rotate-seats"));
                }
                if self.per_game {
                    args.push(w("--per-game"));
                }
                if self.recover {
                    args.push(w("--recover"));
                }
                for net in &self.luck {
                    pair(&mut args, "--luck", net.clone());
                }
                if !self.luck_ply.is_zero() {
                    pair(&mut args, "--luck-ply", self.luck_ply.to_string());
                }
            }
        }
        if let Some(shard) = self.shard {
            args.push(w("--shard"));
            args.push(format!("{}/{}", shard.index, shard.count));
            if self.sprt.is_none() {
                args.push(w("--chunk-size"));
                args.push(self.unit_deals.to_string());
            }
        }
        if self.report {
            // run.json records that the job wrote its page.
            args.push(w("--report"));
        }
        Reproduction {
            args,
            rules_file,
            caveats,
        }
    }
}

fn pair(args: &mut Vec<String>, key: &str, value: String) {
    args.push(key.to_string());
    args.push(value);
}

/// `--rules`'s value: the preset, the file they came from, or [`RULES_FILE`] with the text to
/// save in it.
fn rules_argument(name: &str, rules: Option<Rules>) -> (String, Option<String>) {
    let Some(rules) = rules else {
        return (name.to_string(), None);
    };
    if name.parse::<Preset>().is_ok_and(|p| p.rules() == rules) {
        return (name.to_string(), None);
    }
    let still_there = (name.ends_with(".toml") || name.contains('/'))
        && load_rules(name).is_ok_and(|r| r == rules);
    if still_there {
        return (name.to_string(), None);
    }
    (RULES_FILE.to_string(), Some(rules.to_toml()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_where_a_shell_needs_it() {
        assert_eq!(quote("greedy,random"), "greedy,random");
        assert_eq!(quote("launch_rolls=[6];[5,6]"), "'launch_rolls=[6];[5,6]'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("--sort=-turns_mean"), "--sort=-turns_mean");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn rules_are_named_by_preset_file_or_saved_text() {
        let classic = Preset::Classic.rules();
        assert_eq!(
            rules_argument("classic", Some(classic)),
            ("classic".into(), None)
        );
        let (arg, text) = rules_argument("inline rules of cfg.toml", Some(classic));
        assert_eq!(arg, RULES_FILE);
        assert_eq!(Rules::from_toml(&text.unwrap()).unwrap(), classic);
        // A preset name whose rules were changed (a hand-edited manifest) is not trusted.
        assert_eq!(rules_argument("appfreegame", Some(classic)).0, RULES_FILE);
    }
}

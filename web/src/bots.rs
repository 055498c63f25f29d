//! The bot factory: the one place that turns a bot's name into a [`Bot`]. Every seat of a page
//! game that is not a person gets its bot here.
//!
//! A name is spelt as `aeroplane run --bots` spells it, so a page game of bots alone is the
//! CLI's game of the same names: a profile shipped in `bots/` (`expectimax`,
//! `expectimax-deep`, `montecarlo`, `mcts`, `mcts-rollout`, `td-classic-4p`, ...; the page
//! holds their text, as the binary does) or a kind (`greedy`, `random`, `expectimax`,
//! `montecarlo`, `mcts`, `td`), then any parameters as `:key=value` (`expectimax:depth=3`,
//! `mcts:iterations=400`, `td-classic-2p:ply=1`). Every parameter is checked against its
//! kind's definition in `aeroplane-ai`. A search bot's budget is a parameter (depth,
//! iterations, rollouts, ply), never a clock. The `td` profiles' nets (`bots/nets/`) are built
//! into the module ([`NETS`]).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use aeroplane_ai::bots::params::{ParamDef, ParamValue, Params};
use aeroplane_ai::bots::{expectimax, mcts, montecarlo, td};
use aeroplane_ai::td::Net;
use aeroplane_core::excerpt::excerpt;
use aeroplane_core::{Bot, Greedy, RandomBot, Rules};

/// A seat's player word for a person (in a game's configuration, and as its record's lineup
/// `name` and `kind`).
pub const PERSON: &str = "person";

/// Builds a bot named `name` from its kind's resolved parameters.
type Build = fn(name: &str, params: &Params) -> Result<Box<dyn Bot>, String>;

/// A kind of bot the page has: its parameters and how a bot is built from them.
struct Kind {
    name: &'static str,
    params: &'static [ParamDef],
    build: Build,
}

const KINDS: [Kind; 6] = [
    Kind {
        name: "greedy",
        params: &[],
        build: |_, _| Ok(Box::new(Greedy)),
    },
    Kind {
        name: "random",
        params: &[],
        build: |_, _| Ok(Box::new(RandomBot::default())),
    },
    Kind {
        name: "expectimax",
        params: &expectimax::PARAMS,
        build: |name, p| Ok(expectimax::build(name, p)),
    },
    Kind {
        name: "montecarlo",
        params: &montecarlo::PARAMS,
        build: |name, p| Ok(montecarlo::build(name, p)),
    },
    Kind {
        name: "mcts",
        params: &mcts::PARAMS,
        build: |name, p| Ok(mcts::build(name, p)),
    },
    Kind {
        name: "td",
        params: &td::PARAMS,
        build: build_td,
    },
];

/// The profiles of `bots/` the page has: name and TOML text, the same files the binary builds
/// in (`exact`'s profiles, which need value tables on disk, are not shipped).
const PROFILES: &[(&str, &str)] = &aeroplane_ai::shipped::PROFILES;

/// The nets the page has built in: every net shipped in `bots/nets/`, by the path a profile's
/// `net` names.
pub const NETS: [(&str, &[u8]); 9] = aeroplane_ai::shipped::NETS;

/// The net built in at `path` (a `td` bot's `net`), read from its bytes once and shared.
pub fn net(path: &str) -> Result<Arc<Net>, String> {
    static READ: [OnceLock<Result<Arc<Net>, String>>; NETS.len()] =
        [const { OnceLock::new() }; NETS.len()];
    let Some(i) = NETS.iter().position(|(p, _)| *p == path) else {
        let paths: Vec<&str> = NETS.iter().map(|(p, _)| *p).collect();
        return Err(format!(
            "the page has no net file `{}`: its nets are {} (the td profiles' nets)",
            excerpt(path),
            paths.join(", ")
        ));
    };
    READ[i]
        .get_or_init(|| {
            Net::from_bytes(NETS[i].1)
                .map(Arc::new)
                .map_err(|what| format!("net file {path} (built in): {what}"))
        })
        .clone()
}

fn build_td(name: &str, params: &Params) -> Result<Box<dyn Bot>, String> {
    let net = net(params.word("net"))?;
    Ok(Box::new(td::TdBot::new(
        name,
        td::NetSource::Net(net),
        params.int("ply") as u8,
        params.word("any_rules") == "true",
    )))
}

fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// A profile's text read: its kind, description and parameters as written.
struct Profile {
    kind: String,
    description: String,
    params: BTreeMap<String, toml::Value>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    kind: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
}

fn profile(name: &str) -> Option<Profile> {
    let (_, text) = PROFILES.iter().find(|(n, _)| *n == name)?;
    let file: ProfileFile = toml::from_str(text).expect("the shipped profiles parse");
    Some(Profile {
        kind: file.kind,
        description: file.description,
        params: file.params,
    })
}

/// The value of parameter `def` given as `text`, or what is wrong.
fn value(bot: &str, def: &ParamDef, text: &str) -> Result<ParamValue, String> {
    def.parse(text).ok_or_else(|| {
        format!(
            "{bot}: bad value `{}` for parameter `{}`: allowed is {}",
            excerpt(text),
            def.name,
            def.allowed()
        )
    })
}

/// The bot a configuration names, with its lineup `kind` (as `aeroplane run` writes it in a
/// decision log's header). An unknown name, parameter or value is an error saying what there
/// is.
pub fn bot(name: &str) -> Result<(Box<dyn Bot>, String), String> {
    let name = name.trim();
    if name.chars().any(char::is_control) {
        return Err(format!(
            "the bot name `{}` holds control characters",
            excerpt(name)
        ));
    }
    let mut parts = name.split(':');
    let head = parts.next().unwrap_or_default().trim();
    let (kind, given) = match profile(head) {
        Some(p) => (
            kind(&p.kind).expect("the profiles' kinds are the page's"),
            p.params,
        ),
        None => match kind(head) {
            Some(k) => (k, BTreeMap::new()),
            None => {
                return Err(format!(
                    "unknown bot `{}`: the bots are {} (kinds: {}; parameters as kind:key=value), or `{PERSON}` for a seat a person plays",
                    excerpt(head),
                    PROFILES.iter().map(|p| p.0).collect::<Vec<_>>().join(", "),
                    KINDS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                ));
            }
        },
    };
    let def = |key: &str| {
        kind.params.iter().find(|p| p.name == key).ok_or_else(|| {
            if kind.params.is_empty() {
                format!(
                    "the bot `{}` takes no parameters, not `{}`",
                    kind.name,
                    excerpt(key)
                )
            } else {
                format!(
                    "bot kind `{}` has no parameter `{}`: its parameters are {}",
                    kind.name,
                    excerpt(key),
                    kind.params
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        })
    };
    let mut values = BTreeMap::new();
    for (k, v) in &given {
        let text = match v {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        values.insert(k.clone(), value(head, def(k)?, &text)?);
    }
    let mut inline = Vec::new();
    for part in parts {
        let Some((k, v)) = part.split_once('=') else {
            return Err(format!(
                "`{}` in bot `{}` is not key=value (parameters are given as kind:key=value)",
                excerpt(part),
                excerpt(name)
            ));
        };
        let k = k.trim();
        if inline.contains(&k) {
            return Err(format!(
                "bot `{}` gives the parameter `{}` twice",
                excerpt(name),
                excerpt(k)
            ));
        }
        inline.push(k);
        values.insert(k.to_string(), value(name, def(k)?, v.trim())?);
    }
    for p in kind.params {
        if values.contains_key(p.name) {
            continue;
        }
        if p.default.is_empty() {
            return Err(format!(
                "bot `{}` (kind `{}`) needs the parameter `{}`: {}",
                excerpt(name),
                kind.name,
                p.name,
                p.help
            ));
        }
        values.insert(
            p.name.to_string(),
            p.parse(p.default).expect("defaults are valid"),
        );
    }
    let bot = (kind.build)(name, &Params::from_map(values))?;
    Ok((bot, kind.name.to_string()))
}

/// The bots the page's menus offer for a game of `rules` (`None`: rules not known yet) with
/// `players` players: (name, what it is). The search bots by their profiles; for `td`, each
/// net built in that was trained on these rules for this many players, at ply 0, 1 and 2.
pub fn offered(rules: Option<&Rules>, players: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The plain bots first, then by strength: in the order of the kinds, by name within one.
    let mut profiles: Vec<(usize, &str, Profile)> = PROFILES
        .iter()
        .map(|(name, _)| {
            let p = profile(name).expect("a profile of the list");
            let k = KINDS
                .iter()
                .position(|k| k.name == p.kind)
                .unwrap_or(KINDS.len());
            (k, *name, p)
        })
        .collect();
    profiles.sort_by_key(|&(k, name, _)| (k, name));
    for (_, name, p) in profiles {
        if p.kind == "td" {
            let path = p.params.get("net").and_then(|v| v.as_str()).unwrap_or("");
            let fits = rules.is_some_and(|rules| {
                net(path).is_ok_and(|n| n.check_fit(rules, players, false).is_ok())
            });
            if !fits {
                continue;
            }
            let what = p
                .description
                .split(';')
                .next()
                .unwrap_or_default()
                .to_string();
            for ply in 0..=td::MAX_PLY {
                let (n, search) = match ply {
                    0 => (
                        name.to_string(),
                        "ply 0: the best afterstate by the net".to_string(),
                    ),
                    k => (
                        format!("{name}:ply={k}"),
                        format!(
                            "ply {k}: expectimax over {k} die roll(s) with the net at the leaves"
                        ),
                    ),
                };
                out.push((n, format!("{what}; {search}")));
            }
        } else {
            out.push((name.to_string(), p.description));
        }
    }
    out
}

/// The strongest bot the page has for a game of `rules` with `players` players (the coach's):
/// the learned player with the net trained on these rules and players, searching two rolls
/// ahead for 2 players and one for 3 or 4 (`td-<preset>-2p:ply=2`, `td-<preset>-4p:ply=1`);
/// with no such net (3 players, other rules), `expectimax-deep`.
pub fn strongest(rules: &Rules, players: usize) -> String {
    let ply = if players == 2 { 2 } else { 1 };
    let suffix = format!(":ply={ply}");
    offered(Some(rules), players)
        .into_iter()
        .map(|(name, _)| name)
        .find(|name| name.starts_with("td-") && name.ends_with(&suffix))
        .unwrap_or_else(|| "expectimax-deep".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Preset;

    #[test]
    fn the_strongest_bot_is_td_with_the_rules_net_else_expectimax_deep() {
        let classic = Preset::Classic.rules();
        assert_eq!(strongest(&classic, 2), "td-classic-2p:ply=2");
        assert_eq!(strongest(&classic, 4), "td-classic-4p:ply=1");
        assert_eq!(strongest(&classic, 3), "expectimax-deep");
        for preset in Preset::ALL {
            for players in 2..=4 {
                assert!(bot(&strongest(&preset.rules(), players)).is_ok());
            }
        }
    }

    #[test]
    fn every_offered_bot_is_built() {
        for preset in Preset::ALL {
            for players in 2..=4 {
                let offered = offered(Some(&preset.rules()), players);
                let td = offered.iter().filter(|(n, _)| n.starts_with("td-")).count();
                assert_eq!(td, if players == 3 { 0 } else { 3 }, "{preset:?} {players}");
                for (name, _) in offered {
                    let (_, kind) = bot(&name).unwrap();
                    assert!(name.starts_with(&kind) || name.starts_with("td-"), "{name}");
                }
            }
        }
    }

    #[test]
    fn the_nets_built_in_are_the_shipped_profiles_nets() {
        for (path, _) in NETS {
            let n = net(path).unwrap();
            assert!((2..=4).contains(&n.players));
            let name = path
                .strip_prefix("bots/nets/")
                .and_then(|p| p.strip_suffix(".safetensors"))
                .unwrap();
            let p = profile(name).unwrap();
            assert_eq!(p.params["net"].as_str(), Some(path));
        }
    }

    /// Every profile shipped in `bots/` of a kind the page has is on the page, with the same
    /// text (a new profile cannot be forgotten here).
    #[test]
    fn the_page_has_every_shipped_profile_of_its_kinds() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots");
        let mut shipped = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&path).unwrap();
                let file: ProfileFile = toml::from_str(&text).unwrap();
                if kind(&file.kind).is_some() {
                    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
                    shipped.push((name, text));
                }
            }
        }
        shipped.sort();
        let mut here: Vec<(String, String)> = PROFILES
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        here.sort();
        assert_eq!(here, shipped);
    }

    #[test]
    fn bad_names_say_what_there_is() {
        let err = |name: &str| bot(name).err().unwrap();
        assert!(
            err("exact").starts_with(
                "unknown bot `exact`: the bots are expectimax, expectimax-deep, greedy"
            )
        );
        assert!(err("greedy:depth=2").contains("the bot `greedy` takes no parameters"));
        assert!(err("expectimax:depth=9").contains("allowed is an integer from 1 to"));
        assert!(err("expectimax:width=2").contains("its parameters are depth"));
        assert!(err("mcts:iterations").contains("is not key=value"));
        assert!(err("mcts:iterations=5:iterations=6").contains("twice"));
        assert!(err("td").contains("needs the parameter `net`"));
        assert!(err("td:net=my.safetensors").contains("the page has no net file `my.safetensors`"));
        assert!(err("expectimax\u{1b}[2J").contains("control characters"));
    }
}

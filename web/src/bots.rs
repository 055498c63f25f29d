//! The bot factory: the one place that turns a bot's name into a [`Bot`]. Every seat of a page
//! game that is not a person gets its bot here, so a new bot (the search bots of the
//! `aeroplane-ai` crate) plugs in by one arm of [`bot`] and one entry of [`BOTS`].

use aeroplane_core::{Bot, Greedy, RandomBot};

/// A seat's player word for a person (in a game's configuration, and as its record's lineup
/// `name` and `kind`).
pub const PERSON: &str = "person";

/// The bots the page offers: (name as a configuration gives it, what it is).
pub const BOTS: &[(&str, &str)] = &[
    (
        "greedy",
        "greedy: captures first, then progress (one ply, no search)",
    ),
    ("random", "random: a uniformly random legal move"),
];

/// The bot a configuration names, with its lineup `kind` (as `aeroplane run` writes it in a
/// decision log's header). A name is a bot's kind, then, for a bot with parameters, its
/// parameters as `aeroplane run --bots` spells them (`kind:key=value,...`, e.g. a search bot's
/// depth or iterations: its budget, never a clock). An unknown name is an error listing the
/// names there are.
pub fn bot(name: &str) -> Result<(Box<dyn Bot>, String), String> {
    let (kind, params) = name.split_once(':').unwrap_or((name, ""));
    if !params.is_empty() && matches!(kind, "greedy" | "random") {
        return Err(format!(
            "the bot `{kind}` takes no parameters, not `{}`",
            aeroplane_core::excerpt::excerpt(params)
        ));
    }
    let (bot, kind): (Box<dyn Bot>, &str) = match kind {
        "greedy" => (Box::new(Greedy), "greedy"),
        "random" => (Box::new(RandomBot::default()), "random"),
        _ => {
            let names: Vec<&str> = BOTS.iter().map(|b| b.0).collect();
            return Err(format!(
                "unknown bot `{}`: the bots are {} (or `{PERSON}` for a seat a person plays)",
                aeroplane_core::excerpt::excerpt(name),
                names.join(", ")
            ));
        }
    };
    Ok((bot, kind.to_string()))
}

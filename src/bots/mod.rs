//! Bot strategies behind one trait, and the profiles that name and configure them.
//!
//! The trait ([`Bot`]) and the two plain bots ([`Greedy`], [`RandomBot`]) live in
//! `aeroplane-core`; the search bots, their evaluation and parameters, and the `td` bot live in
//! `aeroplane-ai` (re-exported here as they always were: `bots::expectimax`, `bots::td`, ...);
//! the bot programs, the `exact` bot, the nets read from disk and the registry of names live
//! here.

pub mod exact;
pub mod external;
pub mod nets;
pub mod registry;

pub use aeroplane_ai::bots::{choose_or_panic, eval, expectimax, mcts, montecarlo, params, search};
pub use aeroplane_core::{Bot, BotFault, FaultKind, Greedy, RandomBot};
pub use registry::{BotError, BotSpec};

/// The `td` bot ([`aeroplane_ai::bots::td`]) with what the harness adds: its nets read from
/// files or built in ([`nets`]), and how the registry builds and checks it.
pub mod td {
    pub use super::nets::{SHIPPED_NETS, build, check, load_net};
    pub use aeroplane_ai::bots::td::*;
}

//! Bot strategies behind one trait, and the profiles that name and configure them.
//!
//! The trait ([`Bot`]) and the two plain bots ([`Greedy`], [`RandomBot`]) live in
//! `aeroplane-core`; the search bots, the bot programs and the registry of names live here.

pub mod eval;
pub mod exact;
pub mod expectimax;
pub mod external;
pub mod mcts;
pub mod montecarlo;
pub mod params;
pub mod registry;
pub mod search;
pub mod td;

pub use aeroplane_core::{Bot, BotFault, FaultKind, Greedy, RandomBot};
pub use registry::{BotError, BotSpec};

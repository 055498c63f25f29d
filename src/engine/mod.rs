//! The rules engine: geometry, rule variants, the game state and its moves.
//!
//! Architecture invariant: nothing here draws random numbers, does IO, or allocates on the
//! move-generation and move-application path.

pub mod board;
mod chain;
pub mod game;
pub mod moves;
pub mod rules;

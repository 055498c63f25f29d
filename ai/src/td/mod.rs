//! A learned player: value nets over afterstates trained by TD(λ) self-play
//! (`aeroplane train`), their file format (docs/NET.md), and what the `td` bot plays with.
//!
//! - [`encoding`]: a position as the net's sparse input, from one seat's perspective;
//! - [`net`]: the hand-written f32 net (sparse first layer, ReLU, softmax over ranks), forward
//!   and backward;
//! - [`file`](mod@file): net files (safetensors with metadata), written byte for byte reproducibly,
//!   read with a size cap and every check;
//! - [`selfplay`]: one self-play game and its TD(λ) gradient;
//!
//! The bot that plays by a net is [`crate::bots::td`]. Reading a net file from disk and the
//! job that trains a net (`aeroplane train`: batches of games in parallel with frozen weights,
//! updates in game order, evaluation, checkpoint, resume) are the harness's (`aeroplane`).
//!
//! Why by hand and not with a tensor crate: the net is tiny (a few thousand multiply-adds per
//! position), its input is sparse (some 20 of 1,000 units on), the hot path must not allocate,
//! and training must give the same bits on every machine and thread count: a loop over the
//! active inputs' columns in a fixed order does all of that in 200 lines, without a heavy
//! dependency.

pub mod encoding;
pub mod file;
pub mod net;
pub mod selfplay;

pub use file::{Net, NetError};

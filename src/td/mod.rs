//! A learned player: value nets over afterstates trained by TD(λ) self-play
//! (`aeroplane train`), their file format (docs/NET.md), and what the `td` bot plays with.
//!
//! The net is `aeroplane-ai`'s, re-exported here as it always was:
//! - [`encoding`]: a position as the net's sparse input, from one seat's perspective;
//! - [`net`]: the hand-written f32 net (sparse first layer, ReLU, softmax over ranks), forward
//!   and backward;
//! - [`file`](mod@file): net files (safetensors with metadata), written byte for byte
//!   reproducibly and checked from bytes there; read from disk here ([`NetFile::load`]: bounded,
//!   never a fifo or a device);
//! - [`selfplay`]: one self-play game and its TD(λ) gradient.
//!
//! The job that trains a net (`aeroplane train`: batches of games in parallel with frozen
//! weights, updates in game order, evaluation, checkpoint, resume) is [`crate::train`], a layer
//! above the jobs, since it plays the `td` bot and writes its folder and page.

use std::io::Read;
use std::path::Path;

pub use aeroplane_ai::td::{Net, NetError, encoding, net, selfplay};

/// Net files: `aeroplane-ai`'s format ([`aeroplane_ai::td::file`]) and [`NetFile`], which reads
/// one from disk.
pub mod file {
    pub use super::NetFile;
    pub use aeroplane_ai::td::file::*;
}

/// A net read from a file.
pub trait NetFile: Sized {
    /// Reads and checks the net file at `path` (at most [`file::MAX_NET_BYTES`]; a fifo, a
    /// device or a folder is refused unopened).
    fn load(path: &Path) -> Result<Self, NetError>;
}

impl NetFile for Net {
    fn load(path: &Path) -> Result<Net, NetError> {
        let file = aeroplane_core::excerpt::excerpt(&path.display().to_string());
        let bad = |what: String| NetError {
            file: file.clone(),
            what,
        };
        if let Some(what) = crate::files::not_a_file(path) {
            return Err(bad(format!("is {what}, not a net file")));
        }
        let f = std::fs::File::open(path).map_err(|e| bad(format!("cannot be read: {e}")))?;
        let mut bytes = Vec::new();
        f.take(file::MAX_NET_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("cannot be read: {e}")))?;
        if bytes.len() as u64 > file::MAX_NET_BYTES {
            return Err(bad(format!(
                "is larger than {} MiB, the most a net file may be",
                file::MAX_NET_BYTES >> 20
            )));
        }
        Net::from_bytes(&bytes).map_err(bad)
    }
}

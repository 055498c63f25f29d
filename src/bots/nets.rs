//! The `td` bot's nets in the harness: the nets shipped in `bots/nets/` (built into the
//! binary), net files read from disk once per process and shared ([`load_net`]), and how the
//! registry builds a td bot ([`build`]) and checks it against a run's rules ([`check`]). The bot
//! itself is `aeroplane-ai`'s ([`super::td::TdBot`]); these are re-exported beside it as
//! [`super::td`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::Bot;
use super::params::Params;
use super::td::{NetSource, TdBot};
use crate::td::NetFile;
use crate::td::file::{Net, NetError};

/// Builds a td bot from resolved [`PARAMS`](super::td::PARAMS): its net is read when its first
/// game starts ([`load_net`]).
pub fn build(name: &str, params: &Params) -> Box<dyn Bot> {
    let path = PathBuf::from(params.word("net"));
    Box::new(TdBot::new(
        name,
        NetSource::Load(Box::new(move || load_net(&path).map_err(|e| e.to_string()))),
        params.int("ply") as u8,
        params.word("any_rules") == "true",
    ))
}

/// Nets shipped in `bots/nets/`, built into the binary ([`aeroplane_ai::shipped::NETS`]): a
/// profile's `net` naming one of them loads from the file when it exists, else from the copy
/// built in.
pub const SHIPPED_NETS: &[(&str, &[u8])] = &aeroplane_ai::shipped::NETS;

/// Loads the net at `path` once per process (again if the file changed) and shares it.
pub fn load_net(path: &Path) -> Result<Arc<Net>, NetError> {
    type Key = (PathBuf, u64, Option<std::time::SystemTime>);
    static CACHE: Mutex<Vec<(Key, Arc<Net>)>> = Mutex::new(Vec::new());
    let meta = std::fs::metadata(path).ok();
    if meta.is_none()
        && let Some((_, bytes)) = SHIPPED_NETS.iter().find(|(p, _)| Path::new(p) == path)
    {
        let key: Key = (path.to_path_buf(), 0, None);
        let mut cache = CACHE.lock().expect("not poisoned");
        if let Some((_, n)) = cache.iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(n));
        }
        let net = Arc::new(Net::from_bytes(bytes).map_err(|what| NetError {
            file: format!("{} (built in)", path.display()),
            what,
        })?);
        cache.push((key, Arc::clone(&net)));
        return Ok(net);
    }
    let key: Key = (
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        meta.as_ref().map_or(0, |m| m.len()),
        meta.as_ref().and_then(|m| m.modified().ok()),
    );
    let mut cache = CACHE.lock().expect("not poisoned");
    if let Some((_, n)) = cache.iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(n));
    }
    let net = Arc::new(Net::load(path)?);
    cache.push((key, Arc::clone(&net)));
    Ok(net)
}

/// Whether a td bot with `params` can play `rules` with `players`: its net loads, checks out
/// and fits (see [`Net::check_fit`]). The message says why not.
pub fn check(params: &Params, rules: &aeroplane_core::Rules, players: usize) -> Result<(), String> {
    let net = load_net(Path::new(params.word("net"))).map_err(|e| e.to_string())?;
    net.check_fit(rules, players, params.word("any_rules") == "true")
        .map_err(|e| format!("net file {}: {e}", params.word("net")))
}

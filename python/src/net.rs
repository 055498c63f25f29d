//! What a value net trained in Python needs from the engine (docs/NET.md): the `tdg` input
//! encoding (its size and a position's active units) and the rules as the net files' metadata
//! records them. `aeroplane.nets` writes and evaluates net files with these.

use numpy::PyArray1;
use pyo3::prelude::*;

use aeroplane::td::encoding::{ENCODING, ENCODING_VERSION, Encoder, Features};

use crate::game::{PyGame, int_arg, new_game, seat_arg};
use crate::rules::rules_arg;

/// The name and version of the input encoding, as net files record them (``("tdg", 1)``).
pub const TDG: (&str, u32) = (ENCODING, ENCODING_VERSION);

/// ``tdg_inputs(rules=None, players=4)``: the number of input units of encoding ``tdg`` (a net
/// file's ``inputs``) for ``rules`` and ``players``.
#[pyfunction]
#[pyo3(signature = (rules = None, players = None))]
pub fn tdg_inputs(
    rules: Option<&Bound<'_, PyAny>>,
    players: Option<&Bound<'_, PyAny>>,
) -> PyResult<usize> {
    let (rules, _) = rules_arg(rules)?;
    let players = match players {
        Some(p) if !p.is_none() => int_arg(p, "players")?,
        _ => crate::game::DEFAULT_PLAYERS,
    };
    let game = new_game(rules, players)?;
    Ok(Encoder::new(game.rules(), game.players()).inputs())
}

/// ``tdg_features(game, perspective)``: the active input units (ascending indices, ``int64``)
/// of ``game``, an afterstate, seen from seat ``perspective`` (a seat in play), in encoding
/// ``tdg``: a net's hidden layer is ``relu(b1 + w1[features].sum(0))``.
#[pyfunction]
pub fn tdg_features<'py>(
    py: Python<'py>,
    game: PyRef<'py, PyGame>,
    perspective: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let g = &game.game;
    let seat = seat_arg(g, perspective)?;
    let mut out = Features::default();
    Encoder::new(g.rules(), g.players()).encode(g, seat, &mut out);
    let mut idx: Vec<i64> = out.active().iter().map(|&i| i64::from(i)).collect();
    idx.sort_unstable();
    Ok(PyArray1::from_vec(py, idx))
}

/// ``_rules_json(rules=None)``: the rules as a net file's ``rules`` metadata records them
/// (JSON, the form of ``train.json``'s ``job.rules``).
#[pyfunction]
#[pyo3(signature = (rules = None))]
pub fn _rules_json(rules: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let (rules, _) = rules_arg(rules)?;
    Ok(serde_json::to_string(&rules).expect("rules serialize"))
}

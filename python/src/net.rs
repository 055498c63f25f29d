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

/// ``Net``: a net file loaded and checked as the ``td`` bot loads it (``aeroplane.nets.load``):
/// its rules, players and the value of a position for every seat.
#[pyclass(name = "Net", module = "aeroplane._native", frozen)]
pub struct PyNet {
    net: std::sync::Arc<aeroplane::td::Net>,
}

/// ``_load_net(path)``: the net file at ``path``, checked (see ``aeroplane.nets.load``).
#[pyfunction]
pub fn _load_net(path: std::path::PathBuf) -> PyResult<PyNet> {
    let net = aeroplane::bots::td::load_net(&path)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(PyNet { net })
}

#[pymethods]
impl PyNet {
    /// The players the net was trained for.
    #[getter]
    fn players(&self) -> usize {
        self.net.players
    }

    /// The rules the net was trained on (JSON, as the file's metadata records them).
    #[getter]
    fn rules_json(&self) -> String {
        serde_json::to_string(&self.net.rules).expect("rules serialize")
    }

    /// The hidden units.
    #[getter]
    fn hidden(&self) -> usize {
        self.net.weights.hidden
    }

    /// ``value(game)``: the net's expected return (-1..1) for every seat in play, in the order
    /// of ``game.seats`` (players 0..n), at ``game``, a position before a roll: exact where it
    /// is decided for a seat, as the ``td`` bot and ``run --luck`` value positions. A game of
    /// other rules or players is refused.
    fn value(&self, game: PyRef<'_, PyGame>) -> PyResult<Vec<f64>> {
        let g = &game.game;
        self.net
            .check_fit(g.rules(), g.players(), false)
            .map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(
                    e.replace("; give any_rules=true to play it anyway", ""),
                )
            })?;
        let enc = self.net.encoder();
        let mut fx = Features::default();
        let mut s = aeroplane::td::net::Scratch::default();
        Ok(g.seats()
            .iter()
            .map(
                |&seat| match aeroplane::td::selfplay::decided_value(g, seat) {
                    Some(v) => f64::from(v),
                    None => {
                        enc.encode(g, seat, &mut fx);
                        f64::from(self.net.weights.value(&fx, &mut s))
                    }
                },
            )
            .collect())
    }

    fn __repr__(&self) -> String {
        format!(
            "Net(players={}, hidden={}, checksum={:016x})",
            self.net.players,
            self.net.weights.hidden,
            self.net.checksum()
        )
    }
}

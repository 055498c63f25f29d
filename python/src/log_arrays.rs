//! `aeroplane.read_log`: a decision log (docs/LOG.md) as numpy arrays, one row per decision,
//! every game checked against the engine and replayed for its observations.

use std::path::Path;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

use aeroplane::decision_log::Header;
use aeroplane::decision_log::check::{CheckedGame, check_game};
use aeroplane::decision_log::read::{LogReader, LoggedGame};
use aeroplane::{Game, NUM_ACTIONS};

use crate::errors::to_py;
use crate::observe::{ObsKind, kind_arg};
use crate::rules::path_arg;

/// Games read before a batch is checked and replayed by the worker threads.
const BATCH: usize = 2048;

/// The rows of some games.
#[derive(Default)]
struct Rows {
    obs: Vec<f32>,
    mask: Vec<bool>,
    action: Vec<i64>,
    seat: Vec<i64>,
    bot: Vec<i64>,
    roll: Vec<i64>,
    game: Vec<u64>,
    returns: Vec<f32>,
    values: Vec<f32>,
    has_values: Vec<bool>,
    after: Vec<f32>,
}

impl Rows {
    fn append(&mut self, mut other: Rows) {
        self.obs.append(&mut other.obs);
        self.mask.append(&mut other.mask);
        self.action.append(&mut other.action);
        self.seat.append(&mut other.seat);
        self.bot.append(&mut other.bot);
        self.roll.append(&mut other.roll);
        self.game.append(&mut other.game);
        self.returns.append(&mut other.returns);
        self.values.append(&mut other.values);
        self.has_values.append(&mut other.has_values);
        self.after.append(&mut other.after);
    }
}

/// Replays a checked game and writes a row per decision.
fn replay(
    header: &Header,
    game: &CheckedGame,
    kind: ObsKind,
    afterstates: bool,
    rows: &mut Rows,
) -> Result<(), String> {
    let mut g = Game::new(header.rules, header.players).map_err(|e| e.to_string())?;
    let returns = game.last.returns();
    let len = kind.len();
    let mut decisions = game.decisions.iter();
    for &roll in &game.rolls {
        if g.apply_roll(roll).map_err(|e| e.to_string())?.is_some() {
            continue;
        }
        let legal = g.legal_actions();
        let legal = legal.as_slice();
        if legal.len() == 1 {
            g.apply_action(u32::from(legal[0]))
                .map_err(|e| e.to_string())?;
            continue;
        }
        let d = decisions
            .next()
            .ok_or("the replay has more decisions than the log")?;
        let seat = g.to_move();
        let at = rows.obs.len();
        rows.obs.resize(at + len, 0.0);
        crate::observe::write(kind, &g, seat, 0, &mut rows.obs[at..]);
        let mut mask = [false; NUM_ACTIONS];
        for &a in legal {
            mask[usize::from(a)] = true;
        }
        rows.mask.extend_from_slice(&mask);
        rows.action.push(d.action.index() as i64);
        rows.seat.push(seat.index() as i64);
        rows.bot.push(game.bots[seat.index()].map_or(-1, i64::from));
        rows.roll.push(i64::from(roll));
        rows.game.push(game.game);
        rows.returns.push(returns[seat.index()] as f32);
        let mut values = [f32::NAN; NUM_ACTIONS];
        if let Some(v) = &d.values {
            for (&a, x) in legal.iter().zip(v) {
                values[usize::from(a)] = x.unwrap_or(f32::NAN);
            }
        }
        rows.values.extend_from_slice(&values);
        rows.has_values.push(d.values.is_some());
        if afterstates {
            let at = rows.after.len();
            rows.after.resize(at + NUM_ACTIONS * len, 0.0);
            for &a in legal {
                let mut next = g;
                next.apply_action(u32::from(a)).map_err(|e| e.to_string())?;
                let row = at + usize::from(a) * len;
                crate::observe::write(kind, &next, seat, 0, &mut rows.after[row..row + len]);
            }
        }
        g.apply_action(d.action.index() as u32)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Checks and replays a batch of games on the worker threads, in order.
fn batch(
    file: &str,
    header: &Header,
    games: &[LoggedGame],
    kind: ObsKind,
    afterstates: bool,
) -> PyResult<Rows> {
    let parts: Vec<Result<Rows, PyErr>> = games
        .par_iter()
        .map(|lg| {
            let checked = check_game(file, header, lg).map_err(|e| to_py(&e))?;
            let mut rows = Rows::default();
            replay(header, &checked, kind, afterstates, &mut rows).map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("{file}: game {}: {e}", lg.game))
            })?;
            Ok(rows)
        })
        .collect();
    let mut all = Rows::default();
    for p in parts {
        all.append(p?);
    }
    Ok(all)
}

/// ``read_log(path, *, observation="flat", max_decisions=None)``: the decision log at
/// ``path`` (``.jsonl`` or ``.jsonl.zst``, docs/LOG.md) as numpy arrays, one row per decision
/// in log order: a dict of ``observation`` (float32 ``(N, L)``, the deciding seat's view of the
/// decision node, roll included; ``observation="rich"`` for the richer vector), ``mask`` (bool
/// ``(N, 8)``, the legal actions), ``action``, ``seat``, ``bot`` (the lineup index),
/// ``roll`` (int64 ``(N,)``), ``game`` (uint64 ``(N,)``), ``returns`` (float32 ``(N,)``: the
/// deciding seat's return of its game), ``values`` (float32 ``(N, 8)``, by action id: the
/// bot's logged values, NaN where none), ``has_values`` (bool ``(N,)``), and ``header`` (the
/// log's header, a dict); with ``afterstates=True`` also ``afterstate`` (float32 ``(N, 8, L)``:
/// for each legal action the observation, from the deciding seat, of the position that action
/// leads to; zeros for the others). Every game is checked against the engine as ``aeroplane replay
/// --log FILE --check`` checks it: a foreign, damaged or truncated log raises ``ValueError``
/// naming the line. ``max_decisions`` bounds the rows (``ValueError`` past it).
#[pyfunction]
#[pyo3(signature = (path, *, observation = None, afterstates = false, max_decisions = None))]
pub fn read_log<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    observation: Option<&Bound<'py, PyAny>>,
    afterstates: bool,
    max_decisions: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let path = path_arg(path, "path")?;
    let kind = kind_arg(observation, "observation")?;
    let limit = match max_decisions.filter(|m| !m.is_none()) {
        Some(m) => Some(crate::game::u64_arg(m, "max_decisions")?),
        None => None,
    };
    let (header, rows) = py.detach(|| read_all(&path, kind, afterstates, limit))?;
    let n = rows.action.len();
    let len = kind.len();
    let d = PyDict::new(py);
    d.set_item(
        "observation",
        PyArray1::from_vec(py, rows.obs).reshape([n, len])?,
    )?;
    d.set_item(
        "mask",
        PyArray1::from_vec(py, rows.mask).reshape([n, NUM_ACTIONS])?,
    )?;
    d.set_item("action", PyArray1::from_vec(py, rows.action))?;
    d.set_item("seat", PyArray1::from_vec(py, rows.seat))?;
    d.set_item("bot", PyArray1::from_vec(py, rows.bot))?;
    d.set_item("roll", PyArray1::from_vec(py, rows.roll))?;
    d.set_item("game", PyArray1::from_vec(py, rows.game))?;
    d.set_item("returns", PyArray1::from_vec(py, rows.returns))?;
    d.set_item(
        "values",
        PyArray1::from_vec(py, rows.values).reshape([n, NUM_ACTIONS])?,
    )?;
    d.set_item("has_values", PyArray1::from_vec(py, rows.has_values))?;
    if afterstates {
        d.set_item(
            "afterstate",
            PyArray1::from_vec(py, rows.after).reshape([n, NUM_ACTIONS, len])?,
        )?;
    }
    let text = serde_json::to_string(&header).expect("a header serializes");
    d.set_item("header", py.import("json")?.call_method1("loads", (text,))?)?;
    Ok(d)
}

fn read_all(
    path: &Path,
    kind: ObsKind,
    afterstates: bool,
    limit: Option<u64>,
) -> PyResult<(Header, Rows)> {
    let mut reader = LogReader::open(path).map_err(|e| to_py(&e))?;
    let header = reader.header().clone();
    let file = reader.file().to_string();
    let mut rows = Rows::default();
    let mut games = Vec::with_capacity(BATCH);
    loop {
        let next = reader.next_game().map_err(|e| to_py(&e))?;
        let end = next.is_none();
        if let Some(g) = next {
            games.push(g);
        }
        if games.len() == BATCH || (end && !games.is_empty()) {
            let logged: u64 = games.iter().map(|g| g.decisions.len() as u64).sum();
            if let Some(max) = limit
                && rows.action.len() as u64 + logged > max
            {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "{file} holds more than max_decisions = {max} decisions"
                )));
            }
            rows.append(batch(&file, &header, &games, kind, afterstates)?);
            games.clear();
        }
        if end {
            return Ok((header, rows));
        }
    }
}

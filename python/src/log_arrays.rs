//! `aeroplane.read_log`: a decision log (docs/LOG.md) as numpy arrays, one row per decision,
//! every game checked against the engine and replayed for its observations.

use std::mem::MaybeUninit;
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

/// The rows of the decisions read so far, one array per column.
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

/// One game's rows: disjoint pieces of the spare capacity of the columns of [`Rows`], every
/// element of which its replay writes.
struct GameRows<'a> {
    obs: &'a mut [MaybeUninit<f32>],
    mask: &'a mut [MaybeUninit<bool>],
    action: &'a mut [MaybeUninit<i64>],
    seat: &'a mut [MaybeUninit<i64>],
    bot: &'a mut [MaybeUninit<i64>],
    roll: &'a mut [MaybeUninit<i64>],
    game: &'a mut [MaybeUninit<u64>],
    returns: &'a mut [MaybeUninit<f32>],
    values: &'a mut [MaybeUninit<f32>],
    has_values: &'a mut [MaybeUninit<bool>],
    after: &'a mut [MaybeUninit<f32>],
}

/// The first `k` elements of `s`, leaving the rest in `s`.
fn take<'a, T>(s: &mut &'a mut [T], k: usize) -> &'a mut [T] {
    let (a, b) = std::mem::take(s).split_at_mut(k);
    *s = b;
    a
}

/// The first `k` elements of `v`'s spare capacity (reserved first).
fn spare<T>(v: &mut Vec<T>, k: usize) -> &mut [MaybeUninit<T>] {
    v.reserve(k);
    &mut v.spare_capacity_mut()[..k]
}

/// Copies `values` into `out` (of the same length).
fn put<T: Copy>(out: &mut [MaybeUninit<T>], values: &[T]) {
    for (o, &v) in out.iter_mut().zip(values) {
        o.write(v);
    }
}

impl Rows {
    /// Reserves `counts.iter().sum()` more rows in every column and cuts them into one piece
    /// per game (`counts[i]` rows each), for the replays to fill; [`Rows::commit`] adds them.
    fn grow(&mut self, counts: &[usize], len: usize, afterstates: bool) -> Vec<GameRows<'_>> {
        let total: usize = counts.iter().sum();
        let after_len = if afterstates { NUM_ACTIONS * len } else { 0 };
        let mut obs = spare(&mut self.obs, total * len);
        let mut mask = spare(&mut self.mask, total * NUM_ACTIONS);
        let mut action = spare(&mut self.action, total);
        let mut seat = spare(&mut self.seat, total);
        let mut bot = spare(&mut self.bot, total);
        let mut roll = spare(&mut self.roll, total);
        let mut game = spare(&mut self.game, total);
        let mut returns = spare(&mut self.returns, total);
        let mut values = spare(&mut self.values, total * NUM_ACTIONS);
        let mut has_values = spare(&mut self.has_values, total);
        let mut after = spare(&mut self.after, total * after_len);
        counts
            .iter()
            .map(|&k| GameRows {
                obs: take(&mut obs, k * len),
                mask: take(&mut mask, k * NUM_ACTIONS),
                action: take(&mut action, k),
                seat: take(&mut seat, k),
                bot: take(&mut bot, k),
                roll: take(&mut roll, k),
                game: take(&mut game, k),
                returns: take(&mut returns, k),
                values: take(&mut values, k * NUM_ACTIONS),
                has_values: take(&mut has_values, k),
                after: take(&mut after, k * after_len),
            })
            .collect()
    }

    /// Adds the `total` rows [`Rows::grow`] reserved, once every replay has filled its piece.
    ///
    /// # Safety
    /// Every element of every piece of the last `grow` of `total` rows has been written.
    unsafe fn commit(&mut self, total: usize, len: usize, afterstates: bool) {
        let after_len = if afterstates { NUM_ACTIONS * len } else { 0 };
        // SAFETY: the caller's promise: the spare capacity up to these lengths is initialised.
        unsafe {
            self.obs.set_len(self.obs.len() + total * len);
            self.mask.set_len(self.mask.len() + total * NUM_ACTIONS);
            self.action.set_len(self.action.len() + total);
            self.seat.set_len(self.seat.len() + total);
            self.bot.set_len(self.bot.len() + total);
            self.roll.set_len(self.roll.len() + total);
            self.game.set_len(self.game.len() + total);
            self.returns.set_len(self.returns.len() + total);
            self.values.set_len(self.values.len() + total * NUM_ACTIONS);
            self.has_values.set_len(self.has_values.len() + total);
            self.after.set_len(self.after.len() + total * after_len);
        }
    }
}

/// Replays a checked game and writes every element of its rows (one per decision, as many as
/// `rows` holds), or fails.
fn replay(
    header: &Header,
    game: &CheckedGame,
    kind: ObsKind,
    afterstates: bool,
    rows: GameRows<'_>,
) -> Result<(), String> {
    let mut g = Game::new(header.rules, header.players).map_err(|e| e.to_string())?;
    let returns = game.last.returns();
    let len = kind.len();
    let mut buffer = [0f32; crate::observe::RICH_LEN];
    let buffer = &mut buffer[..len];
    let mut decisions = game.decisions.iter();
    let mut k = 0;
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
            .filter(|_| k < rows.action.len())
            .ok_or("the replay has more decisions than the log")?;
        let seat = g.to_move();
        crate::observe::write(kind, &g, seat, 0, buffer);
        put(&mut rows.obs[k * len..(k + 1) * len], buffer);
        let mut mask = [false; NUM_ACTIONS];
        for &a in legal {
            mask[usize::from(a)] = true;
        }
        put(
            &mut rows.mask[k * NUM_ACTIONS..(k + 1) * NUM_ACTIONS],
            &mask,
        );
        rows.action[k].write(d.action.index() as i64);
        rows.seat[k].write(seat.index() as i64);
        rows.bot[k].write(game.bots[seat.index()].map_or(-1, i64::from));
        rows.roll[k].write(i64::from(roll));
        rows.game[k].write(game.game);
        rows.returns[k].write(returns[seat.index()] as f32);
        let mut values = [f32::NAN; NUM_ACTIONS];
        if let Some(v) = &d.values {
            for (&a, x) in legal.iter().zip(v) {
                values[usize::from(a)] = x.unwrap_or(f32::NAN);
            }
        }
        put(
            &mut rows.values[k * NUM_ACTIONS..(k + 1) * NUM_ACTIONS],
            &values,
        );
        rows.has_values[k].write(d.values.is_some());
        if afterstates {
            let block = &mut rows.after[k * NUM_ACTIONS * len..(k + 1) * NUM_ACTIONS * len];
            for a in 0..NUM_ACTIONS {
                let out = &mut block[a * len..(a + 1) * len];
                if mask[a] {
                    let mut next = g;
                    next.apply_action(a as u32).map_err(|e| e.to_string())?;
                    crate::observe::write(kind, &next, seat, 0, buffer);
                } else {
                    buffer.fill(0.0);
                }
                put(out, buffer);
            }
        }
        g.apply_action(d.action.index() as u32)
            .map_err(|e| e.to_string())?;
        k += 1;
    }
    if k != rows.action.len() {
        return Err("the log has more decisions than the replay".into());
    }
    Ok(())
}

/// Checks and replays a batch of games on the worker threads, writing their rows in order.
fn batch(
    file: &str,
    header: &Header,
    games: &[LoggedGame],
    kind: ObsKind,
    afterstates: bool,
    rows: &mut Rows,
) -> PyResult<()> {
    let counts: Vec<usize> = games.iter().map(|g| g.decisions.len()).collect();
    let pieces = rows.grow(&counts, kind.len(), afterstates);
    games
        .par_iter()
        .zip(pieces)
        .map(|(lg, piece)| {
            let checked = check_game(file, header, lg).map_err(|e| to_py(&e))?;
            replay(header, &checked, kind, afterstates, piece).map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("{file}: game {}: {e}", lg.game))
            })
        })
        .collect::<PyResult<Vec<()>>>()?;
    // SAFETY: every replay succeeded, so each wrote every element of its piece.
    unsafe { rows.commit(counts.iter().sum(), kind.len(), afterstates) };
    Ok(())
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

/// Reads the log a batch of games at a time while another thread checks and replays the batch
/// before on the worker threads.
fn read_all(
    path: &Path,
    kind: ObsKind,
    afterstates: bool,
    limit: Option<u64>,
) -> PyResult<(Header, Rows)> {
    let mut reader = LogReader::open(path).map_err(|e| to_py(&e))?;
    let header = reader.header().clone();
    let file = reader.file().to_string();
    let (send, receive) = std::sync::mpsc::sync_channel::<Vec<LoggedGame>>(2);
    let rows = std::thread::scope(|scope| -> PyResult<Rows> {
        let (file, header) = (&file, &header);
        let worker = scope.spawn(move || -> PyResult<Rows> {
            let mut rows = Rows::default();
            for games in receive {
                let logged: u64 = games.iter().map(|g| g.decisions.len() as u64).sum();
                if let Some(max) = limit
                    && rows.action.len() as u64 + logged > max
                {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "{file} holds more than max_decisions = {max} decisions"
                    )));
                }
                batch(file, header, &games, kind, afterstates, &mut rows)?;
            }
            Ok(rows)
        });
        let mut games = Vec::with_capacity(BATCH);
        let mut failed = None;
        loop {
            match reader.next_game() {
                Ok(Some(g)) => {
                    games.push(g);
                    if games.len() < BATCH {
                        continue;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    failed = Some(to_py(&e));
                    break;
                }
            }
            if send.send(std::mem::take(&mut games)).is_err() {
                // The worker stopped at an error, which it returns.
                break;
            }
            games.reserve(BATCH);
        }
        if failed.is_none() && !games.is_empty() {
            let _ = send.send(games);
        }
        drop(send);
        let rows = worker
            .join()
            .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("read_log's worker panicked"))?;
        // The worker's error first: it is about an earlier game than the reader's.
        let rows = rows?;
        failed.map_or(Ok(rows), Err)
    })?;
    Ok((header, rows))
}

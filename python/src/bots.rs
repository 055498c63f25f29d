//! Bots from Python: `aeroplane.bots.Bot` (a built-in bot, profile or bot program, by name)
//! with `choose(game) -> action`, and Python callables as bots in runs (the bot kind `python`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use aeroplane::bots::registry::ParamValue;
use aeroplane::config::parse_bot;
use aeroplane::{ActionId, Bot, BotFault, BotSpec, Game, KindDef, Move, Params, Seat};

use crate::errors::{chain, to_py};
use crate::game::{PyGame, any_seat_arg, before_roll, u64_arg};
use crate::rules::{describe, type_name};

/// The bot kind of Python callables in a run's lineup.
pub const PYTHON_KIND: &str = "python";

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A built-in bot, a bot profile or a bot program, by the name a lineup gives it:
/// ``Bot("greedy")``, ``Bot("expectimax:depth=3")``, ``Bot("bots/my.toml")``.
///
/// ``choose(game)`` picks an action id for the roll waiting at a decision node of ``game``;
/// ``new_game(seat, seed)`` seeds its own randomness (``bot_seed``) as the runner does before
/// every game. Pass it in ``aeroplane.run(bots=[...])`` or as a ``VecEnv`` opponent and it plays
/// there as its name would.
#[pyclass(name = "Bot", module = "aeroplane.bots", subclass)]
pub struct PyBot {
    pub spec: BotSpec,
    bot: Mutex<Option<Box<dyn Bot>>>,
    pending: Mutex<Option<(Seat, u64)>>,
}

/// The bot a lineup entry names: `ValueError` for an unknown bot or parameter.
pub fn resolve(text: &str, bots_dir: &std::path::Path) -> PyResult<BotSpec> {
    let spec = parse_bot(text, bots_dir).map_err(|e| to_py(&e))?;
    if spec.kind == "exact" {
        // The table is read (once per process) and checked now, not at the first choice.
        aeroplane::value_table::Table::load(std::path::Path::new(spec.params.word("table")))
            .map_err(|e| PyValueError::new_err(format!("bot `{}`: {}", spec.name, chain(&e))))?;
    }
    if spec.kind == "td" {
        // The net is read and checked now (as `nets.load` does, once per process), not at the
        // first choice.
        aeroplane::bots::td::load_net(std::path::Path::new(spec.params.word("net")))
            .map_err(|e| PyValueError::new_err(format!("bot `{}`: {e}", spec.name)))?;
    }
    if spec.kind == PYTHON_KIND {
        return Err(PyValueError::new_err(format!(
            "bot `{}`: kind `python` is for Python callables: pass the callable itself",
            aeroplane::excerpt::excerpt(text)
        )));
    }
    Ok(spec)
}

fn fault(spec: &BotSpec, what: String) -> PyErr {
    PyRuntimeError::new_err(format!("bot `{}`: {what}", spec.name))
}

#[pymethods]
impl PyBot {
    /// ``Bot(name, bots_dir="bots")``: a profile or kind name (with ``:key=value``
    /// parameters), or a path to a profile; ``bots_dir`` adds its profiles to the built-in
    /// ones, as ``--bots-dir`` does.
    #[new]
    #[pyo3(signature = (name, bots_dir = None))]
    fn py_new(name: &Bound<'_, PyAny>, bots_dir: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let name = crate::rules::str_arg(
            name,
            "name",
            "a bot name (\"greedy\", \"expectimax:depth=3\") or a profile's path",
        )?;
        let dir = match bots_dir.filter(|d| !d.is_none()) {
            Some(d) => crate::rules::path_arg(d, "bots_dir")?,
            None => PathBuf::from("bots"),
        };
        let spec = resolve(&name, &dir)?;
        Ok(PyBot {
            spec,
            bot: Mutex::new(None),
            pending: Mutex::new(None),
        })
    }

    /// The bot's name, as tables show it.
    #[getter]
    fn name(&self) -> &str {
        &self.spec.name
    }

    /// Its kind (``greedy``, ``random``, ``expectimax``, ``montecarlo``, ``mcts``,
    /// ``external``).
    #[getter]
    fn kind(&self) -> &str {
        &self.spec.kind
    }

    /// Every parameter with its value.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        params_dict(py, &self.spec.params)
    }

    /// Seeds the bot for a new game in ``seat`` (the runner gives ``bot_seed(seed, game,
    /// seat)``); takes effect at its next ``choose``.
    fn new_game(&self, seat: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let seat = any_seat_arg(seat)?;
        *lock(&self.pending) = Some((seat, u64_arg(seed, "seed")?));
        Ok(())
    }

    /// The action id the bot plays for the roll waiting at this decision node of ``game``.
    /// With one legal action it is returned without asking the bot (as in a run).
    fn choose(&self, py: Python<'_>, game: &Bound<'_, PyAny>) -> PyResult<u8> {
        let Ok(game) = game.cast::<PyGame>() else {
            return Err(PyTypeError::new_err(format!(
                "game must be an aeroplane.Game at a decision node, not {}",
                type_name(game)
            )));
        };
        let game = game.borrow();
        let g = game.game;
        let Some(roll) = g.pending_roll() else {
            return Err(PyValueError::new_err(
                "choose needs a decision node: the die is to be rolled first (game.apply_roll), or the game is over",
            ));
        };
        let moves = g.pending_moves();
        if moves.len() == 1 {
            return Ok(ActionId::of_move(&moves[0]).index() as u8);
        }
        let fast = before_roll(&g)?;
        drop(game);
        let spec = &self.spec;
        let chosen: Result<usize, String> = py.detach(|| {
            let mut slot = lock(&self.bot);
            let bot = slot.get_or_insert_with(|| spec.build());
            if let Some((seat, seed)) = lock(&self.pending).take() {
                let start = Game::new(*fast.rules(), fast.players()).map_err(|e| chain(&e))?;
                bot.try_new_game(&start, seat, seed, 0)
                    .map_err(|f| f.to_string())?;
            }
            bot.try_choose(&fast, roll, &moves)
                .map_err(|f| f.to_string())
        });
        let k = chosen.map_err(PyRuntimeError::new_err)?;
        let m = moves.get(k).ok_or_else(|| {
            fault(
                spec,
                format!("chose move {k} of {}: not a legal move", moves.len()),
            )
        })?;
        Ok(ActionId::of_move(m).index() as u8)
    }

    fn __repr__(&self) -> String {
        format!("aeroplane.bots.Bot({:?})", self.spec.name)
    }
}

/// A bot's parameters as a dict.
pub fn params_dict<'py>(py: Python<'py>, params: &Params) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in params.iter() {
        match v {
            ParamValue::Int(i) => d.set_item(k, i)?,
            ParamValue::Float(x) => d.set_item(k, x)?,
            ParamValue::Word(w) => d.set_item(k, w)?,
        }
    }
    Ok(d)
}

/// A Python callable taking part in runs: what it is and the first exception it raised.
struct Entry {
    object: Py<PyAny>,
    /// A copy taken when the job starts, copied again for each worker thread and lineup entry
    /// (as built-in bots are built per worker); `None` if the object cannot be copied.
    snapshot: Result<Py<PyAny>, String>,
    /// Bots built from it so far.
    builds: usize,
    error: ErrorSlot,
    users: usize,
}

/// The Python bots of the jobs now running, by name: the `python` kind's `build` finds them
/// here (a kind's `build` gets the bot's name and parameters only).
static PYTHON_BOTS: Mutex<Option<HashMap<String, Entry>>> = Mutex::new(None);

/// A Python callable registered as a bot while a job runs; unregisters it when dropped.
pub struct PythonBotGuard {
    name: String,
    error: ErrorSlot,
}

impl PythonBotGuard {
    /// Where the bot keeps the first exception it raised.
    pub fn error_slot(&self) -> ErrorSlot {
        self.error.clone()
    }
}

/// The exception kept in `slot`, if any.
pub fn take_error(slot: &ErrorSlot) -> Option<PyErr> {
    lock(slot).take()
}

impl Drop for PythonBotGuard {
    fn drop(&mut self) {
        let mut reg = lock(&PYTHON_BOTS);
        if let Some(map) = reg.as_mut()
            && let Some(e) = map.get_mut(&self.name)
        {
            e.users -= 1;
            if e.users == 0 {
                map.remove(&self.name);
            }
        }
    }
}

/// The name a Python bot goes by: its `name` attribute, else its `__name__`, else its type's
/// name.
pub fn python_bot_name(object: &Bound<'_, PyAny>) -> PyResult<String> {
    for attr in ["name", "__name__"] {
        if let Ok(v) = object.getattr(attr)
            && let Ok(s) = v.extract::<String>()
        {
            return Ok(s);
        }
    }
    Ok(type_name(object))
}

/// Registers `object` (a callable taking a `Game`, or an object with `choose(game)`) as the
/// Python bot `name` for as long as the guard lives, and gives its lineup entry.
pub fn register_python_bot(
    object: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<(BotSpec, PythonBotGuard)> {
    if !object.hasattr("choose")? && !object.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "a bot is a name (\"greedy\"), an aeroplane.bots.Bot, a callable taking an aeroplane.Game and returning an action id, or an object with choose(game); not {}",
            type_name(object)
        )));
    }
    if name.is_empty() || name.chars().any(char::is_control) || name.contains(',') {
        return Err(PyValueError::new_err(format!(
            "Python bot name {name:?}: a name is not empty and holds no comma or control character (give the bot a `name` attribute)"
        )));
    }
    let py = object.py();
    // The registry's lock is never held while Python code runs (a deep copy can release the
    // GIL, numpy's does, and a worker holding the GIL would then wait for the lock forever).
    let copy = || {
        deep_copy(object).map(Bound::unbind).map_err(|e| {
            e.value(py)
                .repr()
                .map_or_else(|_| "an exception".into(), |r| r.to_string())
        })
    };
    let known = lock(&PYTHON_BOTS)
        .as_ref()
        .is_some_and(|m| m.contains_key(name));
    let snapshot = if known { None } else { Some(copy()) };
    let mut reg = lock(&PYTHON_BOTS);
    let map = reg.get_or_insert_with(HashMap::new);
    let error = match map.get_mut(name) {
        Some(e) if e.object.bind(py).is(object) => {
            e.users += 1;
            e.error.clone()
        }
        Some(_) => {
            return Err(PyValueError::new_err(format!(
                "another Python bot named `{name}` is playing in a job that is running: give this one another `name`"
            )));
        }
        None => {
            let Some(snapshot) = snapshot else {
                drop(reg);
                return register_python_bot(object, name);
            };
            let error = Arc::new(Mutex::new(None));
            map.insert(
                name.to_string(),
                Entry {
                    object: object.clone().unbind(),
                    snapshot,
                    builds: 0,
                    error: error.clone(),
                    users: 1,
                },
            );
            error
        }
    };
    let spec = BotSpec {
        name: name.to_string(),
        kind: PYTHON_KIND.to_string(),
        params: Params::default(),
        external: None,
        given: None,
    };
    Ok((
        spec,
        PythonBotGuard {
            name: name.to_string(),
            error,
        },
    ))
}

/// Where a Python bot keeps the first exception it raised, for the job's caller.
pub type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

fn deep_copy<'py>(object: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    object
        .py()
        .import("copy")?
        .call_method1("deepcopy", (object,))
}

/// A Python callable playing a seat through the `Bot` trait. Every call takes the GIL.
struct PythonBot {
    name: String,
    found: Result<(Py<PyAny>, ErrorSlot), String>,
}

impl PythonBot {
    fn fail(&self, what: String) -> Box<BotFault> {
        Box::new(BotFault {
            bot: self.name.clone(),
            command: None,
            what,
            line: None,
            kind: aeroplane::bots::FaultKind::Other,
            stderr: None,
        })
    }

    /// Keeps the first exception for the caller of the job, and reports it as a fault.
    fn raised(&self, py: Python<'_>, e: PyErr) -> Box<BotFault> {
        let what = format!(
            "raised {}",
            e.value(py)
                .repr()
                .map_or_else(|_| "an exception".into(), |r| r.to_string())
        );
        if let Ok((_, slot)) = &self.found {
            lock(slot).get_or_insert(e);
        }
        self.fail(what)
    }

    fn object(&self) -> Result<&Py<PyAny>, Box<BotFault>> {
        self.found
            .as_ref()
            .map(|(o, _)| o)
            .map_err(|why| self.fail(why.clone()))
    }
}

impl Bot for PythonBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        // The driver calls `try_choose`; a direct call falls back on the first move.
        self.try_choose(game, roll, moves).unwrap_or(0)
    }

    fn try_new_game(
        &mut self,
        _start: &Game,
        seat: Seat,
        seed: u64,
        _game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        let object = self.object()?;
        Python::attach(|py| {
            let object = object.bind(py);
            match object.hasattr("new_game") {
                Ok(true) => object
                    .call_method1("new_game", (seat.index(), seed))
                    .map(|_| ())
                    .map_err(|e| self.raised(py, e)),
                Ok(false) => Ok(()),
                Err(e) => Err(self.raised(py, e)),
            }
        })
    }

    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        let object = self.object()?;
        let mut decision = *game;
        decision
            .apply_roll(roll)
            .map_err(|e| self.fail(format!("cannot present the roll: {e}")))?;
        Python::attach(|py| {
            let object = object.bind(py);
            let state = Py::new(py, PyGame::wrap(decision, describe(game.rules())))
                .map_err(|e| self.raised(py, e))?;
            let answer = match object.hasattr("choose") {
                Ok(true) => object.call_method1("choose", (state,)),
                Ok(false) => object.call1((state,)),
                Err(e) => Err(e),
            }
            .map_err(|e| self.raised(py, e))?;
            let legal: Vec<String> = moves
                .iter()
                .map(|m| ActionId::of_move(m).to_string())
                .collect();
            let id = answer
                .extract::<i64>()
                .ok()
                .filter(|_| !answer.is_instance_of::<pyo3::types::PyBool>());
            id.and_then(|id| {
                moves
                    .iter()
                    .position(|m| ActionId::of_move(m).index() as i64 == id)
            })
            .ok_or_else(|| {
                self.fail(format!(
                    "returned {}, which is not a legal action: legal actions are {}",
                    answer.repr().map_or_else(
                        |_| "?".into(),
                        |r| aeroplane::excerpt::excerpt(&r.to_string())
                    ),
                    legal.join(", ")
                ))
            })
        })
    }
}

/// A bot of kind `python`: a copy of the registered object for each worker thread and lineup
/// entry (the object itself when it cannot be copied and plays only once).
fn build_python_bot(name: &str, _params: &Params) -> Box<dyn Bot> {
    let found = Python::attach(|py| {
        // Copied with the registry's lock released (see `register_python_bot`).
        let (snapshot, builds, object, error) = {
            let mut reg = lock(&PYTHON_BOTS);
            let Some(e) = reg.as_mut().and_then(|m| m.get_mut(name)) else {
                return Err(
                    "no Python callable of this name is playing: pass the callable itself in bots=[...]"
                        .to_string(),
                );
            };
            e.builds += 1;
            let snapshot = match &e.snapshot {
                Ok(s) => Ok(s.clone_ref(py)),
                Err(why) => Err(why.clone()),
            };
            (snapshot, e.builds, e.object.clone_ref(py), e.error.clone())
        };
        let object = match snapshot {
            Ok(s) => deep_copy(s.bind(py)).map(Bound::unbind).map_err(|err| {
                format!("copy.deepcopy of the bot for a worker thread failed: {err}")
            })?,
            Err(_) if builds == 1 => object,
            Err(why) => {
                return Err(format!(
                    "the bot plays on several worker threads or seats, each with its own copy, and copy.deepcopy cannot copy it ({why}): give threads=1 and put it in the lineup once, or make it copyable"
                ));
            }
        };
        Ok((object, error))
    });
    Box::new(PythonBot {
        name: name.to_string(),
        found,
    })
}

static PYTHON: KindDef = KindDef {
    name: PYTHON_KIND,
    summary: "a Python callable (aeroplane.run(bots=[...]) from the Python package)",
    params: &[],
    build: build_python_bot,
};

/// Registers the kind `python` (once per process).
pub fn register_kind() -> PyResult<()> {
    match aeroplane::register_kind(&PYTHON) {
        Ok(()) => Ok(()),
        Err(aeroplane::bots::registry::BotError::KindExists(_)) => Ok(()),
        Err(e) => Err(PyRuntimeError::new_err(chain(&e))),
    }
}

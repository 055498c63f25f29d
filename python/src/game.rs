//! `aeroplane.Game`: one game through the core's state API (chance nodes, decision nodes with
//! action ids, returns, observations), the position notation, copying and pickling.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use aeroplane::core::step_json;
use aeroplane::{Game, IllegalMove, NUM_ACTIONS, Player, Seat, Setup, Status};

use crate::errors::value_error;
use crate::rules::{PyRules, rules_arg, type_name};

/// The number of players when none is given, everywhere in the package (`Game`, `VecEnv`,
/// the Gymnasium, PettingZoo and OpenSpiel games): 4, the board's, as the command line's
/// default lineup.
pub const DEFAULT_PLAYERS: i64 = 4;

/// `current_player()` at a chance node (OpenSpiel's ``PlayerId.CHANCE``).
pub const CHANCE: i64 = -1;
/// `current_player()` when the game is over (OpenSpiel's ``PlayerId.TERMINAL``).
pub const TERMINAL: i64 = -4;

/// One game of Aeroplane Chess in the shape of OpenSpiel's state API: a *chance node* waits for
/// the die (``apply_roll(face)``), a *decision node* for the seat to move's action
/// (``apply_action(a)``, one of ``legal_actions()``), then the game is *terminal*.
///
/// Seats are the board's: 0 red, 1 yellow, 2 blue, 3 green; two players sit on seats 0 and 2,
/// three on 0, 1, 2 (``seats``). Action ids name planes: ``p`` moves plane ``p`` (launches it,
/// or moves it or its stack by the roll), ``4 + p`` moves it onto the flight cell and stays
/// there; there are 8. ``returns()`` is zero until the end, then by rank (1 for the winner, -1
/// for the last; they sum to zero). ``str(game)`` is the position notation
/// (``Game.from_notation`` reads it back); games copy, compare and pickle.
#[pyclass(name = "Game", module = "aeroplane")]
#[derive(Clone)]
pub struct PyGame {
    pub game: Game,
    pub rules_name: String,
    /// For a game `VecEnv.get_state` gave: its environment's dice and opponents' generators
    /// at that position, which `set_state` of the same position goes on with.
    pub snapshot: Option<std::sync::Arc<crate::vec_env::EnvSnapshot>>,
}

/// A seed or game index: an integer from 0 to 2**64 - 1.
pub fn u64_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    let i = int_arg_wide(value, what)?;
    u64::try_from(i).map_err(|_| {
        PyValueError::new_err(format!(
            "{what} {i} is out of range: it is an integer from 0 to 2**64 - 1"
        ))
    })
}

/// An integer argument as `i128` (seeds take the whole `u64` range).
fn int_arg_wide(value: &Bound<'_, PyAny>, what: &str) -> PyResult<i128> {
    check_int(value, what)?;
    value
        .extract::<i128>()
        .map_err(|_| PyValueError::new_err(format!("{what} {value} is out of range")))
}

fn check_int(value: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an integer, not bool"
        )));
    }
    if !value.is_instance_of::<PyInt>() && !value.hasattr("__index__")? {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an integer, not {}",
            type_name(value)
        )));
    }
    Ok(())
}

/// An integer argument as `i64`: `TypeError` for a non-integer (bools included), `ValueError`
/// for one too large.
pub fn int_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    check_int(value, what)?;
    value
        .extract::<i64>()
        .map_err(|_| PyValueError::new_err(format!("{what} {value} is out of range")))
}

/// Any seat of the board: an integer 0..=3.
pub fn any_seat_arg(value: &Bound<'_, PyAny>) -> PyResult<Seat> {
    let i = int_arg(value, "seat")?;
    usize::try_from(i).ok().and_then(Seat::new).ok_or_else(|| {
        PyValueError::new_err(format!("seat {i} is not a seat: seats are 0, 1, 2, 3"))
    })
}

/// The seat a Python value names: an integer 0..=3 in play in `game`.
pub fn seat_arg(game: &Game, value: &Bound<'_, PyAny>) -> PyResult<Seat> {
    let i = int_arg(value, "seat")?;
    let seats: Vec<String> = game.seats().iter().map(|s| s.index().to_string()).collect();
    usize::try_from(i)
        .ok()
        .and_then(Seat::new)
        .filter(|&s| game.in_play(s))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "seat {i} is not in play: the seats of a {}-player game are {}",
                game.players(),
                seats.join(", ")
            ))
        })
}

fn illegal(e: IllegalMove) -> PyErr {
    value_error(&e)
}

impl PyGame {
    pub fn wrap(game: Game, rules_name: String) -> PyGame {
        PyGame {
            game,
            rules_name,
            snapshot: None,
        }
    }

    /// The seat whose view an observation takes: `seat`, else the seat to move.
    fn observer(&self, seat: Option<&Bound<'_, PyAny>>) -> PyResult<Seat> {
        match seat {
            Some(s) if !s.is_none() => seat_arg(&self.game, s),
            _ => Ok(self.game.to_move()),
        }
    }
}

/// The start of a game (also its reset): `ValueError` for a player count other than 2..=4.
pub fn new_game(rules: aeroplane::Rules, players: i64) -> PyResult<Game> {
    usize::try_from(players)
        .map_err(|_| ())
        .and_then(|p| Game::new(rules, p).map_err(|_| ()))
        .map_err(|_| {
            PyValueError::new_err(format!(
                "players must be 2, 3 or 4, not {players} (2 players sit on seats 0 and 2, 3 on 0, 1, 2)"
            ))
        })
}

#[pymethods]
impl PyGame {
    /// ``Game(rules=None, players=4)``: the start of a game: every plane in its hangar, seat 0
    /// to roll. ``rules`` is an ``aeroplane.Rules``, a preset name or a variant file (default
    /// ``appfreegame``).
    #[new]
    #[pyo3(signature = (rules = None, players = None))]
    fn py_new(
        rules: Option<&Bound<'_, PyAny>>,
        players: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (rules, name) = rules_arg(rules)?;
        let players = match players {
            Some(p) => int_arg(p, "players")?,
            None => DEFAULT_PLAYERS,
        };
        Ok(PyGame::wrap(new_game(rules, players)?, name))
    }

    /// ``Game.from_notation(text, rules=None)``: the position written in the notation of
    /// ``docs/RULES.md`` (``str(game)``), checked against ``rules``.
    #[staticmethod]
    #[pyo3(signature = (text, rules = None))]
    fn from_notation(
        text: &Bound<'_, PyAny>,
        rules: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyGame> {
        let text = crate::rules::str_arg(text, "text", "a position in the notation (str(game))")?;
        let (rules, name) = rules_arg(rules)?;
        let game = Game::from_notation(rules, &text).map_err(|e| value_error(&e))?;
        Ok(PyGame::wrap(game, name))
    }

    /// Who acts next: the seat to move at a decision node, ``CHANCE`` (-1) when the die is to be
    /// rolled, ``TERMINAL`` (-4) when the game is over.
    fn current_player(&self) -> i64 {
        match self.game.current_player() {
            Player::Chance => CHANCE,
            Player::Seat(s) => s.index() as i64,
            Player::Terminal => TERMINAL,
        }
    }

    /// Whether the die is to be rolled.
    fn is_chance_node(&self) -> bool {
        self.game.is_chance_node()
    }

    /// Whether the game is over (by the rules, or stopped by ``max_turns``).
    fn is_terminal(&self) -> bool {
        self.game.is_terminal()
    }

    /// At a chance node, the six faces with their probabilities ``[(1, 1/6), ..., (6, 1/6)]``;
    /// otherwise empty.
    fn chance_outcomes(&self) -> Vec<(u8, f64)> {
        self.game.chance_outcomes()
    }

    /// Rolls ``face`` (1..6) at a chance node. A roll that offers no move (a pass, or a punished
    /// third six) is played at once: the game is then a chance node again, or over.
    fn apply_roll(&mut self, face: &Bound<'_, PyAny>) -> PyResult<()> {
        let f = int_arg(face, "face")?;
        let face = u8::try_from(f)
            .ok()
            .filter(|f| (1..=6).contains(f))
            .ok_or_else(|| PyValueError::new_err(format!("face {f} is not a die face: 1 to 6")))?;
        self.game.apply_roll(face).map(|_| ()).map_err(illegal)
    }

    /// The legal action ids, ascending (empty at chance and terminal nodes).
    fn legal_actions(&self) -> Vec<u32> {
        self.game
            .legal_actions()
            .iter()
            .map(|a| a.index() as u32)
            .collect()
    }

    /// The legal actions as a mask of ``NUM_ACTIONS`` (8) booleans, indexed by action id.
    fn legal_actions_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, &self.game.legal_actions_mask())
    }

    /// Plays action ``action`` (one of ``legal_actions()``) for the roll waiting at this
    /// decision node.
    fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let a = int_arg(action, "action")?;
        let Some(id) = u32::try_from(a)
            .ok()
            .filter(|&a| (a as usize) < NUM_ACTIONS)
        else {
            let legal: Vec<String> = self
                .game
                .legal_actions()
                .iter()
                .map(|a| a.index().to_string())
                .collect();
            return Err(PyValueError::new_err(format!(
                "action {a} is not an action id: ids are 0 to {}{}",
                NUM_ACTIONS - 1,
                if legal.is_empty() {
                    String::new()
                } else {
                    format!(", and the legal actions here are {}", legal.join(", "))
                }
            )));
        };
        self.game.apply_action(id).map(|_| ()).map_err(illegal)
    }

    /// An action as text: ``p0 launch``, ``p2 14``, ``p1 18:fly``, ``p1 18:stay``.
    fn action_to_string(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        let a = int_arg(action, "action")?;
        let id = u32::try_from(a)
            .ok()
            .and_then(aeroplane::ActionId::new)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "action {a} is not an action id: ids are 0 to {}",
                    NUM_ACTIONS - 1
                ))
            })?;
        Ok(self.game.action_to_string(id))
    }

    /// Each seat's return, indexed by seat (a list of 4; seats not in play get 0): zero until
    /// the game is over, then by rank, summing to zero.
    fn returns(&self) -> Vec<f64> {
        self.game.returns().to_vec()
    }

    /// Plays the game to its end from here and returns every seat's return (as ``returns()``):
    /// a playout for search algorithms. Every seat plays ``policy`` (``"random"``: uniform
    /// among the distinct legal moves; ``"greedy"``: the greedy bot), the die comes from a
    /// generator seeded by ``seed``; ``self`` is unchanged.
    #[pyo3(signature = (seed, policy = None))]
    fn rollout(
        &self,
        seed: &Bound<'_, PyAny>,
        policy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<f64>> {
        let policy = match policy {
            Some(p) => crate::rules::str_arg(p, "policy", "\"random\" or \"greedy\"")?,
            None => "random".to_string(),
        };
        let greedy = match policy.as_str() {
            "random" => false,
            "greedy" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "rollout policy {:?}: allowed are \"random\" and \"greedy\"",
                    aeroplane::excerpt::excerpt(other)
                )));
            }
        };
        let mut rng = aeroplane::stream(u64_arg(seed, "seed")?, 0, 0);
        let mut pick = |moves: &[aeroplane::Move]| -> usize {
            if greedy {
                aeroplane::Greedy::pick(moves)
            } else {
                aeroplane::below(&mut rng, moves.len() as u32) as usize
            }
        };
        let mut g = self.game;
        if g.pending_roll().is_some() {
            let moves = g.pending_moves();
            let m = moves[pick(&moves)];
            g.apply_action(aeroplane::ActionId::of_move(&m).index() as u32)
                .map_err(illegal)?;
        }
        let mut dice = aeroplane::stream(u64_arg(seed, "seed")?, 0, 1);
        let mut moves = aeroplane::MoveList::default();
        while !g.is_over() {
            let roll = aeroplane::below(&mut dice, 6) as u8 + 1;
            g.legal_moves_into(roll, &mut moves);
            let choice = match moves.len() {
                0 => None,
                1 => Some(moves[0]),
                _ => Some(moves[pick(&moves)]),
            };
            g.apply(roll, choice);
        }
        Ok(g.returns().to_vec())
    }

    /// The observation vector of ``seat`` (default: the seat to move), rotated so that the
    /// observer comes first; layout in ``docs/RULES.md``. ``kind="flat"``: the
    /// ``OBSERVATION_LEN`` = 170 float32; ``kind="rich"``: ``RICH_OBSERVATION_LEN`` = 414, those
    /// (the turn feature on the scale of real games) and each seat's planes by step.
    #[pyo3(signature = (seat = None, *, kind = None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&Bound<'py, PyAny>>,
        kind: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let observer = self.observer(seat)?;
        let kind = crate::observe::kind_arg(kind, "kind")?;
        let out = PyArray1::<f32>::zeros(py, kind.len(), false);
        {
            let mut rw = out.readwrite();
            let slice = rw.as_slice_mut().expect("contiguous");
            crate::observe::write(kind, &self.game, observer, 0, slice);
        }
        Ok(out)
    }

    /// The position as one line of text from ``seat``'s side (default: the seat to move).
    #[pyo3(signature = (seat = None))]
    fn observation_string(&self, seat: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        Ok(self.game.observation_string(self.observer(seat)?))
    }

    /// A copy of the game.
    #[pyo3(name = "clone")]
    fn py_clone(&self) -> PyGame {
        Clone::clone(self)
    }

    fn __copy__(&self) -> PyGame {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        Clone::clone(self)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (PyRules, String))> {
        let f = py
            .import("aeroplane._native")?
            .getattr("_game_from_notation")?;
        Ok((
            f,
            (
                PyRules::new_named(*self.game.rules(), self.rules_name.clone()),
                self.game.to_string(),
            ),
        ))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyGame>()
            .is_ok_and(|o| o.borrow().game == self.game)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.game.hash(&mut h);
        h.finish()
    }

    /// The position notation.
    fn __str__(&self) -> String {
        self.game.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "aeroplane.Game.from_notation({:?}, rules={:?})",
            self.game.to_string(),
            self.rules_name
        )
    }

    /// The rules.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules::new_named(*self.game.rules(), self.rules_name.clone())
    }

    /// Number of players.
    #[getter]
    fn players(&self) -> usize {
        self.game.players()
    }

    /// The seats in play, in turn order (2 players: ``[0, 2]``).
    #[getter]
    fn seats(&self) -> Vec<usize> {
        self.game.seats().iter().map(|s| s.index()).collect()
    }

    /// The seat to roll, or to choose an action at a decision node (in a finished game, the
    /// seat that moved last).
    #[getter]
    fn to_move(&self) -> usize {
        self.game.to_move().index()
    }

    /// The roll waiting for the seat to move's action, or ``None`` at a chance node.
    #[getter]
    fn pending_roll(&self) -> Option<u8> {
        self.game.pending_roll()
    }

    /// Turns begun so far, by all players together.
    #[getter]
    fn turns(&self) -> u32 {
        self.game.turns()
    }

    /// ``"playing"``, ``"finished"`` (ended by the rules) or ``"unfinished"`` (stopped by
    /// ``max_turns``).
    #[getter]
    fn status(&self) -> &'static str {
        match self.game.status() {
            Status::Playing => "playing",
            Status::Finished => "finished",
            Status::Unfinished => "unfinished",
        }
    }

    /// The winner's seat, once there is one.
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.game.winner().map(Seat::index)
    }

    /// The rank of ``seat`` (1 is the winner), or ``None``.
    fn rank(&self, seat: &Bound<'_, PyAny>) -> PyResult<Option<u8>> {
        Ok(self.game.rank(seat_arg(&self.game, seat)?))
    }

    /// The steps of ``seat``'s planes, plane 0 first: -1 in the hangar, 0 on the take-off cell,
    /// 1..50 on the ring, then the home lane up to the centre (``rules.centre``).
    fn steps(&self, seat: &Bound<'_, PyAny>) -> PyResult<Vec<i16>> {
        let s = seat_arg(&self.game, seat)?;
        let planes = usize::from(self.game.rules().planes());
        Ok(self.game.steps(s)[..planes]
            .iter()
            .map(|&x| step_json(x))
            .collect())
    }

    /// The player number (0..players, as OpenSpiel and PettingZoo count) of ``seat``.
    fn player_of(&self, seat: &Bound<'_, PyAny>) -> PyResult<usize> {
        let s = seat_arg(&self.game, seat)?;
        Ok(self
            .game
            .seats()
            .iter()
            .position(|&x| x == s)
            .expect("in play"))
    }

    /// The seat of player ``player`` (0..players).
    fn seat_of(&self, player: &Bound<'_, PyAny>) -> PyResult<usize> {
        let p = int_arg(player, "player")?;
        let seats = self.game.seats();
        usize::try_from(p)
            .ok()
            .and_then(|p| seats.get(p))
            .map(|s| s.index())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "player {p} is not in the game: players are 0 to {}",
                    seats.len() - 1
                ))
            })
    }
}

/// Rebuilds a pickled game.
#[pyfunction]
pub fn _game_from_notation(rules: PyRef<'_, PyRules>, text: &str) -> PyResult<PyGame> {
    let game = Game::from_notation(rules.rules, text).map_err(|e| value_error(&e))?;
    Ok(PyGame::wrap(game, rules.name.clone()))
}

/// `game` at its chance node: the position before the waiting roll, as the fast path and the
/// built-in bots see it.
pub fn before_roll(game: &Game) -> PyResult<Game> {
    let mut setup = Setup::from(game);
    setup.roll = None;
    setup
        .into_game(*game.rules())
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(crate::errors::chain(&e)))
}

//! The seeding scheme from Python: the dice of game `i` of seed `s` (one stream per seat) and
//! the bots' seeds, exactly as every `aeroplane` run uses them.

use pyo3::prelude::*;

use pyo3::exceptions::PyValueError;

use aeroplane::{Dice, Seat, SeededDice, bot_stream};

use crate::game::{PyGame, any_seat_arg, u64_arg};

/// ``SeededDice(seed, game)``: the dice of game ``game`` of a run with seed ``seed``: one
/// independent stream per seat, so ``roll(seat)`` gives the n-th roll of that seat in that
/// game whatever the other seats rolled. ``aeroplane run --seed S`` plays game ``i`` with
/// ``SeededDice(S, i)`` (with ``--rotate-seats``, the deal ``i // players``).
/// They copy and pickle with the rolls drawn so far (a copy goes on where the original is).
#[pyclass(name = "SeededDice", module = "aeroplane")]
#[derive(Clone)]
pub struct PySeededDice {
    dice: SeededDice,
    seed: u64,
    game: u64,
    /// Rolls drawn from each seat's stream.
    drawn: [u64; 4],
}

impl PySeededDice {
    fn draw(&mut self, seat: Seat) -> u8 {
        self.drawn[seat.index()] += 1;
        // Seeded dice never run out.
        self.dice.roll(seat).unwrap_or(1)
    }
}

/// What `__reduce__` gives: the function rebuilding the dice, and its arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (u64, u64, Vec<u64>));

/// The most rolls per seat a pickled `SeededDice` may say were drawn (a game of the presets
/// draws a few hundred).
const MAX_DRAWN: u64 = 1 << 32;

#[pymethods]
impl PySeededDice {
    #[new]
    fn py_new(seed: &Bound<'_, PyAny>, game: &Bound<'_, PyAny>) -> PyResult<Self> {
        let (seed, game) = (u64_arg(seed, "seed")?, u64_arg(game, "game")?);
        Ok(PySeededDice {
            dice: SeededDice::new(seed, game),
            seed,
            game,
            drawn: [0; 4],
        })
    }

    /// The next roll (1..6) of ``seat``'s stream.
    fn roll(&mut self, seat: &Bound<'_, PyAny>) -> PyResult<u8> {
        let seat = any_seat_arg(seat)?;
        Ok(self.draw(seat))
    }

    /// The seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// The game (or deal) whose dice these are.
    #[getter]
    fn game(&self) -> u64 {
        self.game
    }

    /// Rolls drawn so far from each seat's stream, a list of 4.
    #[getter]
    fn drawn(&self) -> Vec<u64> {
        self.drawn.to_vec()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py>> {
        let f = py
            .import("aeroplane._native")?
            .getattr("_dice_from_state")?;
        Ok((f, (self.seed, self.game, self.drawn.to_vec())))
    }

    fn __repr__(&self) -> String {
        format!(
            "aeroplane.SeededDice(seed={}, game={}) with {:?} rolls drawn per seat",
            self.seed, self.game, self.drawn
        )
    }

    /// Rolls the die for the seat to move of ``game`` at a chance node (``game.apply_roll``),
    /// and returns the face.
    fn roll_for(&mut self, game: &Bound<'_, PyGame>) -> PyResult<u8> {
        let mut g = game.borrow_mut();
        let face = self.draw(g.game.to_move());
        g.game
            .apply_roll(face)
            .map_err(|e| crate::errors::value_error(&e))?;
        Ok(face)
    }
}

/// ``bot_seed(seed, game, seat)``: the seed the bot in ``seat`` gets for game ``game`` of a run
/// with seed ``seed`` (``Bot.new_game(seat, bot_seed(...))``); independent of the dice.
#[pyfunction]
pub fn bot_seed(
    seed: &Bound<'_, PyAny>,
    game: &Bound<'_, PyAny>,
    seat: &Bound<'_, PyAny>,
) -> PyResult<u64> {
    Ok(bot_stream(
        u64_arg(seed, "seed")?,
        u64_arg(game, "game")?,
        any_seat_arg(seat)?,
    ))
}

/// Rebuilds pickled dice: the streams of `(seed, game)` with `drawn[s]` rolls of seat `s` drawn.
#[pyfunction]
pub fn _dice_from_state(seed: u64, game: u64, drawn: Vec<u64>) -> PyResult<PySeededDice> {
    let drawn: [u64; 4] = drawn
        .try_into()
        .ok()
        .filter(|d: &[u64; 4]| d.iter().all(|&k| k <= MAX_DRAWN))
        .ok_or_else(|| {
            PyValueError::new_err("not the state of SeededDice: 4 counts up to 2**32")
        })?;
    let mut dice = SeededDice::new(seed, game);
    for (seat, &k) in Seat::ALL.iter().zip(&drawn) {
        for _ in 0..k {
            let _ = dice.roll(*seat);
        }
    }
    Ok(PySeededDice {
        dice,
        seed,
        game,
        drawn,
    })
}

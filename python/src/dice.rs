//! The seeding scheme from Python: the dice of game `i` of seed `s` (one stream per seat) and
//! the bots' seeds, exactly as every `aeroplane` run uses them.

use pyo3::prelude::*;

use aeroplane::{Dice, SeededDice, bot_stream};

use crate::game::{PyGame, any_seat_arg, u64_arg};

/// ``SeededDice(seed, game)``: the dice of game ``game`` of a run with seed ``seed``: one
/// independent stream per seat, so ``roll(seat)`` gives the n-th roll of that seat in that
/// game whatever the other seats rolled. ``aeroplane run --seed S`` plays game ``i`` with
/// ``SeededDice(S, i)`` (with ``--rotate-seats``, the deal ``i // players``).
#[pyclass(name = "SeededDice", module = "aeroplane")]
pub struct PySeededDice {
    dice: SeededDice,
}

#[pymethods]
impl PySeededDice {
    #[new]
    fn py_new(seed: &Bound<'_, PyAny>, game: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PySeededDice {
            dice: SeededDice::new(u64_arg(seed, "seed")?, u64_arg(game, "game")?),
        })
    }

    /// The next roll (1..6) of ``seat``'s stream.
    fn roll(&mut self, seat: &Bound<'_, PyAny>) -> PyResult<u8> {
        let seat = any_seat_arg(seat)?;
        // Seeded dice never run out.
        Ok(self.dice.roll(seat).unwrap_or(1))
    }

    /// Rolls the die for the seat to move of ``game`` at a chance node (``game.apply_roll``),
    /// and returns the face.
    fn roll_for(&mut self, game: &Bound<'_, PyGame>) -> PyResult<u8> {
        let mut g = game.borrow_mut();
        // Seeded dice never run out.
        let face = self.dice.roll(g.game.to_move()).unwrap_or(1);
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

//! The observations the Python package offers: the engine's flat vector (`flat`, 170 values)
//! and a richer one (`rich`) with each seat's planes one-hot by step and a turn feature on the
//! scale of real games.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use aeroplane::board::HANGAR;
use aeroplane::observation::ROLL_AT;
use aeroplane::{Game, OBSERVATION_LEN, Seat};

use crate::rules::type_name;

/// Slots per seat of the rich observation's step block: the hangar, then steps 0 (the
/// take-off cell) to 59 (the farthest centre, `home_lane_cells = 8`).
pub const STEP_SLOTS: usize = 61;
/// Length of the rich observation: the flat vector, then 4 seats x [`STEP_SLOTS`].
pub const RICH_LEN: usize = OBSERVATION_LEN + 4 * STEP_SLOTS;
/// The rich observation's turn feature is `min(turns / TURN_SCALE, 1)`: a four-player game of
/// appfreegame between greedy bots takes 270 turns on average (all players' turns together;
/// 95% of them under 365), so the feature spans about 0.1 to 0.5.
pub const TURN_SCALE: f32 = 1000.0;
/// Index of the turn feature in both vectors.
const TURNS_AT: usize = OBSERVATION_LEN - 1;

/// Which observation vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObsKind {
    /// The engine's 170 values (`Game.observation`).
    Flat,
    /// The flat values (the turn feature rescaled), then the seats' planes by step.
    Rich,
}

impl ObsKind {
    /// Its length.
    pub fn len(self) -> usize {
        match self {
            ObsKind::Flat => OBSERVATION_LEN,
            ObsKind::Rich => RICH_LEN,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            ObsKind::Flat => "flat",
            ObsKind::Rich => "rich",
        }
    }
}

/// The observation kind a Python value names (`None`: flat).
pub fn kind_arg(value: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<ObsKind> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(ObsKind::Flat);
    };
    let Ok(s) = v.cast::<PyString>() else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be \"flat\" or \"rich\", not {}",
            type_name(v)
        )));
    };
    match &*s.to_cow()? {
        "flat" => Ok(ObsKind::Flat),
        "rich" => Ok(ObsKind::Rich),
        other => Err(PyValueError::new_err(format!(
            "{what} {:?}: allowed are \"flat\" (the 170 values of Game.observation) and \"rich\" ({RICH_LEN} values: those, then each seat's planes by step)",
            aeroplane::excerpt::excerpt(other)
        ))),
    }
}

/// Writes `game`'s observation of kind `kind` from `observer`'s side into `out` (every value
/// written); `roll`, if not 0, is marked as the roll waiting (for a position kept at its chance
/// node while a decision waits).
pub fn write(kind: ObsKind, game: &Game, observer: Seat, roll: u8, out: &mut [f32]) {
    let (flat, rest) = out.split_at_mut(OBSERVATION_LEN);
    let flat: &mut [f32; OBSERVATION_LEN] = flat.try_into().expect("length");
    game.observation_into(observer, flat);
    if roll != 0 {
        flat[ROLL_AT + usize::from(roll) - 1] = 1.0;
    }
    if kind == ObsKind::Flat {
        return;
    }
    flat[TURNS_AT] = (game.turns() as f32 / TURN_SCALE).min(1.0);
    rest.fill(0.0);
    let planes = game.rules().planes();
    let share = 1.0 / f32::from(planes);
    let me = observer.index();
    for r in 0..4 {
        let seat = Seat::ALL[(me + r) & 3];
        if !game.in_play(seat) {
            continue;
        }
        let row = &mut rest[r * STEP_SLOTS..(r + 1) * STEP_SLOTS];
        for &s in &game.steps(seat)[..usize::from(planes)] {
            let slot = if s == HANGAR { 0 } else { usize::from(s) + 1 };
            row[slot.min(STEP_SLOTS - 1)] += share;
        }
    }
}

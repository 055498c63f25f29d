//! The native module of the `aeroplane` Python package (`aeroplane._native`): the engine's
//! state API (`Game`, `Rules`), the seeding scheme (`SeededDice`, `bot_seed`), bots
//! (`aeroplane.bots.Bot`, Python callables as bots), the command line's jobs (`run`, `sweep`,
//! `league`) and the vectorised environment (`VecEnv`). The Python modules of
//! `python/aeroplane/` (OpenSpiel, PettingZoo, the bots' helpers) are built on it.

use pyo3::prelude::*;

mod bots;
mod dice;
mod errors;
mod game;
mod jobs;
mod log_arrays;
mod net;
mod observe;
mod rules;
mod table;
mod vec_env;

/// The native part of the ``aeroplane`` package; import ``aeroplane`` instead.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    bots::register_kind()?;
    m.add_class::<rules::PyRules>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<dice::PySeededDice>()?;
    m.add_class::<bots::PyBot>()?;
    m.add_class::<vec_env::PyVecEnv>()?;
    m.add_class::<table::PyTable>()?;
    m.add_function(wrap_pyfunction!(dice::bot_seed, m)?)?;
    m.add_function(wrap_pyfunction!(dice::_dice_from_state, m)?)?;
    m.add_function(wrap_pyfunction!(log_arrays::read_log, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::run, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::league, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::_finish_stopping_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(rules::_rules_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(net::tdg_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(net::tdg_features, m)?)?;
    m.add_function(wrap_pyfunction!(net::_load_net, m)?)?;
    m.add_class::<net::PyNet>()?;
    m.add_function(wrap_pyfunction!(net::_rules_json, m)?)?;
    m.add("TDG_ENCODING", net::TDG)?;
    m.add_function(wrap_pyfunction!(game::_game_from_notation, m)?)?;
    m.add("CHANCE", game::CHANCE)?;
    m.add("TERMINAL", game::TERMINAL)?;
    m.add("NUM_ACTIONS", aeroplane::NUM_ACTIONS)?;
    m.add("OBSERVATION_LEN", aeroplane::OBSERVATION_LEN)?;
    m.add("RICH_OBSERVATION_LEN", observe::RICH_LEN)?;
    m.add("DEFAULT_PLAYERS", game::DEFAULT_PLAYERS)?;
    m.add("MAX_ENVS", vec_env::MAX_ENVS)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

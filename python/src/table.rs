//! `aeroplane.Table`: a table solved by `aeroplane solve`, read for the value of a position.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::to_py;
use crate::game::PyGame;

/// A value table written by ``aeroplane solve --out DIR`` (two players): ``Table(dir)`` loads
/// ``DIR/table.bin`` (or the file given), checked against its checksum. ``value(game)`` is the
/// equity ``P(win) - P(loss)`` under perfect play for the seat to move in ``game`` (at a
/// decision node, the best move's); ``win_probability(game)`` is ``(1 + value) / 2``;
/// ``move_values(game)`` lists each legal move of a decision node (move notation) with its
/// equity.
#[pyclass(name = "Table", module = "aeroplane", frozen)]
pub struct PyTable {
    table: Arc<aeroplane::solve::Table>,
}

impl PyTable {
    fn value_of(&self, game: &Bound<'_, PyAny>) -> PyResult<aeroplane::solve::PositionValue> {
        let g = game.cast::<PyGame>().map_err(|_| {
            PyTypeError::new_err(format!(
                "game must be an aeroplane.Game, not {}",
                game.get_type().name().map_or("?".into(), |n| n.to_string())
            ))
        })?;
        let g = g.borrow();
        self.table.position_value(&g.game).map_err(|e| to_py(&e))
    }
}

#[pymethods]
impl PyTable {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let table = aeroplane::solve::Table::load(&path).map_err(|e| to_py(&e))?;
        Ok(PyTable { table })
    }

    /// The equity (``P(win) - P(loss)`` under perfect play) of ``game`` for the seat to move.
    fn value(&self, game: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.value_of(game)?.equity)
    }

    /// The probability that the seat to move wins under perfect play: ``(1 + value) / 2``.
    fn win_probability(&self, game: &Bound<'_, PyAny>) -> PyResult<f64> {
        Ok(self.value_of(game)?.win_probability())
    }

    /// At a decision node, each legal move (move notation) with its equity for the mover; at
    /// a chance node, an empty list.
    fn move_values(&self, game: &Bound<'_, PyAny>) -> PyResult<Vec<(String, f64)>> {
        Ok(self.value_of(game)?.moves)
    }

    /// The table's checksum (FNV-1a over the file's 8-byte little-endian words), hex.
    #[getter]
    fn checksum(&self) -> String {
        format!("{:016x}", self.table.checksum())
    }

    fn __repr__(&self) -> String {
        format!("Table(checksum={:016x})", self.table.checksum())
    }
}

//! Rust errors as Python exceptions: bad values are `ValueError`, values of the wrong type
//! `TypeError`, files that cannot be read `OSError` (`FileNotFoundError` when missing). The
//! message is the error with its causes, as the command line prints it.

use std::error::Error;

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};

use aeroplane::RulesError;

pub use aeroplane::core::excerpt::chain;

/// `ValueError` with the error's chain as its message.
pub fn value_error(e: &(dyn Error + 'static)) -> PyErr {
    PyValueError::new_err(chain(e))
}

/// The exception for an error whose chain may hold an IO error or a rules error of the wrong
/// type: `FileNotFoundError`/`OSError` for IO, `TypeError` for a value of the wrong type,
/// else `ValueError`.
pub fn to_py(e: &(dyn Error + 'static)) -> PyErr {
    let message = chain(e);
    let mut cause: Option<&(dyn Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
                _ => PyOSError::new_err(message),
            };
        }
        if let Some(RulesError::WrongType { .. }) = c.downcast_ref::<RulesError>() {
            return PyTypeError::new_err(message);
        }
        cause = c.source();
    }
    PyValueError::new_err(message)
}

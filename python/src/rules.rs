//! `aeroplane.Rules`: a rule variant, valid by construction (it wraps the core's `Rules`).

use std::path::PathBuf;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use aeroplane::config::{load_rules, read_rules_file};
use aeroplane::{Preset, RuleOption, Rules, RulesToml, Setting};

use crate::errors::to_py;

/// A rule variant of Aeroplane Chess: a preset (``appfreegame``, ``classic``, ``chinese``)
/// with any options changed. It can only hold a valid variant: unknown options raise
/// ``TypeError``, values outside what an option allows ``ValueError``, both naming what is
/// allowed.
///
/// ``Rules()`` is the default preset, ``appfreegame``; ``Rules("classic", overshoot="bounce")``
/// starts from a preset and changes options. The options and their values are those of the
/// variant files (``docs/RULES.md``): ``launch_rolls`` (a list of die faces),
/// ``home_lane_cells``, ``max_turns`` and ``planes`` (integers), ``flight_optional`` and
/// ``flight_captures_crossed`` (booleans), ``overshoot``, ``specials``, ``three_sixes``,
/// ``stacking`` and ``end`` (words).
#[pyclass(name = "Rules", module = "aeroplane", frozen)]
#[derive(Clone)]
pub struct PyRules {
    pub rules: Rules,
    /// How the variant was named: a preset, a file path, or the preset and the options changed.
    pub name: String,
}

impl PyRules {
    pub fn new_named(rules: Rules, name: String) -> PyRules {
        PyRules { rules, name }
    }
}

/// The launch faces as a list (a `Vec<u8>` would become `bytes`).
fn faces(rules: &Rules) -> Vec<u32> {
    rules
        .launch_rolls()
        .faces()
        .into_iter()
        .map(u32::from)
        .collect()
}

/// The preset `name` names, or a `ValueError` listing the presets.
fn preset(name: &str) -> PyResult<Preset> {
    name.parse::<Preset>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One option's value from Python, checked: the option's type first (`TypeError`), then its
/// range (`ValueError`).
fn setting(option: RuleOption, value: &Bound<'_, PyAny>) -> PyResult<Setting> {
    let name = option.name();
    let wrong = |wanted: &str| {
        PyTypeError::new_err(format!(
            "option `{name}` takes {wanted}, not {}: allowed is {}",
            type_name(value),
            option.allowed()
        ))
    };
    let result = match option {
        RuleOption::LaunchRolls => {
            if value.is_instance_of::<PyString>()
                || value.is_instance_of::<PyBytes>()
                || value.is_instance_of::<PyByteArray>()
                || !is_sequence(value)
            {
                return Err(wrong("a list of die faces"));
            }
            let mut faces = Vec::new();
            for item in value.try_iter()? {
                let item = item?;
                if item.is_instance_of::<PyBool>() || !item.is_instance_of::<PyInt>() {
                    return Err(wrong("a list of integer die faces"));
                }
                faces.push(wide_int(&item, option)?);
            }
            Setting::launch_rolls(&faces)
        }
        RuleOption::FlightOptional | RuleOption::FlightCapturesCrossed => {
            let Ok(b) = value.cast::<PyBool>() else {
                return Err(wrong("True or False"));
            };
            Setting::boolean(option, b.is_true())
        }
        RuleOption::HomeLaneCells | RuleOption::MaxTurns | RuleOption::Planes => {
            if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
                return Err(wrong("an integer"));
            }
            Setting::integer(option, wide_int(value, option)?)
        }
        _ => {
            let Ok(word) = value.cast::<PyString>() else {
                return Err(wrong("a string"));
            };
            Setting::parse(option, &word.to_cow()?)
        }
    };
    result.map_err(|e| to_py(&e))
}

fn is_sequence(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>()
        || value.hasattr("__iter__").unwrap_or(false)
}

/// A string argument: `TypeError` naming the parameter for anything else.
pub fn str_arg(value: &Bound<'_, PyAny>, what: &str, wanted: &str) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be {wanted}, not {}",
            type_name(value)
        ))),
    }
}

/// A path argument (a string or an `os.PathLike`): `TypeError` naming the parameter for
/// anything else.
pub fn path_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<PathBuf> {
    if (value.is_instance_of::<PyString>() || value.hasattr("__fspath__")?)
        && let Ok(p) = value.extract::<PathBuf>()
    {
        return Ok(p);
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a path (str or os.PathLike), not {}",
        type_name(value)
    )))
}

/// An integer option's value: the value itself in the message when it does not fit.
fn wide_int(value: &Bound<'_, PyAny>, option: RuleOption) -> PyResult<i64> {
    value.extract::<i64>().map_err(|_| {
        PyValueError::new_err(format!(
            "invalid value {} for option `{}`: allowed is {}",
            value.str().map_or_else(
                |_| "?".into(),
                |s| aeroplane::excerpt::excerpt(&s.to_string())
            ),
            option.name(),
            option.allowed()
        ))
    })
}

/// The Python type name of a value, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// `rules` with every option of `options` set, and the names of the options set.
pub fn apply_options(
    mut rules: Rules,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Rules, Vec<String>)> {
    let mut changed = Vec::new();
    let Some(options) = options else {
        return Ok((rules, changed));
    };
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        let Some(option) = RuleOption::from_name(&key) else {
            return Err(PyTypeError::new_err(format!(
                "unknown rules option `{}`{}",
                aeroplane::excerpt::excerpt(&key),
                aeroplane::suggest::tail(
                    &key,
                    RuleOption::ALL.map(RuleOption::name),
                    &format!("the options are {}", RuleOption::names())
                )
            )));
        };
        let s = setting(option, &value)?;
        rules = rules.with(s);
        changed.push(s.to_string());
    }
    Ok((rules, changed))
}

/// The name of a preset with options changed.
fn variant_name(base: &str, changed: &[String]) -> String {
    if changed.is_empty() {
        base.to_string()
    } else {
        format!("{base} ({})", changed.join(", "))
    }
}

#[pymethods]
impl PyRules {
    /// ``Rules(base="appfreegame", **options)``: the preset ``base`` with ``options`` changed.
    #[new]
    #[pyo3(signature = (base = None, **options))]
    fn py_new(
        base: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyRules> {
        let base = match base {
            Some(b) => str_arg(b, "base", "a preset name (appfreegame, classic, chinese)")?,
            None => "appfreegame".to_string(),
        };
        let (rules, changed) = apply_options(preset(&base)?.rules(), options)?;
        Ok(PyRules::new_named(rules, variant_name(&base, &changed)))
    }

    /// ``Rules.preset(name, **options)``: a preset (``appfreegame``, ``classic``, ``chinese``),
    /// with ``options`` changed.
    #[staticmethod]
    #[pyo3(signature = (name, **options))]
    fn preset(name: &Bound<'_, PyAny>, options: Option<&Bound<'_, PyDict>>) -> PyResult<PyRules> {
        let name = str_arg(
            name,
            "name",
            "a preset name (appfreegame, classic, chinese)",
        )?;
        let (rules, changed) = apply_options(preset(&name)?.rules(), options)?;
        Ok(PyRules::new_named(rules, variant_name(&name, &changed)))
    }

    /// ``Rules.from_toml(path)``: a variant file (TOML: ``base = "classic"`` and the options
    /// that differ), as ``--rules FILE`` reads it.
    #[staticmethod]
    fn from_toml(path: &Bound<'_, PyAny>) -> PyResult<PyRules> {
        let path = path_arg(path, "path")?;
        let rules = read_rules_file(&path).map_err(|e| to_py(&e))?;
        Ok(PyRules::new_named(rules, path.display().to_string()))
    }

    /// ``Rules.from_toml_str(text)``: a variant from TOML text.
    #[staticmethod]
    fn from_toml_str(text: &Bound<'_, PyAny>) -> PyResult<PyRules> {
        let text = str_arg(text, "text", "TOML text")?;
        let rules = Rules::from_toml(&text).map_err(|e| to_py(&e))?;
        Ok(PyRules::new_named(rules, describe(&rules)))
    }

    /// ``Rules.load(name_or_path)``: a preset name or a variant file, as the command line's
    /// ``--rules`` takes it.
    #[staticmethod]
    fn load(name_or_path: &Bound<'_, PyAny>) -> PyResult<PyRules> {
        let name_or_path = path_arg(name_or_path, "name_or_path")?
            .to_string_lossy()
            .into_owned();
        let rules = load_rules(&name_or_path).map_err(|e| to_py(&e))?;
        Ok(PyRules::new_named(rules, name_or_path))
    }

    /// These rules with ``options`` changed.
    #[pyo3(signature = (**options))]
    fn replace(&self, options: Option<&Bound<'_, PyDict>>) -> PyResult<PyRules> {
        let (rules, changed) = apply_options(self.rules, options)?;
        Ok(PyRules::new_named(
            rules,
            variant_name(&self.name, &changed),
        ))
    }

    /// The variant as TOML text with every option written out (a variant file).
    fn to_toml(&self) -> String {
        self.rules.to_toml()
    }

    /// Every option and its value.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let r = &self.rules;
        d.set_item("launch_rolls", faces(r))?;
        d.set_item("home_lane_cells", r.home_lane_cells())?;
        d.set_item("overshoot", r.overshoot().word())?;
        d.set_item("specials", r.specials().word())?;
        d.set_item("flight_optional", r.flight_optional())?;
        d.set_item("flight_captures_crossed", r.flight_captures_crossed())?;
        d.set_item("three_sixes", r.three_sixes().word())?;
        d.set_item("stacking", r.stacking().word())?;
        d.set_item("end", r.end().word())?;
        d.set_item("max_turns", r.max_turns())?;
        d.set_item("planes", r.planes())?;
        Ok(d)
    }

    /// How the variant was named: a preset, a path, or a preset and the options changed.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    /// Die faces that launch a plane.
    #[getter]
    fn launch_rolls(&self) -> Vec<u32> {
        faces(&self.rules)
    }
    /// Cells in each home lane.
    #[getter]
    fn home_lane_cells(&self) -> u8 {
        self.rules.home_lane_cells()
    }
    /// ``illegal`` or ``bounce``.
    #[getter]
    fn overshoot(&self) -> &'static str {
        self.rules.overshoot().word()
    }
    /// ``one``, ``jump_then_flight`` or ``both``.
    #[getter]
    fn specials(&self) -> &'static str {
        self.rules.specials().word()
    }
    /// Whether a plane may stay on the flight cell.
    #[getter]
    fn flight_optional(&self) -> bool {
        self.rules.flight_optional()
    }
    /// Whether the flight captures on the crossed cell.
    #[getter]
    fn flight_captures_crossed(&self) -> bool {
        self.rules.flight_captures_crossed()
    }
    /// ``none``, ``last_moved`` or ``all_moved``.
    #[getter]
    fn three_sixes(&self) -> &'static str {
        self.rules.three_sixes().word()
    }
    /// ``none`` or ``move_together``.
    #[getter]
    fn stacking(&self) -> &'static str {
        self.rules.stacking().word()
    }
    /// ``first_finisher`` or ``full_ranking``.
    #[getter]
    fn end(&self) -> &'static str {
        self.rules.end().word()
    }
    /// The safety cap on turns.
    #[getter]
    fn max_turns(&self) -> u32 {
        self.rules.max_turns()
    }
    /// Planes per seat.
    #[getter]
    fn planes(&self) -> u8 {
        self.rules.planes()
    }
    /// The centre's step: 51 + ``home_lane_cells``.
    #[getter]
    fn centre(&self) -> u8 {
        self.rules.centre()
    }

    /// The presets' names.
    #[classattr]
    #[allow(non_snake_case)]
    fn PRESETS() -> Vec<&'static str> {
        Preset::ALL.map(Preset::name).to_vec()
    }

    /// The options' names, in the rules document's order.
    #[classattr]
    #[allow(non_snake_case)]
    fn OPTIONS() -> Vec<&'static str> {
        RuleOption::ALL.map(RuleOption::name).to_vec()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyRules>()
            .is_ok_and(|o| o.get().rules == self.rules)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.rules.hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        let options: Vec<String> = RuleOption::ALL
            .iter()
            .map(|&o| self.rules.get(o).to_string())
            .collect();
        format!("<aeroplane.Rules {:?}: {}>", self.name, options.join(" "))
    }

    fn __str__(&self) -> String {
        self.name.clone()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let py = slf.py();
        let f = py
            .import("aeroplane._native")?
            .getattr("_rules_from_toml")?;
        let me = slf.get();
        Ok((f, (me.rules.to_toml(), me.name.clone())))
    }

    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }
}

/// Rebuilds pickled rules.
#[pyfunction]
pub fn _rules_from_toml(text: &str, name: String) -> PyResult<PyRules> {
    let rules = Rules::from_toml(text).map_err(|e| to_py(&e))?;
    Ok(PyRules::new_named(rules, name))
}

/// A name for `rules`: the preset it equals, else `custom`.
pub fn describe(rules: &Rules) -> String {
    Preset::ALL
        .into_iter()
        .find(|p| p.rules() == *rules)
        .map(|p| p.name().to_string())
        .unwrap_or_else(|| "custom".to_string())
}

/// Rules from a Python value: `aeroplane.Rules`, a preset name or a variant file path (as
/// `--rules` takes it), or `None` for the default. Returns the rules and their name.
pub fn rules_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<(Rules, String)> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok((
            Rules::default(),
            aeroplane::experiment::DEFAULT_RULES.into(),
        ));
    };
    if let Ok(r) = value.cast::<PyRules>() {
        let r = r.get();
        return Ok((r.rules, r.name.clone()));
    }
    if let Ok(text) = value.extract::<PathBuf>() {
        let text = text.to_string_lossy().into_owned();
        let rules = load_rules(&text).map_err(|e| to_py(&e))?;
        return Ok((rules, text));
    }
    Err(PyTypeError::new_err(format!(
        "rules must be an aeroplane.Rules, a preset name (appfreegame, classic, chinese) or a variant file path, not {}",
        type_name(value)
    )))
}

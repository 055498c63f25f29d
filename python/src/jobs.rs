//! `aeroplane.run`, `sweep` and `league`: the command line's jobs from Python, with the same
//! defaults, the same output folder (byte for byte) and the same report, as a dict of
//! `summary.json`. The job runs on a thread of its own with the GIL released; the calling
//! thread checks for signals every 50 ms, so Ctrl-C stops the job after the games in flight,
//! keeping every finished game (the output folder then says `interrupted` and can be resumed by
//! `aeroplane resume`) and raises `KeyboardInterrupt`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use aeroplane::analysis::luck::LuckPly;
use aeroplane::analysis::{Axis, SprtConfig, variants};
use aeroplane::bots::registry::BotSpec;
use aeroplane::experiment::{
    self, Allowed, Axes, Built, Context, Execution, InvalidJob, JobEnd, JobError, LeagueSettings,
    Outcome, Report, RunSettings, SettingError, SweepSettings,
};
use aeroplane::export::{OutputDir, SortKey};
use aeroplane::runner::RunError;

use crate::bots::{
    ErrorSlot, PyBot, PythonBotGuard, python_bot_name, register_python_bot, resolve, take_error,
};
use crate::errors::{chain, to_py};
use crate::game::{int_arg, u64_arg};
use crate::rules::{rules_arg, type_name};

/// A lineup from Python, its label (the text the title shows) and the Python bots it
/// registered for the job.
struct Lineup {
    specs: Vec<BotSpec>,
    label: String,
    guards: Vec<PythonBotGuard>,
}

/// Warns (Python `warnings`) where the bots folder shadows a built-in profile, as the command
/// line's `note:` does.
fn note_shadowing(py: Python<'_>, texts: &[String], bots_dir: &Path) -> PyResult<()> {
    for note in aeroplane::experiment::shadowing_notes(texts.iter().map(String::as_str), bots_dir) {
        let warnings = py.import("warnings")?;
        warnings.call_method1(
            "warn",
            (note, py.get_type::<pyo3::exceptions::PyUserWarning>(), 2),
        )?;
    }
    Ok(())
}

/// A lineup: a comma-separated string as `--bots` takes it, or a list whose items are names,
/// `aeroplane.bots.Bot`s, or Python bots (callables taking a `Game`, objects with
/// `choose(game)`).
fn lineup_arg(
    py: Python<'_>,
    bots: Option<&Bound<'_, PyAny>>,
    default: &str,
    bots_dir: &Path,
) -> PyResult<Lineup> {
    let mut specs = Vec::new();
    let mut guards = Vec::new();
    let mut texts = Vec::new();
    let label;
    match bots.filter(|b| !b.is_none()) {
        None => {
            label = default.to_string();
            texts = default.split(',').map(str::to_string).collect();
        }
        Some(b) if b.is_instance_of::<PyString>() => {
            label = b.extract::<String>()?;
            texts = label.split(',').map(|t| t.trim().to_string()).collect();
        }
        Some(b) if b.is_instance_of::<PyList>() || b.is_instance_of::<PyTuple>() => {
            let mut names = Vec::new();
            for item in b.try_iter()? {
                let item = item?;
                if let Ok(text) = item.cast::<PyString>() {
                    let text = text.to_cow()?.trim().to_string();
                    specs.push(resolve(&text, bots_dir)?);
                    names.push(text.clone());
                    texts.push(text);
                } else if let Ok(bot) = item.cast::<PyBot>() {
                    let spec = bot.borrow().spec.clone();
                    names.push(spec.name.clone());
                    specs.push(spec);
                } else {
                    let name = python_bot_name(&item)?;
                    let (spec, guard) = register_python_bot(&item, &name)?;
                    names.push(name);
                    specs.push(spec);
                    guards.push(guard);
                }
            }
            label = names.join(",");
        }
        Some(b) => {
            return Err(PyTypeError::new_err(format!(
                "bots must be a comma-separated string (\"greedy,random\") or a list of bots, not {}",
                type_name(b)
            )));
        }
    }
    if specs.is_empty() {
        for t in &texts {
            specs.push(resolve(t, bots_dir)?);
        }
    }
    note_shadowing(py, &texts, bots_dir)?;
    Ok(Lineup {
        specs,
        label,
        guards,
    })
}

/// The lineup's bots, checked: one per seat, 2 to 4 of them.
fn seats(lineup: &Lineup) -> PyResult<experiment::Lineup> {
    experiment::Lineup::new(lineup.specs.clone()).map_err(|e| setting_error(&e))
}

fn opt_u64(value: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<u64>> {
    match value.filter(|v| !v.is_none()) {
        Some(v) => u64_arg(v, what).map(Some),
        None => Ok(None),
    }
}

/// The keyword `luck_ply` (`None` when not given): an integer, its range checked by the
/// builder's [`experiment::luck_ply`].
fn luck_ply_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<LuckPly>> {
    match value.filter(|v| !v.is_none()) {
        Some(v) => experiment::luck_ply(int_arg(v, "luck_ply")?)
            .map(Some)
            .map_err(|e| setting_error(&e)),
        None => Ok(None),
    }
}

/// How the job runs: `threads` and `chunk_size` as numbers (their defaults are the
/// library's), the output folder, `report`.
fn execution(
    threads: Option<&Bound<'_, PyAny>>,
    chunk: Option<&Bound<'_, PyAny>>,
    out: Option<PathBuf>,
    report: bool,
) -> PyResult<Execution> {
    let threads = match threads.filter(|v| !v.is_none()) {
        Some(t) => {
            let t = int_arg(t, "threads")?;
            Some(usize::try_from(t).map_err(|_| {
                PyValueError::new_err(format!("threads {t}: give 0 (one per core) or more"))
            })?)
        }
        None => None,
    };
    Ok(Execution {
        threads,
        chunk_size: opt_u64(chunk, "chunk_size")?,
        out,
        report,
    })
}

/// A setting the library refused, in Python's words: each setting named by its keyword
/// (`per_game=True` where the message asks for it to be given).
fn setting_error(e: &SettingError) -> PyErr {
    PyValueError::new_err(match &e.allowed {
        Allowed::Seats => format!(
            "the lineup has {} bot(s): give one bot per seat, 2, 3 or 4 of them (e.g. \"greedy,random,random,random\")",
            e.value
        ),
        Allowed::Needs { setting, what } => format!(
            "{}={} {what}: give {}={} too",
            e.setting,
            placeholder(e.setting.name()),
            setting,
            placeholder(setting.name())
        ),
        _ => e.worded(|s| s.name().to_string()),
    })
}

/// How a message writes a keyword's value: `log_games=NAME`, `per_game=True`.
fn placeholder(setting: &str) -> &'static str {
    match setting {
        "out" => "DIR",
        "log_games" => "NAME",
        "log_positions" => "K",
        "luck_ply" => "N",
        "luck" => "NET",
        _ => "True",
    }
}

fn out_arg(out: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PathBuf>> {
    match out.filter(|v| !v.is_none()) {
        Some(o) => o.extract::<PathBuf>().map(Some).map_err(|_| {
            PyTypeError::new_err(format!(
                "out must be a folder path (str or os.PathLike), not {}",
                type_name(o)
            ))
        }),
        None => Ok(None),
    }
}

/// What the job's thread leaves: the job's result, or `None` if it panicked.
type JobResult = Option<Result<Outcome<Report>, JobError>>;

/// Where the job's thread leaves its result.
#[derive(Default)]
struct Slot {
    result: Mutex<Option<JobResult>>,
    ended: Condvar,
}

impl Slot {
    fn put(&self, r: JobResult) {
        *self.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        self.ended.notify_all();
    }

    /// Whether the job has ended, waiting at most `timeout` for it.
    fn wait(&self, timeout: Duration) -> bool {
        let guard = self.result.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = self
            .ended
            .wait_timeout_while(guard, timeout, |r| r.is_none())
            .unwrap_or_else(|e| e.into_inner());
        guard.is_some()
    }

    fn take(&self) -> Option<JobResult> {
        self.result.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Jobs stopping in the background after Ctrl-C; the interpreter waits for them at exit.
static STOPPING: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

/// Waits until the jobs stopping in the background after Ctrl-C have written their folders
/// (called at interpreter exit by `atexit`); a second Ctrl-C stops the wait.
#[pyfunction]
pub fn _finish_stopping_jobs(py: Python<'_>) -> PyResult<()> {
    let slots: Vec<Arc<Slot>> =
        std::mem::take(&mut *STOPPING.lock().unwrap_or_else(|e| e.into_inner()));
    for slot in slots {
        while !py.detach(|| slot.wait(Duration::from_millis(50))) {
            py.check_signals()?;
        }
    }
    Ok(())
}

/// How long after Ctrl-C the caller waits for the job to stop before it raises
/// `KeyboardInterrupt` and lets the games in flight finish in the background.
const GRACE: Duration = Duration::from_millis(900);

/// Runs `job` as the command line's `launch` does: opens the output folder, plays on a thread
/// of its own while the calling thread waits with the GIL released and checks for signals every
/// 50 ms, writes `report.html` when asked, and returns `summary.json` as a dict. On Ctrl-C the
/// job stops after the games in flight; if that takes longer than [`GRACE`], they finish in the
/// background (the folder is then marked `interrupted`) and `KeyboardInterrupt` is raised at
/// once.
fn conduct(py: Python<'_>, built: Built, force: bool, lineup: Lineup) -> PyResult<Py<PyAny>> {
    let Built {
        job,
        exec,
        out,
        report,
    } = built;
    let dir = match &out {
        Some(p) => Some(Arc::new(
            OutputDir::create(p, force).map_err(|e| to_py(&e))?,
        )),
        None => None,
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    let slot = Arc::new(Slot::default());
    let errors: Vec<ErrorSlot> = lineup
        .guards
        .iter()
        .map(PythonBotGuard::error_slot)
        .collect();
    {
        let (dir, interrupt, slot) = (dir.clone(), interrupt.clone(), slot.clone());
        let guards = lineup.guards;
        let report_html = report;
        std::thread::Builder::new()
            .name("aeroplane-job".into())
            .spawn(move || {
                let progress = AtomicU64::new(0);
                let ctx = Context {
                    exec,
                    out: dir.as_deref(),
                    progress: &progress,
                    interrupt: Some(&interrupt),
                    shard: None,
                    resume: false,
                    unit_done: None,
                    interim: None,
                    // The job writes report.html itself when it is complete (and says so in
                    // run.json, so a resume writes it too).
                    report: report_html,
                    resumed: None,
                };
                let result = catch_unwind(AssertUnwindSafe(|| job.execute(&ctx))).ok();
                // The Python bots leave the registry, and the folder's lock goes with the last
                // reference, before the caller hears of the end.
                drop(guards);
                drop(dir);
                slot.put(result);
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the job's thread: {e}")))?;
    }
    let mut signal: Option<PyErr> = None;
    let mut deadline: Option<Instant> = None;
    let result = loop {
        if py.detach(|| slot.wait(Duration::from_millis(50))) {
            break slot.take().flatten();
        }
        if let Err(e) = py.check_signals() {
            interrupt.store(true, Ordering::Relaxed);
            if signal.is_none() {
                signal = Some(e);
                deadline = Some(Instant::now() + GRACE);
            }
        }
        if let (Some(d), Some(e)) = (deadline, &signal)
            && Instant::now() >= d
        {
            let e = e.clone_ref(py);
            let note = match &out {
                Some(p) => format!(
                    "aeroplane: the job is stopping: the games in flight finish in the background, then {} says `interrupted`; resume it with `aeroplane resume {}`",
                    p.join(aeroplane::export::MANIFEST_FILE).display(),
                    p.display()
                ),
                None => "aeroplane: the job is stopping (the games in flight finish in the background); nothing is kept".to_string(),
            };
            let _ = e.value(py).call_method1("add_note", (note,));
            STOPPING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(slot.clone());
            return Err(e);
        }
    };
    let Some(outcome) = result else {
        return Err(PyRuntimeError::new_err(
            "the job stopped on an internal error (a panic, printed above); please report it",
        ));
    };
    if let Some(e) = errors.iter().find_map(take_error) {
        if let Err(job_error) = &outcome {
            let _ = e.value(py).call_method1(
                "add_note",
                (format!("in aeroplane job: {}", chain(job_error)),),
            );
        }
        return Err(e);
    }
    let outcome = match (outcome, signal) {
        (Ok(o), signal) => (o, signal),
        (Err(JobError::Interrupted | JobError::Run(RunError::Interrupted)), Some(e)) => {
            return Err(interrupted(py, e, dir.as_deref()));
        }
        (Err(e), _) => return Err(job_error(&e)),
    };
    match outcome {
        (o, None) => match o.ended {
            JobEnd::Finished(report) => {
                let text = report.summary_json().to_string();
                let json = py.import("json")?;
                Ok(json.call_method1("loads", (text,))?.unbind())
            }
            JobEnd::Interrupted => Err(PyRuntimeError::new_err("the job was interrupted")),
            JobEnd::ShardDone(_) => Err(PyRuntimeError::new_err("a shard finished: no report")),
        },
        // Ctrl-C: raised even if the last units finished meanwhile (their files are complete).
        (_, Some(e)) => Err(interrupted(py, e, dir.as_deref())),
    }
}

/// The signal's exception (`KeyboardInterrupt`), with a note saying where the finished work is.
fn interrupted(py: Python<'_>, e: PyErr, dir: Option<&OutputDir>) -> PyErr {
    let note = match dir {
        Some(d) => format!(
            "aeroplane: the job stopped; every finished game is kept in {}. To resume, run: aeroplane resume {}",
            d.path().display(),
            d.path().display()
        ),
        None => "aeroplane: the job stopped; nothing was kept (give out=DIR to keep finished games and resume)".to_string(),
    };
    let _ = e.value(py).call_method1("add_note", (note,));
    e
}

/// A job's error as a Python exception: bad specs are `ValueError` (a setting named by its
/// keyword), files `OSError`, a failing bot program `RuntimeError`.
fn job_error(e: &JobError) -> PyErr {
    match e {
        JobError::Run(RunError::Bot { fault, .. }) if fault.command.is_some() => {
            PyRuntimeError::new_err(chain(e))
        }
        JobError::Invalid(InvalidJob::Setting(s)) => setting_error(s),
        JobError::Invalid(InvalidJob::NothingToVary) => PyValueError::new_err(
            "nothing to vary: give vary={\"overshoot\": [\"illegal\", \"bounce\"]} or [\"overshoot=illegal,bounce\"]",
        ),
        JobError::Invalid(InvalidJob::NeedsOut { setting, writes }) => {
            PyValueError::new_err(format!(
                "{setting}={} {writes} into the output folder: give out=DIR",
                placeholder(setting)
            ))
        }
        _ => to_py(e),
    }
}

/// ``run(bots=None, *, rules=None, games=None, seed=None, ...)``: a tournament, as ``aeroplane
/// run`` plays it (same defaults: greedy against three random bots, 100,000 deals of
/// appfreegame, seed 1); see the package documentation.
#[pyfunction]
#[pyo3(signature = (bots = None, *, rules = None, games = None, seed = None, rotate_seats = false,
    first_game = None, per_game = false, sprt = None, max_games = None, recover = false,
    out = None, force = false, report = false, threads = None, chunk_size = None, bots_dir = None,
    log_games = None, log_positions = None, luck = None, luck_ply = None))]
pub fn run(
    py: Python<'_>,
    bots: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
    games: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    rotate_seats: bool,
    first_game: Option<&Bound<'_, PyAny>>,
    per_game: bool,
    sprt: Option<&str>,
    max_games: Option<&Bound<'_, PyAny>>,
    recover: bool,
    out: Option<&Bound<'_, PyAny>>,
    force: bool,
    report: bool,
    threads: Option<&Bound<'_, PyAny>>,
    chunk_size: Option<&Bound<'_, PyAny>>,
    bots_dir: Option<PathBuf>,
    log_games: Option<String>,
    log_positions: Option<&Bound<'_, PyAny>>,
    luck: Option<PathBuf>,
    luck_ply: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let bots_dir = bots_dir.unwrap_or_else(|| PathBuf::from(experiment::DEFAULT_BOTS_DIR));
    let rules = rules_arg(rules)?;
    let lineup = lineup_arg(py, bots, experiment::DEFAULT_RUN_BOTS, &bots_dir)?;
    let seats = seats(&lineup)?;
    let out = out_arg(out)?;
    let (seed, first_game, games) = (
        opt_u64(seed, "seed")?,
        opt_u64(first_game, "first_game")?,
        opt_u64(games, "games")?,
    );
    let sprt: Option<SprtConfig> = match sprt {
        Some(text) => Some(
            text.parse()
                .map_err(|e| PyValueError::new_err(format!("sprt {text}: {}", chain(&e))))?,
        ),
        None => None,
    };
    let log_positions = match opt_u64(log_positions, "log_positions")? {
        Some(k) => Some(u32::try_from(k).map_err(|_| {
            PyValueError::new_err(format!(
                "log_positions={k}: the position goes on every K-th decision line, K from 1 to {}",
                u32::MAX
            ))
        })?),
        None => None,
    };
    let luck = match luck {
        Some(path) => Some(
            aeroplane::analysis::luck::LuckNet::load(&path)
                .map_err(|e| PyValueError::new_err(format!("luck: {e}")))?,
        ),
        None => None,
    };
    let max_games = opt_u64(max_games, "max_games")?;
    let exec = execution(threads, chunk_size, out, report)?;
    let settings = RunSettings {
        rules: Some(rules),
        seed,
        first_game,
        games,
        // False is the default: an SPRT rotates whatever it says.
        rotate_seats: rotate_seats.then_some(true),
        per_game,
        log_games,
        log_positions,
        recover,
        luck,
        luck_ply: luck_ply_arg(luck_ply)?,
        sprt,
        max_games,
        exec,
        ..RunSettings::new(seats)
    };
    let built = settings.build().map_err(|e| job_error(&e))?;
    conduct(py, built, force, lineup)
}

/// The `--vary` texts of a sweep: a list of ``"option=v1,v2"`` strings, or a dict of option to
/// a list of values.
fn axes_arg(vary: &Bound<'_, PyAny>) -> PyResult<Axes> {
    let mut texts: Vec<String> = Vec::new();
    if let Ok(d) = vary.cast::<PyDict>() {
        for (k, values) in d.iter() {
            let option: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("vary's keys are option names (str)"))?;
            if values.is_instance_of::<PyString>() || !values.hasattr("__iter__")? {
                return Err(PyTypeError::new_err(format!(
                    "vary[{option:?}] must be a list of values, not {}",
                    type_name(&values)
                )));
            }
            let mut parts = Vec::new();
            for v in values.try_iter()? {
                parts.push(value_text(&v?)?);
            }
            let sep = if option == "launch_rolls" { ";" } else { "," };
            texts.push(format!("{option}={}", parts.join(sep)));
        }
    } else if let Ok(s) = vary.cast::<PyString>() {
        texts.push(s.to_cow()?.into_owned());
    } else if vary.is_instance_of::<PyList>() || vary.is_instance_of::<PyTuple>() {
        for t in vary.try_iter()? {
            let t = t?;
            texts.push(t.extract::<String>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "vary's items are strings like \"overshoot=illegal,bounce\", not {}",
                    type_name(&t)
                ))
            })?);
        }
    } else {
        return Err(PyTypeError::new_err(format!(
            "vary must be a dict (option -> list of values) or a list of \"option=v1,v2\" strings, not {}",
            type_name(vary)
        )));
    }
    let axes = texts
        .iter()
        .map(|t| {
            t.parse::<Axis>().map_err(|e| {
                PyValueError::new_err(format!("vary {}: {e}", aeroplane::excerpt::excerpt(t)))
            })
        })
        .collect::<PyResult<Vec<Axis>>>()?;
    Axes::new(axes).map_err(|e| job_error(&e.into()))
}

/// One value of a varied option as the `--vary` grammar writes it.
fn value_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_string());
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let faces: Vec<String> = v
            .try_iter()?
            .map(|f| f.and_then(|f| value_text(&f)))
            .collect::<PyResult<_>>()?;
        return Ok(format!("[{}]", faces.join(",")));
    }
    Ok(v.str()?.to_cow()?.into_owned())
}

/// `compare` of a sweep: `(I, J)`, `"I,J"` (1-based), or `True` for the first two.
fn compare_arg(
    compare: Option<&Bound<'_, PyAny>>,
    count: usize,
) -> PyResult<Option<(usize, usize)>> {
    let Some(c) = compare.filter(|c| !c.is_none()) else {
        return Ok(None);
    };
    let bad = || {
        PyValueError::new_err(format!(
            "compare: give two different variant indices (I, J) between 1 and {count}"
        ))
    };
    let (a, b): (i64, i64) = if let Ok(flag) = c.cast::<pyo3::types::PyBool>() {
        if !flag.is_true() {
            return Ok(None);
        }
        (1, 2)
    } else if let Ok(s) = c.cast::<PyString>() {
        let s = s.to_cow()?;
        let (a, b) = s.split_once(',').ok_or_else(bad)?;
        (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        )
    } else {
        c.extract::<(i64, i64)>().map_err(|_| bad())?
    };
    let ok = |i: i64| (1..=count as i64).contains(&i);
    if a == b || !ok(a) || !ok(b) {
        return Err(bad());
    }
    Ok(Some((a as usize - 1, b as usize - 1)))
}

/// ``sweep(vary, *, rules=None, bots=None, games=None, seed=None, ...)``: rule variants on
/// shared seeds, as ``aeroplane sweep`` plays them (10,000 deals of four greedy bots by
/// default).
#[pyfunction]
#[pyo3(signature = (vary, *, rules = None, bots = None, games = None, seed = None,
    rotate_seats = false, compare = None, sort = None, out = None, force = false, report = false,
    threads = None, chunk_size = None, bots_dir = None, luck = None, luck_ply = None))]
pub fn sweep(
    py: Python<'_>,
    vary: &Bound<'_, PyAny>,
    rules: Option<&Bound<'_, PyAny>>,
    bots: Option<&Bound<'_, PyAny>>,
    games: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    rotate_seats: bool,
    compare: Option<&Bound<'_, PyAny>>,
    sort: Option<&str>,
    out: Option<&Bound<'_, PyAny>>,
    force: bool,
    report: bool,
    threads: Option<&Bound<'_, PyAny>>,
    chunk_size: Option<&Bound<'_, PyAny>>,
    bots_dir: Option<PathBuf>,
    luck: Option<&Bound<'_, PyAny>>,
    luck_ply: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let bots_dir = bots_dir.unwrap_or_else(|| PathBuf::from(experiment::DEFAULT_BOTS_DIR));
    let nets = luck_nets(luck_paths(luck)?).map_err(|e| job_error(&e))?;
    let (base, rules_name) = rules_arg(rules)?;
    let axes = axes_arg(vary)?;
    if let Some(presets) = axes
        .axes()
        .iter()
        .find(|a| a.option() == aeroplane::analysis::BASE_AXIS)
        .filter(|_| rules.is_some_and(|r| !r.is_none()))
    {
        return Err(PyValueError::new_err(format!(
            "rules and vary {} both choose the rules: with the axis `base` each variant starts from its preset (allowed: appfreegame, classic, chinese), so drop rules; the other axes apply on top of each preset",
            presets.text()
        )));
    }
    let count = variants(base, axes.axes())
        .map_err(|e| PyValueError::new_err(format!("vary: {e}")))?
        .len();
    let lineup = lineup_arg(py, bots, experiment::DEFAULT_SWEEP_BOTS, &bots_dir)?;
    let seats = seats(&lineup)?;
    let settings = SweepSettings {
        compare: compare_arg(compare, count)?,
        sort: sort.map(SortKey::parse),
        rules: Some((base, rules_name)),
        seed: opt_u64(seed, "seed")?,
        games: opt_u64(games, "games")?,
        rotate_seats: Some(rotate_seats),
        luck: nets,
        luck_ply: luck_ply_arg(luck_ply)?,
        exec: execution(threads, chunk_size, out_arg(out)?, report)?,
        ..SweepSettings::new(axes, seats, lineup.label.clone())
    };
    let built = settings.build().map_err(|e| job_error(&e))?;
    conduct(py, built, force, lineup)
}

/// ``league(bots, *, rules=None, players=4, games=None, seed=None, bootstrap=200, ...)``:
/// ratings of a pool from balanced mixed tables, as ``aeroplane league`` plays them (1,000
/// deals per table by default).
#[pyfunction]
#[pyo3(signature = (bots, *, rules = None, players = 4, games = None, seed = None,
    bootstrap = 200, out = None, force = false, report = false, threads = None,
    chunk_size = None, bots_dir = None, luck = None, luck_ply = None))]
pub fn league(
    py: Python<'_>,
    bots: &Bound<'_, PyAny>,
    rules: Option<&Bound<'_, PyAny>>,
    players: usize,
    games: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    bootstrap: u32,
    out: Option<&Bound<'_, PyAny>>,
    force: bool,
    report: bool,
    threads: Option<&Bound<'_, PyAny>>,
    chunk_size: Option<&Bound<'_, PyAny>>,
    bots_dir: Option<PathBuf>,
    luck: Option<PathBuf>,
    luck_ply: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let bots_dir = bots_dir.unwrap_or_else(|| PathBuf::from(experiment::DEFAULT_BOTS_DIR));
    let rules = rules_arg(rules)?;
    if bots.is_none() {
        return Err(PyValueError::new_err(
            "league needs bots: the pool, two or more bots",
        ));
    }
    let lineup = lineup_arg(py, Some(bots), "", &bots_dir)?;
    let settings = LeagueSettings {
        rules: Some(rules),
        players: Some(players),
        games: opt_u64(games, "games")?,
        seed: opt_u64(seed, "seed")?,
        bootstrap: Some(bootstrap),
        luck: luck_nets(luck.into_iter().collect())
            .map_err(|e| job_error(&e))?
            .pop(),
        luck_ply: luck_ply_arg(luck_ply)?,
        exec: execution(threads, chunk_size, out_arg(out)?, report)?,
        ..LeagueSettings::new(lineup.specs.clone())
    };
    let built = settings.build().map_err(|e| match &e {
        // A net of other rules or players, as the league has always said it.
        JobError::Invalid(InvalidJob::Setting(SettingError {
            value,
            allowed: Allowed::FittingNet { what },
            ..
        })) => PyValueError::new_err(format!("the luck net {value}: {what}")),
        _ => job_error(&e),
    })?;
    conduct(py, built, force, lineup)
}

/// The nets of `luck=`, loaded.
fn luck_nets(
    paths: Vec<PathBuf>,
) -> Result<Vec<aeroplane::analysis::luck::LuckNet>, experiment::JobError> {
    paths
        .iter()
        .map(|p| {
            aeroplane::analysis::luck::LuckNet::load(p).map_err(|e| {
                experiment::JobError::from(aeroplane::runner::RunError::Luck {
                    net: p.display().to_string(),
                    what: e.to_string(),
                })
            })
        })
        .collect()
}

/// A sweep's `luck=`: one net file, or a list of them (one per rule variant).
fn luck_paths(luck: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PathBuf>> {
    match luck {
        None => Ok(Vec::new()),
        Some(l) if l.is_none() => Ok(Vec::new()),
        Some(l) => match l.extract::<PathBuf>() {
            Ok(p) => Ok(vec![p]),
            Err(_) => l.extract::<Vec<PathBuf>>().map_err(|_| {
                PyValueError::new_err(
                    "luck: give a net file, or a list of net files (one per rule variant)",
                )
            }),
        },
    }
}

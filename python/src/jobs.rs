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

use aeroplane::analysis::{Axis, SprtConfig, variants};
use aeroplane::bots::registry::BotSpec;
use aeroplane::experiment::{
    self, Context, Job, JobEnd, JobError, LeagueJob, Outcome, Report, RunJob, SPRT_CHUNK_DEALS,
    SprtJob, SweepJob, SweepSpec,
};
use aeroplane::export::{DEFAULT_SORT, OutputDir, SortKey};
use aeroplane::runner::{DEFAULT_CHUNK_DEALS, Exec, RunError, RunSpec};

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

fn check_players(n: usize) -> PyResult<()> {
    if (2..=4).contains(&n) {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "the lineup has {n} bot(s): give one bot per seat, 2, 3 or 4 of them (e.g. \"greedy,random,random,random\")"
        )))
    }
}

fn opt_u64(value: Option<&Bound<'_, PyAny>>, what: &str, default: u64) -> PyResult<u64> {
    match value.filter(|v| !v.is_none()) {
        Some(v) => u64_arg(v, what),
        None => Ok(default),
    }
}

fn exec(
    threads: Option<&Bound<'_, PyAny>>,
    chunk: Option<&Bound<'_, PyAny>>,
    default_chunk: u64,
) -> PyResult<Exec> {
    let threads = match threads.filter(|v| !v.is_none()) {
        Some(t) => {
            let t = int_arg(t, "threads")?;
            usize::try_from(t).map_err(|_| {
                PyValueError::new_err(format!("threads {t}: give 0 (one per core) or more"))
            })?
        }
        None => 0,
    };
    let chunk_deals = opt_u64(chunk, "chunk_size", default_chunk)?;
    if chunk_deals == 0 {
        return Err(PyValueError::new_err("chunk_size must be at least 1 deal"));
    }
    Ok(Exec {
        threads,
        chunk_deals,
        ..Exec::default()
    })
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

/// What the caller asked of the output folder.
struct Output {
    out: Option<PathBuf>,
    force: bool,
    report: bool,
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
fn conduct(
    py: Python<'_>,
    job: Job,
    exec: Exec,
    output: Output,
    lineup: Lineup,
) -> PyResult<Py<PyAny>> {
    if output.report && output.out.is_none() {
        return Err(PyValueError::new_err(
            "report=True writes report.html into the output folder: give out=DIR",
        ));
    }
    let dir = match &output.out {
        Some(p) => Some(Arc::new(
            OutputDir::create(p, output.force).map_err(|e| to_py(&e))?,
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
        let report_html = output.report;
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
            let note = match &output.out {
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

/// A job's error as a Python exception: bad specs are `ValueError`, files `OSError`, a failing
/// bot program `RuntimeError`.
fn job_error(e: &JobError) -> PyErr {
    match e {
        JobError::Run(RunError::Bot { fault, .. }) if fault.command.is_some() => {
            PyRuntimeError::new_err(chain(e))
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
    log_games = None, log_positions = None, luck = None, luck_ply = 0))]
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
    luck_ply: i64,
) -> PyResult<Py<PyAny>> {
    let luck_ply = luck_ply_arg(luck_ply, luck.is_some())?;
    let bots_dir = bots_dir.unwrap_or_else(|| PathBuf::from("bots"));
    let (rules, rules_name) = rules_arg(rules)?;
    let lineup = lineup_arg(py, bots, experiment::DEFAULT_RUN_BOTS, &bots_dir)?;
    check_players(lineup.specs.len())?;
    let out = out_arg(out)?;
    let mut spec = RunSpec {
        rules,
        lineup: lineup.specs.clone(),
        seed: opt_u64(seed, "seed", 1)?,
        first_deal: opt_u64(first_game, "first_game", 0)?,
        deals: opt_u64(games, "games", 100_000)?,
        rotate_seats,
    };
    experiment::attach_logs(&mut spec, out.as_deref());
    let output = Output { out, force, report };
    let Some(text) = sprt else {
        if max_games.is_some_and(|m| !m.is_none()) {
            return Err(PyValueError::new_err("max_games applies to sprt only"));
        }
        if per_game && output.out.is_none() {
            return Err(PyValueError::new_err(
                "per_game=True writes games.csv into the output folder: give out=DIR",
            ));
        }
        if log_games.is_some() && output.out.is_none() {
            return Err(PyValueError::new_err(
                "log_games=NAME writes the decision log into the output folder: give out=DIR",
            ));
        }
        if log_games.is_none() && log_positions.is_some_and(|k| !k.is_none()) {
            return Err(PyValueError::new_err(
                "log_positions=K applies to a decision log: give log_games=NAME too",
            ));
        }
        let log_positions = opt_u64(
            log_positions,
            "log_positions",
            u64::from(aeroplane::decision_log::DEFAULT_LOG_POSITIONS),
        )?;
        let log_positions = u32::try_from(log_positions).map_err(|_| {
            PyValueError::new_err(format!(
                "log_positions={log_positions}: the position goes on every K-th decision line, K from 1 to {}",
                u32::MAX
            ))
        })?;
        spec.validate().map_err(|e| to_py(&e))?;
        let luck = match luck {
            Some(path) => {
                let net = aeroplane::analysis::luck::LuckNet::load(&path.display().to_string())
                    .map_err(|e| PyValueError::new_err(format!("luck: {e}")))?
                    .with_ply(luck_ply)
                    .map_err(|e| PyValueError::new_err(format!("luck_ply: {e}")))?;
                net.meter(&spec.rules, spec.players())
                    .map_err(|e| PyValueError::new_err(format!("luck: {e}")))?;
                Some(net)
            }
            None => None,
        };
        let exec = exec(threads, chunk_size, DEFAULT_CHUNK_DEALS)?;
        let job = Job::Run(RunJob {
            spec,
            rules_name,
            per_game,
            log_games,
            log_positions,
            recover,
            luck,
        });
        return conduct(py, job, exec, output, lineup);
    };
    let config: SprtConfig = text
        .parse()
        .map_err(|e| PyValueError::new_err(format!("sprt {text}: {}", chain(&e))))?;
    if recover {
        return Err(PyValueError::new_err(
            "recover applies to plain runs, not to sprt",
        ));
    }
    if luck.is_some() {
        return Err(PyValueError::new_err(
            "luck applies to plain runs, not to sprt",
        ));
    }
    if per_game {
        return Err(PyValueError::new_err(
            "per_game cannot be combined with sprt",
        ));
    }
    if log_games.is_some() {
        return Err(PyValueError::new_err(
            "log_games applies to plain runs, not to sprt",
        ));
    }
    if let Some(m) = max_games.filter(|m| !m.is_none()) {
        spec.deals = u64_arg(m, "max_games")?;
    }
    let exec = exec(threads, chunk_size, SPRT_CHUNK_DEALS)?;
    let job =
        SprtJob::new(spec, rules_name, config, exec.chunk_deals).map_err(|e| job_error(&e))?;
    conduct(py, Job::Sprt(job), exec, output, lineup)
}

/// The `--vary` texts of a sweep: a list of ``"option=v1,v2"`` strings, or a dict of option to
/// a list of values.
fn axes_arg(vary: &Bound<'_, PyAny>) -> PyResult<Vec<Axis>> {
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
    if texts.is_empty() {
        return Err(PyValueError::new_err(
            "nothing to vary: give vary={\"overshoot\": [\"illegal\", \"bounce\"]} or [\"overshoot=illegal,bounce\"]",
        ));
    }
    texts
        .iter()
        .map(|t| {
            t.parse::<Axis>().map_err(|e| {
                PyValueError::new_err(format!("vary {}: {e}", aeroplane::excerpt::excerpt(t)))
            })
        })
        .collect()
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
    threads = None, chunk_size = None, bots_dir = None, luck = None, luck_ply = 0))]
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
    luck_ply: i64,
) -> PyResult<Py<PyAny>> {
    let bots_dir = bots_dir.unwrap_or_else(|| PathBuf::from("bots"));
    let paths = luck_paths(luck)?;
    let luck_ply = luck_ply_arg(luck_ply, !paths.is_empty())?;
    let nets = luck_nets(paths, luck_ply).map_err(|e| job_error(&e))?;
    let (base, rules_name) = rules_arg(rules)?;
    let axes = axes_arg(vary)?;
    if let Some(presets) = axes
        .iter()
        .find(|a| a.option() == aeroplane::analysis::BASE_AXIS)
        .filter(|_| rules.is_some_and(|r| !r.is_none()))
    {
        return Err(PyValueError::new_err(format!(
            "rules and vary {} both choose the rules: with the axis `base` each variant starts from its preset (allowed: appfreegame, classic, chinese), so drop rules; the other axes apply on top of each preset",
            presets.text()
        )));
    }
    let count = variants(base, &axes)
        .map_err(|e| PyValueError::new_err(format!("vary: {e}")))?
        .len();
    let lineup = lineup_arg(py, bots, experiment::DEFAULT_SWEEP_BOTS, &bots_dir)?;
    check_players(lineup.specs.len())?;
    let compare = compare_arg(compare, count)?;
    let sort = SortKey::parse(sort.unwrap_or(DEFAULT_SORT));
    let job = SweepJob::new(SweepSpec {
        rules_name,
        base,
        axes,
        lineup: lineup.specs.clone(),
        bots_label: lineup.label.clone(),
        seed: opt_u64(seed, "seed", 1)?,
        deals: opt_u64(games, "games", 10_000)?,
        rotate_seats,
        compare,
        sort,
    })
    .and_then(|j| j.with_luck(nets))
    .map_err(|e| job_error(&e))?;
    let exec = exec(threads, chunk_size, DEFAULT_CHUNK_DEALS)?;
    let output = Output {
        out: out_arg(out)?,
        force,
        report,
    };
    conduct(py, Job::Sweep(job), exec, output, lineup)
}

/// ``league(bots, *, rules=None, players=4, games=None, seed=None, bootstrap=200, ...)``:
/// ratings of a pool from balanced mixed tables, as ``aeroplane league`` plays them (1,000
/// deals per table by default).
#[pyfunction]
#[pyo3(signature = (bots, *, rules = None, players = 4, games = None, seed = None,
    bootstrap = 200, out = None, force = false, report = false, threads = None,
    chunk_size = None, bots_dir = None, luck = None, luck_ply = 0))]
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
    luck_ply: i64,
) -> PyResult<Py<PyAny>> {
    let bots_dir = bots_dir.unwrap_or_else(|| PathBuf::from("bots"));
    let luck_ply = luck_ply_arg(luck_ply, luck.is_some())?;
    let (rules, rules_name) = rules_arg(Some(
        rules.unwrap_or(&PyString::new(py, "appfreegame").into_any()),
    ))?;
    if bots.is_none() {
        return Err(PyValueError::new_err(
            "league needs bots: the pool, two or more bots",
        ));
    }
    let lineup = lineup_arg(py, Some(bots), "", &bots_dir)?;
    let job = LeagueJob::new(
        rules_name,
        rules,
        lineup.specs.clone(),
        players,
        opt_u64(games, "games", 1000)?,
        opt_u64(seed, "seed", 1)?,
        bootstrap,
    )
    .and_then(|j| j.with_luck(luck_nets(luck.into_iter().collect(), luck_ply)?.pop()))
    .map_err(|e| job_error(&e))?;
    let exec = exec(threads, chunk_size, DEFAULT_CHUNK_DEALS)?;
    let output = Output {
        out: out_arg(out)?,
        force,
        report,
    };
    conduct(py, Job::League(job), exec, output, lineup)
}

/// The nets of `luck=`, loaded, measuring at `ply` (checked by [`luck_ply_arg`]).
fn luck_nets(
    paths: Vec<PathBuf>,
    ply: i64,
) -> Result<Vec<aeroplane::analysis::luck::LuckNet>, experiment::JobError> {
    paths
        .iter()
        .map(|p| {
            let net = aeroplane::analysis::luck::LuckNet::load(&p.display().to_string()).map_err(
                |e| {
                    experiment::JobError::from(aeroplane::runner::RunError::Luck {
                        net: p.display().to_string(),
                        what: e.to_string(),
                    })
                },
            )?;
            Ok(net.with_ply(ply).expect("checked by luck_ply_arg"))
        })
        .collect()
}

/// `luck_ply=`: 0, 1 or 2, and other than 0 only with a luck net.
fn luck_ply_arg(ply: i64, has_luck: bool) -> PyResult<i64> {
    aeroplane::analysis::luck::check_luck_ply(ply)
        .map_err(|e| PyValueError::new_err(format!("luck_ply={ply}: {e}")))?;
    if ply != 0 && !has_luck {
        return Err(PyValueError::new_err(format!(
            "luck_ply={ply} applies only with luck=NET (the net the luck is measured with)"
        )));
    }
    Ok(ply)
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

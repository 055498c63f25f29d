//! Pieces shared by the subcommands: the shared options, loading rules and bots, the output
//! directory and the report's last line.

use aeroplane::RulesToml;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Args;

use aeroplane::Rules;
use aeroplane::config::parse_lineup;
use aeroplane::experiment::{self, Built, Execution, JobEnd, Lineup, Outcome, Report, Shard};
use aeroplane::export::OutputDir;
use aeroplane::runner::Exec;
use indicatif::HumanCount;

use super::progress::Progress;
use super::signals::interrupt_flag;

pub use aeroplane::experiment::DEFAULT_BOTS_DIR;

/// Options every job takes. Each is optional here: a job fills what is not given from its
/// config file, then a manifest, then its own defaults.
#[derive(Args, Debug, Default, Clone)]
pub struct JobArgs {
    /// A config (TOML) setting any of these options; the command line overrides it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file [default:
    /// appfreegame].
    #[arg(long)]
    pub rules: Option<String>,
    /// The bots, comma-separated: one per seat in seat order.
    #[arg(long)]
    pub bots: Option<String>,
    /// Number of deals (per variant for sweep, per table for league); with seat rotation each
    /// is played once per rotation.
    #[arg(long)]
    pub games: Option<u64>,
    /// Master seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads; 0 = one per core. Never changes the results [default: 0].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Deals per unit of work. Never changes the results (except where an SPRT may stop)
    /// [default: 256; 16 with --sprt].
    #[arg(long)]
    pub chunk_size: Option<u64>,
    /// Write the job's files here: run.json (the manifest, with the job's status),
    /// summary.json and the CSV tables.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the results of an earlier run in --out (only the files this tool writes).
    #[arg(long)]
    pub force: bool,
    /// Play each deal once per rotation of the lineup around the seats, the dice staying with
    /// the seats.
    #[arg(long, overrides_with = "no_rotate_seats")]
    pub rotate_seats: bool,
    /// Do not rotate seats (overrides a config or manifest).
    #[arg(long, overrides_with = "rotate_seats")]
    pub no_rotate_seats: bool,
    /// No progress bar and no timing line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Directory of bot profiles [default: bots].
    #[arg(long)]
    pub bots_dir: Option<PathBuf>,
    /// Play only shard K of N of the job's units (0-based: 0/4 .. 3/4), units dealt
    /// round-robin; `slurm` reads SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT. Needs --out;
    /// combine the shards' folders with `aeroplane merge`.
    #[arg(long, value_name = "K/N|slurm")]
    pub shard: Option<String>,
    /// After the job, also write report.html into --out (charts and tables; see `aeroplane
    /// report`).
    #[arg(long)]
    pub report: bool,
}

/// Parses `--shard K/N` (0-based) or `--shard slurm`.
pub fn parse_shard(text: &str) -> anyhow::Result<Shard> {
    let bad = |why: String| anyhow::anyhow!("--shard {text}: {why}");
    let (index, count) = if text == "slurm" {
        let var = |name: &str| -> anyhow::Result<u64> {
            let v = std::env::var(name).map_err(|_| {
                bad(format!(
                    "{name} is not set: `--shard slurm` runs inside a Slurm job array (sbatch --array)"
                ))
            })?;
            v.trim()
                .parse()
                .map_err(|_| bad(format!("{name}={v} is not a number")))
        };
        let min = std::env::var("SLURM_ARRAY_TASK_MIN")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let id = var("SLURM_ARRAY_TASK_ID")?;
        (id.saturating_sub(min), var("SLURM_ARRAY_TASK_COUNT")?)
    } else {
        let (k, n) = text.split_once('/').ok_or_else(|| {
            bad("give K/N, e.g. 0/4 (0-based: shards 0/4 .. 3/4), or slurm".into())
        })?;
        let k: u64 = k
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{k}` is not a shard index")))?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| bad(format!("`{n}` is not a shard count")))?;
        (k, n)
    };
    if count == 0 || index >= count {
        return Err(bad(format!(
            "shard {index} of {count}: the index is 0-based and must be below the count"
        )));
    }
    Ok(Shard { index, count })
}

/// How to launch a job from the command line.
pub struct Launch {
    /// The job, its threads and unit size, its output folder and whether it writes a report.
    pub built: Built,
    /// Replace an earlier run's files.
    pub force: bool,
    /// No progress bar or timing line.
    pub quiet: bool,
    /// One shard of the plan.
    pub shard: Option<Shard>,
    /// Go on with the job in `out`.
    pub resume: bool,
    /// Print interim results on stderr at most this often (0: after every unit); never with
    /// `quiet`.
    pub report_every: Option<Duration>,
}

/// Runs a job: opens its folder, shows progress, stops cleanly on a signal, prints the report
/// (or how to resume, or how to merge).
pub fn launch(l: Launch) -> anyhow::Result<ExitCode> {
    let Built {
        job,
        exec,
        out,
        report,
    } = l.built;
    let out = match (&out, l.resume) {
        (Some(p), true) => Some(OutputDir::reopen(p)?),
        (p, _) => open_out(p.as_deref(), l.force, report)?,
    };
    let planned = job.planned_games(exec.chunk_deals, l.shard);
    let progress = Progress::new(planned, l.quiet);
    let every = l.report_every.filter(|_| !l.quiet);
    let last = std::sync::Mutex::new(Instant::now());
    let interim = |summary: &dyn Fn() -> String| {
        let Some(every) = every else { return };
        let mut last = last.lock().expect("not poisoned");
        if last.elapsed() < every {
            return;
        }
        *last = Instant::now();
        let line = summary();
        if !line.is_empty() {
            progress.println(&format!("interim: {line}"));
        }
    };
    let told = Told::default();
    let resumed = |r: &experiment::Resumed<'_>| {
        progress.restored(r.games);
        told.say(r, planned, |line| progress.println(line));
    };
    let ctx = experiment::Context {
        exec: Exec {
            on_game: test_game_hook(),
            ..exec
        },
        out: out.as_ref(),
        progress: progress.counter(),
        interrupt: Some(interrupt_flag()),
        shard: l.shard,
        resume: l.resume,
        unit_done: Some(&test_signal_hook),
        interim: every.map(|_| &interim as &experiment::Interim),
        report,
        resumed: Some(&resumed),
    };
    let start = Instant::now();
    let outcome = job.execute(&ctx);
    progress.finish();
    let outcome = outcome?;
    finish(outcome, out.as_ref(), start, l.quiet, &told)
}

/// What a resume said at its start: the games it restored and how many of the job's notes it
/// printed then (the end prints the rest).
#[derive(Default)]
pub struct Told {
    restored: AtomicU64,
    notes: AtomicUsize,
}

impl Told {
    /// Prints, through `say`, what a resume restored from its folder (of `planned` games) and
    /// what it found there, and remembers both for the end.
    fn say(&self, r: &experiment::Resumed<'_>, planned: u64, say: impl Fn(&str)) {
        self.restored.store(r.games, Ordering::Relaxed);
        self.notes.store(r.notes.len(), Ordering::Relaxed);
        say(&restored_line(r.games, planned));
        for n in r.notes {
            say(&format!("note: {n}"));
        }
    }
}

/// The line a resume starts with: the games restored from the folder and those left.
pub fn restored_line(restored: u64, planned: u64) -> String {
    format!(
        "note: resuming: {} of {} games restored from the checkpoint, {} left to play",
        HumanCount(restored),
        HumanCount(planned),
        HumanCount(planned.saturating_sub(restored))
    )
}

/// The closing line of a job that played `played` games of its own in `secs` seconds, after
/// `restored` restored from an earlier session.
fn played_line(played: u64, restored: u64, secs: f64) -> String {
    let mut line = format!(
        "played {} games in {secs:.2} s ({} games/s)",
        HumanCount(played),
        HumanCount((played as f64 / secs.max(1e-9)) as u64)
    );
    if restored > 0 {
        line += &restored_tail(restored);
    }
    line
}

/// What a closing line adds for the `restored` games of earlier sessions.
pub fn restored_tail(restored: u64) -> String {
    format!(
        "; {} more were restored from the checkpoint",
        HumanCount(restored)
    )
}

/// A test hook: with `AEROPLANE_TEST_SIGNAL_AFTER_UNITS=N` (and optionally
/// `AEROPLANE_TEST_SIGNAL=INT|TERM|HUP|USR1`, default INT) the process sends itself that signal
/// once it has finished N units, so tests stop a job at an exact point through the real signal
/// path.
pub fn test_signal_hook(units: usize) {
    static AFTER: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let after = AFTER.get_or_init(|| {
        std::env::var("AEROPLANE_TEST_SIGNAL_AFTER_UNITS")
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if *after != Some(units) {
        return;
    }
    raise_test_signal();
}

/// A test hook: with `AEROPLANE_TEST_SIGNAL_AFTER_GAMES=N` (and optionally
/// `AEROPLANE_TEST_SIGNAL`) the worker that finishes the N-th game of the job (counting those
/// kept from earlier stops) sends the process that signal, so tests stop a job in the middle of
/// its units through the real signal path.
pub fn test_game_hook() -> Option<fn(u64)> {
    static AFTER: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    fn hook(games: u64) {
        if AFTER.get().copied().flatten() == Some(games) {
            raise_test_signal();
        }
    }
    AFTER
        .get_or_init(|| {
            std::env::var("AEROPLANE_TEST_SIGNAL_AFTER_GAMES")
                .ok()
                .and_then(|v| v.parse().ok())
        })
        .map(|_| hook as fn(u64))
}

/// Sends the process the signal `AEROPLANE_TEST_SIGNAL` names (INT, TERM, HUP, USR1; INT
/// when unset).
fn raise_test_signal() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1};
        let sig = match std::env::var("AEROPLANE_TEST_SIGNAL").as_deref() {
            Ok("TERM") => SIGTERM,
            Ok("HUP") => SIGHUP,
            Ok("USR1") => SIGUSR1,
            _ => SIGINT,
        };
        let _ = signal_hook::low_level::raise(sig);
    }
}

/// Prints how a job ended; the exit code.
pub fn finish(
    outcome: Outcome<Report>,
    out: Option<&OutputDir>,
    start: Instant,
    quiet: bool,
    told: &Told,
) -> anyhow::Result<ExitCode> {
    let told_notes = told.notes.load(Ordering::Relaxed).min(outcome.notes.len());
    for n in &outcome.notes[told_notes..] {
        say!("note: {n}");
    }
    let restored = told.restored.load(Ordering::Relaxed).min(outcome.played);
    let counts = format!(
        "{} of {} games",
        HumanCount(outcome.played),
        HumanCount(outcome.planned)
    );
    match outcome.ended {
        JobEnd::Finished(report) => {
            let mut stdout = std::io::stdout().lock();
            report.write_text(&mut stdout)?;
            print_written(&mut stdout, out)?;
            stdout.flush()?;
            let secs = start.elapsed().as_secs_f64();
            if !quiet {
                say!("{}", played_line(outcome.played - restored, restored, secs));
            }
            Ok(ExitCode::SUCCESS)
        }
        JobEnd::Interrupted => {
            match out {
                Some(dir) => say!(
                    "interrupted after {counts}; every finished game is kept in {}.\nTo resume, run: aeroplane resume {}",
                    aeroplane::excerpt::path(dir.path()),
                    aeroplane::excerpt::path(dir.path())
                ),
                None => say!(
                    "interrupted after {counts}; nothing was kept (give --out DIR to keep finished units and resume)"
                ),
            }
            Ok(ExitCode::from(130))
        }
        JobEnd::ShardDone(s) => {
            let dir = out.expect("a shard has an output directory");
            let mut stdout = std::io::stdout().lock();
            writeln!(
                stdout,
                "shard {}/{} done: {counts} of its share of the job, kept in {}",
                s.index,
                s.count,
                aeroplane::excerpt::path(dir.path())
            )?;
            writeln!(
                stdout,
                "when all {} shards are done, combine them: aeroplane merge OUT SHARD_DIR...",
                s.count
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

impl JobArgs {
    /// `--shard`, parsed.
    pub fn shard(&self) -> anyhow::Result<Option<Shard>> {
        self.shard.as_deref().map(parse_shard).transpose()
    }

    /// `--rotate-seats` / `--no-rotate-seats`, if either was given.
    pub fn rotate(&self) -> Option<bool> {
        if self.rotate_seats {
            Some(true)
        } else if self.no_rotate_seats {
            Some(false)
        } else {
            None
        }
    }

    /// How the job runs: threads and unit size from the command line, else `threads` and
    /// `chunk` (a config's); the output folder `out`; `--report`.
    pub fn execution(
        &self,
        threads: Option<usize>,
        chunk: Option<u64>,
        out: Option<PathBuf>,
    ) -> Execution {
        Execution {
            threads: self.threads.or(threads),
            chunk_size: self.chunk_size.or(chunk),
            out,
            report: self.report,
        }
    }
}

/// The CPU time this process has used so far (user and system, all threads), in seconds (0
/// where the system does not say): `bench` and `train` time themselves with it.
pub fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    if !ok {
        return 0.0;
    }
    // SAFETY: filled in by the successful call above (and zeroed before it).
    let usage = unsafe { usage.assume_init() };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

/// The depth of the luck measure: `--luck-ply N` (checked), else the manifest's when it is
/// not 0.
pub fn luck_ply(
    flag: Option<i64>,
    m: Option<&aeroplane::export::Manifest>,
) -> anyhow::Result<Option<aeroplane::analysis::luck::LuckPly>> {
    match flag {
        Some(ply) => experiment::luck_ply(ply)
            .map(Some)
            .map_err(|e| super::words::refused(e.into())),
        None => Ok(m.and_then(aeroplane::export::Manifest::given_luck_ply)),
    }
}

/// Loads a preset name or a variant file.
pub fn load_rules(name_or_path: &str) -> anyhow::Result<Rules> {
    Ok(aeroplane::config::load_rules(name_or_path)?)
}

/// Says on stderr, once per name, which names of a lineup `bots_dir` takes from the built-ins.
pub fn note_shadowing(text: &str, bots_dir: &Path) {
    for note in aeroplane::experiment::shadowing_notes(text.split(','), bots_dir) {
        say!("note: {}", super::words::as_flags(&note));
    }
}

/// Resolves a comma-separated lineup (saying which names `bots_dir` shadows) and checks it
/// seats 2 to 4 bots.
pub fn load_lineup(text: &str, bots_dir: &Path) -> anyhow::Result<Lineup> {
    let specs = parse_lineup(text, bots_dir)?;
    note_shadowing(text, bots_dir);
    Lineup::new(specs).map_err(|e| {
        anyhow::anyhow!(
            "the lineup has {} bot(s): give one bot per seat, 2, 3 or 4 of them, comma-separated (e.g. greedy,random,random,random)",
            e.value
        )
    })
}

/// The checks before `aeroplane resume DIR` continues a solve or a training from its
/// checkpoint: `record_file` (which a job of `aeroplane <what>` wrote, `complete` saying
/// whether it is finished) must be unfinished, or finished with its checkpoint still there (a
/// stop between the commit and the checkpoint's removal: the job is finished again from it,
/// into identical files), and written by this version.
pub fn check_resumable(
    dir: &Path,
    record_file: &str,
    checkpoint_file: &str,
    complete: bool,
    version: &str,
    what: &str,
) -> anyhow::Result<()> {
    let has_checkpoint = std::fs::symlink_metadata(dir.join(checkpoint_file)).is_ok();
    if complete && !has_checkpoint {
        // Taken and let go: what a stop after the commit left (a lock file, spares) goes.
        drop(OutputDir::reopen(dir)?);
        anyhow::bail!(
            "{} holds a complete {what}: nothing to resume",
            aeroplane::excerpt::path(dir)
        );
    }
    if version != env!("CARGO_PKG_VERSION") {
        anyhow::bail!(
            "{} was written by aeroplane {version}, this is aeroplane {}: resume it with the version that started it",
            dir.join(record_file).display(),
            env!("CARGO_PKG_VERSION")
        );
    }
    Ok(())
}

/// Opens the output directory, if one is asked for; `--report` needs one.
pub fn open_out(
    out: Option<&Path>,
    force: bool,
    report: bool,
) -> anyhow::Result<Option<OutputDir>> {
    if report && out.is_none() {
        anyhow::bail!("--report writes report.html into the output directory: give --out DIR");
    }
    out.map(|p| OutputDir::create(p, force).map_err(anyhow::Error::from))
        .transpose()
}

/// Says on stderr what a report found wrong with a folder (the page lists it too).
pub fn warn_problems(dir: &Path, problems: &[String]) {
    for p in problems {
        eprintln!(
            "warning: report of {}: {}",
            aeroplane::excerpt::path(dir),
            aeroplane::excerpt::clip_lines(p, 1000)
        );
    }
}

/// The report's last line: where the files are.
pub fn print_written(w: &mut dyn Write, out: Option<&OutputDir>) -> std::io::Result<()> {
    if let Some(dir) = out {
        let files = dir.written();
        writeln!(
            w,
            "\nwrote {}: {}",
            aeroplane::excerpt::path(dir.path()),
            files.join(", ")
        )?;
    }
    Ok(())
}

/// Arguments of `aeroplane rules`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane rules                               (the default preset, appfreegame)
  aeroplane rules classic > my-variant.toml     (a starting point for a variant file)
  aeroplane rules configs/classic-bounce.toml   (a variant file, every option resolved)")]
pub struct RulesArgs {
    /// A preset (appfreegame, classic, chinese) or a variant .toml file.
    #[arg(default_value = "appfreegame")]
    pub rules: String,
    /// Directory of bot profiles (unused; accepted for symmetry).
    #[arg(long, hide = true, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// `aeroplane rules`: prints the resolved variant as TOML, every option included (`planes`
/// too, which variant files and manifests leave out at its default of 4).
pub fn print_rules(args: RulesArgs) -> anyhow::Result<ExitCode> {
    let rules = load_rules(&args.rules)?;
    let mut text = rules.to_toml();
    if !text.lines().any(|l| l.starts_with("planes =")) {
        text.push_str(&format!("planes = {}\n", rules.planes()));
    }
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

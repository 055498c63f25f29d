//! The one way both front ends (the command line and the Python package) make a job from their
//! settings: [`RunSettings`], [`SweepSettings`], [`LeagueSettings`] and [`TuneSettings`], each
//! turned by `build` into a [`Built`] job (the [`Job`], its [`Exec`], its output folder).
//!
//! A front end only turns its flags or keywords into these settings (parsing each, and
//! layering a config or a manifest under them if it has any); what the front ends share is
//! here: the defaults of what they leave out, the checks of settings that do not make a job
//! (typed: [`SettingError`] names the setting, its value and what is allowed, worded without
//! flags; each front end names the setting its own way through [`SettingError::worded`]), the
//! unit size and its default per kind, and the output folder's layout beside the job's own
//! files (bot programs' stderr logs under [`LOGS_DIR`]). A lineup is a checked [`Lineup`] and
//! a sweep's options checked [`Axes`], each made where a front end resolves that input; [`shadowing_notes`] says where a profile of the
//! bots folder shadows a built-in one. The kinds' own checks stay with the kinds
//! ([`SweepJob::new`], [`LeagueJob::new`], [`TuneJob::new`], ...), which `build` calls.

use std::fmt;
use std::path::{Path, PathBuf};

use aeroplane_core::Rules;

use super::tune::{Confirm, ParamRange, TUNE_CHUNK_DEALS};
use super::{
    InvalidJob, Job, JobError, LeagueJob, RunJob, SPRT_CHUNK_DEALS, SprtJob, SweepJob, SweepSpec,
    TuneJob, TuneSpec,
};
use crate::analysis::luck::{LuckNet, LuckPly, MAX_LUCK_PLY};
use crate::analysis::spsa::SpsaSettings;
use crate::analysis::{Axis, SprtConfig};
use crate::bots::BotSpec;
use crate::export::{DEFAULT_BOOTSTRAP, DEFAULT_SORT, SortKey};
use crate::runner::{DEFAULT_CHUNK_DEALS, Exec, RunSpec};

/// The lineup a run (`aeroplane run`, `aeroplane.run`) plays when none is given.
pub const DEFAULT_RUN_BOTS: &str = "greedy,random,random,random";

/// The lineup a sweep (`aeroplane sweep`, `aeroplane.sweep`) plays when none is given.
pub const DEFAULT_SWEEP_BOTS: &str = "greedy,greedy,greedy,greedy";

/// The folder of bot profiles when none is given.
pub const DEFAULT_BOTS_DIR: &str = "bots";

/// The rules (a preset) a job plays when none are given.
pub const DEFAULT_RULES: &str = "appfreegame";

/// The master seed when none is given.
pub const DEFAULT_SEED: u64 = 1;

/// Deals of a run when not told otherwise.
pub const DEFAULT_RUN_GAMES: u64 = 100_000;

/// Deals per variant of a sweep when not told otherwise.
pub const DEFAULT_SWEEP_GAMES: u64 = 10_000;

/// Deals per table of a league when not told otherwise.
pub const DEFAULT_LEAGUE_GAMES: u64 = 1_000;

/// Players per table of a league when not told otherwise.
pub const DEFAULT_LEAGUE_PLAYERS: usize = 4;

/// Players per game of a tune when not told otherwise.
pub const DEFAULT_TUNE_PLAYERS: usize = 2;

/// Iterations of a tune when not told otherwise.
pub const DEFAULT_TUNE_ITERATIONS: u64 = 200;

/// Deals per iteration of a tune when not told otherwise.
pub const DEFAULT_TUNE_PAIRS: u64 = 64;

/// The folder of bot programs' stderr logs in an output folder.
pub const LOGS_DIR: &str = "logs";

/// A setting of a job that the builder can refuse, named as run.json, the config files and
/// the Python keywords name it ([`Setting::name`]); the command line's flag is `--` and the
/// name with dashes for underscores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Setting {
    /// The lineup (or a league's pool).
    Bots,
    /// Deals per unit of work.
    ChunkSize,
    /// A decision log's file name.
    LogGames,
    /// A decision log's key-position interval.
    LogPositions,
    /// The net every roll's luck is measured with.
    Luck,
    /// The depth of the luck measure.
    LuckPly,
    /// The most deals of an SPRT.
    MaxGames,
    /// The output folder.
    Out,
    /// Whether `games.csv` is written.
    PerGame,
    /// Whether a failing bot program forfeits its game.
    Recover,
    /// Whether `report.html` is written.
    Report,
    /// Whether every deal is played once per rotation of the seats.
    RotateSeats,
    /// A sequential head-to-head test.
    Sprt,
}

impl Setting {
    /// Its name in run.json, the config files and the Python keywords.
    pub const fn name(self) -> &'static str {
        match self {
            Setting::Bots => "bots",
            Setting::ChunkSize => "chunk_size",
            Setting::LogGames => "log_games",
            Setting::LogPositions => "log_positions",
            Setting::Luck => "luck",
            Setting::LuckPly => "luck_ply",
            Setting::MaxGames => "max_games",
            Setting::Out => "out",
            Setting::PerGame => "per_game",
            Setting::Recover => "recover",
            Setting::Report => "report",
            Setting::RotateSeats => "rotate_seats",
            Setting::Sprt => "sprt",
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a setting allows, where its value is not that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// One bot per seat, 2, 3 or 4 of them (the value is how many were given).
    Seats,
    /// A number at least `least` (of `unit`s).
    AtLeast {
        /// The least allowed.
        least: u64,
        /// What is counted (`deal`).
        unit: &'static str,
    },
    /// A whole number from `least` to `most`.
    Between {
        /// The least allowed.
        least: i64,
        /// The most allowed.
        most: i64,
    },
    /// Only together with the other setting.
    OnlyWith(Setting),
    /// Only in plain runs, not with the other setting.
    PlainRunsOnly(Setting),
    /// Not together with the other setting.
    NotWith(Setting),
    /// Only with the other setting given too: `what` says why.
    Needs {
        /// The setting needed.
        setting: Setting,
        /// What the refused setting applies to (`applies to a decision log`).
        what: &'static str,
    },
    /// Not this value: the other setting fixes it; `why` says how.
    FixedBy {
        /// The setting that fixes it.
        setting: Setting,
        /// What it does (`always rotates seats (...)`).
        why: &'static str,
    },
    /// A net of the job's own rules and players; `what` says what differs.
    FittingNet {
        /// What differs.
        what: String,
    },
}

/// A setting that does not make a job: which setting, its value as given, and what is
/// allowed. Its words are the library's ("the setting `name`"); a front end words it with its
/// own names through [`SettingError::worded`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.worded(|s| format!("the setting `{s}`")))]
pub struct SettingError {
    /// The setting refused.
    pub setting: Setting,
    /// Its value, as given.
    pub value: String,
    /// What it allows.
    pub allowed: Allowed,
}

impl SettingError {
    fn new(setting: Setting, value: impl ToString, allowed: Allowed) -> SettingError {
        SettingError {
            setting,
            value: value.to_string(),
            allowed,
        }
    }

    /// The message, with each setting named by `name` (the command line's `--flag`, a Python
    /// keyword; the library's own words say "the setting `name`").
    pub fn worded(&self, name: impl Fn(Setting) -> String) -> String {
        let this = name(self.setting);
        match &self.allowed {
            Allowed::Seats => format!(
                "{this} lists {} bot(s): give one bot per seat, 2, 3 or 4 of them",
                self.value
            ),
            Allowed::AtLeast { least, unit } => format!("{this} must be at least {least} {unit}"),
            Allowed::Between { least, most } => {
                format!("{this} must be from {least} to {most}, not {}", self.value)
            }
            Allowed::OnlyWith(other) => format!("{this} applies to {} only", name(*other)),
            Allowed::PlainRunsOnly(other) => {
                format!("{this} applies to plain runs, not to {}", name(*other))
            }
            Allowed::NotWith(other) => format!("{this} cannot be combined with {}", name(*other)),
            Allowed::Needs { setting, what } => {
                format!("{this} {what}: give {} too", name(*setting))
            }
            Allowed::FixedBy { setting, why } => {
                format!(
                    "{} {why}: {this} {} does not apply",
                    name(*setting),
                    self.value
                )
            }
            Allowed::FittingNet { what } => {
                format!("{this}: the luck net {}: {what}", self.value)
            }
        }
    }
}

impl From<SettingError> for JobError {
    fn from(e: SettingError) -> JobError {
        JobError::Invalid(e.into())
    }
}

/// A lineup: one bot per seat, 2, 3 or 4 of them, in seat order.
#[derive(Clone, Debug, PartialEq)]
pub struct Lineup(Vec<BotSpec>);

impl Lineup {
    /// The lineup of `bots`, one per seat; other than 2 to 4 of them is refused.
    pub fn new(bots: Vec<BotSpec>) -> Result<Lineup, SettingError> {
        if (2..=4).contains(&bots.len()) {
            Ok(Lineup(bots))
        } else {
            Err(SettingError::new(Setting::Bots, bots.len(), Allowed::Seats))
        }
    }

    /// The bots, in seat order.
    pub fn bots(&self) -> &[BotSpec] {
        &self.0
    }

    /// The bots, in seat order.
    pub fn into_bots(self) -> Vec<BotSpec> {
        self.0
    }
}

/// The options a sweep varies, in product order (the first varies slowest): at least one.
#[derive(Clone, Debug, PartialEq)]
pub struct Axes(Vec<Axis>);

impl Axes {
    /// The axes `axes`; none is refused ([`InvalidJob::NothingToVary`]).
    pub fn new(axes: Vec<Axis>) -> Result<Axes, InvalidJob> {
        if axes.is_empty() {
            return Err(InvalidJob::NothingToVary);
        }
        Ok(Axes(axes))
    }

    /// The axes, in product order.
    pub fn axes(&self) -> &[Axis] {
        &self.0
    }
}

/// How a job is executed and where its files go: settings of every kind of job, none of which
/// changes its results (except where an SPRT may stop: its unit is a check of the test).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Execution {
    /// Worker threads; 0 (the default) is one per core.
    pub threads: Option<usize>,
    /// Deals per unit of work (the default depends on the kind of job).
    pub chunk_size: Option<u64>,
    /// The output folder, if any.
    pub out: Option<PathBuf>,
    /// Also write `report.html` into the output folder when the job is complete.
    pub report: bool,
}

impl Execution {
    /// Threads and the unit size, `default_chunk` deals when not given; a unit of no deals
    /// is refused.
    fn exec(&self, default_chunk: u64) -> Result<Exec, SettingError> {
        let chunk_deals = self.chunk_size.unwrap_or(default_chunk);
        if chunk_deals == 0 {
            return Err(SettingError::new(
                Setting::ChunkSize,
                chunk_deals,
                Allowed::AtLeast {
                    least: 1,
                    unit: "deal",
                },
            ));
        }
        Ok(Exec {
            threads: self.threads.unwrap_or(0),
            chunk_deals,
            ..Exec::default()
        })
    }

    /// `job` with `exec`, checked against the output folder (a report needs one), its bot
    /// programs' stderr logs sent to the folder's `logs/`.
    fn finish(self, mut job: Job, exec: Exec) -> Result<Built, JobError> {
        if self.report && self.out.is_none() {
            return Err(InvalidJob::NeedsOut {
                setting: "report",
                writes: "writes report.html",
            }
            .into());
        }
        attach_job_logs(&mut job, self.out.as_deref());
        Ok(Built {
            job,
            exec,
            out: self.out,
            report: self.report,
        })
    }
}

/// A job made from settings, ready to execute.
#[derive(Clone, Debug)]
pub struct Built {
    /// The job (its bot programs' stderr logs already sent to the output folder's `logs/`).
    pub job: Job,
    /// Threads and unit size.
    pub exec: Exec,
    /// The output folder, if any.
    pub out: Option<PathBuf>,
    /// Whether `report.html` is written when the job is complete.
    pub report: bool,
}

impl Built {
    /// A job read back from its output folder `dir` (to resume it), with `threads` and the
    /// unit size its manifest recorded: its bot programs log into `dir/logs/` again.
    pub fn resumed(
        mut job: Job,
        dir: &Path,
        threads: usize,
        unit_deals: u64,
        report: bool,
    ) -> Built {
        attach_job_logs(&mut job, Some(dir));
        Built {
            job,
            exec: Exec {
                threads,
                chunk_deals: unit_deals,
                ..Exec::default()
            },
            out: Some(dir.to_path_buf()),
            report,
        }
    }
}

/// The rules when none are given: the preset [`DEFAULT_RULES`].
fn default_rules() -> (Rules, String) {
    (Rules::default(), DEFAULT_RULES.to_string())
}

/// The setting `luck_ply` from a front end's integer: 0 to [`MAX_LUCK_PLY`] (the one check of
/// its range: a [`LuckPly`] stays valid from here to the meter).
pub fn luck_ply(ply: i64) -> Result<LuckPly, SettingError> {
    LuckPly::new(ply).map_err(|_| {
        SettingError::new(
            Setting::LuckPly,
            ply,
            Allowed::Between {
                least: 0,
                most: i64::from(MAX_LUCK_PLY),
            },
        )
    })
}

/// The luck nets measuring at `ply` when given: a ply without a net is refused.
fn at_ply<N: IntoIterator<Item = LuckNet>>(
    nets: N,
    ply: Option<LuckPly>,
) -> Result<Vec<LuckNet>, SettingError> {
    let nets: Vec<LuckNet> = nets.into_iter().collect();
    match ply {
        None => Ok(nets),
        Some(ply) if nets.is_empty() => Err(SettingError::new(
            Setting::LuckPly,
            ply,
            Allowed::Needs {
                setting: Setting::Luck,
                what: "is the depth of the luck measure",
            },
        )),
        Some(ply) => Ok(nets.into_iter().map(|n| n.with_ply(ply)).collect()),
    }
}

/// Refuses a luck net that cannot measure games of `rules` with `players`.
fn check_luck(net: Option<&LuckNet>, rules: &Rules, players: usize) -> Result<(), SettingError> {
    match net.map(|n| n.meter(rules, players)) {
        Some(Err(e)) => Err(SettingError::new(
            Setting::Luck,
            e.net,
            Allowed::FittingNet { what: e.what },
        )),
        _ => Ok(()),
    }
}

/// The settings of a run (`aeroplane run`, `aeroplane.run`), or of a head-to-head with a
/// sequential test when `sprt` is given.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// One bot per seat.
    pub lineup: Lineup,
    /// The rules and the name they were given by [default: [`DEFAULT_RULES`]].
    pub rules: Option<(Rules, String)>,
    /// Master seed [default: [`DEFAULT_SEED`]].
    pub seed: Option<u64>,
    /// The first deal [default: 0].
    pub first_game: Option<u64>,
    /// Deals [default: [`DEFAULT_RUN_GAMES`]]; an SPRT's most deals unless `max_games`.
    pub games: Option<u64>,
    /// Play each deal once per rotation [default: no; an SPRT always rotates, and refuses
    /// `Some(false)`].
    pub rotate_seats: Option<bool>,
    /// Also write `games.csv` (a plain run's).
    pub per_game: bool,
    /// Also write a decision log of this name (a plain run's).
    pub log_games: Option<String>,
    /// With `log_games`: the position on every K-th decision line [default:
    /// [`crate::decision_log::DEFAULT_LOG_POSITIONS`]].
    pub log_positions: Option<u32>,
    /// A failing bot program forfeits its game (a plain run's).
    pub recover: bool,
    /// Measure every roll's luck with this net.
    pub luck: Option<LuckNet>,
    /// The depth of the luck measure (needs `luck`; a front end's integer becomes one by
    /// [`luck_ply`]) [default: the net's own, 0].
    pub luck_ply: Option<LuckPly>,
    /// The sequential test of a head-to-head.
    pub sprt: Option<SprtConfig>,
    /// An SPRT's most deals [default: `games`].
    pub max_games: Option<u64>,
    /// Threads, unit size [default: [`DEFAULT_CHUNK_DEALS`], an SPRT's
    /// [`SPRT_CHUNK_DEALS`]], output folder.
    pub exec: Execution,
}

impl RunSettings {
    /// A run of `lineup` with every other setting at its default.
    pub fn new(lineup: Lineup) -> RunSettings {
        RunSettings {
            lineup,
            rules: None,
            seed: None,
            first_game: None,
            games: None,
            rotate_seats: None,
            per_game: false,
            log_games: None,
            log_positions: None,
            recover: false,
            luck: None,
            luck_ply: None,
            sprt: None,
            max_games: None,
            exec: Execution::default(),
        }
    }

    /// The run (or SPRT) these settings make, checked in this order: for a plain run
    /// `max_games`, `log_positions` without `log_games`, the run itself, the unit size, the
    /// luck net and its ply; for an SPRT `rotate_seats` false, `recover`, `log_games`,
    /// `per_game`, the unit size, the luck net and its ply, the lineup (A and copies of B);
    /// then `report` without `out`.
    pub fn build(self) -> Result<Built, JobError> {
        let (rules, rules_name) = self.rules.unwrap_or_else(default_rules);
        let mut spec = RunSpec {
            rules,
            lineup: self.lineup.into_bots(),
            seed: self.seed.unwrap_or(DEFAULT_SEED),
            first_deal: self.first_game.unwrap_or(0),
            deals: self.games.unwrap_or(DEFAULT_RUN_GAMES),
            rotate_seats: self.rotate_seats.unwrap_or(false),
        };
        let refuse = |setting: Setting, value: &dyn ToString, allowed: Allowed| -> JobError {
            SettingError::new(setting, value.to_string(), allowed).into()
        };
        let Some(config) = self.sprt else {
            if let Some(m) = self.max_games {
                return Err(refuse(
                    Setting::MaxGames,
                    &m,
                    Allowed::OnlyWith(Setting::Sprt),
                ));
            }
            if let (None, Some(k)) = (&self.log_games, self.log_positions) {
                return Err(refuse(
                    Setting::LogPositions,
                    &k,
                    Allowed::Needs {
                        setting: Setting::LogGames,
                        what: "applies to a decision log",
                    },
                ));
            }
            spec.validate()?;
            let exec = self.exec.exec(DEFAULT_CHUNK_DEALS)?;
            check_luck(self.luck.as_ref(), &spec.rules, spec.players())?;
            let luck = at_ply(self.luck, self.luck_ply)?.pop();
            let job = RunJob {
                spec,
                rules_name,
                per_game: self.per_game,
                log_games: self.log_games,
                log_positions: self
                    .log_positions
                    .unwrap_or(crate::decision_log::DEFAULT_LOG_POSITIONS),
                recover: self.recover,
                luck,
            };
            return self.exec.finish(Job::Run(job), exec);
        };
        if self.rotate_seats == Some(false) {
            return Err(refuse(
                Setting::RotateSeats,
                &false,
                Allowed::FixedBy {
                    setting: Setting::Sprt,
                    why: "always rotates seats (each deal's pair of games, seats swapped, is its unit)",
                },
            ));
        }
        if self.recover {
            return Err(refuse(
                Setting::Recover,
                &true,
                Allowed::PlainRunsOnly(Setting::Sprt),
            ));
        }
        if let Some(m) = self.max_games {
            spec.deals = m;
        }
        if let Some(name) = &self.log_games {
            return Err(refuse(
                Setting::LogGames,
                name,
                Allowed::PlainRunsOnly(Setting::Sprt),
            ));
        }
        if self.per_game {
            return Err(refuse(
                Setting::PerGame,
                &true,
                Allowed::NotWith(Setting::Sprt),
            ));
        }
        // The test is checked once per unit: small units stop closer to the bound.
        let exec = self.exec.exec(SPRT_CHUNK_DEALS)?;
        check_luck(self.luck.as_ref(), &spec.rules, spec.players())?;
        let luck = at_ply(self.luck, self.luck_ply)?.pop();
        let job = SprtJob::new(spec, rules_name, config, exec.chunk_deals)?.with_luck(luck);
        self.exec.finish(Job::Sprt(job), exec)
    }
}

/// The settings of a sweep (`aeroplane sweep`, `aeroplane.sweep`).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSettings {
    /// The varied options, in product order.
    pub axes: Axes,
    /// The lineup every variant plays.
    pub lineup: Lineup,
    /// The lineup as the user wrote it, for the title.
    pub bots_label: String,
    /// The base rules and the name they were given by [default: [`DEFAULT_RULES`]].
    pub rules: Option<(Rules, String)>,
    /// Master seed [default: [`DEFAULT_SEED`]].
    pub seed: Option<u64>,
    /// Deals per variant [default: [`DEFAULT_SWEEP_GAMES`]].
    pub games: Option<u64>,
    /// Play each deal once per rotation [default: no].
    pub rotate_seats: Option<bool>,
    /// Two variants (0-based, product order) to compare deal by deal.
    pub compare: Option<(usize, usize)>,
    /// The order of the table [default: [`DEFAULT_SORT`]].
    pub sort: Option<SortKey>,
    /// Nets to measure luck with (each variant by the first of its rules and players).
    pub luck: Vec<LuckNet>,
    /// The depth of the luck measure, 0 to [`MAX_LUCK_PLY`] (needs `luck`) [default: the
    /// nets' own, 0].
    pub luck_ply: Option<LuckPly>,
    /// Threads, unit size [default: [`DEFAULT_CHUNK_DEALS`]], output folder.
    pub exec: Execution,
}

impl SweepSettings {
    /// A sweep of `axes` played by `lineup` (written as `bots_label`), every other setting at
    /// its default.
    pub fn new(axes: Axes, lineup: Lineup, bots_label: String) -> SweepSettings {
        SweepSettings {
            axes,
            lineup,
            bots_label,
            rules: None,
            seed: None,
            games: None,
            rotate_seats: None,
            compare: None,
            sort: None,
            luck: Vec::new(),
            luck_ply: None,
            exec: Execution::default(),
        }
    }

    /// The sweep these settings make: its variants and comparison, its luck nets and their
    /// ply, the unit size, then `report` without `out`.
    pub fn build(self) -> Result<Built, JobError> {
        let (base, rules_name) = self.rules.unwrap_or_else(default_rules);
        let luck = at_ply(self.luck, self.luck_ply)?;
        let job = SweepJob::new(SweepSpec {
            rules_name,
            base,
            axes: self.axes.0,
            lineup: self.lineup.into_bots(),
            bots_label: self.bots_label,
            seed: self.seed.unwrap_or(DEFAULT_SEED),
            deals: self.games.unwrap_or(DEFAULT_SWEEP_GAMES),
            rotate_seats: self.rotate_seats.unwrap_or(false),
            compare: self.compare,
            sort: self.sort.unwrap_or_else(|| SortKey::parse(DEFAULT_SORT)),
        })?
        .with_luck(luck)?;
        let exec = self.exec.exec(DEFAULT_CHUNK_DEALS)?;
        self.exec.finish(Job::Sweep(job), exec)
    }
}

/// The settings of a league (`aeroplane league`, `aeroplane.league`).
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueSettings {
    /// The pool: each table seats its bots in turn.
    pub pool: Vec<BotSpec>,
    /// The rules and the name they were given by [default: [`DEFAULT_RULES`]].
    pub rules: Option<(Rules, String)>,
    /// Players per table [default: [`DEFAULT_LEAGUE_PLAYERS`]].
    pub players: Option<usize>,
    /// Deals per table [default: [`DEFAULT_LEAGUE_GAMES`]].
    pub games: Option<u64>,
    /// Master seed [default: [`DEFAULT_SEED`]].
    pub seed: Option<u64>,
    /// Bootstrap resamples [default: [`DEFAULT_BOOTSTRAP`]].
    pub bootstrap: Option<u32>,
    /// Measure every roll's luck with this net.
    pub luck: Option<LuckNet>,
    /// The depth of the luck measure (needs `luck`; a front end's integer becomes one by
    /// [`luck_ply`]) [default: the net's own, 0].
    pub luck_ply: Option<LuckPly>,
    /// Also write `games.csv` (the bots numbered and named by the pool).
    pub per_game: bool,
    /// Threads, unit size [default: [`DEFAULT_CHUNK_DEALS`]], output folder.
    pub exec: Execution,
}

impl LeagueSettings {
    /// A league of `pool`, every other setting at its default.
    pub fn new(pool: Vec<BotSpec>) -> LeagueSettings {
        LeagueSettings {
            pool,
            rules: None,
            players: None,
            games: None,
            seed: None,
            bootstrap: None,
            luck: None,
            luck_ply: None,
            per_game: false,
            exec: Execution::default(),
        }
    }

    /// The league these settings make: its luck net against the rules and players and its
    /// ply, the pool, players and bootstrap, the unit size, then `report` without `out`.
    pub fn build(self) -> Result<Built, JobError> {
        let (rules, rules_name) = self.rules.unwrap_or_else(default_rules);
        let players = self.players.unwrap_or(DEFAULT_LEAGUE_PLAYERS);
        check_luck(self.luck.as_ref(), &rules, players)?;
        let luck = at_ply(self.luck, self.luck_ply)?.pop();
        let job = LeagueJob::new(
            rules_name,
            rules,
            self.pool,
            players,
            self.games.unwrap_or(DEFAULT_LEAGUE_GAMES),
            self.seed.unwrap_or(DEFAULT_SEED),
            self.bootstrap.unwrap_or(DEFAULT_BOOTSTRAP),
        )?
        .with_luck(luck)?
        .with_per_game(self.per_game);
        let exec = self.exec.exec(DEFAULT_CHUNK_DEALS)?;
        self.exec.finish(Job::League(job), exec)
    }
}

/// The settings of a tune (`aeroplane tune`).
#[derive(Clone, Debug, PartialEq)]
pub struct TuneSettings {
    /// The bot tuned, at its starting values.
    pub bot: BotSpec,
    /// A fixed opponent in the other seats (else self-play).
    pub opponent: Option<BotSpec>,
    /// The parameters and their ranges.
    pub ranges: Vec<ParamRange>,
    /// The rules and the name they were given by [default: [`DEFAULT_RULES`]].
    pub rules: Option<(Rules, String)>,
    /// Players per game [default: [`DEFAULT_TUNE_PLAYERS`]].
    pub players: Option<usize>,
    /// Iterations [default: [`DEFAULT_TUNE_ITERATIONS`]].
    pub iterations: Option<u64>,
    /// Deals per iteration [default: [`DEFAULT_TUNE_PAIRS`]].
    pub pairs_per_iteration: Option<u64>,
    /// Master seed [default: [`DEFAULT_SEED`]].
    pub seed: Option<u64>,
    /// The first perturbation, as a share of each range [default:
    /// [`crate::analysis::spsa::DEFAULT_PERTURBATION`]].
    pub perturbation: Option<f64>,
    /// The step of a noise-sized first result, as a share of each range [default:
    /// [`crate::analysis::spsa::DEFAULT_STEP`]].
    pub step: Option<f64>,
    /// The gain sequence's exponent [default: [`crate::analysis::spsa::ALPHA`]].
    pub alpha: Option<f64>,
    /// The perturbation sequence's exponent [default: [`crate::analysis::spsa::GAMMA`]].
    pub gamma: Option<f64>,
    /// The stability constant [default: 10% of the iterations].
    pub stability: Option<f64>,
    /// The confirming SPRT and its most deals; it is checked every unit.
    pub confirm: Option<(SprtConfig, u64)>,
    /// Threads, unit size [default: [`TUNE_CHUNK_DEALS`]], output folder.
    pub exec: Execution,
}

impl TuneSettings {
    /// A tune of `bot`'s parameters over `ranges`, every other setting at its default (no
    /// confirmation).
    pub fn new(bot: BotSpec, ranges: Vec<ParamRange>) -> TuneSettings {
        TuneSettings {
            bot,
            opponent: None,
            ranges,
            rules: None,
            players: None,
            iterations: None,
            pairs_per_iteration: None,
            seed: None,
            perturbation: None,
            step: None,
            alpha: None,
            gamma: None,
            stability: None,
            confirm: None,
            exec: Execution::default(),
        }
    }

    /// The tune these settings make: the unit size, the tune's own checks
    /// ([`TuneJob::new`]), then `report` without `out`.
    pub fn build(self) -> Result<Built, JobError> {
        let exec = self.exec.exec(TUNE_CHUNK_DEALS)?;
        let (rules, rules_name) = self.rules.unwrap_or_else(default_rules);
        let mut settings = SpsaSettings::new(
            self.iterations.unwrap_or(DEFAULT_TUNE_ITERATIONS),
            self.pairs_per_iteration.unwrap_or(DEFAULT_TUNE_PAIRS),
        );
        let knobs = [
            (&mut settings.perturbation, self.perturbation),
            (&mut settings.step, self.step),
            (&mut settings.alpha, self.alpha),
            (&mut settings.gamma, self.gamma),
            (&mut settings.stability, self.stability),
        ];
        for (knob, given) in knobs {
            if let Some(v) = given {
                *knob = v;
            }
        }
        let job = TuneJob::new(TuneSpec {
            rules,
            rules_name,
            bot: self.bot,
            opponent: self.opponent,
            players: self.players.unwrap_or(DEFAULT_TUNE_PLAYERS),
            ranges: self.ranges,
            settings,
            seed: self.seed.unwrap_or(DEFAULT_SEED),
            confirm: self.confirm.map(|(test, max_pairs)| Confirm {
                test,
                max_pairs,
                chunk_deals: exec.chunk_deals,
            }),
            given: None,
        })?;
        self.exec.finish(Job::Tune(Box::new(job)), exec)
    }

    /// The confirmation of an earlier tune's values: the SPRT `confirm` (the test and its
    /// most deals, checked every unit) of the values `given` against the start of the earlier
    /// tune `spec`, with `exec`.
    pub fn confirming(
        mut spec: TuneSpec,
        given: Vec<f64>,
        confirm: (SprtConfig, u64),
        exec: Execution,
    ) -> Result<Built, JobError> {
        let units = exec.exec(TUNE_CHUNK_DEALS)?;
        spec.given = Some(given);
        spec.confirm = Some(Confirm {
            test: confirm.0,
            max_pairs: confirm.1,
            chunk_deals: units.chunk_deals,
        });
        let job = TuneJob::new(spec)?;
        exec.finish(Job::Tune(Box::new(job)), units)
    }
}

/// Sends the stderr of every bot program of a job (run, sweep, league, resumed or not) to
/// `out/logs/<bot>-<n>.log`: not part of what the job is (its manifest and results do not
/// change).
fn attach_job_logs(job: &mut Job, out: Option<&Path>) {
    if let Some(dir) = out {
        job.set_bot_log_dir(&dir.join(LOGS_DIR));
    }
}

/// The notes, one per profile named (in the order first named), where a profile of
/// `bots_dir` shadows the built-in one of its name; `bots` are the lineup's texts (`greedy`,
/// `expectimax:depth=2`). A text that names no profile is passed over (resolving it says why).
pub fn shadowing_notes<'t>(
    bots: impl IntoIterator<Item = &'t str>,
    bots_dir: &Path,
) -> Vec<String> {
    let mut seen = Vec::new();
    let mut notes = Vec::new();
    for bot in bots {
        let Ok(head) = BotSpec::head(bot) else {
            continue;
        };
        if seen.contains(&head) {
            continue;
        }
        seen.push(head);
        notes.extend(crate::config::shadowing_note(head, bots_dir));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::external::ExternalSpec;
    use crate::config::parse_lineup;
    use crate::experiment::JobKind;
    use crate::experiment::tune::ParamRange;

    fn bots(text: &str) -> Vec<BotSpec> {
        parse_lineup(text, Path::new(DEFAULT_BOTS_DIR)).unwrap()
    }

    fn lineup(text: &str) -> Lineup {
        Lineup::new(bots(text)).unwrap()
    }

    fn sprt() -> SprtConfig {
        "elo0=0,elo1=50".parse().unwrap()
    }

    /// The setting error a build refused with (a panic if it built, or failed otherwise).
    fn refused(result: Result<Built, JobError>) -> SettingError {
        match result {
            Err(JobError::Invalid(InvalidJob::Setting(e))) => e,
            Err(e) => panic!("refused otherwise: {e}"),
            Ok(b) => panic!("built {:?}", b.job),
        }
    }

    fn flag(s: Setting) -> String {
        format!("--{}", s.name().replace('_', "-"))
    }

    #[test]
    fn a_lineup_seats_two_to_four_bots() {
        for n in [2, 3, 4] {
            assert_eq!(
                Lineup::new(bots("random,random,random,random")[..n].to_vec())
                    .unwrap()
                    .bots()
                    .len(),
                n
            );
        }
        for text in ["random", "random,random,random,random,random"] {
            let e = Lineup::new(bots(text)).unwrap_err();
            let n = text.split(',').count();
            assert_eq!(
                e,
                SettingError {
                    setting: Setting::Bots,
                    value: n.to_string(),
                    allowed: Allowed::Seats,
                }
            );
            assert_eq!(
                e.to_string(),
                format!(
                    "the setting `bots` lists {n} bot(s): give one bot per seat, 2, 3 or 4 of them"
                )
            );
        }
        assert!(Lineup::new(Vec::new()).is_err());
    }

    #[test]
    fn a_sweep_varies_at_least_one_option() {
        let Err(InvalidJob::NothingToVary) = Axes::new(Vec::new()) else {
            panic!("a sweep of no axes")
        };
        let one = Axes::new(vec!["overshoot=illegal,bounce".parse::<Axis>().unwrap()]).unwrap();
        assert_eq!(one.axes().len(), 1);
    }

    #[test]
    fn a_run_left_to_its_defaults_is_the_default_tournament() {
        let built = RunSettings::new(lineup(DEFAULT_RUN_BOTS)).build().unwrap();
        let Job::Run(job) = &built.job else {
            panic!("{:?}", built.job)
        };
        assert_eq!(job.spec.rules, Rules::default());
        assert_eq!(job.rules_name, "appfreegame");
        assert_eq!(job.spec.lineup, bots(DEFAULT_RUN_BOTS));
        assert_eq!(
            (job.spec.seed, job.spec.first_deal, job.spec.deals),
            (1, 0, 100_000)
        );
        assert!(!job.spec.rotate_seats && !job.per_game && !job.recover);
        assert_eq!(
            job.log_positions,
            crate::decision_log::DEFAULT_LOG_POSITIONS
        );
        assert_eq!(
            (built.exec.threads, built.exec.chunk_deals),
            (0, DEFAULT_CHUNK_DEALS)
        );
        assert_eq!((built.out, built.report), (None, false));
    }

    #[test]
    fn an_sprt_rotates_checks_per_unit_and_plays_at_most_max_games() {
        let built = RunSettings {
            sprt: Some(sprt()),
            games: Some(500),
            max_games: Some(300),
            ..RunSettings::new(lineup("greedy,random"))
        }
        .build()
        .unwrap();
        let Job::Sprt(job) = &built.job else {
            panic!("{:?}", built.job)
        };
        assert!(job.spec.rotate_seats);
        assert_eq!(job.spec.deals, 300);
        assert_eq!(built.exec.chunk_deals, SPRT_CHUNK_DEALS);
        assert_eq!(job.manifest().sprt.unwrap().chunk_deals, SPRT_CHUNK_DEALS);
        let given = RunSettings {
            sprt: Some(sprt()),
            rotate_seats: Some(true),
            exec: Execution {
                chunk_size: Some(4),
                threads: Some(2),
                ..Execution::default()
            },
            ..RunSettings::new(lineup("greedy,random"))
        }
        .build()
        .unwrap();
        assert_eq!((given.exec.threads, given.exec.chunk_deals), (2, 4));
    }

    #[test]
    fn a_unit_of_no_deals_is_refused_for_every_kind() {
        let none = || Execution {
            chunk_size: Some(0),
            ..Execution::default()
        };
        let want = SettingError {
            setting: Setting::ChunkSize,
            value: "0".into(),
            allowed: Allowed::AtLeast {
                least: 1,
                unit: "deal",
            },
        };
        let axes = Axes::new(vec!["overshoot=illegal,bounce".parse::<Axis>().unwrap()]).unwrap();
        let tuned = bots("expectimax:depth=1").remove(0);
        let ranges = vec!["progress=0.5..3".parse::<ParamRange>().unwrap()];
        for result in [
            RunSettings {
                exec: none(),
                ..RunSettings::new(lineup("greedy,random"))
            }
            .build(),
            RunSettings {
                sprt: Some(sprt()),
                exec: none(),
                ..RunSettings::new(lineup("greedy,random"))
            }
            .build(),
            SweepSettings {
                exec: none(),
                ..SweepSettings::new(axes, lineup("greedy,greedy"), "greedy,greedy".into())
            }
            .build(),
            LeagueSettings {
                exec: none(),
                ..LeagueSettings::new(bots("greedy,random"))
            }
            .build(),
            TuneSettings {
                exec: none(),
                ..TuneSettings::new(tuned, ranges)
            }
            .build(),
        ] {
            let e = refused(result);
            assert_eq!(e, want);
            assert_eq!(e.worded(flag), "--chunk-size must be at least 1 deal");
            assert_eq!(
                e.worded(|s| s.name().into()),
                "chunk_size must be at least 1 deal"
            );
        }
    }

    #[test]
    fn a_plain_run_refuses_what_belongs_to_an_sprt_or_a_log() {
        let e = refused(
            RunSettings {
                max_games: Some(10),
                ..RunSettings::new(lineup("greedy,random"))
            }
            .build(),
        );
        assert_eq!(
            (e.setting, &e.value, &e.allowed),
            (
                Setting::MaxGames,
                &"10".to_string(),
                &Allowed::OnlyWith(Setting::Sprt)
            )
        );
        assert_eq!(e.worded(flag), "--max-games applies to --sprt only");
        assert_eq!(
            e.to_string(),
            "the setting `max_games` applies to the setting `sprt` only"
        );
        let e = refused(
            RunSettings {
                log_positions: Some(8),
                ..RunSettings::new(lineup("greedy,random"))
            }
            .build(),
        );
        assert_eq!(e.setting, Setting::LogPositions);
        assert_eq!(
            e.allowed,
            Allowed::Needs {
                setting: Setting::LogGames,
                what: "applies to a decision log"
            }
        );
        assert_eq!(
            e.to_string(),
            "the setting `log_positions` applies to a decision log: give the setting `log_games` too"
        );
    }

    #[test]
    fn an_sprt_refuses_seats_kept_still_recovery_logs_and_games_csv() {
        let with = |f: fn(&mut RunSettings)| {
            let mut s = RunSettings {
                sprt: Some(sprt()),
                ..RunSettings::new(lineup("greedy,random"))
            };
            f(&mut s);
            refused(s.build())
        };
        let e = with(|s| s.rotate_seats = Some(false));
        assert_eq!(
            (e.setting, e.value.as_str()),
            (Setting::RotateSeats, "false")
        );
        assert!(matches!(
            e.allowed,
            Allowed::FixedBy {
                setting: Setting::Sprt,
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "the setting `sprt` always rotates seats (each deal's pair of games, seats swapped, is its unit): the setting `rotate_seats` false does not apply"
        );
        let e = with(|s| s.recover = true);
        assert_eq!(
            (e.setting, &e.allowed),
            (Setting::Recover, &Allowed::PlainRunsOnly(Setting::Sprt))
        );
        assert_eq!(
            e.worded(flag),
            "--recover applies to plain runs, not to --sprt"
        );
        let e = with(|s| s.log_games = Some("games.jsonl".into()));
        assert_eq!(
            (e.setting, e.value.as_str(), &e.allowed),
            (
                Setting::LogGames,
                "games.jsonl",
                &Allowed::PlainRunsOnly(Setting::Sprt)
            )
        );
        assert_eq!(
            e.worded(|s| s.name().into()),
            "log_games applies to plain runs, not to sprt"
        );
        let e = with(|s| s.per_game = true);
        assert_eq!(
            (e.setting, &e.allowed),
            (Setting::PerGame, &Allowed::NotWith(Setting::Sprt))
        );
        assert_eq!(e.worded(flag), "--per-game cannot be combined with --sprt");
        // The first refusal in the documented order: seats, then recovery.
        let e = with(|s| {
            s.rotate_seats = Some(false);
            s.recover = true;
        });
        assert_eq!(e.setting, Setting::RotateSeats);
        // Not an SPRT's lineup: the job's own check.
        let Err(JobError::Invalid(InvalidJob::SprtLineup(_))) = RunSettings {
            sprt: Some(sprt()),
            ..RunSettings::new(lineup("greedy,random,greedy"))
        }
        .build() else {
            panic!("an SPRT of A, B, A")
        };
    }

    #[test]
    fn a_report_needs_an_output_folder() {
        let report = || Execution {
            report: true,
            ..Execution::default()
        };
        let axes = Axes::new(vec!["overshoot=illegal,bounce".parse::<Axis>().unwrap()]).unwrap();
        for result in [
            RunSettings {
                exec: report(),
                ..RunSettings::new(lineup("greedy,random"))
            }
            .build(),
            SweepSettings {
                exec: report(),
                ..SweepSettings::new(axes, lineup("greedy,greedy"), "greedy,greedy".into())
            }
            .build(),
            LeagueSettings {
                exec: report(),
                ..LeagueSettings::new(bots("greedy,random"))
            }
            .build(),
        ] {
            let Err(JobError::Invalid(InvalidJob::NeedsOut { setting, writes })) = result else {
                panic!("built a report without a folder")
            };
            assert_eq!((setting, writes), ("report", "writes report.html"));
        }
        let dir = tempfile::tempdir().unwrap();
        let built = RunSettings {
            exec: Execution {
                report: true,
                out: Some(dir.path().to_path_buf()),
                ..Execution::default()
            },
            ..RunSettings::new(lineup("greedy,random"))
        }
        .build()
        .unwrap();
        assert!(built.report);
        assert_eq!(built.out.as_deref(), Some(dir.path()));
    }

    #[test]
    fn a_luck_net_of_other_players_is_refused_naming_the_net() {
        let file = "bots/nets/td-classic-2p.safetensors";
        let net = || Some(LuckNet::load(file).unwrap());
        let e = refused(
            RunSettings {
                luck: net(),
                rules: Some((aeroplane_core::Preset::Classic.rules(), "classic".into())),
                ..RunSettings::new(lineup("greedy,random,random"))
            }
            .build(),
        );
        assert_eq!((e.setting, e.value.as_str()), (Setting::Luck, file));
        let Allowed::FittingNet { what } = &e.allowed else {
            panic!("{e:?}")
        };
        assert_eq!(
            e.worded(flag),
            format!("--luck: the luck net {file}: {what}")
        );
        let e = refused(
            LeagueSettings {
                luck: net(),
                rules: Some((aeroplane_core::Preset::Classic.rules(), "classic".into())),
                ..LeagueSettings::new(bots("greedy,random,expectimax"))
            }
            .build(),
        );
        assert_eq!(e.setting, Setting::Luck);
        let fits = RunSettings {
            luck: net(),
            rules: Some((aeroplane_core::Preset::Classic.rules(), "classic".into())),
            ..RunSettings::new(lineup("greedy,random"))
        }
        .build()
        .unwrap();
        assert_eq!(fits.job.manifest().luck, vec![file.to_string()]);
    }

    #[test]
    fn a_luck_ply_is_0_to_3_and_needs_a_net_in_every_kind() {
        let file = "bots/nets/td-classic-2p.safetensors";
        let net = || Some(LuckNet::load(file).unwrap());
        let classic = || Some((aeroplane_core::Preset::Classic.rules(), "classic".into()));
        let ply_of = |p: Option<i64>| p.map(|p| luck_ply(p).unwrap());
        let run = |luck: Option<LuckNet>, ply: Option<i64>, sprt: Option<SprtConfig>| {
            RunSettings {
                luck,
                luck_ply: ply_of(ply),
                sprt,
                rules: classic(),
                ..RunSettings::new(lineup("greedy,random"))
            }
            .build()
        };
        let league = |luck: Option<LuckNet>, ply: Option<i64>| {
            LeagueSettings {
                luck,
                luck_ply: ply_of(ply),
                players: Some(2),
                rules: classic(),
                ..LeagueSettings::new(bots("greedy,random,expectimax"))
            }
            .build()
        };
        let sweep = |luck: Vec<LuckNet>, ply: Option<i64>| {
            let axes = Axes::new(vec!["base=classic,chinese".parse::<Axis>().unwrap()]);
            SweepSettings {
                luck,
                luck_ply: ply_of(ply),
                ..SweepSettings::new(
                    axes.unwrap(),
                    lineup("greedy,random"),
                    "greedy,random".into(),
                )
            }
            .build()
        };
        let nets = || {
            ["classic", "chinese"]
                .map(|r| LuckNet::load(format!("bots/nets/td-{r}-2p.safetensors")).unwrap())
                .to_vec()
        };
        // The range is checked once, where a front end's integer becomes a `LuckPly`.
        for ply in [-1, 4, 256, i64::MAX] {
            let e = luck_ply(ply).unwrap_err();
            assert_eq!(
                (e.setting, e.value.clone()),
                (Setting::LuckPly, ply.to_string())
            );
            assert_eq!(
                e.worded(flag),
                format!("--luck-ply must be from 0 to 3, not {ply}")
            );
        }
        for e in [
            refused(run(None, Some(1), None)),
            refused(run(None, Some(0), Some(sprt()))),
            refused(league(None, Some(2))),
            refused(sweep(Vec::new(), Some(1))),
        ] {
            assert_eq!(e.setting, Setting::LuckPly);
            assert_eq!(
                e.worded(flag),
                "--luck-ply is the depth of the luck measure: give --luck too"
            );
        }
        // Given, the ply is the nets' and the manifest's; not given, 0 (absent from run.json).
        for ply in [None, Some(0), Some(1), Some(2), Some(3)] {
            let want = ply_of(ply).unwrap_or_default();
            for built in [
                run(net(), ply, None).unwrap(),
                run(net(), ply, Some(sprt())).unwrap(),
                league(net(), ply).unwrap(),
                sweep(nets(), ply).unwrap(),
            ] {
                let m = built.job.manifest();
                assert_eq!(m.luck_ply, want, "{:?}", built.job);
                assert!(!m.luck.is_empty());
                let json = serde_json::to_value(&m).unwrap();
                assert_eq!(json.get("luck_ply").is_some(), !want.is_zero(), "{json}");
                assert_eq!(
                    json.get("luck_ply").map(|p| p.to_string()),
                    ply.filter(|&p| p != 0).map(|p| p.to_string())
                );
            }
        }
    }

    #[test]
    fn sweeps_leagues_and_tunes_take_their_own_defaults() {
        let axes = Axes::new(vec!["overshoot=illegal,bounce".parse::<Axis>().unwrap()]).unwrap();
        let built = SweepSettings::new(axes, lineup(DEFAULT_SWEEP_BOTS), DEFAULT_SWEEP_BOTS.into())
            .build()
            .unwrap();
        let m = built.job.manifest();
        assert_eq!((m.command.as_str(), m.games, m.seed), ("sweep", 10_000, 1));
        assert_eq!(m.sweep.unwrap().sort, DEFAULT_SORT);
        assert_eq!(built.exec.chunk_deals, DEFAULT_CHUNK_DEALS);

        let built = LeagueSettings::new(bots("greedy,random,expectimax"))
            .build()
            .unwrap();
        let m = built.job.manifest();
        assert_eq!(
            (m.command.as_str(), m.players, m.games, m.seed),
            ("league", 4, 1_000, 1)
        );
        assert_eq!(m.league.unwrap().bootstrap, DEFAULT_BOOTSTRAP);
        assert_eq!(m.rules_name, DEFAULT_RULES);

        let tuned = bots("expectimax:depth=1").remove(0);
        let ranges = vec!["progress=0.5..3".parse::<ParamRange>().unwrap()];
        let built = TuneSettings::new(tuned, ranges).build().unwrap();
        assert_eq!(built.exec.chunk_deals, TUNE_CHUNK_DEALS);
        let Job::Tune(job) = &built.job else {
            panic!("{:?}", built.job)
        };
        let spec = job.spec();
        assert_eq!(
            (
                spec.players,
                spec.settings.iterations,
                spec.settings.deals,
                spec.seed
            ),
            (2, 200, 64, 1)
        );
        assert_eq!(spec.settings, SpsaSettings::new(200, 64));
        assert!(spec.confirm.is_none());
    }

    #[test]
    fn bot_programs_log_into_the_output_folders_logs() {
        let mut program = bots("greedy,random");
        program[0].external = Some(ExternalSpec::new(vec!["true".into()]));
        let logs_of = |b: &Built| -> Vec<Option<PathBuf>> {
            b.job
                .parts()
                .iter()
                .flat_map(|p| &p.lineup)
                .filter_map(|bot| bot.external.as_ref().map(|e| e.log_dir.clone()))
                .collect()
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o");
        let at = |out: Option<PathBuf>| Execution {
            out,
            ..Execution::default()
        };
        let built = RunSettings {
            exec: at(Some(out.clone())),
            ..RunSettings::new(Lineup::new(program.clone()).unwrap())
        }
        .build()
        .unwrap();
        assert_eq!(logs_of(&built), vec![Some(out.join(LOGS_DIR))]);
        // Not part of what the job is: run.json is the same.
        let plain = RunSettings::new(Lineup::new(program.clone()).unwrap())
            .build()
            .unwrap();
        assert_eq!(logs_of(&plain), vec![None]);
        assert_eq!(
            built.job.manifest().to_json(),
            plain.job.manifest().to_json()
        );
        let league = LeagueSettings {
            exec: at(Some(out.clone())),
            ..LeagueSettings::new(program)
        }
        .build()
        .unwrap();
        let logs = logs_of(&league);
        assert!(!logs.is_empty());
        assert!(
            logs.iter()
                .all(|l| l.as_deref() == Some(&*out.join(LOGS_DIR)))
        );
        let resumed = Built::resumed(plain.job, &out, 3, 7, true);
        assert_eq!(logs_of(&resumed), vec![Some(out.join(LOGS_DIR))]);
        assert_eq!(
            (
                resumed.exec.threads,
                resumed.exec.chunk_deals,
                resumed.report
            ),
            (3, 7, true)
        );
    }

    #[test]
    fn a_shadowing_profile_is_noted_once_in_the_order_first_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("greedy.toml"), "kind = \"random\"\n").unwrap();
        std::fs::write(dir.path().join("random.toml"), "kind = \"greedy\"\n").unwrap();
        let notes = shadowing_notes(
            [
                "greedy",
                "random:x=1",
                "greedy",
                "expectimax",
                "",
                "a/greedy.toml",
            ],
            dir.path(),
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("shadows the built-in greedy (kind greedy)"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("shadows the built-in random (kind random)"),
            "{notes:?}"
        );
        assert!(shadowing_notes(["expectimax", "mcts"], dir.path()).is_empty());
    }
}

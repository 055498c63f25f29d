//! The Rust code blocks of README.md and of every page under docs/ (the guide, the command
//! reference and the specifications), compiled and run as doc tests by `cargo test`, so that
//! what the documentation shows cannot drift from the library. A code block without a language
//! is Rust to rustdoc: diagrams are fenced as `text`. `tests/integration/docs.rs` checks that
//! every Markdown file under docs/ is listed here.

#[doc = include_str!("../README.md")]
pub struct Readme;

#[doc = include_str!("../docs/SUMMARY.md")]
pub struct Summary;

#[doc = include_str!("../docs/introduction.md")]
pub struct Introduction;

#[doc = include_str!("../docs/RULES.md")]
pub struct Rules;

#[doc = include_str!("../docs/PROTOCOL.md")]
pub struct Protocol;

#[doc = include_str!("../docs/LOG.md")]
pub struct Log;

#[doc = include_str!("../docs/NET.md")]
pub struct Net;

#[doc = include_str!("../docs/LUCK.md")]
pub struct Luck;

#[doc = include_str!("../docs/ANALYSIS.md")]
pub struct Analysis;

#[doc = include_str!("../docs/guide/cluster.md")]
pub struct GuideCluster;

#[doc = include_str!("../docs/guide/browser.md")]
pub struct GuideBrowser;

#[doc = include_str!("../docs/guide/cookbook.md")]
pub struct GuideCookbook;

#[doc = include_str!("../docs/guide/development.md")]
pub struct GuideDevelopment;

#[doc = include_str!("../docs/guide/formats.md")]
pub struct GuideFormats;

#[doc = include_str!("../docs/guide/getting-started.md")]
pub struct GuideGettingStarted;

#[doc = include_str!("../docs/guide/library.md")]
pub struct GuideLibrary;

#[doc = include_str!("../docs/guide/limits.md")]
pub struct GuideLimits;

#[doc = include_str!("../docs/guide/python.md")]
pub struct GuidePython;

#[doc = include_str!("../docs/guide/statistics.md")]
pub struct GuideStatistics;

#[doc = include_str!("../docs/commands/bench.md")]
pub struct CommandBench;

#[doc = include_str!("../docs/commands/bots.md")]
pub struct CommandBots;

#[doc = include_str!("../docs/commands/grade.md")]
pub struct CommandGrade;

#[doc = include_str!("../docs/commands/league.md")]
pub struct CommandLeague;

#[doc = include_str!("../docs/commands/merge.md")]
pub struct CommandMerge;

#[doc = include_str!("../docs/commands/perft.md")]
pub struct CommandPerft;

#[doc = include_str!("../docs/commands/play.md")]
pub struct CommandPlay;

#[doc = include_str!("../docs/commands/replay.md")]
pub struct CommandReplay;

#[doc = include_str!("../docs/commands/report.md")]
pub struct CommandReport;

#[doc = include_str!("../docs/commands/resume.md")]
pub struct CommandResume;

#[doc = include_str!("../docs/commands/rules.md")]
pub struct CommandRules;

#[doc = include_str!("../docs/commands/run.md")]
pub struct CommandRun;

#[doc = include_str!("../docs/commands/solve.md")]
pub struct CommandSolve;

#[doc = include_str!("../docs/commands/sprt.md")]
pub struct CommandSprt;

#[doc = include_str!("../docs/commands/sweep.md")]
pub struct CommandSweep;

#[doc = include_str!("../docs/commands/train.md")]
pub struct CommandTrain;

#[doc = include_str!("../docs/commands/tune.md")]
pub struct CommandTune;

//! `aeroplane bench`: a fixed workload through the runner, with games per second and a digest
//! of every game's outcome. A change meant to alter nothing must leave the digest unchanged.
//!
//! Each workload is timed `--runs` times and the median is reported with the fastest and the
//! slowest run, because a shared machine's noise is large and one-sided (it only slows runs).

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::bot_stream;
use aeroplane::config::parse_lineup;
use aeroplane::export::write_game_row;
use aeroplane::runner::{self, Exec, GameRow, GameSink, RunSpec};
use aeroplane::stats::Played;
use aeroplane::{Bot, Game, Preset, SeededDice, play_game};

use super::common::DEFAULT_BOTS_DIR;

/// The bench's master seed.
pub const BENCH_SEED: u64 = 20_260_101;

/// The workloads: (rules, lineup).
const WORKLOADS: [(Preset, &str); 4] = [
    (Preset::AppFreeGame, "greedy,greedy,greedy,greedy"),
    (Preset::AppFreeGame, "random,random,random,random"),
    (Preset::Classic, "greedy,random,greedy,random"),
    (Preset::Chinese, "random,greedy,random,greedy"),
];

/// Arguments of `aeroplane bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Games per workload.
    #[arg(long, default_value_t = 50_000)]
    pub games: u64,
    /// Worker threads (0 = one per core). The digest never depends on it.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Also time a bare single-threaded loop of the same games (no runner) and check that it
    /// gives the same digest.
    #[arg(long)]
    pub baseline: bool,
    /// Timed runs per workload: the median is reported, with the fastest and slowest run. Every
    /// run must give the same digest.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
}

/// Times `work` `runs` times; returns the seconds of each run, sorted, and the digest, which
/// every run must agree on.
fn timed(
    runs: usize,
    mut work: impl FnMut() -> anyhow::Result<u64>,
) -> anyhow::Result<(Vec<f64>, u64)> {
    let mut secs = Vec::with_capacity(runs);
    let mut digest = None;
    for _ in 0..runs {
        let start = Instant::now();
        let hash = work()?;
        secs.push(start.elapsed().as_secs_f64());
        if digest.is_some_and(|d| d != hash) {
            anyhow::bail!(
                "two runs of one workload gave different digests: the engine is not deterministic"
            );
        }
        digest = Some(hash);
    }
    secs.sort_by(f64::total_cmp);
    Ok((secs, digest.expect("at least one run")))
}

/// `median games/s (fastest-slowest, median seconds)` for `games` games timed as `secs`.
fn speed(games: u64, secs: &[f64]) -> String {
    let median = secs[secs.len() / 2];
    let rate = |s: f64| games as f64 / s;
    if secs.len() == 1 {
        format!("{:>9.0} games/s  ({median:.2} s)", rate(median))
    } else {
        format!(
            "{:>9.0} games/s  (runs {:.0}-{:.0}, median {median:.2} s)",
            rate(median),
            rate(secs[secs.len() - 1]),
            rate(secs[0])
        )
    }
}

/// FNV-1a over the games.csv rows of every game, in game order.
struct Digest {
    hash: u64,
    line: Vec<u8>,
}

impl Digest {
    fn new() -> Self {
        Digest {
            hash: 0xcbf2_9ce4_8422_2325,
            line: Vec::with_capacity(256),
        }
    }
    fn add(&mut self, row: &GameRow) {
        self.line.clear();
        write_game_row(&mut self.line, row).expect("writing to memory");
        for &b in &self.line {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl GameSink for Digest {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        rows.iter().for_each(|r| self.add(r));
        Ok(())
    }
}

/// The bare loop: the same games as the runner plays, one after another.
fn bare(spec: &RunSpec) -> anyhow::Result<u64> {
    let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(|s| s.build()).collect();
    let game = Game::new(spec.rules, spec.players())?;
    let mut digest = Digest::new();
    for deal in spec.first_deal..spec.first_deal + spec.deals {
        for (bot, &seat) in bots.iter_mut().zip(game.seats()) {
            bot.new_game(seat, bot_stream(spec.seed, deal, seat));
        }
        let record = play_game(
            game,
            &mut bots,
            &mut SeededDice::new(spec.seed, deal),
            &mut (),
        )?;
        digest.add(&GameRow {
            game: deal,
            deal,
            rotation: 0,
            played: Played {
                record,
                bot_at_seat: spec.bot_at_seat(0),
            },
        });
    }
    Ok(digest.hash)
}

/// Runs `aeroplane bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if args.games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    if args.runs == 0 {
        anyhow::bail!("--runs must be at least 1");
    }
    let exec = Exec {
        threads: args.threads,
        ..Exec::default()
    };
    writeln!(
        out,
        "aeroplane bench: seed {BENCH_SEED}, {} games per workload, {} thread(s), median of {} run(s)",
        args.games,
        if args.threads == 0 {
            "all".to_string()
        } else {
            args.threads.to_string()
        },
        args.runs
    )?;
    let mut all = Digest::new();
    let (mut total_games, mut total_secs) = (0u64, 0f64);
    for (preset, bots) in WORKLOADS {
        let spec = RunSpec {
            rules: preset.rules(),
            lineup: parse_lineup(bots, DEFAULT_BOTS_DIR.as_ref())?,
            seed: BENCH_SEED,
            first_deal: 0,
            deals: args.games,
            rotate_seats: false,
        };
        let (secs, hash) = timed(args.runs, || {
            let mut digest = Digest::new();
            let tally = runner::run(&spec, exec, Some(&mut digest), &|_| {})?;
            anyhow::ensure!(
                tally.games == args.games,
                "the runner played {} games",
                tally.games
            );
            Ok(digest.hash)
        })?;
        let median = secs[secs.len() / 2];
        total_games += args.games;
        total_secs += median;
        writeln!(
            out,
            "{:<12} {:<28} {}  digest {hash:016x}",
            preset.name(),
            bots,
            speed(args.games, &secs)
        )?;
        if args.baseline {
            let (secs, bare_hash) = timed(args.runs, || bare(&spec))?;
            writeln!(
                out,
                "{:<12} {:<28} {}  bare loop, 1 thread{}",
                "",
                "",
                speed(args.games, &secs),
                if bare_hash == hash {
                    ", same digest"
                } else {
                    ""
                }
            )?;
            if bare_hash != hash {
                anyhow::bail!(
                    "the bare loop's digest {bare_hash:016x} differs from the runner's {hash:016x}"
                );
            }
        }
        for b in hash.to_le_bytes() {
            all.hash = (all.hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    writeln!(
        out,
        "total        {:<28} {:>9.0} games/s  ({:.2} s, medians)  digest {:016x}",
        "",
        total_games as f64 / total_secs,
        total_secs,
        all.hash
    )?;
    Ok(ExitCode::SUCCESS)
}

//! `aeroplane bench`: a fixed workload through the runner, with games per second and a digest
//! of every game's outcome. A change meant to alter nothing must leave the digest unchanged.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::bots::registry::parse_lineup;
use aeroplane::dice::bot_stream;
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
    let exec = Exec {
        threads: args.threads,
        ..Exec::default()
    };
    writeln!(
        out,
        "aeroplane bench: seed {BENCH_SEED}, {} games per workload, {} thread(s)",
        args.games,
        if args.threads == 0 {
            "all".to_string()
        } else {
            args.threads.to_string()
        }
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
        let mut digest = Digest::new();
        let start = Instant::now();
        let tally = runner::run(&spec, exec, Some(&mut digest), &|_| {})?;
        let secs = start.elapsed().as_secs_f64();
        total_games += tally.games;
        total_secs += secs;
        writeln!(
            out,
            "{:<12} {:<28} {:>9.0} games/s  ({:.2} s)  digest {:016x}",
            preset.name(),
            bots,
            tally.games as f64 / secs,
            secs,
            digest.hash
        )?;
        if args.baseline {
            let start = Instant::now();
            let hash = bare(&spec)?;
            let secs = start.elapsed().as_secs_f64();
            writeln!(
                out,
                "{:<12} {:<28} {:>9.0} games/s  ({:.2} s)  bare loop, 1 thread{}",
                "",
                "",
                args.games as f64 / secs,
                secs,
                if hash == digest.hash {
                    ", same digest"
                } else {
                    ""
                }
            )?;
            if hash != digest.hash {
                anyhow::bail!(
                    "the bare loop's digest {hash:016x} differs from the runner's {:016x}",
                    digest.hash
                );
            }
        }
        for b in digest.hash.to_le_bytes() {
            all.hash = (all.hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    writeln!(
        out,
        "total        {:<28} {:>9.0} games/s  ({:.2} s)  digest {:016x}",
        "",
        total_games as f64 / total_secs,
        total_secs,
        all.hash
    )?;
    Ok(ExitCode::SUCCESS)
}

//! `aeroplane league`: ratings for a pool of bots from balanced, mixed tables.
//!
//! **Schedule.** With a pool of `K` bots and `P` players there are `K` tables; table `t` seats
//! pool bot `(t + k) mod K` in the k-th seat in play (a bot may sit twice when `K < P`). Each
//! table plays `--games` deals with the seats rotated (every table member takes every seat's
//! dice once per deal), table `t` using deals `t * games ..` of the seed so no two tables share
//! dice. Over the `K` tables every bot holds every seat equally often and meets every other
//! bot at `P`-player tables. Ratings are a Plackett-Luce fit of all finishing orders
//! ([`aeroplane::analysis::ratings`]) with bootstrap 95% intervals.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::Seat;
use aeroplane::analysis::ratings::{Finish, FinishTally, FitOptions, bootstrap, fit};
use aeroplane::bots::registry::BotSpec;
use aeroplane::config::parse_lineup;
use aeroplane::runner::{self, Exec, GameRow, GameSink, RunSpec};

use super::common::{DEFAULT_BOTS_DIR, load_rules, write_csv};
use super::run::progress_bar;

/// Columns of `league.csv`, one row per bot, best first.
pub const LEAGUE_HEADER: [&str; 10] = [
    "rank",
    "bot",
    "rating",
    "rating_lo95",
    "rating_hi95",
    "games",
    "wins",
    "win_rate",
    "mean_rank",
    "ranked_games",
];
/// Columns of `pairs.csv`, one row per ordered pair of distinct bots: how often `bot` finished
/// ahead of `opponent` when they met, and its head-to-head score (ties, between two unranked
/// bots, count half).
pub const PAIRS_HEADER: [&str; 5] = ["bot", "opponent", "met", "ahead", "score"];

/// Arguments of `aeroplane league`.
#[derive(Args, Debug)]
pub struct LeagueArgs {
    /// The pool: two or more bots, comma-separated.
    #[arg(long)]
    pub bots: String,
    /// Players per table (2-4).
    #[arg(long, default_value_t = 4)]
    pub players: usize,
    /// Deals per table; each is played once per seat rotation.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Master seed (also seeds the bootstrap).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rules: a preset or a variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// Bootstrap resamples for the rating intervals.
    #[arg(long, default_value_t = 200)]
    pub bootstrap: u32,
    /// Worker threads; 0 = one per core. Never changes the results.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write run.json, league.csv and pairs.csv here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Directory of bot profiles.
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// Pool-level results: finishing orders and per-bot counts.
struct Pool {
    finishes: FinishTally,
    games: Vec<u64>,
    wins: Vec<u64>,
    rank_sum: Vec<u64>,
    ranked: Vec<u64>,
}

/// Maps one table's games to pool bots.
struct TableSink<'a> {
    pool: &'a mut Pool,
    members: Vec<usize>,
    error: Option<String>,
}

impl GameSink for TableSink<'_> {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        for row in rows {
            let rec = &row.played.record;
            let mut entries = Vec::with_capacity(4);
            for (seat, &entry) in row.played.bot_at_seat.iter().enumerate() {
                if entry == aeroplane::stats::NO_BOT {
                    continue;
                }
                let bot = self.members[entry as usize];
                let rank = rec.ranks[seat];
                entries.push((bot, rank));
                self.pool.games[bot] += 1;
                if rec.winner.map(Seat::index) == Some(seat) {
                    self.pool.wins[bot] += 1;
                }
                if rank > 0 {
                    self.pool.rank_sum[bot] += u64::from(rank);
                    self.pool.ranked[bot] += 1;
                }
            }
            let added = Finish::from_ranks(&entries)
                .and_then(|f| self.pool.finishes.add(f))
                .map_err(|e| e.to_string());
            if let Err(e) = added {
                self.error.get_or_insert(e);
            }
        }
        Ok(())
    }
}

/// Runs `aeroplane league`.
pub fn run(args: LeagueArgs) -> anyhow::Result<ExitCode> {
    let rules = load_rules(&args.rules).with_context(|| format!("--rules {}", args.rules))?;
    let pool_specs: Vec<BotSpec> = parse_lineup(&args.bots, &args.bots_dir).context("--bots")?;
    let k = pool_specs.len();
    if k < 2 {
        anyhow::bail!("--bots lists {k} bot(s): a league needs a pool of at least 2");
    }
    let names: Vec<String> = pool_specs.iter().map(|b| b.name.clone()).collect();
    if let Some(i) = (1..k).find(|&i| names[..i].contains(&names[i])) {
        anyhow::bail!("--bots lists `{}` twice: list each bot once", names[i]);
    }
    if !(2..=4).contains(&args.players) {
        anyhow::bail!(
            "--players {}: a table seats 2, 3 or 4 players",
            args.players
        );
    }
    if args.bootstrap < 2 {
        anyhow::bail!("--bootstrap {}: give at least 2 resamples", args.bootstrap);
    }
    let tables: Vec<(Vec<usize>, RunSpec)> = (0..k)
        .map(|t| {
            let members: Vec<usize> = (0..args.players).map(|s| (t + s) % k).collect();
            let spec = RunSpec {
                rules,
                lineup: members.iter().map(|&b| pool_specs[b].clone()).collect(),
                seed: args.seed,
                first_deal: t as u64 * args.games,
                deals: args.games,
                rotate_seats: true,
            };
            (members, spec)
        })
        .collect();
    for (_, s) in &tables {
        s.validate()?;
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {}", dir.display()))?;
        let json = serde_json::json!({
            "command": "league",
            "tool": "aeroplane",
            "version": env!("CARGO_PKG_VERSION"),
            "rules_name": args.rules,
            "rules": rules,
            "bots": names,
            "players": args.players,
            "games_per_table": args.games,
            "seed": args.seed,
            "bootstrap": args.bootstrap,
            "tables": tables.iter().map(|(m, _)| m.iter().map(|&b| names[b].clone()).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "schedule": "table t seats pool bot (t + k) mod K in the k-th seat in play, seats rotated, deals t*games..(t+1)*games",
        });
        write_text(&dir.join("run.json"), &serde_json::to_string_pretty(&json)?)?;
    }

    let mut pool = Pool {
        finishes: FinishTally::new(k),
        games: vec![0; k],
        wins: vec![0; k],
        rank_sum: vec![0; k],
        ranked: vec![0; k],
    };
    let exec = Exec {
        threads: args.threads,
        ..Exec::default()
    };
    let total: u64 = tables.iter().map(|(_, s)| s.total_games()).sum();
    let bar = progress_bar(total, args.quiet);
    for (members, spec) in &tables {
        let mut sink = TableSink {
            pool: &mut pool,
            members: members.clone(),
            error: None,
        };
        runner::run(spec, exec, Some(&mut sink), &|n| bar.inc(n))?;
        if let Some(e) = sink.error {
            anyhow::bail!("rating the games: {e}");
        }
    }
    bar.finish_and_clear();

    let options = FitOptions::default();
    let ratings = fit(&pool.finishes, &options)?;
    let intervals = bootstrap(&pool.finishes, &options, args.bootstrap, args.seed)?;
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&a, &b| ratings.elo[b].total_cmp(&ratings.elo[a]).then(a.cmp(&b)));
    let f6 = |x: f64| format!("{x:.6}");
    let rows: Vec<Vec<String>> = order
        .iter()
        .enumerate()
        .map(|(place, &b)| {
            vec![
                (place + 1).to_string(),
                names[b].clone(),
                format!("{:.2}", ratings.elo[b]),
                format!("{:.2}", intervals[b].low),
                format!("{:.2}", intervals[b].high),
                pool.games[b].to_string(),
                pool.wins[b].to_string(),
                f6(pool.wins[b] as f64 / pool.games[b].max(1) as f64),
                if pool.ranked[b] > 0 {
                    f6(pool.rank_sum[b] as f64 / pool.ranked[b] as f64)
                } else {
                    String::new()
                },
                pool.ranked[b].to_string(),
            ]
        })
        .collect();
    let pairs = pool.finishes.pairs();
    let mut pair_rows = Vec::new();
    for &a in &order {
        for &b in &order {
            if a != b {
                pair_rows.push(vec![
                    names[a].clone(),
                    names[b].clone(),
                    pairs.met(a, b).to_string(),
                    pairs.ahead(a, b).to_string(),
                    pairs.score(a, b).map(f6).unwrap_or_default(),
                ]);
            }
        }
    }
    if let Some(dir) = &args.out {
        write_csv(&dir.join("league.csv"), &LEAGUE_HEADER, &rows)?;
        write_csv(&dir.join("pairs.csv"), &PAIRS_HEADER, &pair_rows)?;
    }

    println!(
        "aeroplane league: rules {}, {} bots, {} players, {} tables x {} deals x {} rotations = {} games, seed {}",
        args.rules, k, args.players, k, args.games, args.players, total, args.seed
    );
    println!(
        "Plackett-Luce ratings (mean 0; 400 points = 10:1 odds), {} bootstrap resamples",
        args.bootstrap
    );
    let w = names.iter().map(String::len).max().unwrap_or(3).max(3);
    println!(
        "{:>4}  {:<w$}  {:>8}  {:>20}  {:>8}  {:>8}  {:>9}",
        "rank", "bot", "rating", "95% interval", "games", "wins", "mean rank"
    );
    for r in &rows {
        println!(
            "{:>4}  {:<w$}  {:>8}  {:>20}  {:>8}  {:>8}  {:>9}",
            r[0],
            r[1],
            r[2],
            format!("[{}, {}]", r[3], r[4]),
            r[5],
            r[7].parse::<f64>()
                .map(|v| format!("{:.2}%", 100.0 * v))
                .unwrap_or_default(),
            // Mean rank only when every game was fully ranked (end = full_ranking).
            match (r[9] == r[5], r[8].parse::<f64>()) {
                (true, Ok(v)) => format!("{v:.3}"),
                _ => "-".to_string(),
            },
        );
    }
    println!("\nhead to head (row finished ahead of column, share of meetings):");
    let mut head = format!("{:<w$}", "");
    for &b in &order {
        head.push_str(&format!("  {:>w$}", names[b]));
    }
    println!("{head}");
    for &a in &order {
        let mut line = format!("{:<w$}", names[a]);
        for &b in &order {
            let cell = if a == b {
                "-".to_string()
            } else {
                pairs
                    .score(a, b)
                    .map(|s| format!("{s:.3}"))
                    .unwrap_or_default()
            };
            line.push_str(&format!("  {cell:>w$}"));
        }
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn write_text(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, format!("{text}\n"))
        .with_context(|| format!("cannot write {}", path.display()))
}

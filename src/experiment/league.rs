//! `league`: ratings for a pool of bots from balanced, mixed tables.
//!
//! **Schedule.** With a pool of `K` bots and `P` players there are `K` tables; table `t` seats
//! pool bot `(t + k) mod K` in the k-th seat in play (a bot may sit twice when `K < P`). Each
//! table plays its deals with the seats rotated (every table member takes every seat's dice
//! once per deal), table `t` using deals `t * deals ..` of the seed so no two tables share
//! dice. Over the `K` tables every bot holds every seat equally often and meets every other
//! bot at `P`-player tables. Each table is one part of the job. Ratings are a Plackett-Luce fit
//! of all finishing orders ([`crate::analysis::ratings`]) with bootstrap 95% intervals.

use serde::Serialize;

use crate::analysis::ratings::{Finish, FinishTally, FitOptions, bootstrap, fit};
use crate::bots::registry::BotSpec;
use crate::engine::board::Seat;
use crate::engine::rules::Rules;
use crate::export::{Cell, LeagueSection, Manifest, OutputDir, Table};
use crate::runner::{Flow, RunSpec, Unit, UnitResult};
use crate::stats::NO_BOT;

use super::drive::Fold;
use super::run::SummaryJson;
use super::{Context, JobDef, JobError, Outcome, conduct, names};

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

/// How the schedule is written in the manifest.
const SCHEDULE: &str = "table t seats pool bot (t + k) mod K in the k-th seat in play, seats rotated, deals t*games..(t+1)*games";

/// A league.
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueJob {
    /// The rules as named.
    pub rules_name: String,
    /// The rules.
    pub rules: Rules,
    /// The pool, each bot once.
    pub pool: Vec<BotSpec>,
    /// Players per table (2-4).
    pub players: usize,
    /// Deals per table.
    pub deals: u64,
    /// Master seed (also seeds the bootstrap).
    pub seed: u64,
    /// Bootstrap resamples.
    pub bootstrap: u32,
    tables: Vec<Vec<usize>>,
    parts: Vec<RunSpec>,
}

/// One bot's line of the league table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeagueRow {
    /// 1-based place.
    pub rank: usize,
    /// The bot.
    pub bot: String,
    /// Rating (mean 0, 400 points = 10:1 odds in Plackett-Luce strength).
    pub rating: f64,
    /// Bootstrap 2.5% percentile.
    pub rating_lo95: f64,
    /// Bootstrap 97.5% percentile.
    pub rating_hi95: f64,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Mean rank over ranked games, if any.
    pub mean_rank: Option<f64>,
    /// Games that ranked the bot.
    pub ranked_games: u64,
}

/// One ordered pair's head-to-head.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairRow {
    /// The bot.
    pub bot: String,
    /// Its opponent.
    pub opponent: String,
    /// Games where both played.
    pub met: u64,
    /// Of those, games where `bot` finished ahead.
    pub ahead: u64,
    /// Head-to-head score (ties count half), if they met.
    pub score: Option<f64>,
}

/// What a league found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeagueReport {
    /// The title line.
    pub title: String,
    /// Bootstrap resamples.
    pub bootstrap: u32,
    /// Bots, best first.
    pub rows: Vec<LeagueRow>,
    /// Every ordered pair, rows in league order.
    pub pairs: Vec<PairRow>,
}

impl LeagueJob {
    /// Checks the league and builds its tables.
    pub fn new(
        rules_name: String,
        rules: Rules,
        pool: Vec<BotSpec>,
        players: usize,
        deals: u64,
        seed: u64,
        bootstrap: u32,
    ) -> Result<LeagueJob, JobError> {
        let k = pool.len();
        if k < 2 {
            return Err(JobError::Invalid(format!(
                "--bots lists {k} bot(s): a league needs a pool of at least 2"
            )));
        }
        let names = names(&pool);
        if let Some(i) = (1..k).find(|&i| names[..i].contains(&names[i])) {
            return Err(JobError::Invalid(format!(
                "--bots lists `{}` twice: list each bot once",
                names[i]
            )));
        }
        if !(2..=4).contains(&players) {
            return Err(JobError::Invalid(format!(
                "--players {players}: a table seats 2, 3 or 4 players"
            )));
        }
        if bootstrap < 2 {
            return Err(JobError::Invalid(format!(
                "--bootstrap {bootstrap}: give at least 2 resamples"
            )));
        }
        let tables: Vec<Vec<usize>> = (0..k)
            .map(|t| (0..players).map(|s| (t + s) % k).collect())
            .collect();
        let parts = tables
            .iter()
            .enumerate()
            .map(|(t, members)| {
                let first_deal = (t as u64)
                    .checked_mul(deals)
                    .ok_or(crate::runner::RunError::TooManyGames)?;
                let spec = RunSpec {
                    rules,
                    lineup: members.iter().map(|&b| pool[b].clone()).collect(),
                    seed,
                    first_deal,
                    deals,
                    rotate_seats: true,
                };
                spec.validate()?;
                Ok(spec)
            })
            .collect::<Result<Vec<_>, crate::runner::RunError>>()?;
        Ok(LeagueJob {
            rules_name,
            rules,
            pool,
            players,
            deals,
            seed,
            bootstrap,
            tables,
            parts,
        })
    }

    /// The job's parts: one rotated run per table.
    pub fn parts(&self) -> &[RunSpec] {
        &self.parts
    }

    /// Games the league plays.
    pub fn total_games(&self) -> u64 {
        self.parts.iter().map(RunSpec::total_games).sum()
    }

    /// The job's manifest (status running).
    pub fn manifest(&self) -> Manifest {
        let names = names(&self.pool);
        let mut m = Manifest::new(&self.parts[0], &self.rules_name, false);
        m.command = "league".into();
        m.bots = Manifest::new(
            &RunSpec {
                lineup: self.pool.clone(),
                ..self.parts[0].clone()
            },
            &self.rules_name,
            false,
        )
        .bots;
        m.players = self.players;
        m.first_game = 0;
        m.games = self.deals;
        m.games_planned = self.total_games();
        m.league = Some(LeagueSection {
            bootstrap: self.bootstrap,
            tables: self
                .tables
                .iter()
                .map(|t| t.iter().map(|&b| names[b].clone()).collect())
                .collect(),
            schedule: SCHEDULE.into(),
        });
        m
    }

    /// The title line.
    pub fn title(&self) -> String {
        let k = self.pool.len();
        format!(
            "aeroplane league: rules {}, {} bots, {} players, {} tables x {} deals x {} rotations = {} games, seed {}",
            self.rules_name,
            k,
            self.players,
            k,
            self.deals,
            self.players,
            self.total_games(),
            self.seed
        )
    }

    /// Plays every table and fits the ratings; with an output directory, writes run.json, the
    /// checkpoint while it runs, league.csv, pairs.csv and summary.json.
    pub fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<LeagueReport>, JobError> {
        let mut fold = self.new_fold();
        let def = JobDef {
            manifest: self.manifest(),
            parts: &self.parts,
            rows_for: &|_| true,
            per_game: false,
            recover: false,
        };
        conduct(ctx, def, &mut fold, |f, out, _| self.report(f, out))
    }

    pub(crate) fn new_fold(&self) -> LeagueFold {
        let k = self.pool.len();
        LeagueFold {
            tables: self.tables.clone(),
            finishes: FinishTally::new(k),
            counts: vec![BotCounts::default(); k],
            error: None,
        }
    }

    pub(crate) fn report(
        &self,
        fold: &mut LeagueFold,
        out: Option<&OutputDir>,
    ) -> Result<LeagueReport, JobError> {
        if let Some(e) = fold.error.take() {
            return Err(e.into());
        }
        let k = self.pool.len();
        let options = FitOptions::default();
        let ratings = fit(&fold.finishes, &options)?;
        let intervals = bootstrap(&fold.finishes, &options, self.bootstrap, self.seed)?;
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| ratings.elo[b].total_cmp(&ratings.elo[a]).then(a.cmp(&b)));
        let names = names(&self.pool);
        let rows = order
            .iter()
            .enumerate()
            .map(|(place, &b)| {
                let c = fold.counts[b];
                LeagueRow {
                    rank: place + 1,
                    bot: names[b].clone(),
                    rating: ratings.elo[b],
                    rating_lo95: intervals[b].low,
                    rating_hi95: intervals[b].high,
                    games: c.games,
                    wins: c.wins,
                    mean_rank: (c.ranked > 0).then(|| c.rank_sum as f64 / c.ranked as f64),
                    ranked_games: c.ranked,
                }
            })
            .collect();
        let matrix = fold.finishes.pairs();
        let mut pairs = Vec::new();
        for &a in &order {
            for &b in &order {
                if a != b {
                    pairs.push(PairRow {
                        bot: names[a].clone(),
                        opponent: names[b].clone(),
                        met: matrix.met(a, b),
                        ahead: matrix.ahead(a, b),
                        score: matrix.score(a, b),
                    });
                }
            }
        }
        let report = LeagueReport {
            title: self.title(),
            bootstrap: self.bootstrap,
            rows,
            pairs,
        };
        if let Some(dir) = out {
            for t in report.tables() {
                dir.write_table(&t)?;
            }
            dir.write_json("summary.json", &SummaryJson::new("league", &report))?;
        }
        Ok(report)
    }
}

/// One pool bot's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct BotCounts {
    games: u64,
    wins: u64,
    rank_sum: u64,
    ranked: u64,
}

/// A league's state: the finishing orders and per-bot counts of the units folded so far.
pub(crate) struct LeagueFold {
    tables: Vec<Vec<usize>>,
    finishes: FinishTally,
    counts: Vec<BotCounts>,
    error: Option<crate::analysis::ratings::RatingsError>,
}

/// One unit of a league: its finishing orders (bots best first, how many ranked, how often)
/// and per-bot counts.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct LeagueRecord {
    finishes: Vec<(Vec<usize>, usize, u64)>,
    counts: Vec<BotCounts>,
    /// The ranks of a game that gave no finishing order (never, for games the engine plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bad_ranks: Option<Vec<u8>>,
}

impl Fold for LeagueFold {
    type Record = LeagueRecord;

    fn record(&self, unit: &UnitResult) -> LeagueRecord {
        let members = &self.tables[unit.unit.part];
        let k = self.counts.len();
        let mut finishes = FinishTally::new(k);
        let mut counts = vec![BotCounts::default(); k];
        let mut bad_ranks = None;
        for row in &unit.rows {
            let rec = &row.played.record;
            let mut entries = Vec::with_capacity(4);
            for (seat, &entry) in row.played.bot_at_seat.iter().enumerate() {
                if entry == NO_BOT {
                    continue;
                }
                let bot = members[entry as usize];
                let rank = rec.ranks[seat];
                entries.push((bot, rank));
                let c = &mut counts[bot];
                c.games += 1;
                if rec.winner.map(Seat::index) == Some(seat) {
                    c.wins += 1;
                }
                if rank > 0 {
                    c.rank_sum += u64::from(rank);
                    c.ranked += 1;
                }
            }
            if Finish::from_ranks(&entries)
                .and_then(|f| finishes.add(f))
                .is_err()
            {
                bad_ranks.get_or_insert_with(|| entries.iter().map(|e| e.1).collect());
            }
        }
        let finishes = finishes
            .iter()
            .map(|(f, n)| (f.entries().collect(), f.ranked(), n))
            .collect();
        LeagueRecord {
            finishes,
            counts,
            bad_ranks,
        }
    }

    fn fold(&mut self, _: &Unit, record: LeagueRecord) -> Flow {
        if let Some(ranks) = record.bad_ranks {
            self.error
                .get_or_insert(crate::analysis::ratings::RatingsError::BadRanks(ranks));
        }
        for (entries, ranked, n) in record.finishes {
            if ranked > entries.len() {
                continue;
            }
            let finish = Finish::new(&entries[..ranked], &entries[ranked..]);
            if let Err(e) = self.finishes.add_count(finish, n) {
                self.error.get_or_insert(e);
            }
        }
        for (a, b) in self.counts.iter_mut().zip(&record.counts) {
            a.games += b.games;
            a.wins += b.wins;
            a.rank_sum += b.rank_sum;
            a.ranked += b.ranked;
        }
        Flow::Continue
    }
}

impl LeagueReport {
    /// `league.csv` and `pairs.csv`.
    pub fn tables(&self) -> [Table; 2] {
        let mut league = Table::new("league.csv", &LEAGUE_HEADER);
        let two = |x: f64| Cell {
            text: format!("{x:.2}"),
            value: Some(x),
        };
        for r in &self.rows {
            league.push(vec![
                Cell::int(r.rank as u64),
                Cell::text(r.bot.clone()),
                two(r.rating),
                two(r.rating_lo95),
                two(r.rating_hi95),
                Cell::int(r.games),
                Cell::int(r.wins),
                Cell::fixed(Some(r.wins as f64 / r.games.max(1) as f64)),
                Cell::fixed(r.mean_rank),
                Cell::int(r.ranked_games),
            ]);
        }
        let mut pairs = Table::new("pairs.csv", &PAIRS_HEADER);
        for p in &self.pairs {
            pairs.push(vec![
                Cell::text(p.bot.clone()),
                Cell::text(p.opponent.clone()),
                Cell::int(p.met),
                Cell::int(p.ahead),
                Cell::fixed(p.score),
            ]);
        }
        [league, pairs]
    }

    /// The text report: the ratings, then the head-to-head matrix.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.title)?;
        writeln!(
            out,
            "Plackett-Luce ratings (mean 0; 400 points = 10:1 odds), {} bootstrap resamples",
            self.bootstrap
        )?;
        let w = self
            .rows
            .iter()
            .map(|r| r.bot.len())
            .max()
            .unwrap_or(3)
            .max(3);
        writeln!(
            out,
            "{:>4}  {:<w$}  {:>8}  {:>20}  {:>8}  {:>8}  {:>9}",
            "rank", "bot", "rating", "95% interval", "games", "wins", "mean rank"
        )?;
        for r in &self.rows {
            writeln!(
                out,
                "{:>4}  {:<w$}  {:>8}  {:>20}  {:>8}  {:>8}  {:>9}",
                r.rank,
                r.bot,
                format!("{:.2}", r.rating),
                format!("[{:.2}, {:.2}]", r.rating_lo95, r.rating_hi95),
                r.games,
                format!("{:.2}%", 100.0 * r.wins as f64 / r.games.max(1) as f64),
                // Mean rank only when every game was fully ranked (end = full_ranking).
                match (r.ranked_games == r.games, r.mean_rank) {
                    (true, Some(v)) => format!("{v:.3}"),
                    _ => "-".to_string(),
                },
            )?;
        }
        writeln!(
            out,
            "\nhead to head (row finished ahead of column, share of meetings):"
        )?;
        let mut head = format!("{:<w$}", "");
        for r in &self.rows {
            head.push_str(&format!("  {:>w$}", r.bot));
        }
        writeln!(out, "{head}")?;
        for a in &self.rows {
            let mut line = format!("{:<w$}", a.bot);
            for b in &self.rows {
                let cell = if a.bot == b.bot {
                    "-".to_string()
                } else {
                    self.pairs
                        .iter()
                        .find(|p| p.bot == a.bot && p.opponent == b.bot)
                        .and_then(|p| p.score)
                        .map(|s| format!("{s:.3}"))
                        .unwrap_or_default()
                };
                line.push_str(&format!("  {cell:>w$}"));
            }
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

//! `league`: ratings for a pool of bots from balanced, mixed tables.
//!
//! **Schedule.** With a pool of `K` bots and `P` players there are `K` tables; table `t` seats
//! pool bot `(t + k) mod K` in the k-th seat in play (a bot may sit twice when `K < P`). Each
//! table plays its deals with the seats rotated (every table member takes every seat's dice
//! once per deal), table `t` using deals `t * deals ..` of the seed so no two tables share
//! dice. Over the `K` tables every bot holds every seat equally often and meets every other
//! bot at `P`-player tables. Each table is one part of the job. Ratings are a Plackett-Luce fit
//! of all finishing orders ([`crate::analysis::ratings`]) with bootstrap 95% intervals.
//!
//! **What the scale means.** A rating is `400 log10` of the bot's Plackett-Luce strength at
//! these `P`-player tables (mean 0): the chance a bot wins a table is proportional to
//! `10^(rating / 400)`. At 2-player tables this is Bradley-Terry, a head-to-head Elo: a gap of
//! `D` predicts a match score of `1 / (1 + 10^(-D/400))`. At 3-4 player tables it is fitted to
//! multi-player finishing orders (only winners under `end = first_finisher`) and does not
//! predict a two-player match between the same bots: that is a different game. The measured
//! head-to-head scores at the league's tables are reported beside it (`pairs.csv`), with 95%
//! intervals cluster-robust by deal. The rating intervals are bootstrap percentiles over
//! resampled deals (a deal's rotations share its dice and are resampled together).

use serde::Serialize;

use crate::analysis::luck::{Adjusted, LuckLine, LuckNet, LuckReport, RatioMoments, score_of};
use crate::analysis::ratings::{
    DealTally, Finish, FitOptions, MIN_REPLICATES, RatingsError, bootstrap_deals_until, fit_until,
};
use crate::bots::registry::BotSpec;
use crate::export::{Cell, LeagueSection, Manifest, OutputDir, Table};
use crate::runner::{Flow, RunSpec, Unit, UnitResult};
use crate::stats::{MIN_DEALS, NO_BOT, wilson, z_for};
use aeroplane_core::Rules;
use aeroplane_core::Seat;

use super::drive::Fold;
use super::kind::{JobKind, JobReport, manifest_error, one_luck_net};
use super::merge::{Shards, Stop, merge};
use super::run::SummaryJson;
use super::{Context, InvalidJob, JobDef, JobError, Outcome, conduct, names};

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
/// Columns of `pairs.csv`, one row per ordered pair of distinct bots: `met` counts their
/// meetings (pairs of seats, one bot in each, in one game), `ahead` the meetings where `bot`
/// finished ahead of that `opponent` (not its wins against everyone), `score` its head-to-head
/// score (ties, between two unranked bots, count half). Added at the end: `score_lo95`,
/// `score_hi95` (95% interval of the score, cluster-robust by deal: the meetings of one deal's
/// rotations share its dice) and `deals` (deals in which they met).
pub const PAIRS_HEADER: [&str; 8] = [
    "bot",
    "opponent",
    "met",
    "ahead",
    "score",
    "score_lo95",
    "score_hi95",
    "deals",
];

/// Columns of `pairs_luck.csv` (leagues measured with `--luck NET`; docs/LUCK.md), one row per
/// ordered pair of distinct bots that met, in `pairs.csv`'s order: `score` the head-to-head score
/// of `bot` against `opponent` (as `pairs.csv`'s, ties half), `score_luck` the pair's mean luck
/// per meeting (half the difference of the two seats' score luck: at 2-player tables the
/// run's score luck), `adjusted_score = score - score_luck` exactly (full precision), its 95%
/// normal interval clustered by deal (`adjusted_score_low`, `_high`), the plain score's by the
/// same method (`score_low_normal`, `_high`) and the variance ratio (plain over adjusted).
pub const PAIRS_LUCK_HEADER: [&str; 12] = [
    "bot",
    "opponent",
    "met",
    "deals",
    "score",
    "score_luck",
    "adjusted_score",
    "adjusted_score_low",
    "adjusted_score_high",
    "score_low_normal",
    "score_high_normal",
    "score_variance_ratio",
];

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
    /// Measure every roll's luck with this net and report luck-adjusted win rates, scores
    /// and head-to-head scores beside the plain ones (docs/LUCK.md).
    pub luck: Option<LuckNet>,
    /// Also write `games.csv`: one row per game, in game order (table by table), the bots
    /// numbered and named by the pool.
    pub per_game: bool,
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
    /// 95% interval of the score, cluster-robust by deal.
    pub score_interval: Option<(f64, f64)>,
    /// Deals in which they met.
    pub deals: u64,
}

/// Per ordered pair of bots, sums over deals of its meetings `n_g` and doubled points `s_g`
/// (2 per meeting finished ahead, 1 per tie): a ratio estimate with cluster-robust variance.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
struct PairDeals {
    deals: u64,
    n: u128,
    s: u128,
    nn: u128,
    ss: u128,
    ns: u128,
}

impl PairDeals {
    /// Adds another unit's sums (units are whole deals, so the sums add exactly).
    fn merge(&mut self, o: &PairDeals) {
        self.deals += o.deals;
        self.n += o.n;
        self.s += o.s;
        self.nn += o.nn;
        self.ss += o.ss;
        self.ns += o.ns;
    }

    fn add(&mut self, n: u64, s: u64) {
        if n == 0 {
            return;
        }
        let (n, s) = (u128::from(n), u128::from(s));
        self.deals += 1;
        self.n += n;
        self.s += s;
        self.nn += n * n;
        self.ss += s * s;
        self.ns += n * s;
    }

    /// The score's 95% interval: Wilson on the effective number of meetings
    /// `r (1 - r) / var`, `var` the cluster-robust (by deal) variance of the ratio
    /// `r = Σ s_g / (2 Σ n_g)`; never narrower than Wilson on the deals when they are too few
    /// (or alike) to estimate the variance.
    fn interval(&self) -> Option<(f64, f64)> {
        if self.n == 0 {
            return None;
        }
        let z = z_for(0.95);
        let (n, s) = (self.n as f64, self.s as f64 / 2.0);
        let r = s / n;
        let g = self.deals as f64;
        // Σ (s_g/2 - r n_g)², expanded.
        let resid = self.ss as f64 / 4.0 - r * self.ns as f64 + r * r * self.nn as f64;
        let var = if self.deals > 1 {
            g / (g - 1.0) * resid.max(0.0) / (n * n)
        } else {
            0.0
        };
        let (succ, trials) = (self.s as u64, 2 * self.n as u64);
        let n_eff = if var > 0.0 {
            r * (1.0 - r) / var
        } else {
            f64::INFINITY
        };
        let kish = wilson(succ, trials, n_eff, z)?;
        if self.deals >= MIN_DEALS && var > 0.0 {
            return Some(kish);
        }
        let floor = wilson(succ, trials, g, z)?;
        Some((kish.0.min(floor.0), kish.1.max(floor.1)))
    }
}

/// One ordered pair's luck-adjusted head-to-head score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairLuck {
    /// The bot.
    pub bot: String,
    /// Its opponent.
    pub opponent: String,
    /// Meetings (pairs of seats, one bot in each, in one game).
    pub met: u64,
    /// Deals in which they met (the clusters of the intervals).
    pub deals: u64,
    /// The score (ties half) and its luck-adjusted figure.
    pub score: Adjusted,
}

/// What a league found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeagueReport {
    /// The title line.
    pub title: String,
    /// Bootstrap resamples.
    pub bootstrap: u32,
    /// Players per table.
    pub players: usize,
    /// Bots, best first.
    pub rows: Vec<LeagueRow>,
    /// Every ordered pair, rows in league order.
    pub pairs: Vec<PairRow>,
    /// The luck-adjusted win rates and scores per bot, in league order (leagues that measure
    /// luck; the ratings are not adjusted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub luck: Option<LuckReport>,
    /// The luck-adjusted head-to-head scores per ordered pair that met, in `pairs`' order
    /// (leagues that measure luck).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pair_luck: Vec<PairLuck>,
}

/// The most bots a league's pool may hold.
pub const MAX_POOL: usize = 256;

/// The most bootstrap resamples of a league's ratings.
pub const MAX_BOOTSTRAP: u32 = 10_000;

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
            return Err(InvalidJob::PoolTooSmall(k).into());
        }
        if k > MAX_POOL {
            return Err(InvalidJob::PoolTooLarge {
                found: k,
                max: MAX_POOL,
            }
            .into());
        }
        let names = names(&pool);
        if let Some(i) = (1..k).find(|&i| names[..i].contains(&names[i])) {
            return Err(InvalidJob::PoolDuplicate(names[i].clone()).into());
        }
        if !(2..=4).contains(&players) {
            return Err(InvalidJob::Players(players).into());
        }
        if !(MIN_REPLICATES..=MAX_BOOTSTRAP).contains(&bootstrap) {
            return Err(InvalidJob::Bootstrap {
                found: bootstrap,
                min: MIN_REPLICATES,
                max: MAX_BOOTSTRAP,
            }
            .into());
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
            luck: None,
            per_game: false,
            tables,
            parts,
        })
    }

    /// The same league, writing `games.csv` or not.
    pub fn with_per_game(mut self, per_game: bool) -> LeagueJob {
        self.per_game = per_game;
        self
    }

    /// The same league, measuring every roll's luck with `net` (none: without); a net of
    /// other rules or players is refused.
    pub fn with_luck(mut self, net: Option<LuckNet>) -> Result<LeagueJob, JobError> {
        if let Some(n) = &net {
            n.meter(&self.rules, self.players)
                .map_err(crate::runner::RunError::from)?;
        }
        self.luck = net;
        Ok(self)
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

    /// What the lifecycle needs of the league.
    pub(crate) fn def(&self) -> JobDef<'_> {
        JobDef {
            manifest: self.manifest(),
            parts: &self.parts,
            rows_for: &|_| true,
            per_game: self.per_game,
            recover: false,
            log: None,
            luck: self.luck.as_slice(),
            pool: Some((&self.tables, names(&self.pool))),
        }
    }

    pub(crate) fn new_fold(&self) -> LeagueFold {
        let k = self.pool.len();
        LeagueFold {
            tables: self.tables.clone(),
            deals: DealTally::new(k),
            counts: vec![BotCounts::default(); k],
            by_deal: vec![PairDeals::default(); k * k],
            luck: self.luck.as_ref().map(|_| LeagueLuck::new(k)),
            error: None,
        }
    }

    /// The league's report (its ratings fitted, its tables written); stops with
    /// [`JobError::Interrupted`] soon after `interrupt` is set (a fit of a large pool with many
    /// resamples takes minutes).
    pub(crate) fn report(
        &self,
        fold: &mut LeagueFold,
        out: Option<&OutputDir>,
        interrupt: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<LeagueReport, JobError> {
        if let Some(e) = fold.error.take() {
            return Err(e.into());
        }
        let k = self.pool.len();
        let options = FitOptions::default();
        let stop = || interrupt.is_some_and(|i| i.load(std::sync::atomic::Ordering::Relaxed));
        let stopped = |e: RatingsError| match e {
            RatingsError::Stopped => JobError::Interrupted,
            e => e.into(),
        };
        let games = fold.deals.games();
        let ratings = fit_until(&games, &options, &stop).map_err(stopped)?;
        let intervals =
            bootstrap_deals_until(&fold.deals, &options, self.bootstrap, self.seed, &stop)
                .map_err(stopped)?;
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
                    // Only where every game ranked the bot: under first_finisher at 3-4 player
                    // tables only winners are ranked, and the mean would be 1 for everyone.
                    mean_rank: (c.ranked > 0 && c.ranked == c.games)
                        .then(|| c.rank_sum as f64 / c.ranked as f64),
                    ranked_games: c.ranked,
                }
            })
            .collect();
        let luck = match (&self.luck, &fold.luck) {
            (Some(net), Some(l)) => Some(l.report(net, &names, &order)),
            _ => None,
        };
        let matrix = games.pairs();
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
                        score_interval: fold.by_deal[a * k + b].interval(),
                        deals: fold.by_deal[a * k + b].deals,
                    });
                }
            }
        }
        let report = LeagueReport {
            title: self.title(),
            bootstrap: self.bootstrap,
            players: self.players,
            rows,
            pairs,
            luck: luck.as_ref().map(|l| l.0.clone()),
            pair_luck: luck.map(|l| l.1).unwrap_or_default(),
        };
        if let Some(dir) = out {
            for t in report.tables() {
                dir.write_table(&t)?;
            }
            if let Some(l) = &report.luck {
                dir.write_table(&crate::export::luck_table(l))?;
                dir.write_table(&report.pairs_luck_table())?;
            }
            dir.write_json(
                "summary.json",
                &SummaryJson::new("league", &report).in_dir(dir),
            )?;
        }
        Ok(report)
    }
}

impl JobKind for LeagueJob {
    type Report = LeagueReport;

    /// The job's manifest (status running).
    fn manifest(&self) -> Manifest {
        let names = names(&self.pool);
        let mut m = Manifest::new(&self.parts[0], &self.rules_name, self.per_game);
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
        m.luck = self.luck.iter().map(|l| l.name().to_string()).collect();
        m.luck_checksum = self.luck.iter().map(LuckNet::checksum).collect();
        m.luck_ply = self.luck.iter().map(|l| l.ply).max().unwrap_or_default();
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

    fn from_manifest(m: &Manifest, file: &str) -> Result<LeagueJob, JobError> {
        let l = m.league.as_ref().ok_or_else(|| {
            manifest_error(
                file,
                "a league's manifest needs its `league` section".into(),
            )
        })?;
        LeagueJob::new(
            m.rules_name.clone(),
            m.rules(file)?,
            m.bot_specs(file)?,
            m.players,
            m.games,
            m.seed,
            l.bootstrap,
        )?
        .with_luck(one_luck_net(m, file)?)
        .map(|j| j.with_per_game(m.per_game))
    }

    /// One rotated run per table.
    fn parts(&self) -> &[RunSpec] {
        &self.parts
    }

    fn parts_mut(&mut self) -> &mut [RunSpec] {
        &mut self.parts
    }

    /// Plays every table and fits the ratings; with an output directory, writes run.json, the
    /// checkpoint while it runs, league.csv, pairs.csv (with a luck net luck.csv and
    /// pairs_luck.csv) and summary.json.
    fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<LeagueReport>, JobError> {
        if self.per_game && ctx.out.is_none() {
            return Err(InvalidJob::NeedsOut {
                setting: "per_game",
                writes: "writes games.csv",
            }
            .into());
        }
        let mut fold = self.new_fold();
        conduct(ctx, self.def(), &mut fold, |f, out, _| {
            self.report(f, out, ctx.interrupt)
        })
    }

    fn merge_shards(
        &self,
        out: &mut OutputDir,
        shards: Shards<'_>,
        stop: Stop<'_>,
    ) -> Result<Outcome<LeagueReport>, JobError> {
        let mut fold = self.new_fold();
        merge(out, shards, self.def(), stop, &mut fold, |f, o, _| {
            self.report(f, o, stop.interrupt)
        })
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
    /// The finishing orders, grouped by deal (the bootstrap resamples deals).
    deals: DealTally,
    counts: Vec<BotCounts>,
    /// Per ordered pair `a * k + b`: meetings and points, summed by deal.
    by_deal: Vec<PairDeals>,
    /// The luck of the units folded (leagues that measure it).
    luck: Option<LeagueLuck>,
    error: Option<crate::analysis::ratings::RatingsError>,
}

/// One game's finish in a checkpoint record: the bots best first, and how many are ranked.
type GameFinish = (Vec<usize>, usize);

/// One unit of a league: its deals' finishing orders (per distinct deal: each game's bots best
/// first and how many ranked; how many deals finished so) and per-bot counts.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct LeagueRecord {
    deals: Vec<(Vec<GameFinish>, u64)>,
    counts: Vec<BotCounts>,
    /// The ranks of a game that gave no finishing order (never, for games the engine plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bad_ranks: Option<Vec<u8>>,
    /// Per ordered pair that met (`a * k + b`): its meetings and points summed by deal.
    pairs: Vec<(usize, PairDeals)>,
    /// Its luck (leagues that measure it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    luck: Option<LuckRecord>,
}

/// A league's luck, by deal of a table (the unit of randomisation: tables use distinct deals):
/// per pool bot, the moments of its wins and scores and their net luck; per ordered pair of
/// bots, of its head-to-head points and the pair's luck (half the difference of the two
/// seats' score luck).
pub(crate) struct LeagueLuck {
    deals: u64,
    rolls: u64,
    win: Vec<RatioMoments>,
    score: Vec<RatioMoments>,
    pairs: Vec<RatioMoments>,
}

/// A unit's luck in a checkpoint record: deals and rolls, per bot that played `(bot, win
/// moments, score moments)`, per ordered pair that met `(a * k + b, moments)`.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct LuckRecord {
    deals: u64,
    rolls: u64,
    bots: Vec<(usize, RatioMoments, RatioMoments)>,
    pairs: Vec<(usize, RatioMoments)>,
}

impl LeagueLuck {
    fn new(k: usize) -> LeagueLuck {
        LeagueLuck {
            deals: 0,
            rolls: 0,
            win: vec![RatioMoments::default(); k],
            score: vec![RatioMoments::default(); k],
            pairs: vec![RatioMoments::default(); k * k],
        }
    }

    /// The luck of a unit of table `members` from its rows and their games' luck.
    fn of_unit(unit: &UnitResult, members: &[usize], k: usize) -> LuckRecord {
        let players = members.len();
        let mut acc = LeagueLuck::new(k);
        // This deal's sums per bot (seats, win, win luck, score, score luck) and per pair
        // (meetings, points, luck).
        let mut bots = vec![(0u64, 0.0, 0.0, 0.0, 0.0); k];
        let mut pairs: std::collections::BTreeMap<usize, (u64, f64, f64)> = Default::default();
        let flush = |bots: &mut Vec<(u64, f64, f64, f64, f64)>,
                     pairs: &mut std::collections::BTreeMap<usize, (u64, f64, f64)>,
                     acc: &mut LeagueLuck| {
            for (b, t) in bots.iter_mut().enumerate() {
                acc.win[b].add(t.0, t.1, t.2);
                acc.score[b].add(t.0, t.3, t.4);
                *t = (0, 0.0, 0.0, 0.0, 0.0);
            }
            for (i, (n, y, l)) in std::mem::take(pairs) {
                acc.pairs[i].add(n, y, l);
            }
            acc.deals += 1;
        };
        let mut deal = None;
        for (row, gl) in unit.rows.iter().zip(&unit.game_luck) {
            if deal.is_some_and(|d| d != row.deal) {
                flush(&mut bots, &mut pairs, &mut acc);
            }
            deal = Some(row.deal);
            let ranks = &row.played.record.ranks;
            acc.rolls += gl.rolls.iter().map(|&r| u64::from(r)).sum::<u64>();
            // The seats in play with their pool bot and score luck.
            let seats: Vec<(Seat, usize, f64)> = Seat::in_play(players)
                .iter()
                .filter_map(|&s| {
                    let entry = row.played.bot_at_seat[s.index()];
                    (entry != NO_BOT).then(|| (s, members[entry as usize], gl.net(s, players).1))
                })
                .collect();
            for &(s, b, ls) in &seats {
                let t = &mut bots[b];
                t.0 += 1;
                t.1 += f64::from(u8::from(ranks[s.index()] == 1));
                t.2 += gl.net(s, players).0;
                t.3 += score_of(ranks, s, players);
                t.4 += ls;
            }
            for &(s, a, la) in &seats {
                for &(o, b, lb) in &seats {
                    if a == b {
                        continue;
                    }
                    let (ra, rb) = (ranks[s.index()], ranks[o.index()]);
                    let points = match (ra, rb) {
                        (0, 0) => 0.5,
                        (0, _) => 0.0,
                        (_, 0) => 1.0,
                        _ => f64::from(u8::from(ra < rb)),
                    };
                    let p = pairs.entry(a * k + b).or_default();
                    p.0 += 1;
                    p.1 += points;
                    p.2 += (la - lb) / 2.0;
                }
            }
        }
        if deal.is_some() {
            flush(&mut bots, &mut pairs, &mut acc);
        }
        LuckRecord {
            deals: acc.deals,
            rolls: acc.rolls,
            bots: (0..k)
                .filter(|&b| acc.win[b].deals > 0)
                .map(|b| (b, acc.win[b], acc.score[b]))
                .collect(),
            pairs: acc
                .pairs
                .iter()
                .enumerate()
                .filter(|(_, p)| p.deals > 0)
                .map(|(i, p)| (i, *p))
                .collect(),
        }
    }

    fn merge(&mut self, r: &LuckRecord) {
        self.deals += r.deals;
        self.rolls += r.rolls;
        for (b, w, s) in &r.bots {
            if let (Some(a), Some(c)) = (self.win.get_mut(*b), self.score.get_mut(*b)) {
                a.merge(w);
                c.merge(s);
            }
        }
        for (i, p) in &r.pairs {
            if let Some(a) = self.pairs.get_mut(*i) {
                a.merge(p);
            }
        }
    }

    /// The per-bot report (in `order`) and the pairs' figures (in `pairs.csv`'s order).
    fn report(
        &self,
        net: &LuckNet,
        names: &[String],
        order: &[usize],
    ) -> (LuckReport, Vec<PairLuck>) {
        let z = z_for(0.95);
        let k = names.len();
        let bots = order
            .iter()
            .map(|&b| LuckLine {
                index: b,
                name: names[b].clone(),
                games: self.win[b].results(),
                win_rate: self.win[b].adjusted(z),
                score: self.score[b].adjusted(z),
            })
            .collect();
        let mut pairs = Vec::new();
        for &a in order {
            for &b in order {
                let p = &self.pairs[a * k + b];
                if a != b && p.deals > 0 {
                    pairs.push(PairLuck {
                        bot: names[a].clone(),
                        opponent: names[b].clone(),
                        met: p.results(),
                        deals: p.deals,
                        score: p.adjusted(z),
                    });
                }
            }
        }
        (
            LuckReport {
                net: net.name().to_string(),
                net_checksum: format!("{:016x}", net.net.checksum()),
                ply: net.ply,
                deals: self.deals,
                rolls: self.rolls,
                bots,
            },
            pairs,
        )
    }
}

impl Fold for LeagueFold {
    type Record = LeagueRecord;

    fn record(&self, unit: &UnitResult) -> LeagueRecord {
        let members = &self.tables[unit.unit.part];
        let k = self.counts.len();
        let mut deals = DealTally::new(k);
        let mut this_deal: Vec<Finish> = Vec::new();
        let mut counts = vec![BotCounts::default(); k];
        let mut bad_ranks = None;
        let mut by_deal = vec![PairDeals::default(); k * k];
        // This deal's meetings and doubled points per ordered pair.
        let (mut met_now, mut pts_now) = (vec![0u64; k * k], vec![0u64; k * k]);
        let flush = |met: &mut [u64], pts: &mut [u64], acc: &mut [PairDeals]| {
            for i in 0..met.len() {
                acc[i].add(met[i], pts[i]);
            }
            met.fill(0);
            pts.fill(0);
        };
        let mut deal = None;
        let mut bad_deal = false;
        let mut end_deal = |finishes: &mut Vec<Finish>, bad: &mut bool| {
            if !*bad && !finishes.is_empty() {
                // Every finish names a table member, so this cannot fail.
                let _ = deals.add_count(std::mem::take(finishes), 1);
            }
            finishes.clear();
            *bad = false;
        };
        for row in &unit.rows {
            if deal.is_some_and(|d| d != row.deal) {
                flush(&mut met_now, &mut pts_now, &mut by_deal);
                end_deal(&mut this_deal, &mut bad_deal);
            }
            deal = Some(row.deal);
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
            match Finish::from_ranks(&entries) {
                Ok(finish) => {
                    let mut one = crate::analysis::PairMatrix::new(k);
                    one.add_count(&finish, 1);
                    for a in 0..k {
                        for b in 0..k {
                            let m = one.met(a, b);
                            if a != b && m > 0 {
                                met_now[a * k + b] += m;
                                pts_now[a * k + b] += m + one.ahead(a, b) - one.ahead(b, a);
                            }
                        }
                    }
                    this_deal.push(finish);
                }
                Err(_) => {
                    bad_deal = true;
                    bad_ranks.get_or_insert_with(|| entries.iter().map(|e| e.1).collect());
                }
            }
        }
        flush(&mut met_now, &mut pts_now, &mut by_deal);
        end_deal(&mut this_deal, &mut bad_deal);
        let pairs = by_deal
            .into_iter()
            .enumerate()
            .filter(|(_, p)| p.deals > 0)
            .collect();
        let deals = deals
            .iter()
            .map(|(d, n)| {
                let games = d
                    .iter()
                    .map(|f| (f.entries().collect(), f.ranked()))
                    .collect();
                (games, n)
            })
            .collect();
        LeagueRecord {
            deals,
            counts,
            bad_ranks,
            pairs,
            luck: self
                .luck
                .as_ref()
                .map(|_| LeagueLuck::of_unit(unit, members, k)),
        }
    }

    fn check(&self, unit: &Unit, record: &LeagueRecord) -> Result<(), String> {
        let members = self
            .tables
            .get(unit.part)
            .ok_or_else(|| format!("no table {}", unit.part))?;
        // Every game of a table seats each of its members once (a bot may sit twice).
        let want = unit.deals * members.len() as u64 * members.len() as u64;
        let got: u64 = record.counts.iter().map(|c| c.games).sum();
        if record.counts.len() != self.counts.len() || got != want {
            return Err(format!(
                "it counts {got} seats of {} bots where the unit has {want} of {}",
                record.counts.len(),
                self.counts.len()
            ));
        }
        match (&self.luck, &record.luck) {
            (Some(_), None) => Err("it has no luck figures, and the league measures luck".into()),
            (None, Some(_)) => Err("it has luck figures, and the league measures none".into()),
            (Some(_), Some(l)) if l.deals != unit.deals => Err(format!(
                "its luck counts {} deals where the unit has {}",
                l.deals, unit.deals
            )),
            _ => Ok(()),
        }
    }

    fn fold(&mut self, _: &Unit, record: LeagueRecord) -> Flow {
        if let Some(ranks) = record.bad_ranks {
            self.error
                .get_or_insert(crate::analysis::ratings::RatingsError::BadRanks(ranks));
        }
        for (games, n) in record.deals {
            if games
                .iter()
                .any(|(entries, ranked)| *ranked > entries.len())
            {
                continue;
            }
            let finishes = games
                .iter()
                .map(|(entries, ranked)| Finish::new(&entries[..*ranked], &entries[*ranked..]))
                .collect();
            if let Err(e) = self.deals.add_count(finishes, n) {
                self.error.get_or_insert(e);
            }
        }
        for (i, p) in &record.pairs {
            if let Some(acc) = self.by_deal.get_mut(*i) {
                acc.merge(p);
            }
        }
        if let (Some(a), Some(l)) = (self.luck.as_mut(), record.luck.as_ref()) {
            a.merge(l);
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
                Cell::fixed(p.score_interval.map(|i| i.0)),
                Cell::fixed(p.score_interval.map(|i| i.1)),
                Cell::int(p.deals),
            ]);
        }
        [league, pairs]
    }

    /// `pairs_luck.csv` (leagues that measure luck): see [`PAIRS_LUCK_HEADER`].
    pub fn pairs_luck_table(&self) -> Table {
        let mut t = Table::new("pairs_luck.csv", &PAIRS_LUCK_HEADER);
        for p in &self.pair_luck {
            let a = &p.score;
            let mut row = vec![
                Cell::text(p.bot.clone()),
                Cell::text(p.opponent.clone()),
                Cell::int(p.met),
                Cell::int(p.deals),
            ];
            row.extend(crate::export::luck_cells(a));
            t.push(row);
        }
        t
    }

    /// The text block of the luck-adjusted results (leagues that measure luck): per bot, then
    /// per pair.
    fn write_luck(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let Some(l) = &self.luck else {
            return Ok(());
        };
        l.write_text(out)?;
        writeln!(
            out,
            "(the ratings are not adjusted: a Plackett-Luce fit is not a mean of the games)\n\
             luck-adjusted head to head (score of the first against the second, ties half; the \
             pair's luck: half the difference of the two seats' score luck):"
        )?;
        use crate::stats::{pct, pct_interval as iv, signed_pct};
        let w = self
            .rows
            .iter()
            .map(|r| r.bot.len())
            .max()
            .unwrap_or(3)
            .clamp(3, crate::export::MAX_COLUMN_WIDTH);
        writeln!(
            out,
            "  {:<w$}    {:<w$}  {:>8} {:>9} {:>8} {:<18} {:>9}",
            "bot", "opponent", "score", "luck", "adj", "interval", "var ratio"
        )?;
        for (i, a) in self.rows.iter().enumerate() {
            for b in &self.rows[i + 1..] {
                let Some(p) = self
                    .pair_luck
                    .iter()
                    .find(|p| p.bot == a.bot && p.opponent == b.bot)
                else {
                    continue;
                };
                let s = &p.score;
                writeln!(
                    out,
                    "  {:<w$} vs {:<w$}  {:>8} {:>9} {:>8} {:<18} {:>9}",
                    a.bot,
                    b.bot,
                    pct(s.plain),
                    signed_pct(s.luck),
                    pct(s.adjusted),
                    iv(s.interval),
                    s.variance_ratio
                        .map_or("-".to_string(), |r| format!("{r:.2}x")),
                )?;
            }
        }
        Ok(())
    }

    /// The text report: the ratings, then the head-to-head matrix.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.title)?;
        writeln!(
            out,
            "rating = 400 log10(Plackett-Luce strength), mean 0, fitted to the finishing orders of \
             these {}-player tables: a bot's chance to win one is proportional to 10^(rating/400)",
            self.players
        )?;
        if self.players == 2 {
            writeln!(
                out,
                "(at 2-player tables this is Bradley-Terry, a head-to-head Elo: a gap of D points \
                 predicts a score of 1/(1 + 10^(-D/400)) in a match between the two); 95% \
                 intervals: bootstrap percentile, {} resamples of the deals",
                self.bootstrap
            )?;
        } else {
            writeln!(
                out,
                "(not a head-to-head Elo: a gap at {}-player tables does not predict a 2-player \
                 match between the same bots, a different game; the measured head-to-head scores \
                 at these tables follow); 95% intervals: bootstrap percentile, {} resamples of the \
                 deals",
                self.players, self.bootstrap
            )?;
        }
        let w = self
            .rows
            .iter()
            .map(|r| r.bot.len())
            .max()
            .unwrap_or(3)
            .clamp(3, crate::export::MAX_COLUMN_WIDTH);
        writeln!(
            out,
            "{:>4}  {:<w$}  {:>8}  {:>20}  {:>8}  {:>8}  {:>9}",
            "rank", "bot", "rating", "bootstrap 95%", "games", "wins", "mean rank"
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
                // Mean rank only when every game ranked the bot (see `LeagueRow::mean_rank`).
                r.mean_rank
                    .map_or_else(|| "-".to_string(), |v| format!("{v:.3}")),
            )?;
        }
        if self.rows.iter().any(|r| r.mean_rank.is_none()) {
            writeln!(
                out,
                "mean rank -: not defined (some games rank only the winner, e.g. end = first_finisher)"
            )?;
        }
        writeln!(
            out,
            "\nhead to head at these {}-player tables (row finished ahead of column, share of meetings, ties half):",
            self.players
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
        writeln!(
            out,
            "scores with 95% intervals (cluster-robust by deal, Wilson form):"
        )?;
        for (i, a) in self.rows.iter().enumerate() {
            for b in &self.rows[i + 1..] {
                let Some(p) = self
                    .pairs
                    .iter()
                    .find(|p| p.bot == a.bot && p.opponent == b.bot)
                else {
                    continue;
                };
                if let (Some(sc), Some((lo, hi))) = (p.score, p.score_interval) {
                    writeln!(
                        out,
                        "  {:<w$} vs {:<w$}  {sc:.3} [{lo:.3}, {hi:.3}]  ({} meetings in {} deals)",
                        a.bot, b.bot, p.met, p.deals
                    )?;
                }
            }
        }
        self.write_luck(out)
    }
}

impl JobReport for LeagueReport {
    const COMMAND: &'static str = "league";

    fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        LeagueReport::write_text(self, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_scores_are_cluster_robust_by_deal() {
        // 40 deals of 4 meetings: deal g gives `ahead` meetings won and no ties.
        let deals: Vec<u64> = (0..40).map(|g| [0, 2, 4, 3, 1][g % 5]).collect();
        let mut acc = PairDeals::default();
        for &a in &deals {
            acc.add(4, 2 * a);
        }
        let (n, s): (f64, f64) = (160.0, deals.iter().sum::<u64>() as f64);
        let r = s / n;
        let g = 40.0;
        let var = g / (g - 1.0)
            * deals
                .iter()
                .map(|&a| (a as f64 - r * 4.0).powi(2))
                .sum::<f64>()
            / (n * n);
        let (lo, hi) = wilson(s as u64, n as u64, r * (1.0 - r) / var, z_for(0.95)).unwrap();
        let (a, b) = acc.interval().unwrap();
        assert!(
            (a - lo).abs() < 1e-12 && (b - hi).abs() < 1e-12,
            "{a} {b} vs {lo} {hi}"
        );
        assert_eq!(acc.deals, 40);
        // Few deals, all alike: at least the Wilson interval on the deals, never a point.
        let mut few = PairDeals::default();
        for _ in 0..3 {
            few.add(4, 4);
        }
        let (a, b) = few.interval().unwrap();
        let (flo, fhi) = wilson(6, 12, 3.0, z_for(0.95)).unwrap();
        assert!(a <= flo && b >= fhi && b - a > 0.3, "{a} {b}");
    }
}

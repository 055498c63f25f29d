//! Ratings for a pool of bots from finishing orders: Plackett-Luce (Bradley-Terry for two
//! players) fitted by Hunter's MM algorithm, bootstrap intervals, and a pairwise win matrix.
//!
//! **Model.** Bot `i` has a strength `g_i > 0`. A finishing order is read as a sequence of
//! choices: the winner is chosen from everyone at the table with probability proportional to
//! strength, the runner-up from those left, and so on. With two players this is Bradley-Terry,
//! `P(i beats j) = g_i / (g_i + g_j)`. Ratings are `400 log10(g_i)`, shifted so the mean rating
//! is 0 or a named bot is at 0 ([`Anchor`]); a difference `d` then means an expected head-to-head
//! score of `1 / (1 + 10^(-d/400))`, as in logistic Elo.
//!
//! **Partial orders.** A [`Finish`] lists its ranked bots best first and its unranked bots after
//! them, unordered. Only the choices among ranked places are used: under `end = first_finisher`
//! only the winner is known, so the game says "the winner beat each other player" and nothing
//! about the rest. One unranked bot is simply last. A bot absent from a game is not in its
//! `Finish`; the same bot may sit in several seats of one game.
//!
//! **Fit.** Hunter (2004), "MM algorithms for generalized Bradley-Terry models", eq. (30):
//! `g_i <- w_i / (sum over choices that i took part in of 1 / (sum of strengths still
//! choosable))`, where `w_i` counts the choices `i` won, then rescaled to geometric mean 1 (the
//! likelihood only fixes ratios). An optional prior (default 1) adds, for every bot, `prior`
//! virtual wins and `prior` virtual losses in two-player games spread evenly over the other bots
//! (like BayesElo's virtual draws): it pulls the ratings together slightly, keeps every rating
//! finite (a bot that never won, never lost or never played) and leaves the scale free. With
//! `prior = 0` this is the maximum-likelihood fit, which exists only when every bot has both
//! won and lost a choice and the pool is connected.
//!
//! **Bootstrap.** The units of randomisation are resampled with replacement, replicate `r`
//! drawing from `dice::stream(seed, r, BOOTSTRAP_STREAM)`, and refitted; the 95% interval of
//! each rating is the 2.5% and 97.5% percentile (linear interpolation) of its replicates.
//! [`bootstrap_deals`] resamples deals (a [`DealTally`]: the games of one deal, played with the
//! seats rotated, share their dice and are resampled together); [`bootstrap`] resamples games,
//! for independent games. Identical finishes (and identical deals) are kept once with a count
//! in a sorted map, so fits and resamples depend only on the multiset of games, never on the
//! order they were added, and the replicates may run in parallel.
//!
//! ```
//! use aeroplane::analysis::ratings::{Finish, FinishTally, FitOptions, bootstrap, fit};
//! let mut games = FinishTally::new(3);
//! // Bot 0 won, bot 2 second, bot 1 last (a full ranking: rank 1, 2, 3).
//! games.add(Finish::from_ranks(&[(0, 1), (1, 3), (2, 2)]).unwrap()).unwrap();
//! // first_finisher: only the winner is known (rank 0 = unranked).
//! games.add(Finish::from_ranks(&[(1, 1), (2, 0), (0, 0)]).unwrap()).unwrap();
//! let ratings = fit(&games, &FitOptions::default()).unwrap();
//! let intervals = bootstrap(&games, &FitOptions::default(), 100, 42).unwrap();
//! assert!(ratings.elo[0] > ratings.elo[2]);
//! assert!(intervals[0].low <= intervals[0].high);
//! assert_eq!(games.pairs().ahead(0, 1), 1);
//! ```

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use aeroplane_core::{below, stream};

/// The stream number of bootstrap generators under [`crate::stream`].
pub const BOOTSTRAP_STREAM: u64 = 0xB007;

/// Why ratings could not be fitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RatingsError {
    /// A finish names a bot outside the pool.
    #[error("bot index {bot} is outside the pool of {bots} bots")]
    UnknownBot {
        /// The index given.
        bot: usize,
        /// The pool size.
        bots: usize,
    },
    /// Ranks that are not 1, 2, ..., k, each once (0 = unranked).
    #[error("ranks {0:?} are not 1..=k each once (0 marks an unranked player)")]
    BadRanks(Vec<u8>),
    /// The pool is empty.
    #[error("no bots to rate")]
    NoBots,
    /// With `prior = 0`, a bot that never won a choice has no finite rating.
    #[error(
        "bot {0} never finished ahead of anyone: its maximum-likelihood rating is -infinity (use a prior > 0)"
    )]
    NoWins(usize),
    /// With `prior = 0`, a bot that never lost a choice has no finite rating.
    #[error(
        "bot {0} never finished behind anyone: its maximum-likelihood rating is +infinity (use a prior > 0)"
    )]
    NoLosses(usize),
    /// Options out of range.
    #[error("invalid rating option {option} = {value}: allowed is {allowed}")]
    Invalid {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
    /// Asked to stop (a signal) before it was done.
    #[error("stopped before the ratings were fitted")]
    Stopped,
}

/// Never asked to stop.
fn never() -> bool {
    false
}

/// One game's finishing order over bot indices: ranked bots best first, then unranked ones.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finish {
    entries: Vec<u32>,
    ranked: u32,
}

impl Finish {
    /// A finish from the ranked bots in order (best first) and the unranked bots behind them.
    pub fn new(order: &[usize], unranked: &[usize]) -> Finish {
        let mut rest: Vec<u32> = unranked.iter().map(|&b| b as u32).collect();
        rest.sort_unstable();
        let mut entries: Vec<u32> = order.iter().map(|&b| b as u32).collect();
        entries.extend(rest);
        // A single unranked bot is simply last: store the canonical full order.
        let ranked = if entries.len() - order.len() <= 1 {
            entries.len()
        } else {
            order.len()
        };
        Finish {
            entries,
            ranked: ranked as u32,
        }
    }

    /// A finish from `(bot, rank)` pairs as a game record gives them: rank 1 is the winner,
    /// 0 means unranked. The non-zero ranks must be exactly `1..=k`, each once.
    pub fn from_ranks(players: &[(usize, u8)]) -> Result<Finish, RatingsError> {
        let mut ranked: Vec<(u8, usize)> = players
            .iter()
            .filter(|p| p.1 > 0)
            .map(|&(b, r)| (r, b))
            .collect();
        ranked.sort_unstable();
        if ranked
            .iter()
            .enumerate()
            .any(|(i, r)| r.0 as usize != i + 1)
        {
            return Err(RatingsError::BadRanks(
                players.iter().map(|p| p.1).collect(),
            ));
        }
        let order: Vec<usize> = ranked.iter().map(|r| r.1).collect();
        let unranked: Vec<usize> = players.iter().filter(|p| p.1 == 0).map(|p| p.0).collect();
        Ok(Finish::new(&order, &unranked))
    }

    /// Every bot of the game: the ranked ones best first, then the unranked ones.
    pub fn entries(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries.iter().map(|&b| b as usize)
    }

    /// How many leading entries are ranked.
    pub fn ranked(&self) -> usize {
        self.ranked as usize
    }

    /// The choices this finish records: every ranked place except a last one.
    fn choices(&self) -> usize {
        let n = self.entries.len();
        if self.ranked as usize >= n {
            n.saturating_sub(1)
        } else {
            self.ranked as usize
        }
    }

    /// Whether the bot at position `p` finished ahead of the bot at position `q > p`.
    fn ahead(&self, p: usize, q: usize) -> bool {
        debug_assert!(p < q);
        p < self.ranked as usize
    }
}

/// Games as a sorted multiset of finishes over a pool of `bots` bots; merges exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FinishTally {
    bots: usize,
    games: BTreeMap<Finish, u64>,
}

impl FinishTally {
    /// An empty tally over bots `0..bots`.
    pub fn new(bots: usize) -> Self {
        FinishTally {
            bots,
            games: BTreeMap::new(),
        }
    }

    /// The pool size.
    pub fn bots(&self) -> usize {
        self.bots
    }

    /// Records one game.
    pub fn add(&mut self, finish: Finish) -> Result<(), RatingsError> {
        self.add_count(finish, 1)
    }

    /// Records `count` games with the same finish.
    pub fn add_count(&mut self, finish: Finish, count: u64) -> Result<(), RatingsError> {
        if let Some(bot) = finish.entries().find(|&b| b >= self.bots) {
            return Err(RatingsError::UnknownBot {
                bot,
                bots: self.bots,
            });
        }
        *self.games.entry(finish).or_insert(0) += count;
        Ok(())
    }

    /// Adds another tally's games (the pool grows to the larger of the two).
    pub fn merge(&mut self, other: &FinishTally) {
        self.bots = self.bots.max(other.bots);
        for (f, &c) in &other.games {
            *self.games.entry(f.clone()).or_insert(0) += c;
        }
    }

    /// Games recorded.
    pub fn games(&self) -> u64 {
        self.games.values().sum()
    }

    /// Distinct finishes with their counts, in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (&Finish, u64)> {
        self.games.iter().map(|(f, &c)| (f, c))
    }

    /// The pairwise win matrix of these games.
    pub fn pairs(&self) -> PairMatrix {
        let mut m = PairMatrix::new(self.bots);
        for (f, c) in self.iter() {
            m.add_count(f, c);
        }
        m
    }
}

/// Where the rating scale is pinned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Anchor {
    /// The mean rating of the pool is 0.
    #[default]
    Mean,
    /// This bot's rating is 0.
    Bot(usize),
}

/// Fitting options.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FitOptions {
    /// Stop when no strength changes by more than this factor (relative).
    pub tolerance: f64,
    /// Stop after this many MM iterations even if not converged.
    pub max_iterations: u32,
    /// Virtual wins and losses per bot against the others (0 = maximum likelihood).
    pub prior: f64,
    /// Where the scale is pinned.
    pub anchor: Anchor,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            tolerance: 1e-10,
            max_iterations: 100_000,
            prior: 1.0,
            anchor: Anchor::Mean,
        }
    }
}

/// Fitted ratings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Rating of each bot on the Elo-like scale, pinned by the anchor.
    pub elo: Vec<f64>,
    /// The fitted strengths `g_i`, with geometric mean 1.
    pub strength: Vec<f64>,
    /// MM iterations run.
    pub iterations: u32,
    /// Whether the tolerance was reached before the iteration cap.
    pub converged: bool,
    /// Games used.
    pub games: u64,
}

/// A 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// The 2.5% percentile.
    pub low: f64,
    /// The 97.5% percentile.
    pub high: f64,
}

/// Fits Plackett-Luce ratings to the tally's games.
pub fn fit(tally: &FinishTally, options: &FitOptions) -> Result<Fit, RatingsError> {
    fit_until(tally, options, &never)
}

/// [`fit`] that gives up with [`RatingsError::Stopped`] as soon as `stop()` says so (checked
/// after every iteration).
pub fn fit_until(
    tally: &FinishTally,
    options: &FitOptions,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Fit, RatingsError> {
    let games: Vec<(&Finish, u64)> = tally.iter().collect();
    let counts: Vec<u64> = games.iter().map(|g| g.1).collect();
    let finishes: Vec<&Finish> = games.iter().map(|g| g.0).collect();
    fit_counts(tally.bots, &finishes, &counts, options, None, stop)
}

fn check_options(bots: usize, o: &FitOptions) -> Result<(), RatingsError> {
    if bots == 0 {
        return Err(RatingsError::NoBots);
    }
    if !(o.prior >= 0.0 && o.prior.is_finite()) {
        return Err(RatingsError::Invalid {
            option: "prior",
            value: o.prior.to_string(),
            allowed: "a finite number >= 0",
        });
    }
    if o.tolerance.is_nan() || o.tolerance <= 0.0 {
        return Err(RatingsError::Invalid {
            option: "tolerance",
            value: o.tolerance.to_string(),
            allowed: "a number > 0",
        });
    }
    if let Anchor::Bot(b) = o.anchor
        && b >= bots
    {
        return Err(RatingsError::UnknownBot { bot: b, bots });
    }
    Ok(())
}

/// The MM fit over distinct finishes with their counts.
fn fit_counts(
    bots: usize,
    finishes: &[&Finish],
    counts: &[u64],
    o: &FitOptions,
    start: Option<&[f64]>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Fit, RatingsError> {
    check_options(bots, o)?;
    let mut wins = vec![0.0f64; bots];
    let mut losses = vec![0u64; bots];
    for (f, &c) in finishes.iter().zip(counts) {
        let e = &f.entries;
        for r in 0..f.choices() {
            wins[e[r] as usize] += c as f64;
            for &b in &e[r + 1..] {
                losses[b as usize] += c;
            }
        }
    }
    if o.prior == 0.0 {
        if let Some(b) = (0..bots).find(|&b| wins[b] == 0.0) {
            return Err(RatingsError::NoWins(b));
        }
        if let Some(b) = (0..bots).find(|&b| losses[b] == 0) {
            return Err(RatingsError::NoLosses(b));
        }
    }
    // Virtual two-player games: `pair` wins each way between every two bots.
    let pair = if bots > 1 {
        o.prior / (bots - 1) as f64
    } else {
        0.0
    };
    if pair > 0.0 {
        wins.iter_mut().for_each(|w| *w += o.prior);
    }
    let mut g = start.map_or_else(|| vec![1.0f64; bots], <[f64]>::to_vec);
    let mut next = vec![0.0f64; bots];
    let mut denom = vec![0.0f64; bots];
    let mut suffix: Vec<f64> = Vec::new();
    let mut iterations = 0;
    let mut converged = false;
    while iterations < o.max_iterations {
        if stop() {
            return Err(RatingsError::Stopped);
        }
        iterations += 1;
        denom.fill(0.0);
        for (f, &c) in finishes.iter().zip(counts) {
            let (e, k) = (&f.entries, f.choices());
            if k == 0 {
                continue;
            }
            suffix.clear();
            suffix.resize(e.len() + 1, 0.0);
            for p in (0..e.len()).rev() {
                suffix[p] = suffix[p + 1] + g[e[p] as usize];
            }
            let mut acc = 0.0;
            for (p, &b) in e.iter().enumerate() {
                if p < k {
                    acc += 1.0 / suffix[p];
                }
                denom[b as usize] += c as f64 * acc;
            }
        }
        if pair > 0.0 {
            for i in 0..bots {
                for j in 0..bots {
                    if i != j {
                        denom[i] += 2.0 * pair / (g[i] + g[j]);
                    }
                }
            }
        }
        for i in 0..bots {
            next[i] = wins[i] / denom[i];
        }
        // The likelihood fixes only ratios: keep the geometric mean at 1.
        let mean_log = next.iter().map(|x| x.ln()).sum::<f64>() / bots as f64;
        let scale = (-mean_log).exp();
        let mut change = 0.0f64;
        for i in 0..bots {
            next[i] *= scale;
            change = change.max((next[i] / g[i] - 1.0).abs());
        }
        std::mem::swap(&mut g, &mut next);
        if change < o.tolerance {
            converged = true;
            break;
        }
    }
    let raw: Vec<f64> = g.iter().map(|x| 400.0 * x.log10()).collect();
    let offset = match o.anchor {
        Anchor::Mean => raw.iter().sum::<f64>() / bots as f64,
        Anchor::Bot(b) => raw[b],
    };
    Ok(Fit {
        elo: raw.iter().map(|r| r - offset).collect(),
        strength: g,
        iterations,
        converged,
        games: counts.iter().sum(),
    })
}

/// The fewest bootstrap resamples [`bootstrap`] and [`bootstrap_deals`] take: fewer cannot
/// place a 2.5% and a 97.5% percentile apart from the extremes (Efron and Tibshirani
/// recommend 1,000 or more for percentile intervals).
pub const MIN_REPLICATES: u32 = 100;

/// Games grouped by deal: each deal's finishes (one per rotation) as a sorted list, kept once
/// with a count. Merges exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DealTally {
    bots: usize,
    deals: BTreeMap<Vec<Finish>, u64>,
}

impl DealTally {
    /// An empty tally over bots `0..bots`.
    pub fn new(bots: usize) -> Self {
        DealTally {
            bots,
            deals: BTreeMap::new(),
        }
    }

    /// Records `count` deals whose games finished as `finishes` (any order).
    pub fn add_count(&mut self, mut finishes: Vec<Finish>, count: u64) -> Result<(), RatingsError> {
        for f in &finishes {
            if let Some(bot) = f.entries().find(|&b| b >= self.bots) {
                return Err(RatingsError::UnknownBot {
                    bot,
                    bots: self.bots,
                });
            }
        }
        finishes.sort_unstable();
        *self.deals.entry(finishes).or_insert(0) += count;
        Ok(())
    }

    /// Adds another tally's deals.
    pub fn merge(&mut self, other: &DealTally) {
        self.bots = self.bots.max(other.bots);
        for (d, &c) in &other.deals {
            *self.deals.entry(d.clone()).or_insert(0) += c;
        }
    }

    /// Deals recorded.
    pub fn deals(&self) -> u64 {
        self.deals.values().sum()
    }

    /// Distinct deals (their finishes, sorted) with their counts, in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (&[Finish], u64)> {
        self.deals.iter().map(|(d, &c)| (d.as_slice(), c))
    }

    /// Every game of every deal, as a tally of finishes.
    pub fn games(&self) -> FinishTally {
        let mut t = FinishTally::new(self.bots);
        for (d, &c) in &self.deals {
            for f in d {
                *t.games.entry(f.clone()).or_insert(0) += c;
            }
        }
        t
    }
}

/// 95% percentile intervals of each bot's rating over `replicates` bootstrap resamples of the
/// deals (each deal's games together: they share the deal's dice); deterministic given `seed`,
/// whatever the thread count. Costs `replicates` fits plus `replicates x deals` draws.
pub fn bootstrap_deals(
    tally: &DealTally,
    options: &FitOptions,
    replicates: u32,
    seed: u64,
) -> Result<Vec<Interval>, RatingsError> {
    bootstrap_deals_until(tally, options, replicates, seed, &never)
}

/// [`bootstrap_deals`] that gives up with [`RatingsError::Stopped`] as soon as `stop()` says
/// so.
pub fn bootstrap_deals_until(
    tally: &DealTally,
    options: &FitOptions,
    replicates: u32,
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Interval>, RatingsError> {
    let games = tally.games();
    let finishes: Vec<&Finish> = games.games.keys().collect();
    let index: BTreeMap<&Finish, usize> =
        finishes.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    let deals: Vec<Vec<usize>> = tally
        .deals
        .keys()
        .map(|d| d.iter().map(|f| index[f]).collect())
        .collect();
    let counts: Vec<u64> = tally.deals.values().copied().collect();
    let units = Units {
        bots: tally.bots,
        finishes: &finishes,
        units: &deals,
        counts: &counts,
        what: "deals",
    };
    resample(&units, options, replicates, seed, stop)
}

/// 95% percentile intervals of each bot's rating over `replicates` bootstrap resamples of the
/// games (for independent games; games of rotated deals are not: use [`bootstrap_deals`]);
/// deterministic given `seed`, whatever the thread count. Costs `replicates` fits plus
/// `replicates x games` draws.
pub fn bootstrap(
    tally: &FinishTally,
    options: &FitOptions,
    replicates: u32,
    seed: u64,
) -> Result<Vec<Interval>, RatingsError> {
    bootstrap_until(tally, options, replicates, seed, &never)
}

/// [`bootstrap`] that gives up with [`RatingsError::Stopped`] as soon as `stop()` says so.
pub fn bootstrap_until(
    tally: &FinishTally,
    options: &FitOptions,
    replicates: u32,
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Interval>, RatingsError> {
    let finishes: Vec<&Finish> = tally.games.keys().collect();
    let units: Vec<Vec<usize>> = (0..finishes.len()).map(|i| vec![i]).collect();
    let counts: Vec<u64> = tally.games.values().copied().collect();
    let units = Units {
        bots: tally.bots,
        finishes: &finishes,
        units: &units,
        counts: &counts,
        what: "games",
    };
    resample(&units, options, replicates, seed, stop)
}

/// Resampling units (a game, or a deal's games): `units[u]` lists the finishes of unit `u`
/// (indices into `finishes`), seen `counts[u]` times.
struct Units<'a> {
    bots: usize,
    finishes: &'a [&'a Finish],
    units: &'a [Vec<usize>],
    counts: &'a [u64],
    /// What a unit is, for messages.
    what: &'static str,
}

/// The bootstrap over resampling units.
fn resample(
    u: &Units<'_>,
    options: &FitOptions,
    replicates: u32,
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<Interval>, RatingsError> {
    check_options(u.bots, options)?;
    if replicates < MIN_REPLICATES {
        return Err(RatingsError::Invalid {
            option: "replicates",
            value: replicates.to_string(),
            allowed: "at least 100",
        });
    }
    let total: u64 = u.counts.iter().sum();
    let total32 = u32::try_from(total).map_err(|_| RatingsError::Invalid {
        option: u.what,
        value: total.to_string(),
        allowed: "at most 4294967295 for the bootstrap",
    })?;
    let mut full = vec![0u64; u.finishes.len()];
    for (unit, &c) in u.units.iter().zip(u.counts) {
        for &f in unit {
            full[f] += c;
        }
    }
    // Every replicate starts from the full fit, which is close to its own.
    let start = fit_counts(u.bots, u.finishes, &full, options, None, stop)?.strength;
    let cumulative: Vec<u64> = u
        .counts
        .iter()
        .scan(0u64, |s, &c| {
            *s += c;
            Some(*s)
        })
        .collect();
    let samples: Vec<Vec<f64>> = (0..replicates)
        .into_par_iter()
        .map(|r| {
            if stop() {
                return Err(RatingsError::Stopped);
            }
            let mut drawn = vec![0u64; u.finishes.len()];
            if total32 > 0 {
                let mut rng = stream(seed, u64::from(r), BOOTSTRAP_STREAM);
                for _ in 0..total32 {
                    let x = u64::from(below(&mut rng, total32));
                    for &f in &u.units[cumulative.partition_point(|&c| c <= x)] {
                        drawn[f] += 1;
                    }
                }
            }
            fit_counts(u.bots, u.finishes, &drawn, options, Some(&start), stop).map(|f| f.elo)
        })
        .collect::<Result<_, _>>()?;
    Ok((0..u.bots)
        .map(|b| {
            let mut v: Vec<f64> = samples.iter().map(|s| s[b]).collect();
            v.sort_by(f64::total_cmp);
            Interval {
                low: percentile(&v, 0.025),
                high: percentile(&v, 0.975),
            }
        })
        .collect())
}

/// The `q` quantile of sorted values, interpolating linearly between order statistics.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, frac) = (pos.floor() as usize, pos.fract());
    match sorted.get(lo + 1) {
        Some(&next) => sorted[lo] + frac * (next - sorted[lo]),
        None => sorted[lo],
    }
}

/// Who finished ahead of whom: for every ordered pair of distinct bots that met in a game,
/// how often the first finished ahead of the second. Integer counts; merges exactly.
///
/// Between two unranked bots of a partial finish there is no order: such a meeting counts as a
/// tie (in [`PairMatrix::met`] but in neither direction of [`PairMatrix::ahead`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairMatrix {
    bots: usize,
    ahead: Vec<u64>,
    met: Vec<u64>,
}

impl PairMatrix {
    /// An empty matrix over bots `0..bots`.
    pub fn new(bots: usize) -> Self {
        PairMatrix {
            bots,
            ahead: vec![0; bots * bots],
            met: vec![0; bots * bots],
        }
    }

    /// The pool size.
    pub fn bots(&self) -> usize {
        self.bots
    }

    /// Records `count` games with this finish; its bots must be below [`PairMatrix::bots`].
    pub fn add_count(&mut self, finish: &Finish, count: u64) {
        let e = &finish.entries;
        for p in 0..e.len() {
            for q in p + 1..e.len() {
                let (a, b) = (e[p] as usize, e[q] as usize);
                if a == b {
                    continue;
                }
                self.met[a * self.bots + b] += count;
                self.met[b * self.bots + a] += count;
                if finish.ahead(p, q) {
                    self.ahead[a * self.bots + b] += count;
                }
            }
        }
    }

    /// Adds another matrix over the same pool.
    ///
    /// # Panics
    /// If the pools differ in size.
    pub fn merge(&mut self, other: &PairMatrix) {
        assert_eq!(self.bots, other.bots, "pair matrices over different pools");
        for (a, b) in self.ahead.iter_mut().zip(&other.ahead) {
            *a += b;
        }
        for (a, b) in self.met.iter_mut().zip(&other.met) {
            *a += b;
        }
    }

    /// How often bot `a` finished ahead of bot `b`.
    pub fn ahead(&self, a: usize, b: usize) -> u64 {
        self.ahead[a * self.bots + b]
    }

    /// How often bots `a` and `b` played in the same game (each pair of seats counted).
    pub fn met(&self, a: usize, b: usize) -> u64 {
        self.met[a * self.bots + b]
    }

    /// Bot `a`'s head-to-head score against `b`: (ahead + ties/2) / met; `None` if they never met.
    pub fn score(&self, a: usize, b: usize) -> Option<f64> {
        let met = self.met(a, b);
        (met > 0).then(|| {
            let ties = met - self.ahead(a, b) - self.ahead(b, a);
            (self.ahead(a, b) as f64 + 0.5 * ties as f64) / met as f64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    fn ml() -> FitOptions {
        FitOptions {
            prior: 0.0,
            ..FitOptions::default()
        }
    }

    #[test]
    fn a_fit_and_a_bootstrap_stop_when_asked() {
        let mut t = FinishTally::new(2);
        t.add_count(Finish::new(&[0, 1], &[]), 2).unwrap();
        t.add(Finish::new(&[1, 0], &[])).unwrap();
        let o = FitOptions::default();
        assert_eq!(fit_until(&t, &o, &|| true), Err(RatingsError::Stopped));
        assert_eq!(
            bootstrap_until(&t, &o, 100, 1, &|| true),
            Err(RatingsError::Stopped)
        );
        // Asked partway through: the bootstrap stops among its resamples.
        let asked = std::sync::atomic::AtomicU32::new(0);
        let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 500;
        assert_eq!(
            bootstrap_until(&t, &o, 10_000, 1, &stop),
            Err(RatingsError::Stopped)
        );
        assert_eq!(fit_until(&t, &o, &|| false), fit(&t, &o));
    }

    #[test]
    fn bradley_terry_three_games() {
        // A beats B twice, B beats A once: g_A / g_B = 2, 120.41 Elo apart.
        let mut t = FinishTally::new(2);
        t.add_count(Finish::new(&[0, 1], &[]), 2).unwrap();
        t.add(Finish::new(&[1, 0], &[])).unwrap();
        let f = fit(&t, &ml()).unwrap();
        assert!(f.converged);
        let half = 200.0 * 2f64.log10();
        close(f.elo[0], half, 1e-6);
        close(f.elo[1], -half, 1e-6);
        assert_eq!(f.games, 3);
    }

    #[test]
    fn winner_only_games_rate_by_wins() {
        // first_finisher, 3 bots at every table: A wins 2, B 1, C 1 -> g = (2, 1, 1).
        let mut t = FinishTally::new(3);
        for (w, others) in [(0, [1, 2]), (0, [1, 2]), (1, [0, 2]), (2, [0, 1])] {
            t.add(Finish::from_ranks(&[(w, 1), (others[0], 0), (others[1], 0)]).unwrap())
                .unwrap();
        }
        let f = fit(&t, &ml()).unwrap();
        let a = 400.0 * 2f64.log10();
        close(f.elo[0], a - a / 3.0, 1e-6);
        close(f.elo[1], -a / 3.0, 1e-6);
        close(f.elo[2], -a / 3.0, 1e-6);
        let anchored = fit(
            &t,
            &FitOptions {
                anchor: Anchor::Bot(1),
                ..ml()
            },
        )
        .unwrap();
        close(anchored.elo[0], a, 1e-6);
        close(anchored.elo[1], 0.0, 1e-9);
    }

    #[test]
    fn full_orders_satisfy_the_likelihood_equations() {
        // At the maximum, each bot's choices won equal their expected number (Hunter eq. 30).
        let mut t = FinishTally::new(3);
        t.add(Finish::new(&[0, 1, 2], &[])).unwrap();
        t.add(Finish::new(&[0, 2, 1], &[])).unwrap();
        t.add(Finish::new(&[1, 0, 2], &[])).unwrap();
        t.add(Finish::new(&[2, 1], &[])).unwrap();
        let f = fit(&t, &ml()).unwrap();
        assert!(f.converged);
        let g = &f.strength;
        let mut expected = [0.0; 3];
        let mut won = [0.0; 3];
        for (fin, c) in t.iter() {
            let e: Vec<usize> = fin.entries().collect();
            for r in 0..fin.choices() {
                won[e[r]] += c as f64;
                let total: f64 = e[r..].iter().map(|&b| g[b]).sum();
                for &b in &e[r..] {
                    expected[b] += c as f64 * g[b] / total;
                }
            }
        }
        for b in 0..3 {
            close(expected[b], won[b], 1e-8);
        }
        assert!(f.elo[0] > f.elo[1] && f.elo[0] > f.elo[2]);
        close(f.elo.iter().sum::<f64>(), 0.0, 1e-9);
    }

    /// Plays `games` Plackett-Luce games at tables of `seats` bots drawn from the pool in turn.
    fn simulate(strength: &[f64], seats: usize, games: u64, winner_only: bool) -> FinishTally {
        simulate_seeded(strength, seats, games, winner_only, 7)
    }

    fn simulate_seeded(
        strength: &[f64],
        seats: usize,
        games: u64,
        winner_only: bool,
        seed: u64,
    ) -> FinishTally {
        let mut rng = stream(seed, 0, 1);
        let mut tally = FinishTally::new(strength.len());
        for i in 0..games as usize {
            let mut left: Vec<usize> = (0..seats).map(|s| (i + s) % strength.len()).collect();
            let mut order = Vec::new();
            while !left.is_empty() {
                let total: f64 = left.iter().map(|&b| strength[b]).sum();
                let mut u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
                let mut pick = left.len() - 1;
                for (k, &b) in left.iter().enumerate() {
                    if u < strength[b] {
                        pick = k;
                        break;
                    }
                    u -= strength[b];
                }
                order.push(left.remove(pick));
                if winner_only {
                    break;
                }
            }
            tally.add(Finish::new(&order, &left)).unwrap();
        }
        tally
    }

    #[test]
    fn recovers_synthetic_strengths() {
        let strength = [1.0, 2.0, 4.0, 8.0, 3.0];
        let truth: Vec<f64> = {
            let raw: Vec<f64> = strength.iter().map(|g: &f64| 400.0 * g.log10()).collect();
            let mean = raw.iter().sum::<f64>() / raw.len() as f64;
            raw.iter().map(|r| r - mean).collect()
        };
        for (winner_only, games, tol) in [(false, 4000, 20.0), (true, 8000, 25.0)] {
            let t = simulate(&strength, 4, games, winner_only);
            let f = fit(&t, &FitOptions::default()).unwrap();
            assert!(f.converged);
            for (b, &want) in truth.iter().enumerate() {
                close(f.elo[b], want, tol);
            }
            let mut by_elo: Vec<usize> = (0..5).collect();
            by_elo.sort_by(|&a, &b| f.elo[a].total_cmp(&f.elo[b]));
            assert_eq!(by_elo, [0, 1, 4, 2, 3], "winner_only={winner_only}");
        }
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_fit() {
        let t = simulate(&[1.0, 2.0, 4.0], 3, 600, false);
        let o = FitOptions::default();
        let a = bootstrap(&t, &o, 100, 11).unwrap();
        let b = bootstrap(&t, &o, 100, 11).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, bootstrap(&t, &o, 100, 12).unwrap());
        let f = fit(&t, &o).unwrap();
        for (bot, iv) in a.iter().enumerate() {
            assert!(iv.low < f.elo[bot] && f.elo[bot] < iv.high, "{iv:?}");
            assert!(iv.high - iv.low < 150.0);
        }
        // The order games were added in does not matter.
        let mut shuffled = FinishTally::new(3);
        let items: Vec<_> = t.iter().map(|(f, c)| (f.clone(), c)).collect();
        for (f, c) in items.into_iter().rev() {
            shuffled.add_count(f, c).unwrap();
        }
        assert_eq!(bootstrap(&shuffled, &o, 100, 11).unwrap(), a);
        // Issue 22, item 4: two resamples gave "95%" intervals that excluded the estimate.
        let e = bootstrap(&t, &o, 99, 11).unwrap_err();
        assert!(e.to_string().contains("at least 100"), "{e}");
    }

    /// Issue 22, item 4: a rotated deal's games share its dice, so the bootstrap resamples
    /// deals. With every deal's four games alike, resampling the games pretends there are four
    /// times as many independent games: its intervals are about half as wide.
    #[test]
    fn the_deal_bootstrap_resamples_whole_deals() {
        let singles = simulate(&[1.0, 2.0, 4.0], 3, 300, false);
        let mut deals = DealTally::new(3);
        let mut games = FinishTally::new(3);
        for (f, c) in singles.iter() {
            deals.add_count(vec![f.clone(); 4], c).unwrap();
            games.add_count(f.clone(), 4 * c).unwrap();
        }
        assert_eq!(deals.games(), games);
        assert_eq!(deals.deals(), 300);
        let o = FitOptions::default();
        let by_deal = bootstrap_deals(&deals, &o, 200, 5).unwrap();
        let by_game = bootstrap(&games, &o, 200, 5).unwrap();
        for b in 0..3 {
            let (wd, wg) = (
                by_deal[b].high - by_deal[b].low,
                by_game[b].high - by_game[b].low,
            );
            assert!(wd > 1.6 * wg && wd < 2.5 * wg, "bot {b}: {wd} vs {wg}");
        }
        // Deals of one game each: the same draws as the games' bootstrap.
        let mut one = DealTally::new(3);
        for (f, c) in singles.iter() {
            one.add_count(vec![f.clone()], c).unwrap();
        }
        assert_eq!(
            bootstrap_deals(&one, &o, 100, 9).unwrap(),
            bootstrap(&singles, &o, 100, 9).unwrap()
        );
    }

    #[test]
    fn bootstrap_intervals_cover_the_truth() {
        // 40 independent leagues: about 95% of the 200 intervals should hold the true rating.
        let strength = [1.0, 2.0, 4.0, 8.0, 3.0];
        let raw: Vec<f64> = strength.iter().map(|g: &f64| 400.0 * g.log10()).collect();
        let mean = raw.iter().sum::<f64>() / 5.0;
        let mut covered = 0;
        for seed in 0..40 {
            let t = simulate_seeded(&strength, 4, 500, false, 100 + seed);
            let iv = bootstrap(&t, &FitOptions::default(), 100, seed).unwrap();
            covered += (0..5)
                .filter(|&b| iv[b].low <= raw[b] - mean && raw[b] - mean <= iv[b].high)
                .count();
        }
        assert!((175..=200).contains(&covered), "{covered} of 200");
    }

    #[test]
    fn prior_handles_bots_without_wins_or_games() {
        let mut t = FinishTally::new(3);
        t.add_count(Finish::new(&[0, 1], &[]), 3).unwrap();
        assert_eq!(fit(&t, &ml()), Err(RatingsError::NoWins(1)));
        t.add(Finish::new(&[1, 0], &[])).unwrap();
        // Bot 2 never played.
        assert_eq!(fit(&t, &ml()), Err(RatingsError::NoWins(2)));
        let f = fit(&t, &FitOptions::default()).unwrap();
        assert!(f.elo.iter().all(|e| e.is_finite()));
        assert!(f.elo[0] > f.elo[2] && f.elo[2] > f.elo[1]);
        // Only virtual games for bot 2, even against both others: it sits between them.
        close(f.elo[2], (f.elo[0] + f.elo[1]) / 2.0, 15.0);
        let mut unbeaten = FinishTally::new(2);
        unbeaten.add(Finish::new(&[0, 1], &[])).unwrap();
        assert_eq!(fit(&unbeaten, &ml()), Err(RatingsError::NoWins(1)));
        unbeaten = FinishTally::new(3);
        unbeaten.add(Finish::new(&[0, 1], &[])).unwrap();
        unbeaten.add(Finish::new(&[1, 2], &[])).unwrap();
        unbeaten.add(Finish::new(&[2, 1], &[])).unwrap();
        assert_eq!(fit(&unbeaten, &ml()), Err(RatingsError::NoLosses(0)));
    }

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(
            Finish::from_ranks(&[(0, 1), (1, 1)]),
            Err(RatingsError::BadRanks(_))
        ));
        assert!(matches!(
            Finish::from_ranks(&[(0, 2), (1, 0)]),
            Err(RatingsError::BadRanks(_))
        ));
        let mut t = FinishTally::new(2);
        assert_eq!(
            t.add(Finish::new(&[0, 5], &[])),
            Err(RatingsError::UnknownBot { bot: 5, bots: 2 })
        );
        t.add(Finish::new(&[0, 1], &[])).unwrap();
        t.add(Finish::new(&[1, 0], &[])).unwrap();
        let bad_anchor = FitOptions {
            anchor: Anchor::Bot(2),
            ..FitOptions::default()
        };
        assert!(matches!(
            fit(&t, &bad_anchor),
            Err(RatingsError::UnknownBot { bot: 2, .. })
        ));
        let bad_prior = FitOptions {
            prior: -1.0,
            ..FitOptions::default()
        };
        assert!(matches!(
            fit(&t, &bad_prior),
            Err(RatingsError::Invalid {
                option: "prior",
                ..
            })
        ));
        assert_eq!(
            fit(&FinishTally::new(0), &FitOptions::default()),
            Err(RatingsError::NoBots)
        );
    }

    #[test]
    fn finishes_are_canonical() {
        // One unranked player is simply last.
        assert_eq!(Finish::new(&[2, 0], &[1]), Finish::new(&[2, 0, 1], &[]));
        let f = Finish::from_ranks(&[(3, 0), (1, 1), (0, 0)]).unwrap();
        assert_eq!(f, Finish::new(&[1], &[3, 0]));
        assert_eq!(f.entries().collect::<Vec<_>>(), [1, 0, 3]);
        assert_eq!(f.ranked(), 1);
        let full = Finish::from_ranks(&[(0, 3), (1, 1), (2, 2)]).unwrap();
        assert_eq!(full.entries().collect::<Vec<_>>(), [1, 2, 0]);
    }

    #[test]
    fn pair_matrix_counts_who_beat_whom() {
        let mut t = FinishTally::new(4);
        t.add(Finish::new(&[0, 1, 2, 3], &[])).unwrap();
        t.add(Finish::new(&[2], &[0, 1, 3])).unwrap();
        t.add(Finish::new(&[1, 0], &[])).unwrap();
        let m = t.pairs();
        assert_eq!((m.ahead(0, 1), m.ahead(1, 0), m.met(0, 1)), (1, 1, 3));
        assert_eq!(m.score(0, 1), Some(0.5));
        assert_eq!((m.ahead(2, 0), m.ahead(0, 2), m.met(0, 2)), (1, 1, 2));
        assert_eq!((m.ahead(0, 3), m.ahead(3, 0), m.met(0, 3)), (1, 0, 2));
        assert_eq!(m.score(0, 3), Some(0.75));
        assert_eq!(m.score(3, 0), Some(0.25));
        assert_eq!(m.met(0, 0), 0);
        let mut same_bot = PairMatrix::new(2);
        same_bot.add_count(&Finish::new(&[0, 1, 0], &[]), 1);
        assert_eq!((same_bot.ahead(0, 1), same_bot.ahead(1, 0)), (1, 1));
        let mut merged = PairMatrix::new(4);
        merged.merge(&m);
        merged.merge(&m);
        assert_eq!(merged.ahead(0, 3), 2);
        assert_eq!(merged.met(0, 1), 6);
    }
}

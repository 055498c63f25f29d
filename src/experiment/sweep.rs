//! `sweep`: every rule variant of a Cartesian product, played on the same seeds (common random
//! numbers), compared for fairness and length.
//!
//! Each variant is one part of the job: an ordinary run of the same lineup, seed and deals;
//! only the rules differ. `sweep.csv` has one row per variant in product order (see
//! [`SWEEP_HEADER`]).

use serde::Serialize;

use crate::analysis::Summary;
use crate::analysis::luck::{LuckNet, LuckReport, LuckTally};
use crate::analysis::multiple::{benjamini_hochberg, holm};
use crate::analysis::paired::ProportionSummary;
use crate::analysis::{Axis, PairedIndicators, PairedSummary, PairedSums, Variant, variants};
use crate::bots::registry::BotSpec;
use crate::export::{
    Cell, Manifest, OutputDir, SortKey, SweepSection, Table, format_p, p_equals, seat_test_kind,
};
use crate::runner::{Flow, RunSpec, Unit, UnitResult};
use crate::stats::{PValue, Tally};
use aeroplane_core::Counter;
use aeroplane_core::Rules;
use aeroplane_core::Seat;

use super::drive::Fold;
use super::effects::{AxisValues, DealOutcome, Effect, EffectsFold, Metric};
use super::kind::{JobKind, JobReport, luck_nets, manifest_error};
use super::merge::{Shards, Stop, merge};
use super::run::SummaryJson;
use super::{Context, InvalidJob, JobDef, JobError, Outcome, conduct, names};

/// The columns of `sweep.csv`. Seat columns exist for all four seats; those not in play are
/// empty. Rates are fractions; `*_lo95`/`*_hi95` are 95% bounds (Wilson; cluster-robust by deal
/// when seats are rotated, see `interval_method`); `chi2_p` is the p-value of "all seats win
/// equally often" for that variant alone; `max_seat_edge` is the largest |seat win rate -
/// the seats' mean win rate| (the mean is 1/players when every game has a winner; empty when no
/// game has one); event columns are means per game. Added at the end: `seat_test` (`seat_order`,
/// or `bots_and_seats` when seat j holds bot j), `chi2_p_holm` and `chi2_p_bh` (`chi2_p`
/// adjusted over all the variants: Holm, family-wise; Benjamini-Hochberg, false discovery
/// rate), `interval_method` (of the seat intervals: `wilson`, `cluster_by_deal`,
/// `wilson_on_deals`, or one per seat separated by `;`), then each lineup entry's win rate with
/// its 95% interval (`bot0_win` .. `bot3_hi95`, empty for entries not in the lineup). After these
/// fixed columns, one column per varied option holds the variant's value of it (see
/// [`SweepReport::header`]).
pub const SWEEP_HEADER: [&str; 49] = [
    "index",
    "variant",
    "players",
    "games",
    "seat0_win",
    "seat0_lo95",
    "seat0_hi95",
    "seat1_win",
    "seat1_lo95",
    "seat1_hi95",
    "seat2_win",
    "seat2_lo95",
    "seat2_hi95",
    "seat3_win",
    "seat3_lo95",
    "seat3_hi95",
    "chi2_p",
    "max_seat_edge",
    "turns_mean",
    "turns_sd",
    "turns_median",
    "turns_p95",
    "rolls_mean",
    "rolls_sd",
    "rolls_median",
    "rolls_p95",
    "moves_per_game",
    "captures_per_game",
    "penalties_per_game",
    "jumps_per_game",
    "flights_per_game",
    "bounces_per_game",
    "unfinished",
    "seat_test",
    "chi2_p_holm",
    "chi2_p_bh",
    "interval_method",
    "bot0_win",
    "bot0_lo95",
    "bot0_hi95",
    "bot1_win",
    "bot1_lo95",
    "bot1_hi95",
    "bot2_win",
    "bot2_lo95",
    "bot2_hi95",
    "bot3_win",
    "bot3_lo95",
    "bot3_hi95",
];

/// The position of `bot0_win` in [`SWEEP_HEADER`].
const SWEEP_BOT0: usize = 37;

/// The columns of `effects.csv` (see [`super::effects`]): one row per option value and metric
/// (`seat0_win`, `turns`, and `bot0_win` when the lineup's bots differ): the level `mean` (the
/// metric averaged over the variants with that value) with its 95% interval by deal, and its
/// difference from the option's `reference` value (the base rules' own, else the first), paired
/// by deal, with its interval and the paired t-test's `p`; `method` says how.
pub const EFFECTS_HEADER: [&str; 14] = [
    "option",
    "value",
    "variants",
    "deals",
    "metric",
    "mean",
    "mean_lo95",
    "mean_hi95",
    "reference",
    "diff",
    "diff_lo95",
    "diff_hi95",
    "p",
    "method",
];

/// The columns of `compare.csv`: one row per compared metric (`seat0_win`, `turns`); `p` is
/// McNemar's test for the win rate (with Tango's score interval, which agrees with it) and the
/// paired t-test for turns. With seats rotated the deal (all its rotations) is the pair: the
/// clustered McNemar test and the paired t on deal totals, with cluster-robust intervals.
/// Added at the end: `deals` (pairs compared) and `method` (`mcnemar`, `mcnemar_by_deal`,
/// `mcnemar_on_deals` where too few deals or no discordant game leave the design effect
/// unestimated and each deal counts as one pair, `paired_t`, `paired_t_by_deal`).
pub const COMPARE_HEADER: [&str; 11] = [
    "a",
    "b",
    "metric",
    "mean_a",
    "mean_b",
    "diff",
    "diff_lo95",
    "diff_hi95",
    "p",
    "deals",
    "method",
];

/// The counters of the `*_per_game` columns, in column order.
const PER_GAME: [Counter; 6] = [
    Counter::Moves,
    Counter::Captures,
    Counter::Penalties,
    Counter::Jumps,
    Counter::Flights,
    Counter::Bounces,
];

/// A sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepJob {
    /// What it plays: the base rules, the varied options, the lineup, the deals.
    pub spec: SweepSpec,
    /// Measure every roll's luck, each variant's by the net of its rules and players (the
    /// first of these that fits), and report luck-adjusted results per variant (docs/LUCK.md);
    /// empty: no luck measured.
    pub luck: Vec<LuckNet>,
    /// Per variant, the net (of `luck`) that measures it.
    luck_of: Vec<usize>,
    variants: Vec<Variant>,
    parts: Vec<RunSpec>,
    /// The main effects' axes (those with at least two values).
    effect_axes: Vec<EffectAxis>,
    /// Per variant, its flat value index on every effect axis.
    of_variant: Vec<Vec<usize>>,
    /// The per-deal sums fit in memory, so every variant's games are read for the effects.
    deal_effects: bool,
}

/// An option of the main effects: name, values as written, the reference value's position.
#[derive(Clone, Debug, PartialEq)]
struct EffectAxis {
    option: &'static str,
    values: Vec<String>,
    reference: usize,
    first_index: usize,
}

/// One variant's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    /// 1-based index in product order.
    pub index: usize,
    /// The variant's label, e.g. `overshoot=bounce`.
    pub variant: String,
    /// The figures.
    pub summary: Summary,
    /// The largest |seat win rate - the seats' mean win rate| (`None` when no game had a
    /// winner).
    pub max_seat_edge: Option<f64>,
    /// `chi2_p` adjusted over the sweep's variants by Holm's method.
    pub chi2_p_holm: Option<PValue>,
    /// `chi2_p` adjusted by Benjamini-Hochberg.
    pub chi2_p_bh: Option<PValue>,
    /// The variant's luck-adjusted figures per lineup entry (sweeps that measure luck).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub luck: Option<LuckReport>,
}

/// A paired comparison of two variants over the shared deals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Variant A (0-based).
    pub a: usize,
    /// Variant B (0-based).
    pub b: usize,
    /// Games in each variant's side of the comparison.
    pub games: u64,
    /// Deals compared pairwise (the unit: a deal's rotations share its dice).
    pub deals: u64,
    /// Games per deal (rotations; 1 without).
    pub group_size: u64,
    /// Seat 0's win rate, McNemar (clustered by deal with rotations).
    pub seat0: Option<ProportionSummary>,
    /// Turns per game, paired t (on deal totals with rotations).
    pub turns: Option<PairedSummary>,
}

/// What a sweep found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepReport {
    /// The title line.
    pub title: String,
    /// Players per game.
    pub players: usize,
    /// One row per variant, in product order.
    pub rows: Vec<SweepRow>,
    /// The paired comparison, if asked for.
    pub comparison: Option<Comparison>,
    /// The order of the printed table.
    #[serde(serialize_with = "as_text")]
    pub sort: SortKey,
    /// The varied options, in product order (one sweep.csv column each).
    pub options: Vec<&'static str>,
    /// The main effect of every value of every option varied over two or more values.
    pub effects: Vec<Effect>,
}

fn as_text<S: serde::Serializer>(k: &SortKey, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(k)
}

/// What a sweep is asked to play, before it is checked and expanded ([`SweepJob::new`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSpec {
    /// The base rules as named.
    pub rules_name: String,
    /// The base rules.
    pub base: Rules,
    /// The varied options, in product order (the first varies slowest).
    pub axes: Vec<Axis>,
    /// The lineup every variant plays.
    pub lineup: Vec<BotSpec>,
    /// The lineup as the user wrote it, for the title.
    pub bots_label: String,
    /// Master seed.
    pub seed: u64,
    /// Deals per variant.
    pub deals: u64,
    /// Play each deal once per rotation.
    pub rotate_seats: bool,
    /// Two variants (0-based, product order) to compare game by game.
    pub compare: Option<(usize, usize)>,
    /// The order of the printed table.
    pub sort: SortKey,
}

impl SweepJob {
    /// Checks the sweep and expands its variants.
    pub fn new(spec: SweepSpec) -> Result<SweepJob, JobError> {
        let SweepSpec {
            rules_name,
            base,
            axes,
            lineup,
            bots_label,
            seed,
            deals,
            rotate_seats,
            compare,
            sort,
        } = spec;
        if axes.is_empty() {
            return Err(InvalidJob::NothingToVary.into());
        }
        let all = variants(base, &axes).map_err(InvalidJob::Vary)?;
        let parts: Vec<RunSpec> = all
            .iter()
            .map(|v| RunSpec {
                rules: v.rules,
                lineup: lineup.clone(),
                seed,
                first_deal: 0,
                deals,
                rotate_seats,
            })
            .collect();
        parts[0].validate()?;
        if let Some((a, b)) = compare
            && (a == b || a >= all.len() || b >= all.len())
        {
            return Err(InvalidJob::Compare {
                variants: all.len(),
            }
            .into());
        }
        let options: Vec<&'static str> = axes.iter().map(Axis::option).collect();
        Table::new("sweep.csv", &sweep_header(&options))
            .column(&sort.column)
            .map_err(InvalidJob::Sort)?;
        // The main effects: every axis of two or more values, each value's flat index.
        let mut effect_axes = Vec::new();
        let mut next = 0;
        let mut stride = all.len();
        let mut of_variant = vec![Vec::new(); all.len()];
        for axis in &axes {
            let n = axis.levels().len();
            stride /= n;
            if n < 2 {
                continue;
            }
            let reference = axis
                .levels()
                .iter()
                .position(|l| l.is_of(base))
                .unwrap_or(0);
            for (i, ix) in of_variant.iter_mut().enumerate() {
                ix.push(next + (i / stride) % n);
            }
            effect_axes.push(EffectAxis {
                option: axis.option(),
                values: axis.values(),
                reference,
                first_index: next,
            });
            next += n;
        }
        let deal_effects = !effect_axes.is_empty()
            && (next as u64).saturating_mul(deals) <= super::effects::MAX_CELLS;
        Ok(SweepJob {
            spec: SweepSpec {
                rules_name,
                base,
                axes,
                lineup,
                bots_label,
                seed,
                deals,
                rotate_seats,
                compare,
                sort,
            },
            luck: Vec::new(),
            luck_of: Vec::new(),
            variants: all,
            parts,
            effect_axes,
            of_variant,
            deal_effects,
        })
    }

    /// The same sweep, measuring every roll's luck: each variant by the first of `nets` that
    /// fits its rules and players (none: without luck). A variant no net fits is refused,
    /// naming it and why each net does not fit; so is a net that fits no variant.
    pub fn with_luck(mut self, nets: Vec<LuckNet>) -> Result<SweepJob, JobError> {
        let mut luck_of = Vec::with_capacity(self.parts.len());
        if !nets.is_empty() {
            for (i, spec) in self.parts.iter().enumerate() {
                let (rules, players) = (&spec.rules, spec.players());
                match nets.iter().position(|n| n.meter(rules, players).is_ok()) {
                    Some(n) => luck_of.push(n),
                    None => {
                        let why: Vec<String> = nets
                            .iter()
                            .filter_map(|n| n.meter(rules, players).err())
                            .map(|e| e.to_string())
                            .collect();
                        return Err(InvalidJob::SweepLuck {
                            index: i + 1,
                            variant: self.variants[i].label(),
                            players,
                            why: why.join("; "),
                        }
                        .into());
                    }
                }
            }
            if let Some(n) = (0..nets.len()).find(|n| !luck_of.contains(n)) {
                let spec = &self.parts[0];
                return Err(InvalidJob::SweepLuckUnused {
                    net: nets[n].name().to_string(),
                    players: nets[n].net.players,
                    why: nets[n]
                        .meter(&spec.rules, spec.players())
                        .err()
                        .map_or_else(String::new, |e| e.what),
                }
                .into());
            }
        }
        self.luck = nets;
        self.luck_of = luck_of;
        Ok(self)
    }

    /// The variants, in product order.
    pub fn variants(&self) -> &[Variant] {
        &self.variants
    }

    /// The title line.
    pub fn title(&self) -> String {
        format!(
            "aeroplane sweep: rules {} ({} variants), bots {}, seed {}, {} deals each{}",
            self.spec
                .axes
                .iter()
                .find(|a| a.option() == crate::analysis::BASE_AXIS)
                .map_or_else(|| self.spec.rules_name.clone(), Axis::text),
            self.variants.len(),
            self.spec.bots_label,
            self.spec.seed,
            self.spec.deals,
            if self.spec.rotate_seats {
                ", seats rotated"
            } else {
                ""
            }
        )
    }

    /// What the lifecycle needs of the sweep, its games kept as rows where `kept` says.
    pub(crate) fn def<'a>(&'a self, kept: &'a (dyn Fn(usize) -> bool + Sync)) -> JobDef<'a> {
        JobDef {
            manifest: self.manifest(),
            parts: &self.parts,
            rows_for: kept,
            per_game: false,
            recover: false,
            log: None,
            luck: &self.luck,
            pool: None,
        }
    }

    /// Whether a variant's games are read: for the paired comparison, or for the main
    /// effects' per-deal sums.
    pub(crate) fn keeps(&self, part: usize) -> bool {
        self.deal_effects || self.compared(part)
    }

    fn compared(&self, part: usize) -> bool {
        self.spec
            .compare
            .is_some_and(|(a, b)| part == a || part == b)
    }

    pub(crate) fn new_fold(&self) -> SweepFold {
        let values = self.effect_axes.iter().map(|a| a.values.len()).sum();
        let effects = EffectsFold::new(
            if self.deal_effects { values } else { 0 },
            self.of_variant.clone(),
            0,
            self.spec.deals,
        );
        SweepFold {
            tallies: self
                .parts
                .iter()
                .map(|s| Tally::new(s.players(), s.games_per_deal()))
                .collect(),
            outcomes: vec![Vec::new(); self.parts.len()],
            compare: self.spec.compare,
            deal_effects: self.deal_effects,
            per_deal: self.parts[0].games_per_deal() as usize,
            effects,
            luck: (!self.luck.is_empty()).then(|| vec![LuckTally::default(); self.parts.len()]),
        }
    }

    /// The metrics of the main effects: seat 0's win rate and the turns, and lineup entry 0's
    /// win rate when the lineup's bots differ.
    fn metrics(&self) -> Vec<Metric> {
        let names = names(&self.spec.lineup);
        let mut m = vec![Metric::Seat0];
        if names.iter().any(|n| *n != names[0]) {
            m.push(Metric::Bot0);
        }
        m.push(Metric::Turns);
        m
    }

    pub(crate) fn report(
        &self,
        fold: &mut SweepFold,
        out: Option<&OutputDir>,
    ) -> Result<SweepReport, JobError> {
        let spec0 = &self.parts[0];
        let names = names(&self.spec.lineup);
        let mut rows: Vec<SweepRow> = self
            .variants
            .iter()
            .zip(&fold.tallies)
            .enumerate()
            .map(|(i, (v, t))| {
                let summary = Summary::new(t, &names);
                let luck = fold.luck.as_ref().map(|l| {
                    let net = &self.luck[self.luck_of[i]];
                    LuckReport::new(&l[i], &names, net.name(), net.net.checksum()).at_ply(net.ply)
                });
                SweepRow {
                    index: i + 1,
                    variant: v.label(),
                    max_seat_edge: max_edge(&summary),
                    summary,
                    chi2_p_holm: None,
                    chi2_p_bh: None,
                    luck,
                }
            })
            .collect();
        let raw: Vec<Option<PValue>> = rows
            .iter()
            .map(|r| r.summary.seat_test.map(|t| t.p_value))
            .collect();
        for (r, (h, bh)) in rows
            .iter_mut()
            .zip(holm(&raw).into_iter().zip(benjamini_hochberg(&raw)))
        {
            (r.chi2_p_holm, r.chi2_p_bh) = (h, bh);
        }
        let comparison = self.spec.compare.map(|(a, b)| {
            // The deal is the pair: its rotations share its dice (and with identical bots are
            // the same game), so they are one observation, not `m` independent ones.
            let m = spec0.games_per_deal();
            let mut seat0 = PairedIndicators::clustered(m);
            let mut turns = PairedSums::clustered(m);
            let (mut wins, mut lengths) = (Vec::new(), Vec::new());
            for (x, y) in fold.outcomes[a]
                .chunks(m as usize)
                .zip(fold.outcomes[b].chunks(m as usize))
            {
                wins.clear();
                lengths.clear();
                for (x, y) in x.iter().zip(y) {
                    wins.push((x.0, y.0));
                    lengths.push((i64::from(x.1), i64::from(y.1)));
                }
                seat0.add_deal(&wins);
                turns.add_deal(&lengths);
            }
            Comparison {
                a,
                b,
                games: self.spec.deals * m,
                deals: self.spec.deals,
                group_size: m,
                seat0: seat0.summary(),
                turns: turns.summary(),
            }
        });
        let axes: Vec<AxisValues> = self
            .effect_axes
            .iter()
            .map(|a| AxisValues {
                option: a.option.to_string(),
                values: a.values.clone(),
                reference: a.reference,
                first_index: a.first_index,
            })
            .collect();
        let values: usize = axes.iter().map(|a| a.values.len()).sum();
        let mut variants_per_value = vec![0usize; values];
        for ix in &self.of_variant {
            for &v in ix {
                variants_per_value[v] += 1;
            }
        }
        // A value's level from the variants' tallies (the mean of the variants' figures).
        let level = |v: usize, metric: Metric| -> f64 {
            let figures: Vec<f64> = self
                .of_variant
                .iter()
                .zip(&rows)
                .filter(|(ix, _)| ix.contains(&v))
                .map(|(_, r)| match metric {
                    Metric::Seat0 => r.summary.seats.first().map_or(0.0, |s| s.win_rate),
                    Metric::Bot0 => r.summary.bots.first().map_or(0.0, |b| b.win_rate),
                    Metric::Turns => r.summary.lengths[0].spread.map_or(0.0, |s| s.mean),
                })
                .collect();
            figures.iter().sum::<f64>() / figures.len().max(1) as f64
        };
        let effects = super::effects::effects(
            &fold.effects,
            &axes,
            &self.metrics(),
            &variants_per_value,
            spec0.games_per_deal(),
            &level,
        );
        let report = SweepReport {
            title: self.title(),
            players: spec0.players(),
            rows,
            comparison,
            sort: self.spec.sort.clone(),
            options: self.spec.axes.iter().map(Axis::option).collect(),
            effects,
        };
        if let Some(dir) = out {
            dir.write_table(&report.table())?;
            if let Some(t) = report.compare_table() {
                dir.write_table(&t)?;
            }
            if let Some(t) = report.effects_table() {
                dir.write_table(&t)?;
            }
            if let Some(t) = report.luck_table() {
                dir.write_table(&t)?;
            }
            dir.write_json(
                "summary.json",
                &SummaryJson::new("sweep", &report).in_dir(dir),
            )?;
        }
        Ok(report)
    }
}

impl JobKind for SweepJob {
    type Report = SweepReport;

    /// The job's manifest (status running): the base run plus the sweep's axes.
    fn manifest(&self) -> Manifest {
        let mut m = Manifest::new(&self.parts[0], &self.spec.rules_name, false);
        m.command = "sweep".into();
        m.rules = serde_json::to_value(self.spec.base).expect("rules serialize");
        m.games_planned = self.total_games();
        m.luck = self.luck.iter().map(|l| l.name().to_string()).collect();
        m.luck_checksum = self.luck.iter().map(LuckNet::checksum).collect();
        m.luck_ply = self.luck.iter().map(|l| l.ply).max().unwrap_or_default();
        m.sweep = Some(SweepSection {
            bots: self.spec.bots_label.clone(),
            vary: self.spec.axes.iter().map(axis_text).collect(),
            variants: self.variants.iter().map(Variant::label).collect(),
            compare: self.spec.compare.map(|(a, b)| [a + 1, b + 1]),
            sort: self.spec.sort.to_string(),
        });
        m
    }

    fn from_manifest(m: &Manifest, file: &str) -> Result<SweepJob, JobError> {
        let s = m.sweep.as_ref().ok_or_else(|| {
            manifest_error(file, "a sweep's manifest needs its `sweep` section".into())
        })?;
        let axes = s
            .vary
            .iter()
            .map(|t| {
                t.parse::<Axis>()
                    .map_err(|e| manifest_error(file, format!("sweep.vary `{t}`: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        SweepJob::new(SweepSpec {
            rules_name: m.rules_name.clone(),
            base: m.rules(file)?,
            axes,
            lineup: m.bot_specs(file)?,
            bots_label: s.bots.clone(),
            seed: m.seed,
            deals: m.games,
            rotate_seats: m.rotate_seats,
            compare: s
                .compare
                .map(|[a, b]| (a.saturating_sub(1), b.saturating_sub(1))),
            sort: SortKey::parse(&s.sort),
        })?
        .with_luck(luck_nets(m, file)?)
    }

    /// One run per variant.
    fn parts(&self) -> &[RunSpec] {
        &self.parts
    }

    fn parts_mut(&mut self) -> &mut [RunSpec] {
        &mut self.parts
    }

    /// Plays every variant; with an output directory, writes run.json, the checkpoint while it
    /// runs, sweep.csv, compare.csv (with a comparison), luck.csv (with luck nets) and
    /// summary.json.
    fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<SweepReport>, JobError> {
        let mut fold = self.new_fold();
        let kept = |part: usize| self.keeps(part);
        conduct(ctx, self.def(&kept), &mut fold, |f, out, _| {
            self.report(f, out)
        })
    }

    fn merge_shards(
        &self,
        out: &mut OutputDir,
        shards: Shards<'_>,
        stop: Stop<'_>,
    ) -> Result<Outcome<SweepReport>, JobError> {
        let mut fold = self.new_fold();
        let kept = |part: usize| self.keeps(part);
        merge(out, shards, self.def(&kept), stop, &mut fold, |f, o, _| {
            self.report(f, o)
        })
    }
}

/// A sweep's state: each variant's tally, per game of the compared variants whether seat 0 won
/// and the turns, and the main effects' per-deal sums.
pub(crate) struct SweepFold {
    tallies: Vec<Tally>,
    outcomes: Vec<Vec<(bool, u32)>>,
    compare: Option<(usize, usize)>,
    deal_effects: bool,
    per_deal: usize,
    effects: EffectsFold,
    /// Per variant, the luck of the units folded (sweeps that measure it).
    luck: Option<Vec<LuckTally>>,
}

/// One unit of a sweep: its tally, for a compared variant its games' outcomes, and for the
/// main effects each deal's outcome (seat 0's wins, lineup entry 0's wins, turns).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct SweepRecord {
    tally: Tally,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    outcomes: Vec<(bool, u32)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    deals: Vec<DealOutcome>,
    /// Its luck (sweeps that measure it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    luck: Option<LuckTally>,
}

impl Fold for SweepFold {
    type Record = SweepRecord;

    fn record(&self, unit: &UnitResult) -> SweepRecord {
        let part = unit.unit.part;
        let compared = self.compare.is_some_and(|(a, b)| part == a || part == b);
        let outcomes = if compared {
            unit.rows
                .iter()
                .map(|r| {
                    let rec = &r.played.record;
                    (rec.winner == Seat::new(0), rec.counters[Counter::Turns])
                })
                .collect()
        } else {
            Vec::new()
        };
        let deals = if self.deal_effects {
            unit.rows
                .chunks(self.per_deal)
                .map(|deal| {
                    deal.iter().fold((0, 0, 0), |(s, b, t), r| {
                        let rec = &r.played.record;
                        let winner = rec.winner.map(Seat::index);
                        let bot0 = winner.is_some_and(|w| r.played.bot_at_seat[w] == 0);
                        (
                            s + u32::from(winner == Some(0)),
                            b + u32::from(bot0),
                            t + u64::from(rec.counters[Counter::Turns]),
                        )
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        SweepRecord {
            tally: unit.tally.clone(),
            outcomes,
            deals,
            luck: unit.luck.clone(),
        }
    }

    fn check(&self, unit: &Unit, record: &SweepRecord) -> Result<(), String> {
        let like = self
            .tallies
            .get(unit.part)
            .ok_or_else(|| format!("no variant {}", unit.part))?;
        let like = Tally::new(like.players, like.group_size);
        super::run::check_tally(&record.tally, unit, &like)?;
        // One outcome per deal for the main effects, one per game for a compared variant.
        let deals = if self.deal_effects { unit.deals } else { 0 };
        let compared = self
            .compare
            .is_some_and(|(a, b)| unit.part == a || unit.part == b);
        let games = if compared {
            unit.deals * like.group_size
        } else {
            0
        };
        if record.deals.len() as u64 != deals || record.outcomes.len() as u64 != games {
            return Err(format!(
                "it holds {} deal outcomes and {} game outcomes where the unit has {deals} and {games}",
                record.deals.len(),
                record.outcomes.len()
            ));
        }
        match (&self.luck, &record.luck) {
            (Some(_), None) => Err("it has no luck figures, and the sweep measures luck".into()),
            (None, Some(_)) => Err("it has luck figures, and the sweep measures none".into()),
            (Some(_), Some(l)) if l.deals != unit.deals => Err(format!(
                "its luck counts {} deals where the unit has {}",
                l.deals, unit.deals
            )),
            _ => Ok(()),
        }
    }

    fn fold(&mut self, unit: &Unit, record: SweepRecord) -> Flow {
        if let (Some(a), Some(l)) = (self.luck.as_mut(), record.luck.as_ref()) {
            a[unit.part].merge(l);
        }
        self.tallies[unit.part].merge(&record.tally);
        self.outcomes[unit.part].extend(record.outcomes);
        self.effects.add(unit.part, unit.first_deal, &record.deals);
        Flow::Continue
    }
}

/// sweep.csv's columns for a sweep of these options: [`SWEEP_HEADER`], then one per option.
pub fn sweep_header(options: &[&'static str]) -> Vec<&'static str> {
    SWEEP_HEADER.iter().chain(options).copied().collect()
}

/// An axis as `--vary` text: `overshoot=illegal,bounce`, `launch_rolls=[6];[2,4,6]`,
/// `base=classic,chinese`.
pub fn axis_text(a: &Axis) -> String {
    a.text()
}

/// The largest |seat win rate - 1/players|.
fn max_edge(s: &Summary) -> Option<f64> {
    if s.seats.iter().all(|l| l.counts.wins == 0) {
        return None;
    }
    // Each seat's fair share of the games that had a winner: 1/players when all had one.
    let fair = s.seats.iter().map(|l| l.win_rate).sum::<f64>() / s.seats.len() as f64;
    Some(
        s.seats
            .iter()
            .map(|l| (l.win_rate - fair).abs())
            .fold(0.0, f64::max),
    )
}

impl SweepRow {
    /// The variant's value of `option` (as in its label), if it varies it.
    fn value_of(&self, option: &str) -> Option<&str> {
        self.variant
            .split_whitespace()
            .filter_map(|t| t.split_once('='))
            .find(|(o, _)| *o == option)
            .map(|(_, v)| v)
    }

    fn cells(&self, options: &[&'static str]) -> Vec<Cell> {
        let s = &self.summary;
        let mut cells = vec![
            Cell::int(self.index as u64),
            Cell::text(self.variant.clone()),
            Cell::int(s.players as u64),
            Cell::int(s.games),
        ];
        for seat in Seat::ALL {
            match s.seats.iter().find(|l| l.seat == seat) {
                Some(l) => {
                    cells.push(Cell::fixed(Some(l.win_rate)));
                    cells.push(Cell::fixed(l.interval.map(|i| i.0)));
                    cells.push(Cell::fixed(l.interval.map(|i| i.1)));
                }
                None => cells.extend([Cell::empty(), Cell::empty(), Cell::empty()]),
            }
        }
        cells.push(Cell::p_value(s.seat_test.map(|c| c.p_value), 3));
        cells.push(Cell::fixed(self.max_seat_edge));
        for l in &s.lengths {
            match l.spread {
                Some(sp) => cells.extend([
                    Cell::fixed(Some(sp.mean)),
                    Cell::fixed(Some(sp.sd)),
                    Cell::int(sp.median),
                    Cell::int(sp.p95),
                ]),
                None => cells.extend([Cell::empty(), Cell::empty(), Cell::empty(), Cell::empty()]),
            }
        }
        let per = |n: u64| Cell::fixed((s.games > 0).then(|| n as f64 / s.games as f64));
        for c in PER_GAME {
            cells.push(per(s.counters[c]));
        }
        cells.push(Cell::int(s.unfinished));
        cells.push(Cell::text(seat_test_kind(s)));
        cells.push(Cell::p_value(self.chi2_p_holm, 3));
        cells.push(Cell::p_value(self.chi2_p_bh, 3));
        let methods: Vec<&str> = s
            .seats
            .iter()
            .map(|l| l.method.map_or("", |m| m.method.name()))
            .collect();
        cells.push(Cell::text(if methods.iter().all(|m| *m == methods[0]) {
            methods[0].to_string()
        } else {
            methods.join(";")
        }));
        for k in 0..4 {
            match s.bots.get(k) {
                Some(b) => cells.extend([
                    Cell::fixed(Some(b.win_rate)),
                    Cell::fixed(b.interval.map(|i| i.0)),
                    Cell::fixed(b.interval.map(|i| i.1)),
                ]),
                None => cells.extend([Cell::empty(), Cell::empty(), Cell::empty()]),
            }
        }
        for o in options {
            cells.push(self.value_of(o).map_or_else(Cell::empty, Cell::text));
        }
        cells
    }
}

impl Comparison {
    /// The `method` of seat 0's comparison in compare.csv.
    pub fn seat0_method(&self) -> &'static str {
        match self.seat0 {
            _ if self.group_size == 1 => "mcnemar",
            Some(p) if p.each_deal_one_pair => "mcnemar_on_deals",
            _ => "mcnemar_by_deal",
        }
    }
}

impl SweepReport {
    /// sweep.csv's columns: [`SWEEP_HEADER`], then one per varied option.
    pub fn header(&self) -> Vec<&'static str> {
        sweep_header(&self.options)
    }

    /// `sweep.csv`: one row per variant, in product order.
    pub fn table(&self) -> Table {
        let mut t = Table::new("sweep.csv", &self.header());
        for r in &self.rows {
            t.push(r.cells(&self.options));
        }
        t
    }

    /// `luck.csv` of a sweep that measures luck: per variant (`index`, `variant`), one row per
    /// lineup entry with a run's luck.csv columns.
    pub fn luck_table(&self) -> Option<Table> {
        let first = self.rows.first()?.luck.as_ref()?;
        let mut header = vec!["index", "variant"];
        header.extend(crate::export::luck_table(first).header.iter().copied());
        let mut t = Table::new("luck.csv", &header);
        for row in &self.rows {
            let Some(l) = &row.luck else { continue };
            for cells in crate::export::luck_table(l).rows {
                let mut r = vec![Cell::int(row.index as u64), Cell::text(row.variant.clone())];
                r.extend(cells);
                t.push(r);
            }
        }
        Some(t)
    }

    /// `effects.csv`, when some option has two or more values.
    pub fn effects_table(&self) -> Option<Table> {
        if self.effects.is_empty() {
            return None;
        }
        let mut t = Table::new("effects.csv", &EFFECTS_HEADER);
        for e in &self.effects {
            t.push(vec![
                Cell::text(e.option.clone()),
                Cell::text(e.value.clone()),
                Cell::int(e.variants as u64),
                Cell::int(e.deals),
                Cell::text(e.metric),
                Cell::fixed(Some(e.mean)),
                Cell::fixed(e.interval.map(|i| i.0)),
                Cell::fixed(e.interval.map(|i| i.1)),
                Cell::text(e.reference.clone()),
                Cell::fixed(e.diff),
                Cell::fixed(e.diff_interval.map(|i| i.0)),
                Cell::fixed(e.diff_interval.map(|i| i.1)),
                Cell::p_value(e.p, 3),
                Cell::text(e.method),
            ]);
        }
        Some(t)
    }

    /// The main effects in words, one line per option value.
    fn write_effects(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        if self.effects.is_empty() {
            return Ok(());
        }
        writeln!(w)?;
        let deals = self.effects[0].deals;
        writeln!(
            w,
            "main effects: each value averaged over the other options' values, 95% intervals by \
             deal ({deals} deals); the difference is value - reference, paired by deal (a \
             comparison's is A-B)"
        )?;
        let mut options: Vec<&str> = Vec::new();
        for e in &self.effects {
            if !options.contains(&e.option.as_str()) {
                options.push(&e.option);
            }
        }
        let fmt = |metric: &str, x: f64| {
            if metric == "turns" {
                format!("{x:.1}")
            } else {
                format!("{:.2}%", 100.0 * x)
            }
        };
        let diff_fmt = |metric: &str, x: f64| {
            if metric == "turns" {
                format!("{x:+.1}")
            } else {
                format!("{:+.2}", 100.0 * x)
            }
        };
        let variants = self.rows.len();
        let vw = self
            .effects
            .iter()
            .map(|e| e.value.len())
            .max()
            .unwrap_or(5)
            .clamp(5, crate::export::MAX_COLUMN_WIDTH);
        for option in options {
            let rows: Vec<&Effect> = self.effects.iter().filter(|e| e.option == option).collect();
            let (k, reference) = rows
                .first()
                .map_or((0, ""), |e| (e.variants, e.reference.as_str()));
            writeln!(
                w,
                "  {option}, reference {reference} (each value in {k} of the {variants} variants):"
            )?;
            let mut metrics: Vec<&str> = Vec::new();
            for e in &rows {
                if !metrics.contains(&e.metric) {
                    metrics.push(e.metric);
                }
            }
            for metric in metrics {
                for (i, e) in rows.iter().filter(|e| e.metric == metric).enumerate() {
                    let mut line = format!(
                        "    {:<9}  {:<vw$}  {:>8}",
                        if i == 0 { metric } else { "" },
                        e.value,
                        fmt(metric, e.mean)
                    );
                    if let Some((lo, hi)) = e.interval {
                        line.push_str(&format!(" [{}, {}]", fmt(metric, lo), fmt(metric, hi)));
                    }
                    if let Some(d) = e.diff {
                        let unit = if metric == "turns" { "" } else { " points" };
                        line.push_str(&format!("  {}{unit}", diff_fmt(metric, d)));
                        if let Some((lo, hi)) = e.diff_interval {
                            line.push_str(&format!(
                                " [{}, {}]",
                                diff_fmt(metric, lo),
                                diff_fmt(metric, hi)
                            ));
                        }
                        if let Some(p) = e.p {
                            line.push_str(&format!(", {}", p_equals(p)));
                        }
                    }
                    writeln!(w, "{}", line.trim_end())?;
                }
            }
        }
        if self.effects.iter().any(|e| e.method == "means_only") {
            writeln!(
                w,
                "  (too many variants x deals to keep each deal: means without intervals)"
            )?;
        }
        Ok(())
    }

    /// `compare.csv`, with a comparison.
    pub fn compare_table(&self) -> Option<Table> {
        let c = self.comparison.as_ref()?;
        let mut t = Table::new("compare.csv", &COMPARE_HEADER);
        let (la, lb) = (&self.rows[c.a].variant, &self.rows[c.b].variant);
        let by_deal = c.group_size > 1;
        for (metric, s, method) in [
            ("seat0_win", c.seat0.map(|p| p.test), c.seat0_method()),
            (
                "turns",
                c.turns,
                if by_deal {
                    "paired_t_by_deal"
                } else {
                    "paired_t"
                },
            ),
        ] {
            let mut r = vec![
                Cell::text(la.clone()),
                Cell::text(lb.clone()),
                Cell::text(metric),
            ];
            match s {
                Some(s) => r.extend([
                    Cell::fixed(Some(s.mean_a)),
                    Cell::fixed(Some(s.mean_b)),
                    Cell::fixed(Some(s.diff)),
                    Cell::fixed(Some(s.low)),
                    Cell::fixed(Some(s.high)),
                    Cell::p_value(Some(s.p_value), 3),
                ]),
                None => r.extend(std::iter::repeat_n(Cell::empty(), 6)),
            }
            r.push(Cell::int(c.deals));
            r.push(Cell::text(method));
            t.push(r);
        }
        Some(t)
    }

    /// The text report: the variants in the report's order, then the comparison.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.write_plain(w)?;
        self.write_luck(w)
    }

    /// The luck-adjusted figures per variant (sweeps that measure luck), in product order.
    fn write_luck(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        for row in &self.rows {
            if let Some(l) = &row.luck {
                write!(w, "\nvariant #{} {}:", row.index, row.variant)?;
                l.write_text(w)?;
            }
        }
        Ok(())
    }

    /// The plain report: the table, its notes, the effects and the comparison.
    fn write_plain(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let table = self.table();
        let order = table
            .sorted_order(&self.sort)
            .expect("the sort column was checked");
        let seats = Seat::in_play(self.players);
        writeln!(w, "{}", self.title)?;
        let width = self
            .rows
            .iter()
            .map(|r| r.variant.len())
            .max()
            .unwrap_or(7)
            .clamp(7, crate::export::MAX_COLUMN_WIDTH);
        let mut head = format!("{:>3}  {:<width$}", "#", "variant");
        for s in seats {
            head.push_str(&format!("  {:>7}", format!("seat{}", s.index())));
        }
        head.push_str(&format!(
            "  {:>9}  {:>9}  {:>9}  {:>6}  {:>7}  {:>5}  {:>5}  {:>10}",
            "chi2_p", "holm", "bh", "edge", "turns", "med", "p95", "unfinished"
        ));
        // Per bot, when the lineup's bots differ (with identical bots a bot's rate is the
        // seats' average).
        let bots: Vec<&str> = self
            .rows
            .first()
            .map(|r| r.summary.bots.iter().map(|b| b.name.as_str()).collect())
            .unwrap_or_default();
        let per_bot = bots.iter().any(|b| *b != bots[0]);
        if per_bot {
            for k in 0..bots.len() {
                head.push_str(&format!("  {:>7}", format!("bot{k}")));
            }
        }
        writeln!(w, "{head}")?;
        // Rates in percent, as the effects, the comparison and `aeroplane run` print them.
        let short = |x: &Cell| {
            x.value
                .map(|v| format!("{:.2}%", 100.0 * v))
                .unwrap_or_default()
        };
        let p = |x: Option<PValue>| x.map(format_p).unwrap_or_default();
        for &i in &order {
            let (row, r) = (&self.rows[i], &table.rows[i]);
            let mut line = format!("{:>3}  {:<width$}", row.index, row.variant);
            for s in seats {
                line.push_str(&format!("  {:>7}", short(&r[4 + 3 * s.index()])));
            }
            let turns = row.summary.lengths[0].spread;
            line.push_str(&format!(
                "  {:>9}  {:>9}  {:>9}  {:>6}  {:>7}  {:>5}  {:>5}  {:>10}",
                p(row.summary.seat_test.map(|t| t.p_value)),
                p(row.chi2_p_holm),
                p(row.chi2_p_bh),
                short(&r[17]),
                turns.map(|t| format!("{:.1}", t.mean)).unwrap_or_default(),
                r[20].text,
                r[21].text,
                row.summary.unfinished
            ));
            if per_bot {
                for k in 0..bots.len() {
                    line.push_str(&format!("  {:>7}", short(&r[SWEEP_BOT0 + 3 * k])));
                }
            }
            writeln!(w, "{line}")?;
        }
        if per_bot {
            let names: Vec<String> = bots
                .iter()
                .enumerate()
                .map(|(k, b)| format!("bot{k} {b}"))
                .collect();
            writeln!(
                w,
                "botK: win rate of lineup entry K ({}); 95% intervals in sweep.csv",
                names.join(", ")
            )?;
        }
        let tested = self
            .rows
            .iter()
            .filter(|r| r.summary.seat_test.is_some())
            .count();
        let first = self.rows.first().map(|r| &r.summary);
        let what = match first {
            Some(s) if !s.seat_order_test => {
                "all seats equal, per variant; NOT a seat-order test: seat j holds bot j, so it \
                 compares bots and seats together (add --rotate-seats to test seat order)"
            }
            Some(s) if s.group_size > 1 => {
                "seat-order test per variant (all seats win equally often), Rao-Scott corrected \
                 for the deal"
            }
            _ => "seat-order test per variant (all seats win equally often)",
        };
        writeln!(w, "chi2_p: {what}")?;
        writeln!(
            w,
            "holm: chi2_p Holm-adjusted over the {tested} variants (family-wise error); bh: \
             Benjamini-Hochberg (false discovery rate, for large sweeps); judge a variant by \
             these, not by chi2_p"
        )?;
        let rotated = first.is_some_and(|s| s.group_size > 1);
        writeln!(
            w,
            "seat intervals in sweep.csv: {}",
            if rotated {
                "95% cluster-robust by deal (Kish design effect d); Wilson on the deals where d cannot be trusted"
            } else {
                "95% Wilson score"
            }
        )?;
        if let Some(s) = first.filter(|s| s.too_few_deals) {
            writeln!(
                w,
                "warning: only {} deals per variant: too few to trust these intervals and tests (give at least {})",
                s.deals,
                crate::stats::MIN_DEALS
            )?;
        }
        self.write_effects(w)?;
        if let Some(c) = &self.comparison {
            writeln!(w)?;
            let unit = if c.group_size > 1 {
                format!(
                    "{} shared deals ({} seat rotations each, the deal as the unit: cluster-robust)",
                    c.deals, c.group_size
                )
            } else {
                format!("{} shared deals (one game each)", c.deals)
            };
            writeln!(
                w,
                "paired comparison over {unit}: A = #{} {}, B = #{} {}",
                c.a + 1,
                self.rows[c.a].variant,
                c.b + 1,
                self.rows[c.b].variant
            )?;
            let by_deal = if c.group_size > 1 { " by deal" } else { "" };
            let mcnemar = match c.seat0_method() {
                "mcnemar_on_deals" => {
                    "McNemar with each deal as one pair (too few deals or no \
                                       discordant game to estimate the design effect)"
                }
                "mcnemar_by_deal" => "McNemar by deal",
                _ => "McNemar",
            };
            for (metric, s, method) in [
                (
                    "seat0_win",
                    c.seat0.map(|p| p.test),
                    format!("{mcnemar}, Tango score 95% CI"),
                ),
                ("turns", c.turns, format!("paired t{by_deal}, t 95% CI")),
            ] {
                match s {
                    // A rate as a percentage and its difference in percentage points, turns with
                    // two decimals (compare.csv keeps six).
                    Some(s) if metric == "seat0_win" => writeln!(
                        w,
                        "  {metric:<10} A {:>7.2}%  B {:>7.2}%  A-B {:>+7.2} points  95% CI [{:+.2}, {:+.2}]  {}  ({method})",
                        100.0 * s.mean_a,
                        100.0 * s.mean_b,
                        100.0 * s.diff,
                        100.0 * s.low,
                        100.0 * s.high,
                        p_equals(s.p_value)
                    )?,
                    Some(s) => writeln!(
                        w,
                        "  {metric:<10} A {:>8.2}  B {:>8.2}  A-B {:>+7.2}         95% CI [{:+.2}, {:+.2}]  {}  ({method})",
                        s.mean_a,
                        s.mean_b,
                        s.diff,
                        s.low,
                        s.high,
                        p_equals(s.p_value)
                    )?,
                    None => writeln!(w, "  {metric:<10} too few deals to compare")?,
                }
            }
        }
        Ok(())
    }
}

impl JobReport for SweepReport {
    const COMMAND: &'static str = "sweep";

    fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        SweepReport::write_text(self, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_game_columns_are_named_after_their_counters() {
        let names: Vec<String> = PER_GAME
            .iter()
            .map(|c| format!("{}_per_game", c.name()))
            .collect();
        let columns: Vec<&str> = SWEEP_HEADER
            .iter()
            .copied()
            .filter(|h| h.ends_with("_per_game"))
            .collect();
        assert_eq!(columns, names);
    }
}

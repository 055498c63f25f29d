//! Grading a decision log offline (`aeroplane grade --log FILE`): every decision of a run's
//! log (docs/LOG.md) judged by a reference (a td net's N-ply search, or an exact table),
//! without playing the bots again. Each logged game is checked against the engine first
//! ([`crate::decision_log::check::check_game`]), then replayed from its rolls and choices; at
//! each decision the reference values every legal move and the logged choice's loss is
//! counted for the bot that made it, as a live grade counts it. Every bot of the log's lineup
//! is graded (for a run with seats rotated, every bot in every seat); the win rates are the
//! log's results.
//!
//! A log of other rules or players than the reference's is refused before any game is read.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use aeroplane_core::{ActionId, Game};

use crate::bots::BotSpec;
use crate::decision_log::check::{CheckedGame, GameSequence, check_game};
use crate::decision_log::read::{LogReader, LoggedGame};
use crate::export::OutputDir;
use crate::stats::{NO_BOT, Played, Tally};
use crate::value_table::Table;

use super::{
    BotGrade, BotSums, DealGrade, Decision, GameLog, GradeError, GradeReport, MAX_MOVES,
    RATIO_METHOD, Reference, ReferenceInfo, Source, bot_grade, check_table_rules, keep_worst, net,
    units,
};

/// Games read and judged together (in parallel); the results never depend on it.
const BATCH_GAMES: usize = 64;

/// A log grade.
#[derive(Clone, Debug)]
pub struct LogGradeJob {
    /// The decision log (`.jsonl` or `.jsonl.zst`).
    pub log: PathBuf,
    /// What the decisions are judged by.
    pub reference: Reference,
    /// A decision losing more equity than this is an error.
    pub threshold: f64,
    /// Worst decisions kept per bot.
    pub blunders: usize,
    /// Worker threads, 0 for one per core (never changes the results).
    pub threads: usize,
    /// Give each bot its rating label (net grades always do).
    pub ratings: bool,
}

/// One game's figures: per lineup bot, its decisions.
struct GameGrade {
    deal: u64,
    played: Played,
    logs: Vec<GameLog>,
}

/// How to run a log grade: none of this changes the results.
#[derive(Clone, Copy, Default)]
pub struct LogGradeContext<'a> {
    /// Set by a signal handler: the grade stops at the next decision judged.
    pub interrupt: Option<&'a AtomicBool>,
    /// Where `grade.json` (while the grade runs, its status: `running`, then `complete`,
    /// `interrupted` or `failed`), `grade.csv` and `blunders.csv` go, if anywhere.
    pub out: Option<&'a OutputDir>,
    /// Called after each game graded, with how many have been.
    pub game_done: Option<fn(u64)>,
}

impl LogGradeJob {
    /// The job as `grade.json` keeps it while it runs (`checksum`: the reference's).
    fn record(&self, checksum: String) -> super::GradeRecord {
        super::GradeRecord {
            tool: "aeroplane".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: "grade".into(),
            table: self.reference.path().display().to_string(),
            table_checksum: checksum,
            bots: Vec::new(),
            seed: 0,
            deals: 0,
            threshold: self.threshold,
            blunders: self.blunders,
            chunk_deals: 0,
            report: false,
            net: match &self.reference {
                Reference::Table(_) => None,
                Reference::Net(n) => Some(super::NetRecord {
                    ply: n.ply,
                    rules: n.rules.clone(),
                }),
            },
            ratings: self.ratings,
            log: Some(self.log.display().to_string()),
        }
    }
}

/// Grades every bot of the log of `job`; see the module documentation.
pub fn grade_log(job: &LogGradeJob) -> Result<GradeReport, GradeError> {
    grade_log_with(job, &LogGradeContext::default())
}

/// [`grade_log`], stopping at a signal, with its files and status in an output folder: a
/// stopped log grade is `interrupted` there, and `aeroplane resume` grades the log again from
/// its first game (the same files as if it had never stopped).
pub fn grade_log_with(job: &LogGradeJob, ctx: &LogGradeContext) -> Result<GradeReport, GradeError> {
    let mut record = None;
    let result = grade_log_in(job, ctx, &mut record);
    let (Some(dir), Some(record)) = (ctx.out, record) else {
        return result;
    };
    match result {
        Ok(report) => {
            report.write_files(dir)?;
            Ok(report)
        }
        Err(e) => {
            let (status, text) = match &e {
                GradeError::Interrupted => (crate::export::JobStatus::Interrupted, None),
                e => (
                    crate::export::JobStatus::Failed,
                    Some(aeroplane_core::excerpt::chain(e)),
                ),
            };
            super::folder::write_status(dir, &super::GradeStatus::new(&record, status, 0, text))?;
            Err(e)
        }
    }
}

fn grade_log_in(
    job: &LogGradeJob,
    ctx: &LogGradeContext,
    started: &mut Option<super::GradeRecord>,
) -> Result<GradeReport, GradeError> {
    check_threshold(job)?;
    let mut reader = LogReader::open(&job.log)?;
    let header = reader.header().clone();
    let file = reader.file().to_string();
    let (source, checksum, first_player, info) = judge_of(job, &header, &file)?;
    super::check_threads(job.threads)?;
    if let Some(dir) = ctx.out {
        let record = job.record(checksum.clone());
        super::folder::write_status(
            dir,
            &super::GradeStatus::new(&record, crate::export::JobStatus::Running, 0, None),
        )?;
        *started = Some(record);
    }
    let interrupt = ctx.interrupt;
    let stopped = || interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
    let pool = super::worker_pool(job.threads)?;
    let mut sequence = GameSequence::new(&header);
    let lineup = header.bots.len();
    let per_deal = if header.rotate_seats {
        header.players as u64
    } else {
        1
    };
    // Each bot's sums, and the deal being read (its games and each bot's figures in it):
    // deals are folded as they end, in the log's order.
    let mut sums: Vec<BotSums> = vec![BotSums::default(); lineup];
    let mut open: Vec<DealGrade> = vec![DealGrade::default(); lineup];
    let mut deals_graded = 0u64;
    let mut tally = Tally::new(header.players, per_deal);
    let mut pending: Option<(u64, Vec<Played>)> = None;
    let mut games = 0u64;
    loop {
        let mut batch: Vec<LoggedGame> = Vec::with_capacity(BATCH_GAMES);
        while batch.len() < BATCH_GAMES {
            match reader.next_game()? {
                Some(g) => {
                    sequence.next(&file, &g)?;
                    batch.push(g);
                }
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        let graded: Vec<Result<GameGrade, GradeError>> = pool.install(|| {
            batch
                .par_iter()
                .map_init(
                    || source.judge(),
                    |judge, g| {
                        if stopped() {
                            return Err(GradeError::Interrupted);
                        }
                        let checked = check_game(&file, &header, g)?;
                        grade_game(judge, &header, &checked, per_deal, job, lineup, interrupt)
                    },
                )
                .collect()
        });
        if stopped() {
            return Err(GradeError::Interrupted);
        }
        for g in graded {
            let g = g?;
            games += 1;
            if let Some(hook) = ctx.game_done {
                hook(games);
            }
            if stopped() {
                return Err(GradeError::Interrupted);
            }
            match &mut pending {
                Some((deal, list)) if *deal == g.deal => list.push(g.played),
                _ => {
                    if let Some((_, list)) = pending.take() {
                        add_deal(&mut tally, &list, &file)?;
                        fold_deal(&mut sums, &mut open, per_deal);
                        deals_graded += 1;
                    }
                    pending = Some((g.deal, vec![g.played]));
                }
            }
            for (bot, log) in g.logs.into_iter().enumerate() {
                let d = &mut open[bot];
                d.decisions += log.decisions;
                d.matters += log.matters;
                d.errors += log.errors;
                d.optimal += log.optimal;
                d.loss += log.loss;
                d.stakes += log.stakes;
                for c in log.candidates {
                    keep_worst(&mut sums[bot].worst, c, job.blunders);
                }
            }
        }
    }
    sequence.end(&file, reader.line())?;
    if let Some((_, list)) = pending.take() {
        add_deal(&mut tally, &list, &file)?;
        fold_deal(&mut sums, &mut open, per_deal);
        deals_graded += 1;
    }
    if games == 0 {
        return Err(GradeError::Job(format!(
            "the log {file} holds no games: nothing to grade"
        )));
    }
    let names: Vec<String> = header.bots.iter().map(|b| b.name.clone()).collect();
    let ratings = job.ratings || matches!(job.reference, Reference::Net(_));
    let mut bots: Vec<BotGrade> = header
        .bots
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let spec = BotSpec {
                name: b.name.clone(),
                kind: b.kind.clone(),
                params: Default::default(),
                external: None,
                given: None,
            };
            bot_grade(i, i, &spec, &sums[i], &tally, &names)
        })
        .collect();
    for b in &mut bots {
        if ratings {
            b.rate();
        }
        for x in &mut b.blunders {
            x.viewer = Some(format!(
                "aeroplane replay --log {} --game {} --html game-{}.html, open at #turn={}",
                job.log.display(),
                x.game,
                x.game,
                x.turn
            ));
        }
    }
    // Not one of the header's deals numbers: a log's deals may start anywhere.
    Ok(GradeReport {
        tool: "aeroplane".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: "grade".into(),
        table: job.reference.path().display().to_string(),
        table_checksum: checksum,
        rules: header.rules,
        first_player_win_probability: first_player,
        seed: header.seed,
        deals: deals_graded,
        threshold: job.threshold,
        units: units(Some(&info)),
        interval_method: RATIO_METHOD.into(),
        bots,
        reproduce: vec![format!(
            "aeroplane replay --log {} --check",
            job.log.display()
        )],
        reference: Some(info),
    })
}

/// Checks `job` before anything is written: its threshold, and its log's header (rules and
/// players) against its reference (a table or a net), as the grade itself checks them.
pub fn check_log_job(job: &LogGradeJob) -> Result<(), GradeError> {
    check_threshold(job)?;
    let reader = LogReader::open(&job.log)?;
    judge_of(job, reader.header(), reader.file()).map(|_| ())
}

fn check_threshold(job: &LogGradeJob) -> Result<(), GradeError> {
    if !(job.threshold >= 0.0 && job.threshold < 2.0) {
        return Err(GradeError::Job(format!(
            "threshold {}: give an equity loss from 0 to 2 (e.g. 1e-9)",
            job.threshold
        )));
    }
    Ok(())
}

/// The reference of `job` loaded and checked against the log's `header` (`file` names the
/// log): its source, checksum, first player's win probability and description.
fn judge_of(
    job: &LogGradeJob,
    header: &crate::decision_log::Header,
    file: &str,
) -> Result<(Source, String, f64, ReferenceInfo), GradeError> {
    let file = file.to_string();
    Ok(match &job.reference {
        Reference::Table(path) => {
            let table = Table::load(path)?;
            check_table_rules(path, &table)?;
            if *table.rules() != header.rules || header.players != 2 {
                return Err(GradeError::Job(format!(
                    "the log {file} holds games of {} players under {}; the table {} solves two-player games under other rules: grade a log against a table of its own rules",
                    header.players,
                    if *table.rules() == header.rules {
                        "the table's rules".to_string()
                    } else {
                        "other rules".to_string()
                    },
                    path.display()
                )));
            }
            let checksum = format!("{:016x}", table.checksum());
            let first = (1.0 + table.start_equity()) / 2.0;
            let info = ReferenceInfo {
                kind: "table".into(),
                path: path.display().to_string(),
                ply: None,
                players: 2,
                log: Some(file.clone()),
            };
            (Source::Table(table), checksum, first, info)
        }
        Reference::Net(n) => {
            let (loaded, _) = n.load(Some(header.players))?;
            loaded
                .check_fit(&header.rules, header.players, false)
                .map_err(|e| {
                    GradeError::Job(format!(
                        "the log {file} holds games the net {} was not trained for: {e} (a grade judges every decision by the net's own game: give a net of the log's rules and players)",
                        n.net.display()
                    ))
                })?;
            let info = ReferenceInfo {
                kind: "net".into(),
                path: n.net.display().to_string(),
                ply: Some(n.ply),
                players: header.players,
                log: Some(file.clone()),
            };
            (
                Source::Net(Arc::clone(&loaded), n.ply),
                net::checksum(&loaded),
                net::start_win_probability(&loaded, &header.rules, header.players),
                info,
            )
        }
    })
}

/// Adds each bot's figures of the deal just ended to its sums, and starts the next deal.
fn fold_deal(sums: &mut [BotSums], open: &mut [DealGrade], per_deal: u64) {
    for (s, d) in sums.iter_mut().zip(open.iter_mut()) {
        s.add_deal(d, per_deal);
        *d = DealGrade::default();
    }
}

fn add_deal(tally: &mut Tally, list: &[Played], file: &str) -> Result<(), GradeError> {
    if list.len() as u64 != tally.group_size {
        return Err(GradeError::Job(format!(
            "the log {file} holds {} game(s) of a deal played {} times (seats rotated): a log cut or joined by hand cannot be graded",
            list.len(),
            tally.group_size
        )));
    }
    tally.add_deal(list);
    Ok(())
}

/// Replays a checked game, judging every decision for the bot that made it.
fn grade_game(
    judge: &mut super::Judge,
    header: &crate::decision_log::Header,
    checked: &CheckedGame,
    per_deal: u64,
    job: &LogGradeJob,
    lineup: usize,
    interrupt: Option<&AtomicBool>,
) -> Result<GameGrade, GradeError> {
    let mut logs: Vec<GameLog> = (0..lineup).map(|_| GameLog::default()).collect();
    let mut game = Game::new(header.rules, header.players)
        .map_err(|e| GradeError::Job(format!("the log's game cannot be set up: {e}")))?;
    let mut values = [0.0f64; MAX_MOVES];
    let mut next = checked.decisions.iter();
    let deal = checked.game / per_deal;
    for &roll in &checked.rolls {
        if game.is_over() {
            break;
        }
        let moves = game.legal_moves(roll);
        match moves.len() {
            0 => {
                game.apply(roll, None);
            }
            1 => {
                game.apply(roll, Some(moves[0]));
            }
            n => {
                if interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
                    return Err(GradeError::Interrupted);
                }
                let d = next.next().ok_or_else(|| {
                    GradeError::Job(format!(
                        "game {}: a decision without its logged choice",
                        checked.game
                    ))
                })?;
                let pick = moves
                    .iter()
                    .position(|m| ActionId::of_move(m) == d.action)
                    .ok_or_else(|| {
                        GradeError::Job(format!(
                            "game {}: the logged action {} is not a legal move",
                            checked.game, d.action
                        ))
                    })?;
                let seat = game.to_move().index();
                let bot = checked.bots[seat].map_or(0, usize::from);
                let vals = &mut values[..n];
                judge
                    .values(&game, roll, &moves, vals)
                    .map_err(GradeError::Job)?;
                logs[bot].judge(
                    &Decision {
                        game: &game,
                        roll,
                        moves: &moves,
                        values: vals,
                        pick,
                        game_index: checked.game,
                        deal,
                    },
                    job.threshold,
                    job.blunders,
                );
                game.apply(roll, Some(moves[pick]));
            }
        }
    }
    let mut bot_at_seat = [NO_BOT; 4];
    for (s, b) in checked.bots.iter().enumerate() {
        if let Some(b) = b {
            bot_at_seat[s] = *b;
        }
    }
    Ok(GameGrade {
        deal,
        played: Played {
            record: checked.record,
            bot_at_seat,
        },
        logs,
    })
}

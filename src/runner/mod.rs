//! The tournament runner: plays a [`RunSpec`] in parallel and tallies it.
//!
//! **Architecture invariant:** results depend only on the spec, never on the thread count or the
//! chunk size. Deals are cut into fixed-size chunks; workers take chunks in ascending order from
//! a shared counter, each with its own bots built once ([`BotSpec::build`]) and re-seeded per
//! game ([`Bot::new_game`]); there is no per-thread RNG. Tallies are integers merged exactly in
//! any order, and per-game rows reach the [`GameSink`] in game order: the calling thread puts
//! finished chunks back in order and hands each on as soon as every earlier chunk is done.

mod config;
mod spec;

pub use config::{ConfigError, RunConfigFile};
pub use spec::RunSpec;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use crate::bots::Bot;
use crate::bots::registry::BotSpec;
use crate::engine::game::SetupError;
use crate::stats::{Played, Tally};

/// Deals per chunk unless told otherwise.
pub const DEFAULT_CHUNK_DEALS: u64 = 256;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Zero games asked for.
    #[error("the number of games must be at least 1")]
    NoGames,
    /// The lineup is not 2 to 4 bots.
    #[error(
        "the lineup has {0} bot(s): give one bot per seat, 2, 3 or 4 of them (e.g. greedy,random,random,random)"
    )]
    Players(usize),
    /// Game indices would overflow.
    #[error("first game + games is too large: game indices must fit in 64 bits")]
    TooManyGames,
    /// A chunk size of zero.
    #[error("the chunk size must be at least 1 deal")]
    Chunk,
    /// The game could not be set up.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The engine stopped a game unexpectedly.
    #[error("engine: {0}")]
    Engine(String),
    /// The worker pool could not start.
    #[error("cannot start {threads} worker thread(s): {message}")]
    Pool {
        /// Threads asked for.
        threads: usize,
        /// The reason.
        message: String,
    },
    /// Writing per-game rows failed.
    #[error("writing games: {0}")]
    Sink(#[source] std::io::Error),
    /// A bot failed (a bot program crashed, hung, or answered nonsense) and the run was not
    /// told to recover.
    #[error(
        "{fault}\n  in game {game} (seed {seed}, deal {deal}, rotation {rotation}{}); the run stopped (finished chunks were kept; --recover forfeits such games and goes on)",
        seat.map(|s| format!(", seat {s}")).unwrap_or_default()
    )]
    Bot {
        /// What went wrong.
        fault: Box<crate::bots::BotFault>,
        /// The game index.
        game: u64,
        /// The master seed.
        seed: u64,
        /// The deal.
        deal: u64,
        /// The rotation.
        rotation: u64,
        /// The seat of the failing bot.
        seat: Option<usize>,
    },
}

/// Options of a run beyond [`Exec`] that change what is recorded when something goes wrong.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// A bot that fails forfeits the game in progress (recorded as lost by it, counted in
    /// `forfeits`); its program is restarted and the run goes on. Without it a failing bot
    /// stops the run with [`RunError::Bot`].
    pub recover: bool,
}

impl RunOptions {
    /// Options with `recover` set as given.
    pub fn recover(recover: bool) -> Self {
        RunOptions { recover }
    }
}

/// One game of a run, as written to `games.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// Game index: `deal * games_per_deal + rotation`.
    pub game: u64,
    /// Deal index (the dice and bot seeds).
    pub deal: u64,
    /// Rotation of the lineup, 0 without rotation.
    pub rotation: u64,
    /// The record and who sat where.
    pub played: Played,
}

/// Receives the per-game rows of a run, chunk by chunk, in game order.
pub trait GameSink {
    /// Takes the next rows (they follow the previous call's without a gap).
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()>;

    /// Whether the run should stop now (asked after every chunk written): a sequential test
    /// that has decided. The rows written so far are the same for any thread count; the
    /// returned tally then also holds chunks played ahead, so such a sink keeps its own.
    fn done(&self) -> bool {
        false
    }
}

/// How to execute a run: none of this changes its results.
#[derive(Clone, Copy, Debug)]
pub struct Exec {
    /// Worker threads; 0 for one per core.
    pub threads: usize,
    /// Deals per chunk (the unit of work and of progress).
    pub chunk_deals: u64,
}

impl Default for Exec {
    fn default() -> Self {
        Exec {
            threads: 0,
            chunk_deals: DEFAULT_CHUNK_DEALS,
        }
    }
}

/// Plays the run and returns its tally. `sink`, if any, gets every game's row in game order;
/// `progress` is called with the number of games of each finished chunk (from worker threads).
pub fn run(
    spec: &RunSpec,
    exec: Exec,
    sink: Option<&mut dyn GameSink>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, RunError> {
    run_with(spec, exec, RunOptions::default(), sink, progress)
}

/// [`run`] with [`RunOptions`].
pub fn run_with(
    spec: &RunSpec,
    exec: Exec,
    options: RunOptions,
    sink: Option<&mut dyn GameSink>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, RunError> {
    spec.validate()?;
    if exec.chunk_deals == 0 {
        return Err(RunError::Chunk);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(exec.threads)
        .thread_name(|i| format!("aeroplane-run-{i}"))
        .build()
        .map_err(|e| RunError::Pool {
            threads: exec.threads,
            message: e.to_string(),
        })?;
    let workers = pool.current_num_threads();
    let chunks = spec.deals.div_ceil(exec.chunk_deals);
    let want_rows = sink.is_some();
    // Chunks a worker may run ahead of the oldest one not yet written (bounds memory).
    let ahead = 4 * workers as u64;

    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    // Set with `failure`: workers then drop even the chunk they are in (the run has failed).
    let failed = AtomicBool::new(false);
    let written = (Mutex::new(0u64), Condvar::new());
    let tallies = Mutex::new(Vec::<Tally>::new());
    let failure = Mutex::new(None::<RunError>);
    let (tx, rx) = mpsc::channel::<(u64, Vec<GameRow>)>();
    // Stops every worker, waking those that wait for the writer (under the lock, so no wake-up
    // is lost).
    let halt = |e: RunError| {
        failure.lock().expect("lock").get_or_insert(e);
        failed.store(true, Ordering::Relaxed);
        stop.store(true, Ordering::Relaxed);
        let _guard = written.0.lock().expect("lock");
        written.1.notify_all();
    };
    let halt = &halt;

    pool.in_place_scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop, written, tallies) = (&next, &stop, &written, &tallies);
            let failed = &failed;
            scope.spawn(move |_| {
                let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(BotSpec::build).collect();
                let mut tally = Tally::new(spec.players(), spec.games_per_deal());
                let mut games = [empty_played(); 4];
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    if c >= chunks || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if want_rows {
                        let (lock, cvar) = written;
                        let mut done = lock.lock().expect("lock");
                        while c >= *done + ahead && !stop.load(Ordering::Relaxed) {
                            done = cvar.wait(done).expect("lock");
                        }
                    }
                    let lo = spec.first_deal + c * exec.chunk_deals;
                    let hi = (lo + exec.chunk_deals).min(spec.first_deal + spec.deals);
                    let mut rows = Vec::new();
                    if want_rows {
                        rows.reserve(((hi - lo) * spec.games_per_deal()) as usize);
                    }
                    for deal in lo..hi {
                        if failed.load(Ordering::Relaxed) {
                            return;
                        }
                        let n = match spec::play_deal(spec, deal, &mut bots, &mut games, options) {
                            Ok(n) => n,
                            Err(e) => return halt(e),
                        };
                        tally.add_deal(&games[..n]);
                        if want_rows {
                            rows.extend(games[..n].iter().enumerate().map(|(r, p)| GameRow {
                                game: spec.game_index(deal, r as u64),
                                deal,
                                rotation: r as u64,
                                played: *p,
                            }));
                        }
                    }
                    progress((hi - lo) * spec.games_per_deal());
                    if want_rows && tx.send((c, rows)).is_err() {
                        break;
                    }
                }
                tallies.lock().expect("lock").push(tally);
            });
        }
        drop(tx);
        if let Some(sink) = sink {
            let mut pending = BTreeMap::new();
            let mut next_out = 0u64;
            for (c, rows) in rx.iter() {
                pending.insert(c, rows);
                while let Some(rows) = pending.remove(&next_out) {
                    if let Err(e) = sink.write_games(&rows) {
                        halt(RunError::Sink(e));
                        break;
                    }
                    next_out += 1;
                    if sink.done() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    *written.0.lock().expect("lock") = next_out;
                    written.1.notify_all();
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
        }
    });

    if let Some(e) = failure.into_inner().expect("lock") {
        return Err(e);
    }
    let mut total = Tally::new(spec.players(), spec.games_per_deal());
    for t in tallies.into_inner().expect("lock") {
        total.merge(&t);
    }
    Ok(total)
}

fn empty_played() -> Played {
    Played {
        record: crate::record::GameRecord::default(),
        bot_at_seat: [crate::stats::NO_BOT; 4],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::registry::parse_lineup;
    use crate::engine::rules::Preset;

    fn spec(preset: Preset, bots: &str, first: u64, deals: u64, rotate: bool) -> RunSpec {
        RunSpec {
            rules: preset.rules(),
            lineup: parse_lineup(bots, "bots".as_ref()).unwrap(),
            seed: 11,
            first_deal: first,
            deals,
            rotate_seats: rotate,
        }
    }

    #[derive(Default)]
    struct Rows(Vec<GameRow>);
    impl GameSink for Rows {
        fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
            self.0.extend_from_slice(rows);
            Ok(())
        }
    }

    fn play(s: &RunSpec, threads: usize, chunk: u64) -> (Tally, Vec<GameRow>) {
        let mut rows = Rows::default();
        let exec = Exec {
            threads,
            chunk_deals: chunk,
        };
        let t = run(s, exec, Some(&mut rows), &|_| {}).unwrap();
        (t, rows.0)
    }

    #[test]
    fn results_do_not_depend_on_threads_or_chunks() {
        let s = spec(Preset::Classic, "greedy,random,random", 0, 300, true);
        let base = play(&s, 1, 256);
        for (threads, chunk) in [(2, 7), (3, 1), (2, 256), (1, 13)] {
            assert_eq!(
                play(&s, threads, chunk),
                base,
                "{threads} threads, chunk {chunk}"
            );
        }
        let ids: Vec<u64> = base.1.iter().map(|r| r.game).collect();
        assert_eq!(ids, (0..900).collect::<Vec<_>>());
        let no_rows = run(&s, Exec::default(), None, &|_| {}).unwrap();
        assert_eq!(no_rows, base.0);
    }

    #[test]
    fn two_shards_merge_into_the_whole_run() {
        for rotate in [false, true] {
            let whole = play(
                &spec(
                    Preset::AppFreeGame,
                    "greedy,random,random,random",
                    5,
                    200,
                    rotate,
                ),
                2,
                16,
            );
            let a = play(
                &spec(
                    Preset::AppFreeGame,
                    "greedy,random,random,random",
                    5,
                    77,
                    rotate,
                ),
                1,
                16,
            );
            let b = play(
                &spec(
                    Preset::AppFreeGame,
                    "greedy,random,random,random",
                    82,
                    123,
                    rotate,
                ),
                2,
                5,
            );
            let mut ab = a.0.clone();
            ab.merge(&b.0);
            let mut ba = b.0.clone();
            ba.merge(&a.0);
            assert_eq!(ab, whole.0);
            assert_eq!(ba, whole.0);
            let rows: Vec<GameRow> = a.1.into_iter().chain(b.1).collect();
            assert_eq!(rows, whole.1);
        }
    }

    #[test]
    fn rotation_puts_every_bot_in_every_seat_with_the_same_dice() {
        // Greedy is a pure function of the dice, so with four greedy bots the same seat wins
        // every rotation of a deal, and each lineup entry wins exactly once per deal.
        let s = spec(
            Preset::AppFreeGame,
            "greedy,greedy,greedy,greedy",
            0,
            50,
            true,
        );
        let (t, rows) = play(&s, 2, 3);
        for deal in rows.chunks(4) {
            let winner = deal[0].played.record.winner;
            assert!(deal.iter().all(|r| r.played.record.winner == winner));
            assert!(
                deal.iter()
                    .all(|r| r.played.record.turns == deal[0].played.record.turns)
            );
            for (r, row) in deal.iter().enumerate() {
                assert_eq!(row.rotation, r as u64);
                assert_eq!(row.game, row.deal * 4 + r as u64);
                assert_eq!(row.played.bot_at_seat, s.bot_at_seat(r as u64));
            }
        }
        assert!(t.bots[..4].iter().all(|b| b.games == 200 && b.wins == 50));
        assert!(t.bots[..4].iter().all(|b| b.group_wins_sq == 50));
        assert_eq!(s.bot_at_seat(1), [1, 2, 3, 0]);
        // Two players sit in seats 0 and 2.
        let two = spec(Preset::Chinese, "greedy,random", 0, 10, true);
        assert_eq!(two.bot_at_seat(1), [1, NO, 0, NO]);
        let (t2, _) = play(&two, 1, 4);
        assert_eq!(
            (t2.seats[0].games, t2.seats[2].games, t2.seats[1].games),
            (20, 20, 0)
        );
        assert_eq!((t2.bots[0].games, t2.bots[1].games), (20, 20));
    }

    const NO: u8 = crate::stats::NO_BOT;

    #[test]
    fn rotation_zero_is_the_plain_run() {
        let plain = play(&spec(Preset::Classic, "random,greedy", 0, 40, false), 1, 8).1;
        let rotated = play(&spec(Preset::Classic, "random,greedy", 0, 40, true), 1, 8).1;
        for (p, r) in plain.iter().zip(rotated.iter().step_by(2)) {
            assert_eq!(p.played, r.played);
        }
    }

    #[test]
    fn bad_specs_are_refused() {
        let mut s = spec(Preset::AppFreeGame, "greedy,random", 0, 0, false);
        assert!(matches!(s.validate(), Err(RunError::NoGames)));
        s.deals = 1;
        s.lineup.truncate(1);
        assert!(matches!(s.validate(), Err(RunError::Players(1))));
        let mut s = spec(Preset::AppFreeGame, "greedy,random", u64::MAX, 2, false);
        assert!(matches!(s.validate(), Err(RunError::TooManyGames)));
        s.first_deal = 0;
        let exec = Exec {
            threads: 1,
            chunk_deals: 0,
        };
        assert!(matches!(run(&s, exec, None, &|_| {}), Err(RunError::Chunk)));
    }

    struct Failing;
    impl GameSink for Failing {
        fn write_games(&mut self, _: &[GameRow]) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
    }

    /// Stops once it has `limit` rows.
    struct Until(Vec<GameRow>, usize);
    impl GameSink for Until {
        fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
            self.0.extend_from_slice(rows);
            Ok(())
        }
        fn done(&self) -> bool {
            self.0.len() >= self.1
        }
    }

    #[test]
    fn a_done_sink_stops_after_the_same_chunks_for_any_thread_count() {
        let s = spec(Preset::AppFreeGame, "greedy,random", 0, 2000, true);
        let mut seen = Vec::new();
        for threads in [1, 2, 3] {
            let mut sink = Until(Vec::new(), 50);
            let exec = Exec {
                threads,
                chunk_deals: 8,
            };
            run(&s, exec, Some(&mut sink), &|_| {}).unwrap();
            // 50 rows = 25 deals: the fourth chunk of 8 deals (64 rows) is the last written.
            assert_eq!(sink.0.len(), 64);
            seen.push(sink.0);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn a_failing_sink_stops_the_run_with_its_error() {
        let s = spec(Preset::AppFreeGame, "random,random", 0, 5000, false);
        let exec = Exec {
            threads: 2,
            chunk_deals: 10,
        };
        let e = run(&s, exec, Some(&mut Failing), &|_| {}).unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
    }
}

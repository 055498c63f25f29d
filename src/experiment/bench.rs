//! `bench`: the published workloads (fixed rules, lineups and seed), with a digest of every
//! game's outcome. A change meant to alter nothing must leave every digest unchanged.

use crate::config::{ProfileError, parse_lineup};
use crate::export::write_game_row;
use crate::runner::{self, Exec, GameRow, GameSink, PlayOptions, RunError, RunOptions, RunSpec};
use aeroplane_core::Preset;
use aeroplane_core::{Bot, Game};

/// The bench's master seed.
pub const BENCH_SEED: u64 = 20_260_101;

/// The workloads: (rules, lineup).
pub const WORKLOADS: [(Preset, &str); 4] = [
    (Preset::AppFreeGame, "greedy,greedy,greedy,greedy"),
    (Preset::AppFreeGame, "random,random,random,random"),
    (Preset::Classic, "greedy,random,greedy,random"),
    (Preset::Chinese, "random,greedy,random,greedy"),
];

/// A short name for each of [`WORKLOADS`], in the same order (`bench --workload`).
pub const WORKLOAD_NAMES: [&str; 4] = [
    "appfreegame-greedy",
    "appfreegame-random",
    "classic-mixed",
    "chinese-mixed",
];

/// FNV-1a over bytes: the digest of games.csv rows and of digests.
#[derive(Clone, Debug)]
pub struct Digest {
    hash: u64,
    line: Vec<u8>,
}

impl Default for Digest {
    fn default() -> Self {
        Digest::new()
    }
}

impl Digest {
    /// The empty digest.
    pub fn new() -> Self {
        Digest {
            hash: 0xcbf2_9ce4_8422_2325,
            line: Vec::with_capacity(256),
        }
    }

    /// Adds bytes.
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Adds a game's record row (games.csv's columns through `unfinished`, not the names).
    pub fn add(&mut self, row: &GameRow) {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        write_game_row(&mut line, row).expect("writing to memory");
        self.add_bytes(&line);
        self.line = line;
    }

    /// The digest so far.
    pub fn value(&self) -> u64 {
        self.hash
    }
}

impl GameSink for Digest {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        rows.iter().for_each(|r| self.add(r));
        Ok(())
    }
}

/// The run of workload `(preset, lineup)` with `games` games.
pub fn workload(preset: Preset, lineup: &str, games: u64) -> Result<RunSpec, ProfileError> {
    Ok(RunSpec {
        rules: preset.rules(),
        lineup: parse_lineup(lineup, "bots".as_ref())?,
        seed: BENCH_SEED,
        first_deal: 0,
        deals: games,
        rotate_seats: false,
    })
}

/// Plays `spec` through the runner and returns the digest of its games.
pub fn digest_run(spec: &RunSpec, exec: Exec) -> Result<u64, RunError> {
    let mut digest = Digest::new();
    let tally = runner::run(spec, RunOptions::new(exec), Some(&mut digest))?;
    debug_assert_eq!(tally.games, spec.total_games());
    Ok(digest.value())
}

/// Plays `spec` through the runner as `aeroplane run` does (tallies only, no per-game rows)
/// and returns the number of games played.
pub fn tally_run(spec: &RunSpec, exec: Exec) -> Result<u64, RunError> {
    let tally = runner::run(spec, RunOptions::new(exec), None)?;
    Ok(tally.games)
}

/// The bare loop: the same games played one after another on this thread, without the runner
/// (its digest must equal the runner's).
pub fn digest_bare(spec: &RunSpec) -> Result<u64, RunError> {
    let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(|s| s.build()).collect();
    let start = Game::new(spec.rules, spec.players())?;
    let mut digest = Digest::new();
    for game in
        spec.game_index(spec.first_deal, 0)..spec.game_index(spec.first_deal + spec.deals, 0)
    {
        let (deal, rotation) = spec.locate(game);
        let played = spec.play(
            game,
            &mut (),
            PlayOptions {
                start: Some(&start),
                bots: Some(&mut bots),
                ..PlayOptions::default()
            },
        )?;
        digest.add(&GameRow {
            game,
            deal,
            rotation,
            played,
            forfeit_cause: None,
        });
    }
    Ok(digest.value())
}

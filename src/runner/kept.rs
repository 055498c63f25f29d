//! Games finished before a stop, kept so that a resumed job does not play them again.
//!
//! A job's checkpoint keeps whole units. When a job stops (a signal), the units in flight have
//! finished some of their games, and units finished out of order wait for earlier ones: the
//! executor hands those games back as [`FinishedGame`]s, the job keeps them beside its
//! checkpoint, and a resume gives them to the executor again ([`KeptGames`]), which uses them in
//! place of playing those games. A game is a pure function of the run and its index, so a kept
//! game is exactly what playing it again would give: results stay byte-identical.

use std::collections::BTreeMap;
use std::ops::Range;

use super::ForfeitNote;
use crate::stats::Played;

/// One finished game of a unit that was not folded when the job stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    /// Index of its part (run, sweep variant, league table) in the job.
    pub part: usize,
    /// Its game index in the part.
    pub game: u64,
    /// What it gave.
    pub played: Played,
    /// Its forfeit, in runs that recover from failing bots.
    pub forfeit: Option<ForfeitNote>,
    /// Its decision-log bytes (empty unless the job logs its decisions).
    pub log: Vec<u8>,
}

/// Finished games by (part, game index).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeptGames {
    games: BTreeMap<(usize, u64), FinishedGame>,
}

impl KeptGames {
    /// No games.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of games kept.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether none are kept.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The kept game `game` of `part`, if any.
    pub fn get(&self, part: usize, game: u64) -> Option<&FinishedGame> {
        if self.games.is_empty() {
            return None;
        }
        self.games.get(&(part, game))
    }

    /// Keeps a game (replacing one kept under the same index).
    pub fn insert(&mut self, game: FinishedGame) {
        self.games.insert((game.part, game.game), game);
    }

    /// Whether any game of `part` with an index in `games` is kept.
    pub fn any_in(&self, part: usize, games: Range<u64>) -> bool {
        !self.games.is_empty()
            && self
                .games
                .range((part, games.start)..(part, games.end))
                .next()
                .is_some()
    }

    /// Drops the games of `part` with an index in `games` (their unit was folded).
    pub fn remove_range(&mut self, part: usize, games: Range<u64>) {
        let keys: Vec<_> = self
            .games
            .range((part, games.start)..(part, games.end))
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            self.games.remove(&k);
        }
    }

    /// Drops every game `keep` says no to.
    pub fn retain(&mut self, mut keep: impl FnMut(&FinishedGame) -> bool) {
        self.games.retain(|_, g| keep(g));
    }

    /// The games, by part and game index.
    pub fn iter(&self) -> impl Iterator<Item = &FinishedGame> {
        self.games.values()
    }
}

impl FromIterator<FinishedGame> for KeptGames {
    fn from_iter<I: IntoIterator<Item = FinishedGame>>(iter: I) -> Self {
        let mut k = KeptGames::new();
        for g in iter {
            k.insert(g);
        }
        k
    }
}

/// The games of a unit played so far, in game order, with where each one's decision-log bytes
/// end: what a worker hands back for a unit it did not finish, and what a finished unit that
/// cannot be folded yet turns into at a stop.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct UnitGames {
    /// (game index, what it gave, end of its bytes in the unit's log), in game order.
    pub games: Vec<(u64, Played, usize)>,
}

impl UnitGames {
    /// The games as [`FinishedGame`]s of `part`, their forfeits taken from `forfeits` and
    /// their decision-log bytes cut from `log`.
    pub fn finished(&self, part: usize, forfeits: &[ForfeitNote], log: &[u8]) -> Vec<FinishedGame> {
        let mut start = 0;
        self.games
            .iter()
            .map(|&(game, played, end)| {
                let bytes = log.get(start..end).unwrap_or_default().to_vec();
                start = end;
                FinishedGame {
                    part,
                    game,
                    played,
                    forfeit: forfeits.iter().find(|f| f.game == game).cloned(),
                    log: bytes,
                }
            })
            .collect()
    }
}

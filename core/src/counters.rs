//! The event counters RULES.md defines, listed once: [`Counter`] names them (in the order of
//! `games.csv`), [`Counters`] holds one value per counter in a fixed array.
//!
//! A game record counts in `Counters<u32>`, a run's tally sums into `Counters<u64>`; the CSV
//! columns, the replay line and the record JSON all iterate [`Counter::ALL`].

use std::hash::{Hash, Hasher};
use std::ops::{AddAssign, Index};

/// One event counter of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Counter {
    /// Turns of all players together, the last one included.
    Turns,
    /// Every die roll, passes and a punished third six included.
    Rolls,
    /// Chosen moves, launches included.
    Moves,
    /// Launches.
    Launches,
    /// Opponent planes sent to a hangar by a move.
    Captures,
    /// Planes sent back by the three-sixes penalty.
    Penalties,
    /// Moves that took a jump.
    Jumps,
    /// Moves that took the flight.
    Flights,
    /// Moves that bounced at the centre.
    Bounces,
    /// Rolls with no legal move.
    Passes,
}

/// How many counters there are.
const N: usize = 10;

impl Counter {
    /// Every counter, in column order (`games.csv`, the record JSON, the replay line).
    pub const ALL: [Counter; N] = [
        Counter::Turns,
        Counter::Rolls,
        Counter::Moves,
        Counter::Launches,
        Counter::Captures,
        Counter::Penalties,
        Counter::Jumps,
        Counter::Flights,
        Counter::Bounces,
        Counter::Passes,
    ];

    /// The events: every counter but the game lengths (turns, rolls), in column order. These
    /// are the rows of `events.csv` and the `per game:` line.
    pub const EVENTS: &'static [Counter] = Counter::ALL.split_at(2).1;

    /// The counter's name: its column in `games.csv`, its key in the record JSON, its row in
    /// `events.csv`.
    pub const fn name(self) -> &'static str {
        match self {
            Counter::Turns => "turns",
            Counter::Rolls => "rolls",
            Counter::Moves => "moves",
            Counter::Launches => "launches",
            Counter::Captures => "captures",
            Counter::Penalties => "penalties",
            Counter::Jumps => "jumps",
            Counter::Flights => "flights",
            Counter::Bounces => "bounces",
            Counter::Passes => "passes",
        }
    }

    /// The counter's position in [`Counter::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// One value per [`Counter`]: a fixed array, `Copy`, no heap. `Counters<u32>` (the default) is a
/// game's count, `Counters<u64>` a run's totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters<T = u32>([T; N]);

impl<T: Copy> Counters<T> {
    /// The value of `counter`.
    #[inline]
    pub fn get(&self, counter: Counter) -> T {
        self.0[counter.index()]
    }

    /// Every (counter, value) in column order.
    pub fn iter(&self) -> impl Iterator<Item = (Counter, T)> + '_ {
        Counter::ALL.into_iter().map(|c| (c, self.get(c)))
    }
}

impl<T: Copy + AddAssign> Counters<T> {
    /// Adds `n` to `counter`.
    #[inline(always)]
    pub fn add(&mut self, counter: Counter, n: T) {
        self.0[counter.index()] += n;
    }
}

impl Counters<u64> {
    /// Adds every counter of one game.
    #[inline]
    pub fn add_game(&mut self, game: &Counters<u32>) {
        for (a, &b) in self.0.iter_mut().zip(&game.0) {
            *a += u64::from(b);
        }
    }

    /// Adds every counter of another total.
    pub fn merge(&mut self, other: &Counters<u64>) {
        for (a, &b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }
}

impl<T> Index<Counter> for Counters<T> {
    type Output = T;
    #[inline]
    fn index(&self, counter: Counter) -> &T {
        &self.0[counter.index()]
    }
}

impl<T: Hash> Hash for Counters<T> {
    /// Hashes the values one by one, as separate integer fields would.
    fn hash<H: Hasher>(&self, state: &mut H) {
        for v in &self.0 {
            v.hash(state);
        }
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for Counters<T> {
    /// A map from [`Counter::name`] to value, in column order; `#[serde(flatten)]` it into a
    /// record to get one field per counter.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(N))?;
        for (c, v) in Counter::ALL.iter().zip(&self.0) {
            map.serialize_entry(c.name(), v)?;
        }
        map.end()
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de> + Copy + Default> serde::Deserialize<'de> for Counters<T> {
    /// The map `Serialize` writes: every counter's name, once.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let map = std::collections::BTreeMap::<String, T>::deserialize(d)?;
        let mut out = Counters::<T>::default();
        for c in Counter::ALL {
            out.0[c.index()] = *map
                .get(c.name())
                .ok_or_else(|| D::Error::custom(format!("missing counter `{}`", c.name())))?;
        }
        if map.len() != N {
            return Err(D::Error::custom("unknown counters"));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_order_are_the_games_csv_columns() {
        let names: Vec<&str> = Counter::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(
            names.join(","),
            "turns,rolls,moves,launches,captures,penalties,jumps,flights,bounces,passes"
        );
        for (i, c) in Counter::ALL.iter().enumerate() {
            assert_eq!(c.index(), i, "{c:?}");
        }
        let events: Vec<&str> = Counter::EVENTS.iter().map(|c| c.name()).collect();
        assert_eq!(
            events.join(","),
            "moves,launches,captures,penalties,jumps,flights,bounces,passes"
        );
    }

    #[test]
    fn add_get_and_sum() {
        let mut game = Counters::<u32>::default();
        game.add(Counter::Captures, 3);
        game.add(Counter::Captures, 2);
        game.add(Counter::Passes, 1);
        assert_eq!((game.get(Counter::Captures), game[Counter::Passes]), (5, 1));
        assert_eq!(game.get(Counter::Turns), 0);
        let mut total = Counters::<u64>::default();
        total.add_game(&game);
        total.add_game(&game);
        let mut other = Counters::<u64>::default();
        other.add(Counter::Turns, u64::from(u32::MAX) + 1);
        total.merge(&other);
        let values: Vec<(Counter, u64)> = total.iter().filter(|e| e.1 != 0).collect();
        assert_eq!(
            values,
            [
                (Counter::Turns, 1 << 32),
                (Counter::Captures, 10),
                (Counter::Passes, 2)
            ]
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serialises_as_named_fields_in_column_order() {
        let mut c = Counters::<u32>::default();
        c.add(Counter::Rolls, 7);
        c.add(Counter::Bounces, 1);
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"turns":0,"rolls":7,"moves":0,"launches":0,"captures":0,"penalties":0,"jumps":0,"flights":0,"bounces":1,"passes":0}"#
        );
    }

    #[test]
    fn hashes_like_separate_fields() {
        use std::collections::hash_map::DefaultHasher;
        let mut c = Counters::<u32>::default();
        c.add(Counter::Moves, 9);
        let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
        c.hash(&mut a);
        for (_, v) in c.iter() {
            v.hash(&mut b);
        }
        assert_eq!(a.finish(), b.finish());
    }
}

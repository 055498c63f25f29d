//! Dice sources and the seeding scheme that makes every game reproducible from (seed, index).
//!
//! Game `i` of a run with master seed `S` draws seat `j`'s dice from its own generator,
//! `Pcg32::new(mix(S, i, j), mix(S, i, j ^ STREAM_KEY))`, where [`mix`] chains SplitMix64. So the
//! n-th roll of seat j in game i depends only on (S, i, j, n). Bots get separate streams
//! ([`bot_stream`]) so that their randomness never touches the dice.

use std::fmt;

use rand::Rng;
use rand_pcg::Pcg32;

use crate::board::Seat;

/// The SplitMix64 finaliser: a bijective, well-mixing map of 64-bit words.
#[inline]
pub const fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mixes the master seed, a game index and a stream number into one 64-bit word.
#[inline]
pub const fn mix(seed: u64, game: u64, stream: u64) -> u64 {
    splitmix64(splitmix64(splitmix64(seed) ^ game) ^ stream)
}

const STREAM_KEY: u64 = 0xA5A5_5A5A_C3C3_3C3C;
/// Stream numbers of bots' own generators start here (dice streams are 0..4).
const BOT_STREAM_BASE: u64 = 16;

/// A fresh generator for stream `stream` of game `game` under master seed `seed`.
pub fn stream(seed: u64, game: u64, stream: u64) -> Pcg32 {
    Pcg32::new(
        mix(seed, game, stream),
        mix(seed, game, stream ^ STREAM_KEY),
    )
}

/// The seed a bot in `seat` receives for game `game`: independent of every dice stream.
pub fn bot_stream(seed: u64, game: u64, seat: Seat) -> u64 {
    mix(seed, game, BOT_STREAM_BASE + seat.index() as u64)
}

/// A uniform integer in `0..n` (n > 0) by Lemire's multiply-and-reject method; portable and
/// exactly specified, so the same generator gives the same values on any machine.
#[inline]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// A source of die rolls for the seat about to roll. `None` means the dice ran out.
pub trait Dice {
    /// The next roll (1..=6) for `seat`.
    fn roll(&mut self, seat: Seat) -> Option<u8>;
}

/// Seeded dice: one independent stream per seat, as described in the module docs.
#[derive(Clone, Debug)]
pub struct SeededDice {
    seats: [Pcg32; 4],
}

impl SeededDice {
    /// The dice of game `game` under master seed `seed`.
    pub fn new(seed: u64, game: u64) -> Self {
        SeededDice {
            seats: std::array::from_fn(|j| stream(seed, game, j as u64)),
        }
    }
}

impl Dice for SeededDice {
    #[inline]
    fn roll(&mut self, seat: Seat) -> Option<u8> {
        Some(below(&mut self.seats[seat.index()], 6) as u8 + 1)
    }
}

/// Scripted dice: exactly the given rolls in order, whoever rolls.
#[derive(Clone, Debug, Default)]
pub struct ScriptedDice {
    rolls: Vec<u8>,
    next: usize,
}

impl ScriptedDice {
    /// Dice that yield `rolls` in order, then run out.
    pub fn new(rolls: Vec<u8>) -> Self {
        ScriptedDice { rolls, next: 0 }
    }
    /// How many rolls have been used.
    pub fn used(&self) -> usize {
        self.next
    }
    /// How many rolls are left.
    pub fn remaining(&self) -> usize {
        self.rolls.len() - self.next
    }
}

impl Dice for ScriptedDice {
    fn roll(&mut self, _seat: Seat) -> Option<u8> {
        let r = self.rolls.get(self.next).copied();
        if r.is_some() {
            self.next += 1;
        }
        r
    }
}

/// The most rolls a dice list may hold: far more than any game uses (a game of the presets
/// takes a few hundred), so that an endless or mistaken list is refused in bounded memory.
pub const MAX_DICE_ROLLS: usize = 10_000_000;

/// The longest token read from a dice list before it is refused (a die face is one digit).
const MAX_TOKEN: usize = 32;

/// Why a dice list could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiceError {
    /// A token that is not a die face.
    BadValue {
        /// The token's start, quoted safely (at most 12 characters, then `…`).
        token: String,
        /// Its position in the list, from 1.
        position: usize,
    },
    /// More than [`MAX_DICE_ROLLS`] rolls.
    TooMany,
    /// The source could not be read (the reader's message).
    Read(String),
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceError::BadValue { token, position } => write!(
                f,
                "bad die value `{token}` at position {position}: each roll must be an integer from 1 to 6"
            ),
            DiceError::TooMany => write!(
                f,
                "more than {MAX_DICE_ROLLS} rolls: a dice list holds at most that many"
            ),
            DiceError::Read(message) => write!(f, "cannot read the dice: {message}"),
        }
    }
}

impl std::error::Error for DiceError {}

/// Reads a dice list (die faces separated by commas and/or ASCII white space) in pieces, holding
/// no more than the rolls: feed it bytes with [`DiceParser::push`], then [`DiceParser::finish`].
/// A bad token is refused after at most 32 bytes, a list at [`MAX_DICE_ROLLS`] rolls.
#[derive(Clone, Debug, Default)]
pub struct DiceParser {
    rolls: Vec<u8>,
    token: Vec<u8>,
    token_len: usize,
}

impl DiceParser {
    /// Reads the next bytes of the list.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), DiceError> {
        for &b in bytes {
            if b == b',' || b.is_ascii_whitespace() {
                self.end_token()?;
            } else {
                if self.token.len() < MAX_TOKEN {
                    self.token.push(b);
                }
                self.token_len += 1;
                if self.token_len > MAX_TOKEN {
                    // Refuse now: a token this long is no die face, and may never end.
                    return self.end_token();
                }
            }
        }
        Ok(())
    }

    /// Ends the list and gives its rolls.
    pub fn finish(mut self) -> Result<Vec<u8>, DiceError> {
        self.end_token()?;
        Ok(self.rolls)
    }

    fn end_token(&mut self) -> Result<(), DiceError> {
        if self.token_len == 0 {
            return Ok(());
        }
        match self.token.as_slice() {
            [d @ b'1'..=b'6'] if self.token_len == 1 => {
                if self.rolls.len() == MAX_DICE_ROLLS {
                    return Err(DiceError::TooMany);
                }
                self.rolls.push(d - b'0');
                self.token.clear();
                self.token_len = 0;
                Ok(())
            }
            _ => {
                const SHOWN: usize = 12;
                let cut = self.token.len().min(SHOWN);
                let shown = crate::excerpt::excerpt(&String::from_utf8_lossy(&self.token[..cut]));
                let more = if self.token_len > cut { "…" } else { "" };
                Err(DiceError::BadValue {
                    token: format!("{shown}{more}"),
                    position: self.rolls.len() + 1,
                })
            }
        }
    }
}

/// Parses a dice list: die faces separated by commas and/or white space; at most
/// [`MAX_DICE_ROLLS`] of them.
pub fn parse_dice(text: &str) -> Result<Vec<u8>, DiceError> {
    let mut parser = DiceParser::default();
    parser.push(text.as_bytes())?;
    parser.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_covers_all_faces() {
        let mut rng = stream(1, 2, 3);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[below(&mut rng, 6) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    #[test]
    fn seat_streams_are_independent_of_each_other() {
        let mut a = SeededDice::new(7, 0);
        let mut b = SeededDice::new(7, 0);
        let first: Vec<u8> = (0..20).map(|_| a.roll(Seat::ALL[2]).unwrap()).collect();
        // Rolling seat 0 in between must not change what seat 2 sees.
        let second: Vec<u8> = (0..20)
            .map(|_| {
                b.roll(Seat::ALL[0]);
                b.roll(Seat::ALL[2]).unwrap()
            })
            .collect();
        assert_eq!(first, second);
    }

    #[test]
    fn parse_dice_accepts_commas_and_spaces_and_rejects_bad_faces() {
        assert_eq!(parse_dice("6, 2 5\n1,,3").unwrap(), vec![6, 2, 5, 1, 3]);
        assert!(
            parse_dice("6,7")
                .unwrap_err()
                .to_string()
                .contains("`7` at position 2")
        );
        assert!(parse_dice("x").is_err());
        assert!(parse_dice("0").is_err());
        assert_eq!(
            parse_dice("1 +1").unwrap_err().to_string(),
            "bad die value `+1` at position 2: each roll must be an integer from 1 to 6"
        );
        // Unicode white space is not a separator, and bad bytes are quoted safely.
        assert!(parse_dice("1\u{a0}2").is_err());
        let e = parse_dice("6 \x1b[2J").unwrap_err().to_string();
        assert!(
            e.starts_with("bad die value `\\u{1b}[2J` at position 2"),
            "{e}"
        );
    }

    #[test]
    fn endless_and_huge_dice_lists_stop_early() {
        // An endless token is refused after a few bytes.
        let mut p = DiceParser::default();
        let zeros = [0u8; 4096];
        let e = (0..1000).find_map(|_| p.push(&zeros).err()).unwrap();
        assert!(matches!(e, DiceError::BadValue { position: 1, .. }), "{e}");
        assert!(e.to_string().len() < 200, "{e}");
        // An endless list of valid faces stops at the cap.
        let mut p = DiceParser::default();
        let faces = b"1 2 3 4 5 6 ".repeat(1000);
        let e = (0..MAX_DICE_ROLLS)
            .find_map(|_| p.push(&faces).err())
            .unwrap();
        assert_eq!(e, DiceError::TooMany);
    }
}

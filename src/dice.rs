//! Dice sources and the seeding scheme that makes every game reproducible from (seed, index).
//!
//! Game `i` of a run with master seed `S` draws seat `j`'s dice from its own generator,
//! `Pcg32::new(mix(S, i, j), mix(S, i, j ^ STREAM_KEY))`, where [`mix`] chains SplitMix64. So the
//! n-th roll of seat j in game i depends only on (S, i, j, n). Bots get separate streams
//! ([`bot_stream`]) so that their randomness never touches the dice.

use rand::Rng;
use rand_pcg::Pcg32;

use crate::engine::board::Seat;

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
/// takes a few hundred), so that an endless or mistaken file is refused in bounded memory.
pub const MAX_DICE_ROLLS: usize = 10_000_000;

/// The longest token read from a dice list before it is refused (a die face is one digit).
const MAX_TOKEN: usize = 32;

/// Parses a dice list: die faces separated by commas and/or white space; at most
/// [`MAX_DICE_ROLLS`] of them.
pub fn parse_dice(text: &str) -> Result<Vec<u8>, String> {
    read_dice(text.as_bytes())
}

/// Reads a dice list (as [`parse_dice`]) from a stream without holding more than the rolls:
/// an endless stream of faces stops at [`MAX_DICE_ROLLS`], one of anything else at its first
/// bad token.
pub fn read_dice(reader: impl std::io::Read) -> Result<Vec<u8>, String> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(reader);
    let mut rolls = Vec::new();
    let mut token: Vec<u8> = Vec::with_capacity(MAX_TOKEN);
    let mut token_len = 0usize;
    let finish = |token: &mut Vec<u8>, len: usize, rolls: &mut Vec<u8>| -> Result<(), String> {
        if len == 0 {
            return Ok(());
        }
        match token.as_slice() {
            [d @ b'1'..=b'6'] if len == 1 => {
                if rolls.len() == MAX_DICE_ROLLS {
                    return Err(format!(
                        "more than {MAX_DICE_ROLLS} rolls: a dice list holds at most that many"
                    ));
                }
                rolls.push(d - b'0');
                token.clear();
                Ok(())
            }
            _ => {
                const SHOWN: usize = 12;
                let cut = token.len().min(SHOWN);
                let shown = crate::excerpt::excerpt(&String::from_utf8_lossy(&token[..cut]));
                let more = if len > cut { "…" } else { "" };
                Err(format!(
                    "bad die value `{shown}{more}` at position {}: each roll must be an integer from 1 to 6",
                    rolls.len() + 1
                ))
            }
        }
    };
    loop {
        let buf = reader.fill_buf().map_err(|e| e.to_string())?;
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        for &b in buf {
            if b == b',' || b.is_ascii_whitespace() {
                finish(&mut token, token_len, &mut rolls)?;
                token_len = 0;
            } else {
                if token.len() < MAX_TOKEN {
                    token.push(b);
                }
                token_len += 1;
                if token_len > MAX_TOKEN {
                    // Refuse now: a token this long is no die face, and may never end.
                    return finish(&mut token, token_len, &mut rolls).map(|_| Vec::new());
                }
            }
        }
        reader.consume(n);
    }
    finish(&mut token, token_len, &mut rolls)?;
    Ok(rolls)
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
        assert!(parse_dice("6,7").unwrap_err().contains("`7` at position 2"));
        assert!(parse_dice("x").is_err());
        assert!(parse_dice("0").is_err());
        assert_eq!(
            parse_dice("1 +1").unwrap_err(),
            "bad die value `+1` at position 2: each roll must be an integer from 1 to 6"
        );
        // Unicode white space is not a separator, and bad bytes are quoted safely.
        assert!(parse_dice("1\u{a0}2").is_err());
        let e = read_dice(&b"6 \x1b[2J"[..]).unwrap_err();
        assert!(
            e.starts_with("bad die value `\\u{1b}[2J` at position 2"),
            "{e}"
        );
    }

    #[test]
    fn endless_and_huge_dice_streams_stop_early() {
        // An endless token (a device of zero bytes) is refused after a few bytes.
        let e = read_dice(std::io::repeat(0)).unwrap_err();
        assert!(e.contains("at position 1"), "{e}");
        assert!(e.len() < 200, "{e}");
        // An endless stream of valid faces stops at the cap.
        let endless = CycleFaces::default();
        let e = read_dice(endless).unwrap_err();
        assert_eq!(
            e,
            format!("more than {MAX_DICE_ROLLS} rolls: a dice list holds at most that many")
        );
    }

    /// `1 2 3 4 5 6 1 2 ...` for ever.
    #[derive(Default)]
    struct CycleFaces(usize);

    impl std::io::Read for CycleFaces {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for b in buf.iter_mut() {
                *b = if self.0 % 2 == 1 {
                    b' '
                } else {
                    b'1' + (self.0 / 2 % 6) as u8
                };
                self.0 += 1;
            }
            Ok(buf.len())
        }
    }
}

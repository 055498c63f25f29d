//! The position notation: one line of text for a [`Setup`] (and so for a [`Game`]), like chess's
//! FEN. Eight fields separated by single spaces:
//!
//! ```text
//! h,h,12,57/-/0,3,h,h/- 2 6 1 0 0 - 17
//! ```
//!
//! 1. the planes, seat 0 first, seats separated by `/`: `-` for a seat not in play, else the
//!    steps of its planes in plane order, comma-separated, `h` for the hangar (as many as the
//!    rules' `planes`);
//! 2. the seat to move, `0`..`3`;
//! 3. the roll waiting for a decision, `1`..`6`, or `-` (a chance node: the die is to be rolled);
//! 4. the sixes rolled in a row in this turn;
//! 5. the planes moved earlier in this turn, as plane digits (`02`), or `-`;
//! 6. the planes of the latest move of this turn, likewise;
//! 7. the finishing order, seats by rank comma-separated (`2,0`), or `-`;
//! 8. the turns begun so far.
//!
//! `Display` writes it and `FromStr` reads it back into a [`Setup`]; [`Game::from_notation`]
//! checks it against the rules.

use std::fmt;
use std::str::FromStr;

use crate::board::{HANGAR, PLANES, Seat};
use crate::game::Game;
use crate::rules::Rules;
use crate::setup::Setup;
use crate::setup_error::SetupError;

/// The longest position text read (a real one is under 80 characters).
const MAX_NOTATION: usize = 256;

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let in_play = Seat::in_play(usize::from(self.players));
        for seat in Seat::ALL {
            if seat.index() > 0 {
                f.write_str("/")?;
            }
            if !in_play.contains(&seat) {
                f.write_str("-")?;
                continue;
            }
            let planes = usize::from(self.planes).min(PLANES);
            for (i, &s) in self.steps[seat.index()][..planes].iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                if s == HANGAR {
                    f.write_str("h")?;
                } else {
                    write!(f, "{s}")?;
                }
            }
        }
        write!(f, " {} ", self.to_move.index())?;
        match self.roll {
            Some(r) => write!(f, "{r}")?,
            None => f.write_str("-")?,
        }
        write!(f, " {} ", self.sixes)?;
        write_planes(f, self.moved_this_turn)?;
        f.write_str(" ")?;
        write_planes(f, self.moved_last)?;
        f.write_str(" ")?;
        let mut order: Vec<(u8, usize)> = (0..4)
            .filter(|&s| self.ranks[s] != 0)
            .map(|s| (self.ranks[s], s))
            .collect();
        order.sort_unstable();
        if order.is_empty() {
            f.write_str("-")?;
        }
        for (k, (_, seat)) in order.iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            write!(f, "{seat}")?;
        }
        write!(f, " {}", self.turns)
    }
}

fn write_planes(f: &mut fmt::Formatter<'_>, set: u8) -> fmt::Result {
    if set == 0 {
        return f.write_str("-");
    }
    for p in 0..8 {
        if set & (1 << p) != 0 {
            write!(f, "{p}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Game {
    /// The position notation (see [`crate::notation`](self)).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Setup::from(self).fmt(f)
    }
}

impl Game {
    /// Reads a position in the notation and checks it against `rules`.
    pub fn from_notation(rules: Rules, text: &str) -> Result<Game, SetupError> {
        text.parse::<Setup>()?.into_game(rules)
    }
}

fn bad(field: &'static str, why: String) -> SetupError {
    SetupError::Notation { field, why }
}

fn quote(text: &str) -> String {
    format!("`{}`", crate::excerpt::excerpt(text))
}

impl FromStr for Setup {
    type Err = SetupError;

    fn from_str(text: &str) -> Result<Setup, SetupError> {
        if text.len() > MAX_NOTATION {
            return Err(bad(
                "text",
                format!("{} bytes; a position is at most {MAX_NOTATION}", text.len()),
            ));
        }
        let fields: Vec<&str> = text.trim().split(' ').collect();
        const NAMES: [&str; 8] = [
            "planes",
            "to_move",
            "roll",
            "sixes",
            "moved_this_turn",
            "moved_last",
            "finishing order",
            "turns",
        ];
        if fields.len() != NAMES.len() {
            return Err(bad(
                "text",
                format!(
                    "{} has {} space-separated fields; a position has 8: {}",
                    quote(text),
                    fields.len(),
                    NAMES.join(", ")
                ),
            ));
        }
        let (steps, players, planes) = parse_seats(fields[0])?;
        let to_move = match fields[1].as_bytes() {
            [d @ b'0'..=b'3'] => Seat::ALL[usize::from(d - b'0')],
            _ => {
                return Err(bad(
                    "to_move",
                    format!("{} is not a seat 0..3", quote(fields[1])),
                ));
            }
        };
        let roll = match fields[2] {
            "-" => None,
            r => match r.as_bytes() {
                [d @ b'1'..=b'6'] => Some(d - b'0'),
                _ => {
                    return Err(bad(
                        "roll",
                        format!("{} is not `-` or a face 1..6", quote(r)),
                    ));
                }
            },
        };
        let sixes = fields[3].parse::<u8>().map_err(|_| {
            bad(
                "sixes",
                format!("{} is not a count 0..255", quote(fields[3])),
            )
        })?;
        let moved_this_turn = parse_planes("moved_this_turn", fields[4], planes)?;
        let moved_last = parse_planes("moved_last", fields[5], planes)?;
        let mut ranks = [0u8; 4];
        if fields[6] != "-" {
            for (k, part) in fields[6].split(',').enumerate() {
                let seat = match part.as_bytes() {
                    [d @ b'0'..=b'3'] => usize::from(d - b'0'),
                    _ => {
                        return Err(bad(
                            "finishing order",
                            format!("{} is not a seat 0..3", quote(part)),
                        ));
                    }
                };
                if ranks[seat] != 0 || k >= 4 {
                    return Err(bad(
                        "finishing order",
                        format!("{} names a seat twice", quote(fields[6])),
                    ));
                }
                ranks[seat] = k as u8 + 1;
            }
        }
        let turns = fields[7].parse::<u32>().map_err(|_| {
            bad(
                "turns",
                format!("{} is not a count of turns", quote(fields[7])),
            )
        })?;
        Ok(Setup {
            players,
            planes,
            steps,
            to_move,
            roll,
            sixes,
            moved_this_turn,
            moved_last,
            ranks,
            turns,
        })
    }
}

/// The planes field: the steps, the number of players (from the seats in play) and planes.
fn parse_seats(text: &str) -> Result<([[u8; PLANES]; 4], u8, u8), SetupError> {
    let groups: Vec<&str> = text.split('/').collect();
    if groups.len() != 4 {
        return Err(bad(
            "planes",
            format!(
                "{} has {} seats; write all four, `-` for a seat not in play",
                quote(text),
                groups.len()
            ),
        ));
    }
    let mut steps = [[HANGAR; PLANES]; 4];
    let mut in_play = Vec::new();
    let mut planes = None;
    for (seat, group) in groups.iter().enumerate() {
        if *group == "-" {
            continue;
        }
        in_play.push(Seat::ALL[seat]);
        let parts: Vec<&str> = group.split(',').collect();
        if parts.len() > PLANES || planes.is_some_and(|p| p != parts.len()) {
            return Err(bad(
                "planes",
                format!(
                    "seat {seat} lists {} planes; every seat lists the same number, 1 to {PLANES}",
                    parts.len()
                ),
            ));
        }
        planes = Some(parts.len());
        for (i, part) in parts.iter().enumerate() {
            steps[seat][i] = match *part {
                "h" => HANGAR,
                n => n
                    .parse::<u8>()
                    .ok()
                    .filter(|&s| s != HANGAR)
                    .ok_or_else(|| {
                        bad(
                            "planes",
                            format!("{} (seat {seat}, plane {i}) is not a step or `h`", quote(n)),
                        )
                    })?,
            };
        }
    }
    let players = (2..=4)
        .find(|&p| Seat::in_play(p) == in_play.as_slice())
        .ok_or_else(|| {
            bad(
                "planes",
                "the seats in play must be 0 and 2 (2 players), 0 to 2 (3 players) or all four"
                    .to_string(),
            )
        })?;
    Ok((steps, players as u8, planes.unwrap_or(PLANES) as u8))
}

fn parse_planes(field: &'static str, text: &str, planes: u8) -> Result<u8, SetupError> {
    if text == "-" {
        return Ok(0);
    }
    let mut set = 0u8;
    for c in text.bytes() {
        let p = c.wrapping_sub(b'0');
        if p >= planes || set & (1 << p) != 0 {
            return Err(bad(
                field,
                format!(
                    "{} is not `-` or distinct plane digits below {planes}",
                    quote(text)
                ),
            ));
        }
        set |= 1 << p;
    }
    if set == 0 {
        return Err(bad(field, "empty: write `-` for no planes".to_string()));
    }
    Ok(set)
}

/// A game as serde data: `{"rules": {...}, "position": "<notation>"}`, checked on the way in.
#[cfg(feature = "serde")]
impl serde::Serialize for Game {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Game", 2)?;
        st.serialize_field("rules", self.rules())?;
        st.serialize_field("position", &self.to_string())?;
        st.end()
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Game {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Repr {
            rules: Rules,
            position: String,
        }
        let r = Repr::deserialize(d)?;
        Game::from_notation(r.rules, &r.position).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;

    #[test]
    fn the_start_reads_and_writes() {
        let g = Game::new(Preset::Classic.rules(), 2).unwrap();
        assert_eq!(g.to_string(), "h,h,h,h/-/h,h,h,h/- 0 - 0 - - - 0");
        assert_eq!(Game::from_notation(*g.rules(), &g.to_string()), Ok(g));
        let g3 = Game::new(Preset::Classic.rules(), 3).unwrap();
        assert_eq!(g3.to_string(), "h,h,h,h/h,h,h,h/h,h,h,h/- 0 - 0 - - - 0");
    }

    #[test]
    fn the_documented_example_is_a_position() {
        let text = "h,h,12,57/-/0,3,h,h/- 2 6 1 0 0 - 17";
        let g = Game::from_notation(Rules::default(), text).unwrap();
        assert_eq!(g.to_string(), text);
        assert_eq!(g.pending_roll(), Some(6));
        assert_eq!(g.legal_actions().as_slice(), [0, 1, 2]);
    }

    #[test]
    fn bad_text_names_its_field() {
        let rules = Rules::default();
        for (text, field) in [
            ("", "text"),
            ("h,h,h,h/-/h,h,h,h/- 0 - 0 - - -", "text"),
            ("h,h,h,h/-/h,h,h/- 0 - 0 - - - 0", "planes"),
            ("h,h,h,h/h,h,h,h/-/- 0 - 0 - - - 0", "planes"),
            ("h,h,h,h/-/h,h,x,h/- 0 - 0 - - - 0", "planes"),
            ("h,h,h,h/-/h,h,h,h/- 4 - 0 - - - 0", "to_move"),
            ("h,h,h,h/-/h,h,h,h/- 0 7 0 - - - 0", "roll"),
            ("h,h,h,h/-/h,h,h,h/- 0 - x - - - 0", "sixes"),
            ("h,h,h,h/-/h,h,h,h/- 0 - 0 44 - - 0", "moved_this_turn"),
            ("h,h,h,h/-/h,h,h,h/- 0 - 0 - 4 - 0", "moved_last"),
            ("h,h,h,h/-/h,h,h,h/- 0 - 0 - - 0,0 0", "finishing order"),
            ("h,h,h,h/-/h,h,h,h/- 0 - 0 - - - -1", "turns"),
        ] {
            match Game::from_notation(rules, text) {
                Err(SetupError::Notation { field: f, .. }) => assert_eq!(f, field, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}

//! Writing a game's lines: [`GameLines`] watches a game (an [`Observer`]) and writes one line
//! per decision and a result line at its end, straight into a byte buffer (no allocation once
//! its buffers have grown, no formatting machinery: a run writes millions of lines).

use aeroplane_core::{
    ActionId, Bot, Counter, Game, GameRecord, HANGAR, Move, Observer, Outcome, Seat,
};

use crate::stats::NO_BOT;

/// Appends `n` in decimal.
#[inline]
pub(crate) fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    while n > 0 {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.extend_from_slice(&digits[i..]);
}

/// Appends plane digits of a bit set, or `-` for none (the notation's moved fields).
fn push_planes(out: &mut Vec<u8>, bits: u8) {
    if bits == 0 {
        out.push(b'-');
    }
    for p in 0..8 {
        if bits & (1 << p) != 0 {
            out.push(b'0' + p);
        }
    }
}

/// Appends `game` in the position notation (what `Game`'s `Display` writes), with `roll` as
/// the roll waiting (a decision node) when given.
pub(crate) fn push_position(out: &mut Vec<u8>, game: &Game, roll: Option<u8>) {
    let planes = usize::from(game.rules().planes());
    for seat in Seat::ALL {
        if seat.index() > 0 {
            out.push(b'/');
        }
        if !game.in_play(seat) {
            out.push(b'-');
            continue;
        }
        for (i, &s) in game.steps(seat)[..planes].iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if s == HANGAR {
                out.push(b'h');
            } else {
                push_u64(out, u64::from(s));
            }
        }
    }
    out.push(b' ');
    push_u64(out, game.to_move().index() as u64);
    out.push(b' ');
    match roll.or(game.pending_roll()) {
        Some(r) => push_u64(out, u64::from(r)),
        None => out.push(b'-'),
    }
    out.push(b' ');
    push_u64(out, u64::from(game.sixes_this_turn()));
    out.push(b' ');
    push_planes(out, game.planes_moved_this_turn());
    out.push(b' ');
    push_planes(out, game.planes_moved_last());
    out.push(b' ');
    let mut order = [4usize; 4];
    for s in Seat::ALL {
        if let Some(r) = game.rank(s) {
            order[usize::from(r) - 1] = s.index();
        }
    }
    if order[0] == 4 {
        out.push(b'-');
    }
    for (k, &s) in order.iter().take_while(|&&s| s < 4).enumerate() {
        if k > 0 {
            out.push(b',');
        }
        push_u64(out, s as u64);
    }
    out.push(b' ');
    push_u64(out, u64::from(game.turns()));
}

/// Appends a value as a JSON number (the shortest decimal that reads back as the same `f32`),
/// `null` when it is not finite.
fn push_value(out: &mut Vec<u8>, v: f32) {
    use std::io::Write as _;
    if v.is_finite() {
        let _ = write!(out, "{v}");
    } else {
        out.extend_from_slice(b"null");
    }
}

fn push_rolls(out: &mut Vec<u8>, key: &[u8], rolls: &[u8]) {
    if rolls.is_empty() {
        return;
    }
    out.extend_from_slice(key);
    for (i, &r) in rolls.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'0' + r);
    }
    out.push(b']');
}

/// Writes the lines of games as they are played: call [`GameLines::begin`], play the game
/// with it as the observer, then [`GameLines::finish`] with the game's record.
#[derive(Debug, Default)]
pub struct GameLines {
    out: Vec<u8>,
    game: u64,
    bot_at_seat: [u8; 4],
    /// Rolls played without a choice since the last decision line.
    forced: Vec<u8>,
    /// The current roll was a decision (its line is written).
    chose: bool,
    last: Option<Game>,
}

impl GameLines {
    /// Starts game `game` from `start`, with `bot_at_seat[seat]` the lineup index of the bot in
    /// each seat ([`NO_BOT`] for none). Lines already written stay in the buffer.
    pub fn begin(&mut self, game: u64, start: &Game, bot_at_seat: [u8; 4]) {
        self.game = game;
        self.bot_at_seat = bot_at_seat;
        self.forced.clear();
        self.chose = false;
        self.last = Some(*start);
    }

    /// Writes the game's result line: its deal and rotation, the lineup index of the bot in
    /// each seat, the rolls played without a choice after the last decision, the final
    /// position and the record.
    pub fn finish(&mut self, deal: u64, rotation: u64, record: &GameRecord) {
        let out = &mut self.out;
        out.extend_from_slice(b"{\"game\":");
        push_u64(out, self.game);
        out.extend_from_slice(b",\"deal\":");
        push_u64(out, deal);
        out.extend_from_slice(b",\"rotation\":");
        push_u64(out, rotation);
        out.extend_from_slice(b",\"bots\":[");
        for (s, &b) in self.bot_at_seat.iter().enumerate() {
            if s > 0 {
                out.push(b',');
            }
            if b == NO_BOT {
                out.extend_from_slice(b"null");
            } else {
                push_u64(out, u64::from(b));
            }
        }
        out.push(b']');
        push_rolls(out, b",\"forced\":[", &self.forced);
        if let Some(last) = &self.last {
            out.extend_from_slice(b",\"position\":\"");
            push_position(out, last, None);
            out.push(b'"');
        }
        out.extend_from_slice(b",\"result\":{\"winner\":");
        match record.winner {
            Some(w) => push_u64(out, w.index() as u64),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"ranks\":[");
        for (s, &r) in record.ranks.iter().enumerate() {
            if s > 0 {
                out.push(b',');
            }
            if r == 0 {
                out.extend_from_slice(b"null");
            } else {
                push_u64(out, u64::from(r));
            }
        }
        out.push(b']');
        for c in Counter::ALL {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(c.name().as_bytes());
            out.extend_from_slice(b"\":");
            push_u64(out, u64::from(record.counters[c]));
        }
        out.extend_from_slice(b",\"unfinished\":");
        out.extend_from_slice(if record.unfinished { b"true" } else { b"false" });
        if let Some(f) = record.forfeit {
            out.extend_from_slice(b",\"forfeit\":");
            push_u64(out, f.index() as u64);
        }
        out.extend_from_slice(b"}}\n");
        self.forced.clear();
    }

    /// The lines written so far.
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// Empties the buffer (keeping its memory).
    pub fn clear(&mut self) {
        self.out.clear();
    }
}

impl Observer for GameLines {
    #[inline]
    fn on_roll(&mut self, _before: &Game, outcome: &Outcome) {
        if self.chose {
            self.chose = false;
        } else {
            self.forced.push(outcome.roll);
        }
    }

    fn on_choice(&mut self, game: &Game, roll: u8, moves: &[Move], chosen: usize, bot: &dyn Bot) {
        let seat = game.to_move();
        let out = &mut self.out;
        out.extend_from_slice(b"{\"game\":");
        push_u64(out, self.game);
        out.extend_from_slice(b",\"seat\":");
        push_u64(out, seat.index() as u64);
        out.extend_from_slice(b",\"bot\":");
        push_u64(out, u64::from(self.bot_at_seat[seat.index()]));
        out.extend_from_slice(b",\"roll\":");
        push_u64(out, u64::from(roll));
        push_rolls(out, b",\"forced\":[", &self.forced);
        self.forced.clear();
        out.extend_from_slice(b",\"position\":\"");
        push_position(out, game, Some(roll));
        out.extend_from_slice(b"\",\"legal\":[");
        // Action ids ascending (the state API's order); `order[id]` is the move's index.
        let mut order = [u8::MAX; aeroplane_core::NUM_ACTIONS];
        for (k, m) in moves.iter().enumerate() {
            order[ActionId::of_move(m).index()] = k as u8;
        }
        let mut first = true;
        for (id, &k) in order.iter().enumerate() {
            if k != u8::MAX {
                if !first {
                    out.push(b',');
                }
                first = false;
                out.push(b'0' + id as u8);
            }
        }
        out.extend_from_slice(b"],\"action\":");
        out.push(b'0' + ActionId::of_move(&moves[chosen]).index() as u8);
        if let Some(values) = bot.move_values().filter(|v| v.len() == moves.len()) {
            out.extend_from_slice(b",\"values\":[");
            let mut first = true;
            for &k in order.iter().filter(|&&k| k != u8::MAX) {
                if !first {
                    out.push(b',');
                }
                first = false;
                push_value(out, values[usize::from(k)]);
            }
            out.push(b']');
        }
        out.extend_from_slice(b"}\n");
        self.chose = true;
    }

    #[inline]
    fn on_end(&mut self, last: &Game) {
        self.last = Some(*last);
    }
}

//! Writing a game's lines: [`GameLines`] watches a game (an [`Observer`]) and writes one line
//! per decision and a result line at its end, straight into a byte buffer (no allocation once
//! its buffers have grown, no formatting machinery: a run writes millions of lines).

use aeroplane_core::{
    ActionId, Bot, Counter, Game, GameRecord, HANGAR, Move, Observer, Outcome, Seat,
};

use crate::stats::NO_BOT;

/// Two-digit decimal strings, `00` to `99`.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// A line being written onto the output buffer.
struct Line<'a>(&'a mut Vec<u8>);

impl Line<'_> {
    #[inline]
    fn byte(&mut self, c: u8) {
        self.0.push(c);
    }

    #[inline]
    fn bytes(&mut self, s: &[u8]) {
        self.0.extend_from_slice(s);
    }

    #[inline]
    fn num(&mut self, n: u64) {
        if n < 10 {
            self.byte(b'0' + n as u8);
        } else if n < 100 {
            let i = 2 * n as usize;
            self.bytes(&PAIRS[i..i + 2]);
        } else {
            self.long(n);
        }
    }

    #[inline(never)]
    fn long(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        while n >= 100 {
            let pair = 2 * (n % 100) as usize;
            n /= 100;
            i -= 2;
            digits[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            let pair = 2 * n as usize;
            i -= 2;
            digits[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        } else {
            i -= 1;
            digits[i] = b'0' + n as u8;
        }
        self.bytes(&digits[i..]);
    }

    /// Plane digits of a bit set, or `-` for none (the notation's moved fields).
    #[inline]
    fn planes(&mut self, bits: u8) {
        if bits == 0 {
            self.byte(b'-');
        }
        for p in 0..8 {
            if bits & (1 << p) != 0 {
                self.byte(b'0' + p);
            }
        }
    }

    /// `game` in the position notation (what `Game`'s `Display` writes), with `roll` as the
    /// roll waiting (a decision node) when given.
    fn position(&mut self, game: &Game, roll: Option<u8>) {
        let planes = usize::from(game.rules().planes());
        for seat in Seat::ALL {
            if seat.index() > 0 {
                self.byte(b'/');
            }
            if !game.in_play(seat) {
                self.byte(b'-');
                continue;
            }
            for (i, &s) in game.steps(seat)[..planes].iter().enumerate() {
                if i > 0 {
                    self.byte(b',');
                }
                if s == HANGAR {
                    self.byte(b'h');
                } else {
                    self.num(u64::from(s));
                }
            }
        }
        self.byte(b' ');
        self.byte(b'0' + game.to_move().index() as u8);
        self.byte(b' ');
        match roll.or(game.pending_roll()) {
            Some(r) => self.byte(b'0' + r),
            None => self.byte(b'-'),
        }
        self.byte(b' ');
        self.num(u64::from(game.sixes_this_turn()));
        self.byte(b' ');
        self.planes(game.planes_moved_this_turn());
        self.byte(b' ');
        self.planes(game.planes_moved_last());
        self.byte(b' ');
        let mut order = [4u8; 4];
        for s in Seat::ALL {
            if let Some(r) = game.rank(s) {
                order[usize::from(r) - 1] = s.index() as u8;
            }
        }
        if order[0] == 4 {
            self.byte(b'-');
        }
        for (k, &s) in order.iter().take_while(|&&s| s < 4).enumerate() {
            if k > 0 {
                self.byte(b',');
            }
            self.byte(b'0' + s);
        }
        self.byte(b' ');
        self.num(u64::from(game.turns()));
    }
}

/// Appends `n` in decimal.
pub(crate) fn push_u64(out: &mut Vec<u8>, n: u64) {
    Line(out).num(n);
}

/// Appends `game` in the position notation (what `Game`'s `Display` writes), with `roll` as
/// the roll waiting (a decision node) when given.
pub(crate) fn push_position(out: &mut Vec<u8>, game: &Game, roll: Option<u8>) {
    Line(out).position(game, roll);
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
        if let Some(last) = &self.last {
            out.extend_from_slice(b",\"position\":\"");
            push_position(out, last, None);
            out.push(b'"');
        }
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
        // Field order: the game, the position, then the small fields that change from line to
        // line together (fewer, longer matches for the compressor: measured 5% smaller and
        // faster than the natural order).
        let seat = game.to_move();
        self.out.reserve(256);
        let mut line = Line(&mut self.out);
        line.bytes(b"{\"game\":");
        line.num(self.game);
        line.bytes(b",\"position\":\"");
        line.position(game, Some(roll));
        line.bytes(b"\",\"seat\":");
        line.byte(b'0' + seat.index() as u8);
        line.bytes(b",\"bot\":");
        line.num(u64::from(self.bot_at_seat[seat.index()]));
        line.bytes(b",\"roll\":");
        line.byte(b'0' + roll);
        line.bytes(b",\"legal\":[");
        // Action ids ascending (the state API's order); `order[id]` is the move's index.
        let mut order = [u8::MAX; aeroplane_core::NUM_ACTIONS];
        for (k, m) in moves.iter().enumerate() {
            order[ActionId::of_move(m).index()] = k as u8;
        }
        let mut first = true;
        for (id, &k) in order.iter().enumerate() {
            if k != u8::MAX {
                if !first {
                    line.byte(b',');
                }
                first = false;
                line.byte(b'0' + id as u8);
            }
        }
        line.bytes(b"],\"action\":");
        line.byte(b'0' + ActionId::of_move(&moves[chosen]).index() as u8);
        let out = &mut self.out;
        push_rolls(out, b",\"forced\":[", &self.forced);
        self.forced.clear();
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

//! Writing a game's lines: [`GameLines`] watches a game (an [`Observer`]) and writes one line
//! per decision and a result line at its end, straight into a byte buffer (no allocation once
//! its buffers have grown, no formatting machinery: a run writes millions of lines, and a
//! greedy game makes about 120 of them in under 10 µs of play).

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

/// Appends ASCII digits as a JSON string (`"632"`; `""` for none).
fn push_digits(out: &mut Vec<u8>, digits: &[u8]) {
    out.push(b'"');
    out.extend_from_slice(digits);
    out.push(b'"');
}

/// Writes the lines of games as they are played (schema version 2, docs/LOG.md): call
/// [`GameLines::begin`], play the game with it as the observer, then [`GameLines::finish`]
/// with the game's record.
#[derive(Debug)]
pub struct GameLines {
    out: Vec<u8>,
    /// The position is written on decision lines 0, K, 2K, ... of each game.
    positions: u32,
    /// `[game,` of the game being played: every decision line starts with it.
    prefix: Vec<u8>,
    game: u64,
    bot_at_seat: [u8; 4],
    /// Decision lines written for the game so far.
    decisions: u32,
    /// The next decision line that carries the position.
    next_key: u32,
    /// Rolls played without a choice since the last decision line, as ASCII digits.
    forced: Vec<u8>,
    /// The current roll was a decision (its line is written).
    chose: bool,
    last: Option<Game>,
}

impl Default for GameLines {
    fn default() -> Self {
        GameLines::new(super::DEFAULT_LOG_POSITIONS)
    }
}

impl GameLines {
    /// Lines that carry the position on every `positions`-th decision line of a game (the
    /// first included); `positions` 1 puts it on every line (0 is taken as 1).
    pub fn new(positions: u32) -> Self {
        GameLines {
            out: Vec::new(),
            positions: positions.max(1),
            prefix: Vec::with_capacity(24),
            game: 0,
            bot_at_seat: [NO_BOT; 4],
            decisions: 0,
            next_key: 0,
            forced: Vec::new(),
            chose: false,
            last: None,
        }
    }

    /// Starts game `game` from `start`, with `bot_at_seat[seat]` the lineup index of the bot in
    /// each seat ([`NO_BOT`] for none). Lines already written stay in the buffer.
    pub fn begin(&mut self, game: u64, start: &Game, bot_at_seat: [u8; 4]) {
        self.game = game;
        self.prefix.clear();
        self.prefix.push(b'[');
        push_u64(&mut self.prefix, game);
        self.prefix.push(b',');
        self.bot_at_seat = bot_at_seat;
        self.decisions = 0;
        self.next_key = 0;
        self.forced.clear();
        self.chose = false;
        self.last = Some(*start);
    }

    /// Writes the game's result line: its deal and rotation, the lineup index of the bot in
    /// each seat, the rolls played without a choice after the last decision, the winner, the
    /// ranks, the turns and the final position.
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
        out.extend_from_slice(b"],\"forced\":");
        push_digits(out, &self.forced);
        out.extend_from_slice(b",\"winner\":");
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
        out.extend_from_slice(b"],\"turns\":");
        push_u64(out, u64::from(record.counters[Counter::Turns]));
        if record.unfinished {
            out.extend_from_slice(b",\"unfinished\":true");
        }
        if let Some(f) = record.forfeit {
            out.extend_from_slice(b",\"forfeit\":");
            push_u64(out, f.index() as u64);
        }
        if let Some(last) = &self.last {
            out.extend_from_slice(b",\"position\":\"");
            push_position(out, last, None);
            out.push(b'"');
        }
        out.extend_from_slice(b"}\n");
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
    fn sees_choices(&self) -> bool {
        true
    }

    #[inline]
    fn on_roll(&mut self, _before: &Game, outcome: &Outcome) {
        if self.chose {
            self.chose = false;
        } else {
            self.forced.push(b'0' + outcome.roll);
        }
    }

    fn on_choice(&mut self, game: &Game, roll: u8, moves: &[Move], chosen: usize, bot: &dyn Bot) {
        // `[game,seat,bot,roll,"legal",action,"forced"` then, when there are any, the values
        // and the position (a key line). A run writes millions of lines: the fixed part is
        // put together on the stack and appended at once.
        let seat = game.to_move().index();
        // The legal action ids as a bit set (ascending ids are the state API's order).
        let mut legal = 0u8;
        for m in moves {
            legal |= 1 << ActionId::of_move(m).index();
        }
        // The line up to its forced rolls: `[game,` (at most 22 bytes), then at most 26 more.
        let mut buf = [0u8; 48];
        let mut n = self.prefix.len();
        buf[..n].copy_from_slice(&self.prefix);
        buf[n] = b'0' + seat as u8;
        buf[n + 1] = b',';
        n += 2;
        let bot_index = self.bot_at_seat[seat];
        if bot_index >= 10 {
            let i = 2 * usize::from(bot_index % 100);
            if bot_index >= 100 {
                buf[n] = b'0' + bot_index / 100;
                n += 1;
            }
            buf[n..n + 2].copy_from_slice(&PAIRS[i..i + 2]);
            n += 2;
        } else {
            buf[n] = b'0' + bot_index;
            n += 1;
        }
        buf[n..n + 4].copy_from_slice(&[b',', b'0' + roll, b',', b'"']);
        n += 4;
        let mut ids = legal;
        while ids != 0 {
            buf[n] = b'0' + ids.trailing_zeros() as u8;
            n += 1;
            ids &= ids - 1;
        }
        let action = ActionId::of_move(&moves[chosen]).index() as u8;
        buf[n..n + 5].copy_from_slice(&[b'"', b',', b'0' + action, b',', b'"']);
        n += 5;
        let out = &mut self.out;
        out.reserve(n + self.forced.len() + 4);
        out.extend_from_slice(&buf[..n]);
        out.extend_from_slice(&self.forced);
        out.push(b'"');
        self.forced.clear();
        let key = self.decisions == self.next_key;
        if key {
            self.next_key += self.positions;
        }
        if let Some(values) = bot.move_values().filter(|v| v.len() == moves.len()) {
            // In ascending id order: `order[id]` is the move's index.
            let mut order = [u8::MAX; aeroplane_core::NUM_ACTIONS];
            for (k, m) in moves.iter().enumerate() {
                order[ActionId::of_move(m).index()] = k as u8;
            }
            out.extend_from_slice(b",[");
            let mut first = true;
            for &k in order.iter().filter(|&&k| k != u8::MAX) {
                if !first {
                    out.push(b',');
                }
                first = false;
                push_value(out, values[usize::from(k)]);
            }
            out.push(b']');
        } else if key {
            out.extend_from_slice(b",null");
        }
        if key {
            out.extend_from_slice(b",\"");
            push_position(out, game, Some(roll));
            out.push(b'"');
        }
        out.extend_from_slice(b"]\n");
        self.decisions += 1;
        self.chose = true;
    }

    #[inline]
    fn on_end(&mut self, last: &Game) {
        self.last = Some(*last);
    }
}

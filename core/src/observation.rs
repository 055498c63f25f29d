//! Observations: the whole position as a fixed-length `f32` vector (or a line of text) from one
//! seat's point of view. The game has no hidden information, so every seat's observation holds
//! the same information, rotated so that the observer is relative seat 0: relative seat `r` is
//! seat `(observer + r) mod 4`.
//!
//! Layout of [`Game::observation`] ([`OBSERVATION_LEN`] = 170 values):
//!
//! | offset | what |
//! |---|---|
//! | `9 * (4r + p)` .. `+ 9` | plane `p` of relative seat `r` (16 blocks of [`PLANE_FEATURES`]) |
//! | 144 + `4r` .. `+ 4` | relative seat `r`: in play, finished, to move, rank / players (0 unranked) |
//! | 160 .. 166 | the roll waiting for a decision, one-hot by face (all 0 at a chance node) |
//! | 166 .. 169 | sixes rolled in a row this turn: one-hot 0, 1, 2 or more |
//! | 169 | turns begun / `max_turns` |
//!
//! A plane's 9 values: in the hangar; on the take-off cell; on the ring; in the home lane; home
//! (at the centre); progress, its step / the centre step (0 in the hangar); its ring cell
//! counted from the observer's first ring cell, `(cell + 1) / 52` (0 off the ring); moved earlier
//! in this turn; moved by the latest move of this turn. A plane slot that is not in the game
//! (`planes` < 4) and every slot of a seat not in play is all zeros.

use crate::board::{HANGAR, PLANES, RING_CELLS, Seat, TAKE_OFF, TURN_CELL, on_ring, ring_cell};
use crate::game::Game;

/// Values per plane in an observation.
pub const PLANE_FEATURES: usize = 9;
/// Values per seat after the planes.
const SEAT_FEATURES: usize = 4;
/// Offset of the per-seat values.
const SEATS_AT: usize = 4 * PLANES * PLANE_FEATURES;
/// Offset of the roll waiting for a decision, one-hot by face (6 values): an observation of a
/// decision node is that of its chance node with `ROLL_AT + roll - 1` set to 1.
pub const ROLL_AT: usize = SEATS_AT + 4 * SEAT_FEATURES;
/// Offset of the six streak.
const SIXES_AT: usize = ROLL_AT + 6;
/// Offset of the turn count.
const TURNS_AT: usize = SIXES_AT + 3;
/// The length of an observation vector.
pub const OBSERVATION_LEN: usize = TURNS_AT + 1;

impl Game {
    /// The observation of `observer` (see [`crate::observation`](self) for the layout).
    pub fn observation(&self, observer: Seat) -> [f32; OBSERVATION_LEN] {
        let mut out = [0.0; OBSERVATION_LEN];
        self.observation_into(observer, &mut out);
        out
    }

    /// [`Game::observation`] into a caller's buffer (every value written).
    pub fn observation_into(&self, observer: Seat, out: &mut [f32; OBSERVATION_LEN]) {
        out.fill(0.0);
        let centre = self.rules.centre();
        let planes = usize::from(self.rules.planes);
        let me = observer.index();
        let over = self.is_over();
        for r in 0..4 {
            let seat = Seat::ALL[(me + r) & 3];
            let i = seat.index();
            if !self.in_play(seat) {
                continue;
            }
            let to_move = !over && seat == self.to_move;
            for p in 0..planes {
                let s = self.steps[i][p];
                let f = &mut out[PLANE_FEATURES * (4 * r + p)..][..PLANE_FEATURES];
                f[0] = f32::from(s == HANGAR);
                f[1] = f32::from(s == TAKE_OFF);
                f[2] = f32::from(on_ring(s));
                f[3] = f32::from(s > TURN_CELL && s < centre);
                f[4] = f32::from(s == centre);
                if s != HANGAR {
                    f[5] = f32::from(s) / f32::from(centre);
                }
                if on_ring(s) {
                    let cell = ring_cell(seat, s);
                    let seen = (usize::from(cell) + 4 * 13 - 13 * me) % usize::from(RING_CELLS);
                    f[6] = (seen + 1) as f32 / f32::from(RING_CELLS);
                }
                if to_move {
                    f[7] = f32::from(self.moved_turn & (1 << p) != 0);
                    f[8] = f32::from(self.moved_last & (1 << p) != 0);
                }
            }
            let f = &mut out[SEATS_AT + SEAT_FEATURES * r..][..SEAT_FEATURES];
            f[0] = 1.0;
            f[1] = f32::from(self.has_finished(seat));
            f[2] = f32::from(to_move);
            f[3] = f32::from(self.ranks[i]) / f32::from(self.players);
        }
        if self.roll != 0 {
            out[ROLL_AT + usize::from(self.roll) - 1] = 1.0;
        }
        if !over {
            out[SIXES_AT + usize::from(self.sixes.min(2))] = 1.0;
        }
        out[TURNS_AT] = self.turns as f32 / self.rules.max_turns as f32;
    }

    /// The position as one line of text from `observer`'s point of view: the notation's fields
    /// with seats relative to the observer (`+0` is the observer).
    pub fn observation_string(&self, observer: Seat) -> String {
        let setup = crate::Setup::from(self);
        let text = setup.to_string();
        let fields: Vec<&str> = text.split(' ').collect();
        let groups: Vec<&str> = fields[0].split('/').collect();
        let me = observer.index();
        let rel = |seat: usize| (seat + 4 - me) % 4;
        let planes: Vec<String> = (0..4)
            .map(|r| format!("+{r} {}", groups[(me + r) % 4]))
            .collect();
        let mut order: Vec<(u8, usize)> = (0..4)
            .filter(|&s| self.ranks[s] != 0)
            .map(|s| (self.ranks[s], rel(s)))
            .collect();
        order.sort_unstable();
        let order: Vec<String> = order.iter().map(|(_, r)| format!("+{r}")).collect();
        format!(
            "observer {me}: {} | to move +{} | roll {} | sixes {} | moved {} | latest {} | finished {} | turn {}",
            planes.join(" | "),
            rel(self.to_move.index()),
            fields[2],
            fields[3],
            fields[4],
            fields[5],
            if order.is_empty() {
                "-".to_string()
            } else {
                order.join(",")
            },
            fields[7],
        )
    }
}

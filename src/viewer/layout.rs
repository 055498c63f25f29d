//! Where everything sits on the viewer's board, in SVG pixels.
//!
//! The board is a cross on a 15 x 15 grid of cells, [`UNIT`] pixels each, inside a margin of
//! [`MARGIN`]: four arms three cells wide and six long around a 3 x 3 centre, the four corners
//! between the arms holding the hangars. The ring of 52 cells runs round the outside of the
//! arms, 13 cells per arm (up one side, across the tip, down the other), clockwise as
//! docs/RULES.md has it; the middle of each arm is a seat's home lane, entered from its tip,
//! which is that seat's turn cell (step 50). Seat 0 (red) owns the left arm and the top-left
//! corner; each next seat is the same picture turned a quarter clockwise.
//!
//! Ring cell `i` (docs/RULES.md numbering: seat `k`'s step `s` is cell `(13k + s - 1) mod 52`)
//! is the `j`-th cell of seat `k`'s stretch of the ring, `(i + 3) mod 52 = 13k + j`, which
//! starts at its turn cell (`j = 0`) and runs on through its take-off side. The lane's `L`
//! cells share the five cells' length between the tip and the centre. A seat's flight path
//! runs from its step 18 to its step 30 across the arm of the seat opposite, over that seat's
//! third lane cell, the crossed cell.

use aeroplane_core::board::{
    self, FLIGHT_FROM, FLIGHT_TO, HANGAR, RING_CELLS, TAKE_OFF, TURN_CELL,
};
use aeroplane_core::{PLANES, Rules, Seat};
use serde::Serialize;

/// Pixels per grid cell.
pub const UNIT: f32 = 40.0;
/// Pixels round the 15 x 15 grid.
pub const MARGIN: f32 = 20.0;
/// The board's width and height in pixels.
pub const SIZE: f32 = 15.0 * UNIT + 2.0 * MARGIN;
/// A plane's radius in pixels.
pub const PLANE_RADIUS: f32 = 0.34 * UNIT;

/// A point on the board, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Pixels from the left.
    pub x: f32,
    /// Pixels from the top.
    pub y: f32,
}

/// Seat 0's stretch of the ring in grid cells (column, row), from its turn cell on: the tip
/// of the left arm, then along the arm's top side and up the top arm's left side.
const RED_STRETCH: [(u8, u8); 13] = [
    (0, 7),
    (0, 6),
    (1, 6),
    (2, 6),
    (3, 6),
    (4, 6),
    (5, 6),
    (6, 5),
    (6, 4),
    (6, 3),
    (6, 2),
    (6, 1),
    (6, 0),
];

/// Seat 0's take-off cell (grid cell), beside its step 1.
const RED_TAKE_OFF: (u8, u8) = (2, 5);

/// Grid coordinates (in cells, of a cell's centre) turned `quarters` quarter turns clockwise
/// round the board's centre.
fn turn(p: (f32, f32), quarters: usize) -> (f32, f32) {
    (0..quarters % 4).fold(p, |(x, y), _| (15.0 - y, x))
}

fn pixels((x, y): (f32, f32)) -> Point {
    let round = |v: f32| (v * 10.0).round() / 10.0;
    Point {
        x: round(MARGIN + x * UNIT),
        y: round(MARGIN + y * UNIT),
    }
}

fn centre_of((col, row): (u8, u8)) -> (f32, f32) {
    (f32::from(col) + 0.5, f32::from(row) + 0.5)
}

/// The board of one variant: the positions of every cell and spot.
#[derive(Clone, Debug, Serialize)]
pub struct Layout {
    /// The centre of each ring cell, by ring cell index (0..52).
    pub ring: Vec<Point>,
    /// Per seat: where a plane at each step stands, `spots[seat][step]` for steps 0 (the
    /// take-off cell) to the centre.
    pub spots: Vec<Vec<Point>>,
    /// Per seat: the four hangar slots, one per plane.
    pub hangar: Vec<[Point; PLANES]>,
    /// Per seat: its hangar's box (left, top, width, height).
    pub hangar_box: Vec<[f32; 4]>,
    /// Per seat: its home lane's cells as rectangles (left, top, width, height), step 51 first.
    pub lane: Vec<Vec<[f32; 4]>>,
    /// Per seat: its triangle of the centre (three corners).
    pub home: Vec<[Point; 3]>,
    /// Per seat: its flight path, a quadratic curve (start, control, end) from its step 18 to
    /// its step 30 that passes over the crossed cell at its middle.
    pub flight: Vec<[Point; 3]>,
    /// Per seat: the crossed cell of its flight (the opposite seat's third lane cell).
    pub crossed: Vec<Point>,
    /// Cells in each home lane.
    pub lane_cells: u8,
    /// The centre's step.
    pub centre: u8,
}

impl Layout {
    /// The board for `rules` (its lane length decides the lanes and the crossed cell).
    pub fn new(rules: &Rules) -> Layout {
        let lane_cells = rules.home_lane_cells();
        let centre = rules.centre();
        let ring: Vec<Point> = (0..RING_CELLS)
            .map(|i| {
                let k = usize::from((i + 3) % RING_CELLS / 13);
                let j = usize::from((i + 3) % RING_CELLS % 13);
                pixels(turn(centre_of(RED_STRETCH[j]), k))
            })
            .collect();
        let length = 5.0 / f32::from(lane_cells);
        let lane_centre =
            |k: usize, cell: u8| pixels(turn((1.0 + (f32::from(cell) - 0.5) * length, 7.5), k));
        let mut spots = Vec::new();
        let mut hangar = Vec::new();
        let mut hangar_box = Vec::new();
        let mut lane = Vec::new();
        let mut home = Vec::new();
        let mut flight = Vec::new();
        let mut crossed = Vec::new();
        for k in 0..4 {
            let seat = Seat::new(k).expect("a seat");
            let mut at = vec![pixels(turn(centre_of(RED_TAKE_OFF), k))];
            for s in 1..=TURN_CELL {
                at.push(ring[usize::from(board::ring_cell(seat, s))]);
            }
            for cell in 1..=lane_cells {
                at.push(lane_centre(k, cell));
            }
            at.push(pixels(turn((6.55, 7.5), k)));
            debug_assert_eq!(at.len(), usize::from(centre) + 1);
            spots.push(at);
            // The corner clockwise before the seat's arm: seat 0's is the top-left one.
            let (qx, qy) = [(0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)][k];
            let (bx, by) = (qx + 1.1, qy + 1.1);
            hangar_box.push([
                MARGIN + bx * UNIT,
                MARGIN + by * UNIT,
                3.8 * UNIT,
                3.8 * UNIT,
            ]);
            hangar.push(
                [(0.95, 1.75), (2.85, 1.75), (0.95, 3.0), (2.85, 3.0)]
                    .map(|(dx, dy)| pixels((bx + dx, by + dy))),
            );
            lane.push(
                (1..=lane_cells)
                    .map(|cell| {
                        let a = turn((1.0 + f32::from(cell - 1) * length, 7.0), k);
                        let b = turn((1.0 + f32::from(cell) * length, 8.0), k);
                        let (p, q) = (pixels(a), pixels(b));
                        [
                            p.x.min(q.x),
                            p.y.min(q.y),
                            (p.x - q.x).abs(),
                            (p.y - q.y).abs(),
                        ]
                    })
                    .collect(),
            );
            home.push([(6.0, 6.0), (6.0, 9.0), (7.5, 7.5)].map(|p| pixels(turn(p, k))));
        }
        for k in 0..4 {
            let seat = Seat::new(k).expect("a seat");
            let over = lane_centre((k + 2) % 4, board::CROSSED_STEP - TURN_CELL);
            let from = ring[usize::from(board::ring_cell(seat, FLIGHT_FROM))];
            let to = ring[usize::from(board::ring_cell(seat, FLIGHT_TO))];
            let control = Point {
                x: 2.0 * over.x - (from.x + to.x) / 2.0,
                y: 2.0 * over.y - (from.y + to.y) / 2.0,
            };
            flight.push([from, control, to]);
            crossed.push(over);
        }
        Layout {
            ring,
            spots,
            hangar,
            hangar_box,
            lane,
            home,
            flight,
            crossed,
            lane_cells,
            centre,
        }
    }

    /// Where plane `plane` of `seat` stands at `step` ([`HANGAR`] for its hangar slot).
    pub fn spot(&self, seat: Seat, plane: usize, step: u8) -> Point {
        if step == HANGAR {
            self.hangar[seat.index()][plane]
        } else {
            self.spots[seat.index()][usize::from(step.min(self.centre))]
        }
    }

    /// The take-off cell of `seat`.
    pub fn take_off(&self, seat: Seat) -> Point {
        self.spots[seat.index()][usize::from(TAKE_OFF)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Preset;

    fn grid(p: Point) -> (i32, i32) {
        (
            ((p.x - MARGIN) / UNIT - 0.5).round() as i32,
            ((p.y - MARGIN) / UNIT - 0.5).round() as i32,
        )
    }

    #[test]
    fn the_ring_is_52_distinct_cells_each_next_to_the_one_before() {
        let l = Layout::new(&Preset::AppFreeGame.rules());
        let cells: Vec<(i32, i32)> = l.ring.iter().map(|&p| grid(p)).collect();
        let mut sorted = cells.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 52);
        for i in 0..52 {
            let (a, b) = (cells[i], cells[(i + 1) % 52]);
            // Neighbours share a side, or a corner where the ring turns round a corner of
            // the centre.
            let d = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
            assert!(matches!(d, (1, 0) | (0, 1) | (1, 1)), "{i}: {a:?} {b:?}");
            // Every ring cell lies on an arm: outside the corners, outside the centre.
            let corner = |(x, y): (i32, i32)| !(6..=8).contains(&x) && !(6..=8).contains(&y);
            assert!(!corner(a), "{a:?}");
            assert!(!(6..=8).contains(&a.0) || !(6..=8).contains(&a.1), "{a:?}");
        }
    }

    #[test]
    fn every_seat_follows_the_rules_path() {
        for preset in [Preset::AppFreeGame, Preset::Classic, Preset::Chinese] {
            let rules = preset.rules();
            let l = Layout::new(&rules);
            for seat in Seat::ALL {
                let k = seat.index();
                // Steps 1..=50 are the ring cells docs/RULES.md gives them.
                for s in 1..=TURN_CELL {
                    assert_eq!(
                        l.spot(seat, 0, s),
                        l.ring[usize::from(board::ring_cell(seat, s))]
                    );
                }
                // The turn cell is the tip of the arm the lane runs down, from the tip
                // (step 51 next to it) to the centre.
                let tip = grid(l.spot(seat, 0, TURN_CELL));
                let outer = |p: (i32, i32)| p.0 == 0 || p.0 == 14 || p.1 == 0 || p.1 == 14;
                assert!(outer(tip) && (tip.0 == 7 || tip.1 == 7), "{tip:?}");
                let mut last = l.spot(seat, 0, TURN_CELL);
                let dist = |a: Point, b: Point| (a.x - b.x).hypot(a.y - b.y);
                let middle = Point {
                    x: SIZE / 2.0,
                    y: SIZE / 2.0,
                };
                for s in TURN_CELL + 1..=rules.centre() {
                    let p = l.spot(seat, 0, s);
                    assert!(dist(p, middle) < dist(last, middle), "{seat} step {s}");
                    last = p;
                }
                // The take-off cell is beside step 1, in the seat's corner with its hangar.
                let t = grid(l.take_off(seat));
                let one = grid(l.spot(seat, 0, 1));
                assert_eq!((t.0 - one.0).abs() + (t.1 - one.1).abs(), 1);
                let [bx, by, bw, bh] = l.hangar_box[k];
                let inside = |p: Point| p.x > bx && p.x < bx + bw && p.y > by && p.y < by + bh;
                assert!(l.hangar[k].iter().all(|&p| inside(p)));
                assert!(!inside(l.take_off(seat)));
                let corner = |(x, y): (i32, i32)| (x / 9, y / 9);
                assert_eq!(corner(t), corner(grid(l.hangar[k][0])));
                // Ring cells of the seat's colour are its steps 2, 6, ..., 50.
                for s in 1..=TURN_CELL {
                    let cell = board::ring_cell(seat, s);
                    assert_eq!(board::cell_colour(cell) == seat, s % 4 == 2);
                }
                // The flight runs from step 18 to step 30 and passes over the third lane
                // cell of the seat opposite, at the curve's middle.
                let [a, c, b] = l.flight[k];
                assert_eq!(a, l.spot(seat, 0, FLIGHT_FROM));
                assert_eq!(b, l.spot(seat, 0, FLIGHT_TO));
                let mid = Point {
                    x: 0.25 * a.x + 0.5 * c.x + 0.25 * b.x,
                    y: 0.25 * a.y + 0.5 * c.y + 0.25 * b.y,
                };
                let opposite = Seat::new((k + 2) % 4).unwrap();
                let crossed = l.spot(opposite, 0, board::CROSSED_STEP);
                assert!(dist(mid, crossed) < 0.5, "{mid:?} {crossed:?}");
                assert_eq!(l.crossed[k], crossed);
            }
        }
    }

    #[test]
    fn lanes_fill_the_arm_for_every_length() {
        for cells in 3..=8 {
            let rules = Rules::builder()
                .base(Preset::AppFreeGame)
                .home_lane_cells(cells)
                .build()
                .unwrap();
            let l = Layout::new(&rules);
            for k in 0..4 {
                // Seats 0 and 2 have horizontal lanes, seats 1 and 3 vertical ones.
                let along = if k % 2 == 0 { 2 } else { 3 };
                let total: f32 = l.lane[k].iter().map(|r| r[along]).sum();
                assert!((total - 5.0 * UNIT).abs() < 1.0, "{cells}: {total}");
                assert_eq!(l.lane[k].len(), cells as usize);
            }
        }
    }
}

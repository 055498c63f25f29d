//! The board as SVG: the cells (drawn once), and the planes of one position (the page's
//! static first position; the script draws every other position with the same markup).

use std::fmt::Write as _;

use super::layout::{Layout, PLANE_RADIUS, Point, SIZE, UNIT};
use crate::report::html::esc;
use aeroplane_core::board::{self, FLIGHT_FROM, HANGAR, TURN_CELL};
use aeroplane_core::{Game, Seat};

/// Each seat's colour: red, yellow, blue, green (planes, hangar borders, flight paths).
pub const SEAT_COLOURS: [&str; 4] = ["#d1232f", "#f0b400", "#1f5fbf", "#1b9a45"];
/// Each seat's pale tint (its ring cells, lane, hangar, centre triangle).
pub const SEAT_TINTS: [&str; 4] = ["#f7c6c9", "#fbe6a6", "#c3d5f2", "#bfe5cb"];

fn f(v: f32) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i32)
    } else {
        format!("{r:.1}")
    }
}

fn pt(p: Point) -> String {
    format!("{},{}", f(p.x), f(p.y))
}

/// The board's cells, lanes, hangars and flight paths: everything but the planes.
/// `names[seat]` labels each seat's hangar (`None` for a seat not in play).
pub fn board(layout: &Layout, names: &[Option<String>; 4]) -> String {
    let mut s = String::new();
    let half = UNIT / 2.0;
    let _ = write!(
        s,
        r##"<rect class="ground" x="0" y="0" width="{0}" height="{0}" rx="12" fill="#fbf8f1"/>"##,
        f(SIZE)
    );
    // Hangars and take-off cells.
    for seat in Seat::ALL {
        let k = seat.index();
        let [x, y, w, h] = layout.hangar_box[k];
        let playing = names[k].is_some();
        let _ = write!(
            s,
            r#"<g class="hangar{}"><rect x="{}" y="{}" width="{}" height="{}" rx="10" fill="{}" stroke="{}" stroke-width="2"/>"#,
            if playing { "" } else { " empty" },
            f(x),
            f(y),
            f(w),
            f(h),
            SEAT_TINTS[k],
            SEAT_COLOURS[k]
        );
        let label = match &names[k] {
            Some(name) => format!("{} · {}", seat.colour(), shorten(name, 14)),
            None => format!("{} · not in play", seat.colour()),
        };
        let _ = write!(
            s,
            r#"<text class="hangar-label" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            f(x + w / 2.0),
            f(y + 0.62 * UNIT),
            esc(&label)
        );
        for (plane, p) in layout.hangar[k].iter().enumerate() {
            let _ = write!(
                s,
                r##"<circle class="slot" data-hangar="{k}:{plane}" cx="{}" cy="{}" r="{}" fill="none" stroke="#8c8474" stroke-dasharray="3 3"/>"##,
                f(p.x),
                f(p.y),
                f(PLANE_RADIUS + 2.0)
            );
        }
        s.push_str("</g>");
        let t = layout.take_off(seat);
        let _ = write!(
            s,
            r#"<g class="take-off{}" data-at="{k}:0"><circle cx="{}" cy="{}" r="{}" fill="{}" stroke="{}" stroke-width="2.5"/><title>{} take-off cell (step 0)</title></g>"#,
            if playing { "" } else { " empty" },
            f(t.x),
            f(t.y),
            f(0.45 * UNIT),
            SEAT_TINTS[k],
            SEAT_COLOURS[k],
            seat.colour()
        );
    }
    // The ring.
    for (i, &c) in layout.ring.iter().enumerate() {
        let colour = board::cell_colour(i as u8);
        // Each seat's step here, if its path passes (steps 1 to 50 cover 50 of the 52 cells).
        let at: Vec<(Seat, u8)> = Seat::ALL
            .iter()
            .filter_map(|&seat| {
                (1..=TURN_CELL)
                    .find(|&st| board::ring_cell(seat, st) == i as u8)
                    .map(|st| (seat, st))
            })
            .collect();
        let steps: Vec<String> = at
            .iter()
            .map(|(seat, st)| format!("{} step {st}", seat.colour()))
            .collect();
        let data_at: Vec<String> = at
            .iter()
            .map(|(seat, st)| format!("{}:{st}", seat.index()))
            .collect();
        let _ = write!(
            s,
            r##"<g class="cell" data-at="{}"><rect x="{}" y="{}" width="{}" height="{}" rx="4" fill="{}" stroke="#7d7668" stroke-width="1"/><title>ring cell {i} ({}): {}</title></g>"##,
            data_at.join(" "),
            f(c.x - half + 1.0),
            f(c.y - half + 1.0),
            f(UNIT - 2.0),
            f(UNIT - 2.0),
            SEAT_TINTS[colour.index()],
            colour.colour(),
            steps.join(", ")
        );
    }
    // Special cells: each seat's flight cell and turn cell.
    for seat in Seat::ALL {
        let fly = layout.spot(seat, 0, FLIGHT_FROM);
        let _ = write!(
            s,
            r##"<text class="glyph" x="{}" y="{}" text-anchor="middle" dominant-baseline="central">✈<title>{} flight cell (step 18): flies to step 30</title></text>"##,
            f(fly.x),
            f(fly.y),
            seat.colour()
        );
        let turn = layout.spot(seat, 0, TURN_CELL);
        let lane = layout.spot(seat, 0, TURN_CELL + 1);
        // The unit step from the turn cell towards its lane (`signum` would make 0.0 a 1.0).
        let sign = |v: f32| if v.abs() < 1.0 { 0.0 } else { v.signum() };
        let (dx, dy) = (sign(lane.x - turn.x), sign(lane.y - turn.y));
        let at = |along: f32, across: f32| Point {
            x: turn.x + dx * along - dy * across,
            y: turn.y + dy * along + dx * across,
        };
        let _ = write!(
            s,
            r##"<polygon class="glyph" points="{} {} {}" fill="#3b3730"><title>{} turn cell (step 50): into the home lane</title></polygon>"##,
            pt(at(10.0, 0.0)),
            pt(at(-6.0, 8.0)),
            pt(at(-6.0, -8.0)),
            seat.colour()
        );
    }
    // Lanes and the centre.
    for seat in Seat::ALL {
        let k = seat.index();
        for (n, r) in layout.lane[k].iter().enumerate() {
            let _ = write!(
                s,
                r#"<g class="lane" data-at="{k}:{}"><rect x="{}" y="{}" width="{}" height="{}" rx="3" fill="{}" stroke="{}" stroke-width="1"/><title>{} home lane, step {}</title></g>"#,
                usize::from(TURN_CELL) + 1 + n,
                f(r[0] + 1.0),
                f(r[1] + 1.0),
                f(r[2] - 2.0),
                f(r[3] - 2.0),
                SEAT_TINTS[k],
                SEAT_COLOURS[k],
                seat.colour(),
                usize::from(TURN_CELL) + 1 + n
            );
        }
        let [a, b, c] = layout.home[k];
        let _ = write!(
            s,
            r#"<polygon class="home" data-at="{k}:{}" points="{} {} {}" fill="{}" stroke="{}" stroke-width="1.5"><title>{} centre (step {}): home</title></polygon>"#,
            layout.centre,
            pt(a),
            pt(b),
            pt(c),
            SEAT_TINTS[k],
            SEAT_COLOURS[k],
            seat.colour(),
            layout.centre
        );
    }
    // Crossed cells and flight paths.
    for seat in Seat::ALL {
        let k = seat.index();
        let x = layout.crossed[k];
        let d = 0.22 * UNIT;
        let _ = write!(
            s,
            r##"<path class="crossed" d="M{} {} L{} {} M{} {} L{} {}" stroke="#3b3730" stroke-width="2"><title>crossed cell of {}'s flight ({} step {})</title></path>"##,
            f(x.x - d),
            f(x.y - d),
            f(x.x + d),
            f(x.y + d),
            f(x.x - d),
            f(x.y + d),
            f(x.x + d),
            f(x.y - d),
            seat.colour(),
            Seat::new((k + 2) % 4).expect("a seat").colour(),
            board::CROSSED_STEP
        );
        let [a, c, b] = layout.flight[k];
        let _ = write!(
            s,
            r#"<path class="flight" d="M{} Q{} {}" fill="none" stroke="{}" stroke-width="2.5" stroke-dasharray="7 5" opacity="0.8"><title>{} flight: step 18 to step 30, over the crossed cell</title></path>"#,
            pt(a),
            pt(c),
            pt(b),
            SEAT_COLOURS[k],
            seat.colour()
        );
    }
    s
}

fn shorten(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

/// The planes of `game`, as the script draws them: one `<g class="pile">` per seat and step
/// (a plane alone, or planes sharing a cell drawn as a stack, the lowest-numbered on top),
/// and one per plane in a hangar, at its slot.
pub fn planes(layout: &Layout, game: &Game) -> String {
    let mut s = String::new();
    let planes = usize::from(game.rules().planes());
    for &seat in game.seats() {
        let steps = game.steps(seat);
        let mut done = [false; 4];
        for p in 0..planes {
            if done[p] {
                continue;
            }
            let here: Vec<usize> = if steps[p] == HANGAR {
                vec![p]
            } else {
                (p..planes).filter(|&q| steps[q] == steps[p]).collect()
            };
            here.iter().for_each(|&q| done[q] = true);
            pile(&mut s, layout, seat, &here, steps[p]);
        }
    }
    s
}

/// One pile: the discs bottom first, each lower one 4 pixels down and right of the one above.
fn pile(s: &mut String, layout: &Layout, seat: Seat, planes: &[usize], step: u8) {
    let k = seat.index();
    let at = layout.spot(seat, planes[0], step);
    let step_json = aeroplane_core::step_json(step);
    let list: Vec<String> = planes.iter().map(|p| p.to_string()).collect();
    let _ = write!(
        s,
        r#"<g class="pile" data-seat="{k}" data-planes="{}" data-step="{step_json}">"#,
        list.join(",")
    );
    let where_ = match step {
        HANGAR => "in the hangar".to_string(),
        0 => "on the take-off cell".to_string(),
        st if st == layout.centre => "home".to_string(),
        st => format!("at step {st}"),
    };
    let _ = write!(
        s,
        "<title>{} plane{} {} {where_}</title>",
        seat.colour(),
        if planes.len() > 1 { "s" } else { "" },
        list.join(", ")
    );
    let n = planes.len();
    for i in (0..n).rev() {
        let off = 4.0 * i as f32;
        let _ = write!(
            s,
            r##"<circle class="plane" cx="{}" cy="{}" r="{}" fill="{}" stroke="#1d1b18" stroke-width="1.5"/>"##,
            f(at.x + off),
            f(at.y + off),
            f(PLANE_RADIUS),
            SEAT_COLOURS[k]
        );
    }
    let _ = write!(
        s,
        r#"<text class="plane-label" x="{}" y="{}" text-anchor="middle" dominant-baseline="central">{}</text>"#,
        f(at.x),
        f(at.y),
        planes[0]
    );
    if n > 1 {
        let _ = write!(
            s,
            r##"<circle class="badge" cx="{}" cy="{}" r="7" fill="#fff" stroke="#1d1b18"/><text class="badge-label" x="{}" y="{}" text-anchor="middle" dominant-baseline="central">{n}</text>"##,
            f(at.x + 11.0),
            f(at.y - 11.0),
            f(at.x + 11.0),
            f(at.y - 11.0)
        );
    }
    s.push_str("</g>");
}

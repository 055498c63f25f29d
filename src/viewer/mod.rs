//! The board viewer: one self-contained HTML file for one game. The board is inline SVG (the
//! cross of docs/RULES.md: the ring in four colours, home lanes, hangars, take-off cells, flight
//! paths and crossed cells), the game is replay's JSON embedded in the page, and a small script
//! (`viewer.js`, no libraries, no network) steps through it: forward and back, by turn, to any
//! roll (`#step=N`) or turn (`#turn=N`), or playing at a chosen speed. Without JavaScript the
//! page shows the starting position, a note, and the text move log.
//!
//! [`layout`] places every cell, [`svg`] draws the board and a position's planes, and
//! [`page`] puts the file together.

pub mod layout;
pub mod svg;

use serde::Serialize;

use crate::report::html::esc;
use crate::trajectory::PositionJson;
use crate::trajectory::replay::ReplayReport;
use aeroplane_core::Seat;
use layout::{Layout, PLANE_RADIUS, SIZE};

const SCRIPT: &str = include_str!("viewer.js");
const STYLE: &str = include_str!("viewer.css");

/// What the script reads from the page.
#[derive(Serialize)]
struct Data<'a> {
    /// The seats in play, in order (`game.bots[k]` plays `seats[k]`).
    seats: Vec<usize>,
    /// The starting position.
    start: PositionJson,
    /// Where everything is drawn.
    layout: &'a Layout,
    /// The seats' colours.
    colours: [&'static str; 4],
    /// A plane's radius in pixels.
    plane_radius: f32,
    /// The game, as `aeroplane replay --json` prints it.
    game: &'a ReplayReport,
}

/// JSON that is safe inside a `<script>` element: `<` written as `\u003c`, so no `</script>`
/// or `<!--` in a bot's name can end it.
fn script_json(value: &impl Serialize) -> String {
    serde_json::to_string(value)
        .expect("replay data serializes")
        .replace('<', "\\u003c")
}

/// The viewer page of a replayed game. `source` says where the game comes from, for the page's
/// subtitle (e.g. `seed 3, game 17`).
pub fn page(report: &ReplayReport, source: &str) -> String {
    let start = report.start();
    let layout = Layout::new(start.rules());
    let mut names: [Option<String>; 4] = Default::default();
    for (k, seat) in start.seats().iter().enumerate() {
        names[seat.index()] = report.bots.get(k).cloned();
    }
    let data = Data {
        seats: start.seats().iter().map(|s| s.index()).collect(),
        start: PositionJson::of(&start),
        layout: &layout,
        colours: svg::SEAT_COLOURS,
        plane_radius: PLANE_RADIUS,
        game: report,
    };
    let mut text_log = Vec::new();
    report.write_text(&mut text_log).expect("writing to memory");
    let text_log = String::from_utf8_lossy(&text_log);
    let lineup: Vec<String> = start
        .seats()
        .iter()
        .zip(&report.bots)
        .map(|(s, b)| format!("{} {b}", s.colour()))
        .collect();
    let outcome = match report.record.winner {
        _ if !report.complete => "the log stops before the end".to_string(),
        Some(w) => format!(
            "{} ({}) wins",
            Seat::new(w).map_or("?", Seat::colour),
            names[w].as_deref().unwrap_or("?")
        ),
        None => "no winner".to_string(),
    };
    let title = format!("aeroplane: game {} ({source})", report.game);
    let size = SIZE as i32;
    format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta name="generator" content="aeroplane {version}"/>
<title>{title}</title>
<style>
{STYLE}</style>
</head>
<body>
<div class="wrap">
<svg id="board" xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" role="img" aria-label="The board">
<defs><marker id="head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1d1b18"/></marker></defs>
{board}
<g id="marks"></g>
<g id="planes">{planes}</g>
<g id="preview"></g>
</svg>
<div class="panel">
<h1>Game {game}</h1>
<p class="sub">{sub}</p>
<noscript><p class="note">JavaScript is off: the board shows the starting position. Turn JavaScript on to step through the game, or read the move log below.</p></noscript>
<div id="controls" hidden="hidden">
<button id="first" title="Start (Home)">|◀</button><button id="prev-turn" title="Previous turn (↑, Shift+←)">◀◀</button><button id="prev" title="Previous roll (←)">◀</button><button id="next" title="Next roll (→)">▶</button><button id="next-turn" title="Next turn (↓, Shift+→)">▶▶</button><button id="last" title="End (End)">▶|</button>
<button id="play" title="Play or pause (Space)">Play</button>
<select id="speed" title="Rolls per second"><option value="1">1 roll/s</option><option value="2" selected="selected">2 rolls/s</option><option value="5">5 rolls/s</option><option value="10">10 rolls/s</option><option value="25">25 rolls/s</option></select>
<form id="turn-form"><label for="turn-input">turn</label><input id="turn-input" type="number" min="1" value="1"/><button type="submit">Go</button></form>
<span id="where"></span>
<input id="scrub" type="range" min="0" max="0" value="0" aria-label="Roll"/>
<p class="keys">Keys: ← → a roll, ↑ ↓ a turn, Home / End, Space to play. Links: <code>#step=N</code> (after roll N), <code>#turn=N</code> (the start of turn N).</p>
</div>
<div id="now"><p class="status">Start</p><p>The starting position: every plane in its hangar. {rolls} rolls, {turns} turns: {outcome}.</p></div>
<ul id="players"></ul>
<details><summary>Move log (text)</summary><pre>{text_log}</pre></details>
</div>
</div>
<script type="application/json" id="game-data">{json}</script>
<script>
{SCRIPT}</script>
</body>
</html>
"##,
        version = env!("CARGO_PKG_VERSION"),
        title = esc(&title),
        board = svg::board(&layout, &names),
        planes = svg::planes(&layout, &start),
        game = report.game,
        sub = esc(&format!(
            "{source} · {} · {}",
            rules_name(report),
            lineup.join(", ")
        )),
        rolls = report.log.len(),
        turns = report.record.counters[aeroplane_core::Counter::Turns],
        outcome = esc(&outcome),
        text_log = esc(&text_log),
        json = script_json(&data),
    )
}

/// The preset the rules are, or `custom rules`.
fn rules_name(report: &ReplayReport) -> String {
    aeroplane_core::Preset::ALL
        .iter()
        .find(|p| p.rules() == report.rules)
        .map_or_else(|| "custom rules".to_string(), |p| p.name().to_string())
}

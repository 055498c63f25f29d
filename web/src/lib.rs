//! # aeroplane-web
//!
//! Aeroplane Chess against the bots in a browser: the engine (`aeroplane-core`) and the bots
//! compiled to WebAssembly, driven by one static page (`web/build.sh` builds
//! `target/web/aeroplane.html`; docs/guide/browser.md). This crate is the module's API: a
//! [`WebGame`] is a [`session::Session`] with every answer as JSON text. The board is drawn
//! by the same code as `aeroplane replay --html`'s viewer (`src/viewer/layout.rs`, `svg.rs`),
//! compiled into this crate from its source files.
//!
//! The bots are `aeroplane-core`'s (greedy, random) and `aeroplane-ai`'s (expectimax, Monte
//! Carlo, MCTS, and `td` with the shipped nets built in), named as `aeroplane run --bots`
//! names them ([`mod@bots`]). The module does no IO and reads no clock: a bot's search is bounded
//! by its parameters (depth, iterations, rollouts, ply), so a page game is a pure function of
//! its configuration and its person's choices.

pub mod bots;
pub mod log;
pub mod session;

// The viewer's board layout and SVG, from the root crate's source files (shared with
// `aeroplane replay --html`, not copied). Their own inner doc comments document them (an outer
// one here would join theirs, and rustdoc would read their links in this module's scope).
#[allow(dead_code, missing_docs)]
#[path = "../../src/viewer/layout.rs"]
pub mod layout;
// What `svg.rs` needs of the root crate's report module (`crate::report::html::esc`, its XML
// escaping), from the same source file.
#[allow(dead_code, missing_docs)]
#[path = "../../src/report/html.rs"]
mod report_html;
#[allow(dead_code, missing_docs)]
#[path = "../../src/viewer/svg.rs"]
pub mod svg;
mod report {
    pub(crate) use super::report_html as html;
}

use wasm_bindgen::prelude::*;

use session::Session;

/// The viewer's stylesheet (the board's look), for the page.
pub const VIEWER_CSS: &str = include_str!("../../src/viewer/viewer.css");

/// The board for `rules` with each seat's label (`names[seat]`, `None`: not in play), and the
/// layout the page's script draws planes with, as JSON.
pub fn board_json(rules: &aeroplane_core::Rules, names: &[Option<String>; 4]) -> String {
    let layout = layout::Layout::new(rules);
    let size = layout::SIZE;
    serde_json::json!({
        "svg": svg::board(&layout, names),
        "layout": layout,
        "colours": svg::SEAT_COLOURS,
        "plane_radius": layout::PLANE_RADIUS,
        "size": size,
    })
    .to_string()
}

fn js(e: String) -> JsError {
    JsError::new(&e)
}

/// One game on the page. Every method that changes the game either succeeds or leaves it as it
/// was and throws an `Error` whose message says what is wrong and what is allowed.
#[wasm_bindgen]
pub struct WebGame {
    session: Session,
}

#[wasm_bindgen]
impl WebGame {
    /// A new game from a JSON configuration: `{"rules": "classic" | a rules TOML text,
    /// "players": 2..4, "seats": ["person", "greedy", ...], "seed": 7}`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: &str) -> Result<WebGame, JsError> {
        Ok(WebGame {
            session: Session::from_config_json(config).map_err(js)?,
        })
    }

    /// A game read back from a record: game `game` (its decimal digits) of a decision log,
    /// or without `game` the log's only game (a run's log of several throws, naming them:
    /// `games` lists them to choose from). A corrupted or foreign file throws, naming the
    /// line and what is wrong.
    #[wasm_bindgen(js_name = fromRecord)]
    pub fn from_record(text: &str, game: Option<String>) -> Result<WebGame, JsError> {
        Ok(WebGame {
            session: Session::from_log_game(text, game_of(game)?).map_err(js)?,
        })
    }

    /// A game saved in progress: its record (`record()`), then the rolls without a choice
    /// played since the record's last decision, up to `rolls` rolls in all, and, when
    /// `rolled`, the person's roll waiting for a choice (the state's `rolls` and `phase ==
    /// "choose"` when it was saved). Throws as `fromRecord` does, or naming the roll the record
    /// does not hold.
    #[wasm_bindgen(js_name = fromSaved)]
    pub fn from_saved(
        text: &str,
        rolls: usize,
        rolled: bool,
        game: Option<String>,
    ) -> Result<WebGame, JsError> {
        Ok(WebGame {
            session: Session::from_saved_game(text, game_of(game)?, rolls, rolled).map_err(js)?,
        })
    }

    /// The coach's values of the roll waiting as JSON: `{"bot", "roll", "values", "best",
    /// "equity"}` (the strongest bot for these rules and players; `equity`: the values are
    /// equities, so a move's cost is in millipoints as `aeroplane grade` counts it).
    pub fn coach(&self) -> Result<String, JsError> {
        let c = self.session.coach().map_err(js)?;
        Ok(serde_json::to_string(&c).expect("the coach's values serialize"))
    }

    /// The state as JSON: phase (`roll`, `choose`, `over`), the seat to move, the roll
    /// waiting and its legal moves with descriptions, every plane's step, the seats.
    pub fn state(&self) -> String {
        serde_json::to_string(&self.session.state()).expect("the state serializes")
    }

    /// The rolls played from roll `from` (0: all) as JSON: seat, roll, legal moves, the one
    /// chosen, a bot's values, what happened, the position after.
    pub fn rolls(&self, from: usize) -> String {
        serde_json::to_string(self.session.rolls(from)).expect("the rolls serialize")
    }

    /// The person to move rolls the (seeded) die.
    pub fn roll(&mut self) -> Result<(), JsError> {
        self.session.roll().map_err(js)
    }

    /// The person to move plays the `index`-th legal move of the roll waiting.
    pub fn apply(&mut self, index: usize) -> Result<(), JsError> {
        self.session.apply(index).map_err(js)
    }

    /// The bot to move rolls and plays (its search bounded by its parameters).
    #[wasm_bindgen(js_name = botMove)]
    pub fn bot_move(&mut self) -> Result<(), JsError> {
        self.session.bot_move().map_err(js)
    }

    /// Back to the person's last decision (or the start).
    pub fn undo(&mut self) -> Result<(), JsError> {
        self.session.undo().map_err(js)
    }

    /// The game as a decision log: the file `aeroplane replay --log FILE.jsonl --game G`
    /// replays (once the game is over; `G` the state's `game`).
    pub fn record(&self) -> String {
        self.session.log()
    }

    /// The record's summary as JSON (winner, ranks, counters), as `aeroplane replay --json`
    /// prints it.
    #[wasm_bindgen(js_name = recordSummary)]
    pub fn record_summary(&self) -> String {
        self.session.record_json()
    }

    /// The board's SVG and layout for this game, as JSON.
    pub fn board(&self) -> String {
        board_json(self.session.rules(), &self.session.names_by_seat())
    }
}

/// A game index given as decimal digits (`None`: not given).
fn game_of(game: Option<String>) -> Result<Option<u64>, JsError> {
    game.map(|g| {
        g.trim().parse::<u64>().map_err(|_| {
            js(format!(
                "the game must be a whole number 0 to {}, not {:?}",
                u64::MAX,
                aeroplane_core::excerpt::excerpt(&g)
            ))
        })
    })
    .transpose()
}

/// The games of a decision log (a page record: one; a run's `--log-games` log: one per
/// game) as JSON `[{"game", "game_text", "rotation", "seats": [{"seat", "colour", "player",
/// "person"}], "winner", "turns", "decisions"}, ...]`, for the page to offer a choice; a
/// corrupted or foreign file throws, naming the line.
#[wasm_bindgen]
pub fn games(text: &str) -> Result<String, JsError> {
    let games = session::games_of(text).map_err(js)?;
    Ok(serde_json::to_string(&games).expect("the games serialize"))
}

/// The bots the page offers for a game of `rules` (a preset name or a rules TOML text; rules
/// the engine refuses offer no `td` bot) with `players` players, as JSON `[[name,
/// description], ...]`.
#[wasm_bindgen]
pub fn bots(rules: &str, players: usize) -> String {
    let rules = session::rules_of(rules).ok();
    serde_json::to_string(&bots::offered(rules.as_ref(), players)).expect("names serialize")
}

/// The rules presets, as JSON `[name, ...]`.
#[wasm_bindgen]
pub fn presets() -> String {
    let names: Vec<&str> = aeroplane_core::Preset::ALL
        .iter()
        .map(|p| p.name())
        .collect();
    serde_json::to_string(&names).expect("names serialize")
}

/// The viewer's stylesheet.
#[wasm_bindgen(js_name = viewerCss)]
pub fn viewer_css() -> String {
    VIEWER_CSS.to_string()
}

//! One game on the page: the position, seeded dice, the players of each seat (a person or a
//! bot), every roll played (for the page's list and its animation), the record as a decision
//! log, and snapshots for undo. Plain Rust (the wasm-bindgen layer in `lib.rs` only passes
//! text across), so `cargo test -p aeroplane-web` tests it natively.
//!
//! The game is game `g` of seed `seed` as `aeroplane run` plays it (game 0 for a new game from
//! the page's form): with deal `d` and rotation `r` of `g` (`g = d * n + r` with
//! `--rotate-seats` and `n` players, else `g = d`, `r = 0`), the dice are
//! `SeededDice::new(seed, d)` (each seat its own stream), seat `s`'s bot is seeded with
//! `bot_stream(seed, d, s)`, and the k-th seat in play is taken by lineup entry `(k + r) mod
//! n`. So a bot-only page game is the game `aeroplane run --bots ... --seed S` plays as game
//! `g`, and its lines are the same bytes.

use aeroplane_core::{
    ActionId, Bot, Counter, Dice, Game, GameRecord, HANGAR, Move, MoveList, Outcome, Preset, Rules,
    RulesError, RulesSpec, Seat, SeededDice, bot_stream, step_json,
};
use serde::Serialize;

use crate::bots::{self, PERSON};
use crate::log::{self, Header, HeaderBot};

/// A seat's player.
enum Player {
    /// A person: the page asks for every choice.
    Person,
    /// A bot, asked by [`Session::bot_move`].
    Bot(Box<dyn Bot>),
}

/// Everything undo restores.
#[derive(Clone)]
struct Snapshot {
    game: Game,
    pending: Option<u8>,
    dice: SeededDice,
    record: GameRecord,
    lines: usize,
    forced: String,
    decisions: u32,
    rolls: usize,
}

/// A legal move as the page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct LegalJson {
    /// Its index in the list (what [`Session::apply`] takes).
    pub index: usize,
    /// The state API's action id (the record's).
    pub action: u8,
    /// The move's notation (`launch`, `14`, `18:fly`).
    pub notation: String,
    /// A description: which planes move, from where to where, what happens.
    pub text: String,
    /// The step moved from, -1 for the hangar.
    pub from: i16,
    /// The step moved to.
    pub to: i16,
    /// The planes that move.
    pub planes: Vec<usize>,
}

/// One roll played, as the page shows and animates it.
#[derive(Clone, Debug, Serialize)]
pub struct RollJson {
    /// 1 for the game's first roll.
    pub n: usize,
    /// The turn it belongs to.
    pub turn: u32,
    /// The seat that rolled.
    pub seat: usize,
    /// Its player's name (`person` or the bot's).
    pub player: String,
    /// The die.
    pub roll: u8,
    /// The legal moves it offered.
    pub legal: Vec<LegalJson>,
    /// The index of the move played (`None`: a pass or a punished third six).
    pub chosen: Option<usize>,
    /// The bot's value of each legal move (`legal`'s order), when it reports values.
    pub values: Option<Vec<Option<f32>>>,
    /// What happened, in words.
    pub text: String,
    /// Every seat's steps after it (-1: hangar; empty for a seat not in play).
    pub after: Vec<Vec<i16>>,
}

/// A seat as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct SeatJson {
    /// The seat.
    pub seat: usize,
    /// Its colour.
    pub colour: &'static str,
    /// `person` or the bot's name.
    pub player: String,
    /// Whether a person plays it.
    pub person: bool,
}

/// The state the page draws.
#[derive(Clone, Debug, Serialize)]
pub struct StateJson {
    /// The game's index in its run (0 for a game from the form).
    pub game: u64,
    /// Its decimal digits (beyond 2^53 a JSON number is rounded in JavaScript).
    pub game_text: String,
    /// `roll` (the seat to move rolls), `choose` (its roll waits for a choice) or `over`.
    pub phase: &'static str,
    /// The seat to move.
    pub to_move: usize,
    /// Whether a person plays the seat to move.
    pub person_to_move: bool,
    /// The roll waiting for a choice.
    pub roll: Option<u8>,
    /// Its legal moves.
    pub legal: Vec<LegalJson>,
    /// Every seat's steps (-1: hangar; empty for a seat not in play).
    pub steps: Vec<Vec<i16>>,
    /// The position notation.
    pub position: String,
    /// Turns begun.
    pub turns: u32,
    /// Rolls played.
    pub rolls: usize,
    /// The seats in play.
    pub seats: Vec<SeatJson>,
    /// The winner, when there is one.
    pub winner: Option<usize>,
    /// Each seat's rank (`None`: not finished).
    pub ranks: Vec<Option<u8>>,
    /// The game hit `max_turns`.
    pub unfinished: bool,
    /// Whether [`Session::undo`] has somewhere to go.
    pub can_undo: bool,
    /// The rules preset's name, or `custom`.
    pub rules: String,
    /// The seed.
    pub seed: u64,
    /// The seed's decimal digits (a JSON number above 2^53 does not survive JavaScript's
    /// numbers; the page shows and names files by this).
    pub seed_text: String,
}

/// The coach's view of the roll waiting for the person's choice: the strongest bot's value of
/// each legal move ([`bots::strongest`]).
#[derive(Clone, Debug, Serialize)]
pub struct CoachJson {
    /// The bot that rated the moves.
    pub bot: String,
    /// The roll rated.
    pub roll: u8,
    /// Its value of each legal move, in the legal moves' order (`None`: not rated).
    pub values: Vec<Option<f32>>,
    /// The index of the best move by those values.
    pub best: usize,
    /// Whether the values are equities (`P(win) - P(loss)` for the mover, -1 to 1, as the
    /// `td` player estimates them), so that a move's cost is in millipoints as `aeroplane
    /// grade` counts it; otherwise the bot's own evaluation scale.
    pub equity: bool,
}

/// What a new game is: the page's form, as JSON.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A preset name (`appfreegame`, `classic`, `chinese`) or a rules TOML text.
    pub rules: String,
    /// 2 to 4.
    pub players: usize,
    /// Per seat in play, in seat order: `person` or a bot's name.
    pub seats: Vec<String>,
    /// The seed: a number, or its decimal digits as a string.
    pub seed: serde_json::Value,
}

/// Rules from a preset name or a TOML variant text (`base = "classic"` and the options that
/// differ), as `aeroplane --rules` reads them.
pub fn rules_of(text: &str) -> Result<Rules, String> {
    let t = text.trim();
    if let Ok(p) = t.parse::<Preset>() {
        return Ok(p.rules());
    }
    if !t.contains('=') {
        let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
        return Err(format!(
            "unknown rules preset `{}`: the presets are {}, or give a rules TOML text (e.g. base = \"classic\" and options)",
            aeroplane_core::excerpt::excerpt(t),
            names.join(", ")
        ));
    }
    let err = |e: RulesError| format!("the rules are refused: {e}");
    let spec: RulesSpec = toml::from_str(t)
        .map_err(|e| err(RulesError::Parse(aeroplane_core::excerpt::clip_message(e))))?;
    if spec.is_empty() {
        return Err(err(RulesError::Empty));
    }
    spec.validate().map_err(err)
}

fn seed_of(v: &serde_json::Value) -> Result<u64, String> {
    let bad = || format!("the seed must be a whole number 0 to {}, not {v}", u64::MAX);
    match v {
        serde_json::Value::Number(n) => n.as_u64().ok_or_else(bad),
        serde_json::Value::String(s) => s.trim().parse().map_err(|_| bad()),
        _ => Err(bad()),
    }
}

fn steps_json(game: &Game) -> Vec<Vec<i16>> {
    let planes = usize::from(game.rules().planes());
    Seat::ALL
        .iter()
        .map(|&s| {
            if game.in_play(s) {
                game.steps(s)[..planes]
                    .iter()
                    .map(|&x| step_json(x))
                    .collect()
            } else {
                Vec::new()
            }
        })
        .collect()
}

fn plane_list(bits: u8) -> Vec<usize> {
    (0..8).filter(|p| bits & (1 << p) != 0).collect()
}

fn at_text(step: u8, centre: u8) -> String {
    match step {
        HANGAR => "the hangar".to_string(),
        0 => "the take-off cell".to_string(),
        s if s == centre => "home".to_string(),
        s => format!("step {s}"),
    }
}

fn legal_json(game: &Game, moves: &[Move]) -> Vec<LegalJson> {
    let centre = game.rules().centre();
    moves
        .iter()
        .enumerate()
        .map(|(index, m)| {
            let planes = plane_list(m.planes());
            let who = if planes.len() == 1 {
                format!("plane {}", planes[0])
            } else {
                let p: Vec<String> = planes.iter().map(|p| p.to_string()).collect();
                format!("planes {} (a stack)", p.join(","))
            };
            let mut text = if m.is_launch() {
                format!("launch {who} to the take-off cell")
            } else {
                format!(
                    "{who}: {} to {}",
                    at_text(m.from(), centre),
                    at_text(m.to(), centre)
                )
            };
            let mut extra = Vec::new();
            if m.jumps() {
                extra.push("jump".to_string());
            }
            if m.flies() {
                extra.push("flight".to_string());
            }
            if m.stays() {
                extra.push("declines the flight".to_string());
            }
            if m.bounces() {
                extra.push("bounces".to_string());
            }
            if m.captures() > 0 {
                extra.push(format!("captures {}", m.captures()));
            }
            if !extra.is_empty() {
                text.push_str(&format!(" ({})", extra.join(", ")));
            }
            LegalJson {
                index,
                action: ActionId::of_move(m).index() as u8,
                notation: m.to_string(),
                text,
                from: step_json(m.from()),
                to: step_json(m.to()),
                planes,
            }
        })
        .collect()
}

/// One game of a log, as the page's game chooser lists it ([`games_of`]).
#[derive(Clone, Debug, Serialize)]
pub struct GameJson {
    /// The game index.
    pub game: u64,
    /// Its decimal digits.
    pub game_text: String,
    /// Its rotation of the lineup around the seats.
    pub rotation: u64,
    /// The seats in play with their players, in seat order.
    pub seats: Vec<SeatJson>,
    /// The winning seat (`None`: no winner, or the game is not finished).
    pub winner: Option<usize>,
    /// Turns played (`None`: the game is not finished).
    pub turns: Option<u32>,
    /// Decision lines in the log.
    pub decisions: usize,
}

/// The games of a log (a page record: one; a run's `--log-games` log: one per game), as the
/// page offers them to choose from: each game's index, its seats' players, winner and turns.
/// The lines are checked for shape only; [`Session::from_log_game`] replays the one chosen.
pub fn games_of(text: &str) -> Result<Vec<GameJson>, String> {
    let parsed = log::parse(text)?;
    let h = &parsed.header;
    check_lineup(h)?;
    let in_play = Seat::in_play(h.players);
    let games = if parsed.games.is_empty() {
        vec![log::LoggedGame {
            game: h.first_deal.saturating_mul(h.games_per_deal()),
            decisions: Vec::new(),
            result: None,
        }]
    } else {
        parsed.games
    };
    games
        .iter()
        .map(|g| {
            let (_, rotation) = h.locate(g.game).ok_or_else(|| not_in_run(h, g.game))?;
            Ok(GameJson {
                game: g.game,
                game_text: g.game.to_string(),
                rotation,
                seats: in_play
                    .iter()
                    .enumerate()
                    .map(|(k, s)| SeatJson {
                        seat: s.index(),
                        colour: s.colour(),
                        player: h.bots[lineup_index(k, rotation, h.players)].name.clone(),
                        person: h.bots[lineup_index(k, rotation, h.players)].kind == PERSON,
                    })
                    .collect(),
                winner: g.result.as_ref().and_then(|(_, r)| r.winner),
                turns: g.result.as_ref().map(|(_, r)| r.turns),
                decisions: g.decisions.len(),
            })
        })
        .collect()
}

/// The lineup entry of the k-th seat in play in rotation `rotation` of `n` players.
fn lineup_index(k: usize, rotation: u64, n: usize) -> usize {
    ((k as u64 + rotation) % n.max(1) as u64) as usize
}

/// The header describes one game of 2 to 4 seats.
fn check_lineup(h: &Header) -> Result<(), String> {
    let in_play = Seat::in_play(h.players.clamp(2, 4));
    if !(2..=4).contains(&h.players)
        || h.seats != in_play.iter().map(|s| s.index()).collect::<Vec<_>>()
        || h.bots.len() != h.players
    {
        let seats: Vec<String> = h.seats.iter().map(|s| s.to_string()).collect();
        return Err(format!(
            "line 1: `players` {}, `seats` [{}] and `bots` ({} entries) do not describe one game of 2 to 4 seats",
            h.players,
            seats.join(", "),
            h.bots.len()
        ));
    }
    Ok(())
}

fn not_in_run(h: &Header, game: u64) -> String {
    let per = h.games_per_deal();
    let first = h.first_deal.saturating_mul(per);
    let end = h
        .first_deal
        .saturating_add(h.deals)
        .saturating_mul(per)
        .saturating_sub(1);
    format!(
        "game {game} is not a game of this log's run: its header promises games {first} to {end} ({} deals{})",
        h.deals,
        if h.rotate_seats {
            ", seats rotated"
        } else {
            ""
        }
    )
}

/// A game being played on the page.
pub struct Session {
    rules: Rules,
    seats: Vec<Seat>,
    names: Vec<String>,
    players: Vec<Player>,
    seed: u64,
    /// The game's index, deal and rotation in its run.
    place: log::Place,
    header: Header,
    game: Game,
    pending: Option<u8>,
    dice: SeededDice,
    record: GameRecord,
    /// The decision and result lines so far (the header apart).
    lines: String,
    /// Rolls played without a choice since the last decision line, as digits.
    forced: String,
    decisions: u32,
    rolls: Vec<RollJson>,
    history: Vec<Snapshot>,
}

impl Session {
    /// A new game from the page's form (JSON of [`Config`]).
    pub fn from_config_json(json: &str) -> Result<Session, String> {
        let c: Config = serde_json::from_str(json).map_err(|e| {
            format!(
                "a bad game configuration: {}",
                aeroplane_core::excerpt::excerpt(&e.to_string())
            )
        })?;
        let rules = rules_of(&c.rules)?;
        Session::new(rules, c.players, &c.seats, seed_of(&c.seed)?)
    }

    /// A new game: `players` seats (2 to 4), `seats[k]` the player of the k-th seat in play
    /// (`person` or a bot's name), the dice and bot seeds of game 0 of `seed`.
    pub fn new(
        rules: Rules,
        players: usize,
        seats: &[String],
        seed: u64,
    ) -> Result<Session, String> {
        if (2..=4).contains(&players) && seats.len() != players {
            return Err(format!(
                "{players} players need {players} seats (person or a bot each), not {}",
                seats.len()
            ));
        }
        Session::in_run(rules, &seats[..seats.len().min(players)], seed, 0, false)
    }

    /// Game `game` of a run of `lineup` (`person` or a bot's name per lineup entry, 2 to 4)
    /// with seed `seed`, seats rotated or not, as `aeroplane run` plays it: its deal's dice,
    /// its bots' seeds, and in rotation `r` the k-th seat in play taken by lineup entry
    /// `(k + r) mod n`. The record's header names this one deal (`first_deal` its deal).
    pub fn in_run(
        rules: Rules,
        lineup: &[String],
        seed: u64,
        game: u64,
        rotate_seats: bool,
    ) -> Result<Session, String> {
        let players = lineup.len();
        let per = if rotate_seats {
            players.max(1) as u64
        } else {
            1
        };
        let place = log::Place {
            game,
            deal: game / per,
            rotation: game % per,
        };
        let seats: Vec<String> = (0..players)
            .map(|k| lineup[lineup_index(k, place.rotation, players)].clone())
            .collect();
        if !(2..=4).contains(&players) {
            return Err(format!("a game has 2 to 4 players, not {players}"));
        }
        if place
            .deal
            .checked_add(1)
            .and_then(|end| end.checked_mul(per))
            .is_none()
        {
            return Err(format!(
                "game {game} is past the last game a run numbers (its deals end before u64::MAX)"
            ));
        }
        let in_play = Seat::in_play(players);
        let game =
            Game::new(rules, players).map_err(|e| format!("the game cannot be set up: {e}"))?;
        let mut ps = Vec::new();
        let mut lineup = Vec::new();
        for (k, (name, &seat)) in seats.iter().zip(in_play).enumerate() {
            let name = name.trim();
            if name == PERSON {
                ps.push(Player::Person);
                lineup.push(HeaderBot {
                    name: PERSON.into(),
                    kind: PERSON.into(),
                });
            } else {
                let (mut bot, kind) =
                    bots::bot(name).map_err(|e| format!("seat {k} ({}): {e}", seat.colour()))?;
                bot.try_new_game(&game, seat, bot_stream(seed, place.deal, seat), place.game)
                    .map_err(|f| format!("seat {k} ({}): {f}", seat.colour()))?;
                ps.push(Player::Bot(bot));
                lineup.push(HeaderBot {
                    name: name.to_string(),
                    kind,
                });
            }
        }
        let names: Vec<String> = lineup.iter().map(|b| b.name.clone()).collect();
        // The header's lineup is in lineup order (rotation 0).
        let mut by_lineup = lineup.clone();
        for (k, b) in lineup.into_iter().enumerate() {
            by_lineup[lineup_index(k, place.rotation, players)] = b;
        }
        let header = Header::new(
            rules,
            in_play.iter().map(|s| s.index()).collect(),
            by_lineup,
            seed,
        )
        .with_deal(place.deal, rotate_seats);
        Ok(Session {
            rules,
            seats: in_play.to_vec(),
            names,
            players: ps,
            seed,
            place,
            header,
            game,
            pending: None,
            dice: SeededDice::new(seed, place.deal),
            record: GameRecord::new(players),
            lines: String::new(),
            forced: String::new(),
            decisions: 0,
            rolls: Vec::new(),
            history: Vec::new(),
        })
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The lineup entry playing the k-th seat in play.
    fn lineup_of(&self, k: usize) -> usize {
        lineup_index(k, self.place.rotation, self.seats.len())
    }

    /// The index of `seat` among the seats in play.
    fn k_of(&self, seat: Seat) -> usize {
        self.seats
            .iter()
            .position(|&s| s == seat)
            .expect("a seat in play")
    }

    /// Each seat's player name (index = seat; `None` for a seat not in play).
    pub fn names_by_seat(&self) -> [Option<String>; 4] {
        let mut out: [Option<String>; 4] = Default::default();
        for (k, s) in self.seats.iter().enumerate() {
            out[s.index()] = Some(self.names[k].clone());
        }
        out
    }

    fn person_to_move(&self) -> bool {
        !self.game.is_over()
            && matches!(self.players[self.k_of(self.game.to_move())], Player::Person)
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            game: self.game,
            pending: self.pending,
            dice: self.dice.clone(),
            record: self.record,
            lines: self.lines.len(),
            forced: self.forced.clone(),
            decisions: self.decisions,
            rolls: self.rolls.len(),
        }
    }

    fn restore(&mut self, s: Snapshot) {
        self.game = s.game;
        self.pending = s.pending;
        self.dice = s.dice;
        self.record = s.record;
        self.lines.truncate(s.lines);
        self.forced = s.forced;
        self.decisions = s.decisions;
        self.rolls.truncate(s.rolls);
    }

    fn ready_to_roll(&self, who: &str) -> Result<(), String> {
        if self.game.is_over() {
            return Err("the game is over: start a new game, or undo".into());
        }
        if let Some(r) = self.pending {
            return Err(format!(
                "{} has rolled {r} and must choose a move first",
                self.game.to_move().colour()
            ));
        }
        let person = self.person_to_move();
        match who {
            "person" if !person => Err(format!(
                "it is {}'s roll, and a bot ({}) plays it",
                self.game.to_move().colour(),
                self.names[self.k_of(self.game.to_move())]
            )),
            "bot" if person => Err(format!(
                "it is {}'s roll, and a person plays it: roll the die",
                self.game.to_move().colour()
            )),
            _ => Ok(()),
        }
    }

    /// The person to move rolls the die (the next roll of their seat's seeded dice). A roll
    /// with no choice (a pass, a punished third six, a single legal move) is played at once;
    /// otherwise it waits for [`Session::apply`].
    pub fn roll(&mut self) -> Result<(), String> {
        self.ready_to_roll("person")?;
        let roll = self.next_roll();
        let moves = self.game.legal_moves(roll);
        if moves.len() <= 1 {
            self.play_forced(roll, &moves);
        } else {
            self.pending = Some(roll);
            // A person's decision: where undo comes back to.
            self.history.push(self.snapshot());
        }
        Ok(())
    }

    fn next_roll(&mut self) -> u8 {
        self.history.push(self.snapshot());
        self.dice
            .roll(self.game.to_move())
            .expect("seeded dice never run out")
    }

    /// Plays the `index`-th legal move of the roll waiting. An index that is not a legal
    /// move's is refused, naming the moves there are; the state is unchanged.
    pub fn apply(&mut self, index: usize) -> Result<(), String> {
        let Some(roll) = self.pending else {
            return Err(if self.game.is_over() {
                "the game is over: there is no move to make".into()
            } else {
                format!("{} must roll the die first", self.game.to_move().colour())
            });
        };
        if !self.person_to_move() {
            return Err("a bot plays this seat".into());
        }
        let moves = self.game.legal_moves(roll);
        if index >= moves.len() {
            let legal: Vec<String> = moves
                .iter()
                .enumerate()
                .map(|(i, m)| format!("{i} ({m})"))
                .collect();
            return Err(format!(
                "move {index} is not a legal move for roll {roll}: the legal moves are {}",
                legal.join(", ")
            ));
        }
        self.play_choice(roll, &moves, index, None);
        Ok(())
    }

    /// The bot of the seat to move rolls and plays: its choice, and the value it gave each
    /// move when it reports values. A bot's search is bounded by its own parameters (depth,
    /// iterations), never by a clock.
    pub fn bot_move(&mut self) -> Result<(), String> {
        self.ready_to_roll("bot")?;
        let roll = self.next_roll();
        let moves = self.game.legal_moves(roll);
        if moves.len() <= 1 {
            self.play_forced(roll, &moves);
            return Ok(());
        }
        let k = self.k_of(self.game.to_move());
        let Player::Bot(bot) = &mut self.players[k] else {
            unreachable!("ready_to_roll checked a bot's seat");
        };
        let chosen = match bot.try_choose(&self.game, roll, &moves) {
            Ok(c) if c < moves.len() => c,
            Ok(c) => {
                let s = self.history.pop().expect("pushed by next_roll");
                self.restore(s);
                return Err(format!(
                    "the bot {} chose move {c} of {}",
                    self.names[k],
                    moves.len()
                ));
            }
            Err(f) => {
                let s = self.history.pop().expect("pushed by next_roll");
                self.restore(s);
                return Err(f.to_string());
            }
        };
        let values = bot.move_values().map(<[f32]>::to_vec);
        self.play_choice(roll, &moves, chosen, values);
        Ok(())
    }

    fn play_forced(&mut self, roll: u8, moves: &MoveList) {
        self.forced.push(char::from(b'0' + roll));
        self.play(roll, moves, moves.first().map(|_| 0), None);
    }

    fn play_choice(&mut self, roll: u8, moves: &MoveList, chosen: usize, values: Option<Vec<f32>>) {
        let k = self.k_of(self.game.to_move());
        let decided = log::Decided {
            game_index: self.place.game,
            game: &self.game,
            bot: self.lineup_of(k),
            roll,
            moves,
            chosen,
            forced: &self.forced,
            values: values.as_deref(),
        };
        self.lines
            .push_str(&log::decision_line(&decided, self.decisions));
        self.forced.clear();
        self.decisions += 1;
        self.play(roll, moves, Some(chosen), values);
    }

    fn play(
        &mut self,
        roll: u8,
        moves: &MoveList,
        chosen: Option<usize>,
        values: Option<Vec<f32>>,
    ) {
        let seat = self.game.to_move();
        let k = self.k_of(seat);
        let legal = legal_json(&self.game, moves);
        let outcome: Outcome = self.game.apply(roll, chosen.map(|c| moves[c]));
        self.pending = None;
        self.record.count(&outcome);
        let text = match (outcome.action, chosen) {
            (aeroplane_core::Action::Penalty { planes }, _) => {
                let p: Vec<String> = plane_list(planes).iter().map(|p| p.to_string()).collect();
                format!(
                    "a third six: planes {} sent back to the hangar",
                    p.join(",")
                )
            }
            (_, Some(c)) => legal[c].text.clone(),
            (_, None) => "no legal move: pass".to_string(),
        };
        let mut text = text;
        if outcome.seat_finished {
            text.push_str("; all its planes are home");
        }
        self.rolls.push(RollJson {
            n: self.rolls.len() + 1,
            turn: self.game.turns().max(1),
            seat: seat.index(),
            player: self.names[k].clone(),
            roll,
            legal,
            chosen,
            values: values
                .filter(|v| v.len() == moves.len())
                .map(|v| v.iter().map(|x| x.is_finite().then_some(*x)).collect()),
            text,
            after: steps_json(&self.game),
        });
        if self.game.is_over() {
            self.record.close(&self.game);
        }
    }

    /// Takes back moves: to the last decision a person made (the roll waiting again: the
    /// seeded dice give the same roll), undoing the bots' rolls after it; with no person's
    /// decision left, to the start. Bots keep their state (a random bot's generator is not
    /// wound back).
    pub fn undo(&mut self) -> Result<(), String> {
        let now = (self.rolls.len(), self.pending.is_some());
        let is_decision = |s: &Snapshot| s.pending.is_some();
        let target = self
            .history
            .iter()
            .rposition(|s| is_decision(s) && (s.rolls, true) != now && s.rolls <= now.0);
        let at = match target {
            Some(i) => i,
            None if self.history.is_empty() => {
                return Err("nothing to undo: no roll has been played".into());
            }
            None => 0,
        };
        let s = self.history[at].clone();
        // A person's decision stays on the stack (it is where the game now is); the start
        // (the snapshot before the first roll) is popped with the rest.
        self.history
            .truncate(if s.pending.is_some() { at + 1 } else { at });
        self.restore(s);
        Ok(())
    }

    /// The state as the page draws it.
    pub fn state(&self) -> StateJson {
        let g = &self.game;
        let over = g.is_over();
        let legal = match self.pending {
            Some(r) => legal_json(g, &g.legal_moves(r)),
            None => Vec::new(),
        };
        let mut at = *g;
        if let Some(r) = self.pending {
            let _ = at.apply_roll(r);
        }
        StateJson {
            game: self.place.game,
            game_text: self.place.game.to_string(),
            phase: if over {
                "over"
            } else if self.pending.is_some() {
                "choose"
            } else {
                "roll"
            },
            to_move: g.to_move().index(),
            person_to_move: self.person_to_move(),
            roll: self.pending,
            legal,
            steps: steps_json(g),
            position: at.to_string(),
            turns: g.turns(),
            rolls: self.rolls.len(),
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(k, s)| SeatJson {
                    seat: s.index(),
                    colour: s.colour(),
                    player: self.names[k].clone(),
                    person: matches!(self.players[k], Player::Person),
                })
                .collect(),
            winner: g.winner().map(Seat::index),
            ranks: Seat::ALL.iter().map(|&s| g.rank(s)).collect(),
            unfinished: over && self.record.unfinished,
            can_undo: !self.history.is_empty(),
            rules: Preset::ALL
                .iter()
                .find(|p| p.rules() == self.rules)
                .map_or("custom", |p| p.name())
                .to_string(),
            seed: self.seed,
            seed_text: self.seed.to_string(),
        }
    }

    /// The rolls played, from `from` on (the page asks for the new ones).
    pub fn rolls(&self, from: usize) -> &[RollJson] {
        &self.rolls[from.min(self.rolls.len())..]
    }

    /// The game as a decision log (docs/LOG.md): the header and the decision lines, and, once
    /// the game is over, the result line. `aeroplane replay --log FILE.jsonl --game 0` reads a
    /// finished game's; the page's upload reads both.
    pub fn log(&self) -> String {
        let mut s = self.header.line();
        s.push_str(&self.lines);
        if self.game.is_over() {
            let mut bots = [None; 4];
            for (k, seat) in self.seats.iter().enumerate() {
                bots[seat.index()] = Some(self.lineup_of(k));
            }
            s.push_str(&log::result_line(
                self.place,
                &self.game,
                &bots,
                &self.forced,
                &self.record,
            ));
        }
        s
    }

    /// The game's record (`aeroplane replay --json`'s `record`): winner, ranks, counters.
    pub fn record_json(&self) -> String {
        let mut record = self.record;
        record.close(&self.game);
        serde_json::to_string(&record.to_json_value(&self.game)).expect("a record serializes")
    }

    /// The coach: the strongest bot the page has for these rules and players rates every legal
    /// move of the roll waiting (the person's or a bot's), as it would choose. It changes
    /// nothing in the game.
    pub fn coach(&self) -> Result<CoachJson, String> {
        let Some(roll) = self.pending else {
            return Err(if self.game.is_over() {
                "the game is over: there is no roll to rate".into()
            } else {
                "the coach rates a roll waiting for a choice: roll the die first".into()
            });
        };
        let name = bots::strongest(&self.rules, self.seats.len());
        let (mut bot, kind) = bots::bot(&name)?;
        let seat = self.game.to_move();
        bot.try_new_game(
            &self.game,
            seat,
            bot_stream(self.seed, self.place.deal, seat),
            self.place.game,
        )
        .map_err(|f| format!("the coach {name}: {f}"))?;
        let moves = self.game.legal_moves(roll);
        let chosen = bot
            .try_choose(&self.game, roll, &moves)
            .map_err(|f| format!("the coach {name}: {f}"))?;
        let values: Vec<Option<f32>> = match bot.move_values() {
            Some(v) if v.len() == moves.len() => {
                v.iter().map(|x| x.is_finite().then_some(*x)).collect()
            }
            _ => vec![None; moves.len()],
        };
        // The best by the values (the first of equals); the bot's own choice without them.
        let best = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i, v)))
            .fold(None, |b: Option<(usize, f32)>, (i, v)| match b {
                Some((_, bv)) if bv >= v => b,
                _ => Some((i, v)),
            })
            .map_or(chosen.min(moves.len().saturating_sub(1)), |(i, _)| i);
        Ok(CoachJson {
            bot: name,
            roll,
            values,
            best,
            equity: kind == "td",
        })
    }

    /// A game saved in progress (the page keeps one in the browser): its decision log, then
    /// the rolls without a choice played after the log's last decision, up to `rolls` rolls in
    /// all (the seeded dice give them again), and, when `rolled`, the roll of the person to
    /// move that waits for a choice. Errors as [`Session::from_log`]'s, or naming the roll that
    /// the log does not hold.
    pub fn from_saved(text: &str, rolls: usize, rolled: bool) -> Result<Session, String> {
        Session::from_saved_game(text, None, rolls, rolled)
    }

    /// [`Session::from_saved`] of game `game` of the log (`None`: its only game); a game of
    /// a rotated run saved before its first decision needs its index, which its lines would
    /// otherwise give.
    pub fn from_saved_game(
        text: &str,
        game: Option<u64>,
        rolls: usize,
        rolled: bool,
    ) -> Result<Session, String> {
        let mut s = Session::from_log_game(text, game)?;
        if s.rolls.len() > rolls {
            return Err(format!(
                "the saved game has {rolls} rolls, but its log holds {}",
                s.rolls.len()
            ));
        }
        while s.rolls.len() < rolls {
            if s.game.is_over() {
                return Err(format!(
                    "the saved game has {rolls} rolls, but it ended after {}",
                    s.rolls.len()
                ));
            }
            let roll = s
                .dice
                .clone()
                .roll(s.game.to_move())
                .expect("seeded dice never run out");
            let moves = s.game.legal_moves(roll);
            if moves.len() > 1 {
                return Err(format!(
                    "the saved game has {rolls} rolls, but roll {} is a choice its log does not hold",
                    s.rolls.len() + 1
                ));
            }
            let r = s.next_roll();
            debug_assert_eq!(r, roll);
            s.play_forced(roll, &moves);
        }
        if rolled {
            s.roll()?;
            if s.pending.is_none() {
                return Err(format!(
                    "the saved game waits for a choice after {rolls} rolls, but roll {} has none",
                    rolls + 1
                ));
            }
        }
        Ok(s)
    }

    /// A game read back from a decision log of one game (a file the page downloaded, or a
    /// run's `--log-games` log of one game); a log of several games is refused, naming them
    /// ([`Session::from_log_game`] chooses one).
    pub fn from_log(text: &str) -> Result<Session, String> {
        Session::from_log_game(text, None)
    }

    /// Game `game` of a decision log (`None`: the log's only game) read back: every roll
    /// checked against the seeded dice of its seed and deal and every choice against the
    /// engine's legal moves, every key position and the final one against the engine's. The
    /// seats are the lineup rotated as the game's rotation says. A bot the page does not have
    /// is played by a person from here on. The error names the line and what is wrong.
    pub fn from_log_game(text: &str, game: Option<u64>) -> Result<Session, String> {
        let mut parsed = log::parse(text)?;
        let h = &parsed.header;
        check_lineup(h)?;
        let held = |games: &[log::LoggedGame]| -> String {
            let v: Vec<String> = games.iter().map(|x| x.game.to_string()).collect();
            v.join(", ")
        };
        let empty = |game: u64| log::LoggedGame {
            game,
            decisions: Vec::new(),
            result: None,
        };
        let logged = match game {
            Some(g) => match parsed.games.iter().position(|x| x.game == g) {
                Some(i) => parsed.games.swap_remove(i),
                None if h.locate(g).is_none() => return Err(not_in_run(h, g)),
                // A game saved before its first decision: the header alone.
                None if parsed.games.is_empty() => empty(g),
                None => {
                    return Err(format!(
                        "the log holds no game {g}: it holds game(s) {}",
                        held(&parsed.games)
                    ));
                }
            },
            None => match parsed.games.len() {
                0 => empty(h.first_deal.saturating_mul(h.games_per_deal())),
                1 => parsed.games.swap_remove(0),
                n => {
                    return Err(format!(
                        "the log holds {n} games ({}): choose one",
                        held(&parsed.games)
                    ));
                }
            },
        };
        let h = &parsed.header;
        if h.locate(logged.game).is_none() {
            return Err(not_in_run(h, logged.game));
        }
        let lineup: Vec<String> = h
            .bots
            .iter()
            .map(|b| {
                if b.kind == PERSON || bots::bot(&b.name).is_err() {
                    PERSON.to_string()
                } else {
                    b.name.clone()
                }
            })
            .collect();
        let mut s = Session::in_run(h.rules, &lineup, h.seed, logged.game, h.rotate_seats)?;
        // The lineup as the file names it (a bot the page lacks keeps its name in the record).
        s.header.bots = h.bots.clone();
        s.names = (0..h.players)
            .map(|k| h.bots[s.lineup_of(k)].name.clone())
            .collect();
        if let Some((line, r)) = &logged.result
            && (r.deal, r.rotation) != (s.place.deal, s.place.rotation)
        {
            return Err(format!(
                "line {line}: the result line gives game {} deal {} rotation {}, where the header makes it deal {} rotation {}",
                r.game, r.deal, r.rotation, s.place.deal, s.place.rotation
            ));
        }
        for d in &logged.decisions {
            let at = |what: String| format!("line {}: {what}", d.line);
            for &r in &d.forced {
                s.replay_forced(r).map_err(at)?;
            }
            s.replay_decision(d).map_err(at)?;
        }
        if let Some((line, r)) = &logged.result {
            let at = |what: String| format!("line {line}: {what}");
            for b in digits_of(&r.forced).map_err(at)? {
                s.replay_forced(b).map_err(at)?;
            }
            let engine = s.game.to_string();
            if engine != r.position {
                return Err(at(format!(
                    "the final position `{}` is not the engine's `{engine}`",
                    aeroplane_core::excerpt::excerpt(&r.position)
                )));
            }
            if !s.game.is_over() {
                return Err(at("the game is not over after its last roll".into()));
            }
            let ranks = Seat::ALL.map(|x| s.game.rank(x));
            if r.winner != s.game.winner().map(Seat::index)
                || r.ranks != ranks
                || r.turns != s.record.counters[Counter::Turns]
            {
                return Err(at(format!(
                    "the result ({}) is not the engine's ({})",
                    result_words(r.winner, &r.ranks, r.turns),
                    result_words(
                        s.game.winner().map(Seat::index),
                        &ranks,
                        s.record.counters[Counter::Turns]
                    )
                )));
            }
        }
        Ok(s)
    }

    /// The next roll, checked to be the seeded dice's.
    fn replay_roll(&mut self, roll: u8) -> Result<(), String> {
        if self.game.is_over() {
            return Err(format!("a roll {roll} after the game ended"));
        }
        let seat = self.game.to_move();
        let mut dice = self.dice.clone();
        let want = dice.roll(seat).expect("seeded dice never run out");
        if want != roll {
            return Err(format!(
                "roll {} is {roll}, where the seeded dice of seed {} give {} {want}: the file's rolls are not its seed's",
                self.rolls.len() + 1,
                self.seed,
                seat.colour()
            ));
        }
        Ok(())
    }

    fn replay_forced(&mut self, roll: u8) -> Result<(), String> {
        self.replay_roll(roll)?;
        let moves = self.game.legal_moves(roll);
        if moves.len() > 1 {
            return Err(format!(
                "a roll of {roll} recorded as without a choice, where {} has {} legal moves",
                self.game.to_move().colour(),
                moves.len()
            ));
        }
        let r = self.next_roll();
        debug_assert_eq!(r, roll);
        self.play_forced(roll, &moves);
        Ok(())
    }

    fn replay_decision(&mut self, d: &log::Decision) -> Result<(), String> {
        self.replay_roll(d.roll)?;
        let seat = self.game.to_move();
        let k = self.k_of(seat);
        if d.seat != seat.index() || d.bot != self.lineup_of(k) {
            return Err(format!(
                "a decision of seat {} (lineup {}), where {} (seat {}, lineup {}) is to move",
                d.seat,
                d.bot,
                seat.colour(),
                seat.index(),
                self.lineup_of(k)
            ));
        }
        let moves = self.game.legal_moves(d.roll);
        let ids: Vec<u8> = {
            let mut v: Vec<u8> = moves
                .iter()
                .map(|m| ActionId::of_move(m).index() as u8)
                .collect();
            v.sort_unstable();
            v
        };
        if ids != d.legal || moves.len() < 2 {
            return Err(format!(
                "the legal actions {:?} are not the engine's {ids:?} for roll {}",
                d.legal, d.roll
            ));
        }
        let Some(chosen) = moves
            .iter()
            .position(|m| ActionId::of_move(m).index() as u8 == d.action)
        else {
            return Err(format!(
                "action {} is not one of the legal actions {ids:?}",
                d.action
            ));
        };
        if let Some(p) = &d.position {
            let mut at = self.game;
            at.apply_roll(d.roll).map_err(|e| e.to_string())?;
            if at.to_string() != *p {
                return Err(format!(
                    "the position `{}` is not the engine's `{at}`",
                    aeroplane_core::excerpt::excerpt(p)
                ));
            }
        }
        // The values back in the moves' order (the line lists them by ascending action id).
        let values = d
            .values
            .as_ref()
            .filter(|v| v.len() == moves.len())
            .map(|v| {
                moves
                    .iter()
                    .map(|m| {
                        let id = ActionId::of_move(m).index() as u8;
                        let i = ids.iter().position(|&x| x == id).expect("a legal id");
                        v[i].unwrap_or(f32::NAN)
                    })
                    .collect::<Vec<f32>>()
            });
        let r = self.next_roll();
        debug_assert_eq!(r, d.roll);
        if matches!(self.players[k], Player::Person) {
            self.pending = Some(d.roll);
            self.history.push(self.snapshot());
        }
        self.play_choice(d.roll, &moves, chosen, values);
        Ok(())
    }
}

/// A game's result in words: `red wins; ranks: red 1, blue 2; 143 turns`.
fn result_words(winner: Option<usize>, ranks: &[Option<u8>; 4], turns: u32) -> String {
    let colour = |i: usize| {
        Seat::ALL
            .get(i)
            .map_or("a seat not in play", |s| s.colour())
    };
    let won = winner.map_or("no winner".to_string(), |w| format!("{} wins", colour(w)));
    let ranked: Vec<String> = ranks
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.map(|r| format!("{} {r}", colour(i))))
        .collect();
    let ranked = if ranked.is_empty() {
        "none ranked".to_string()
    } else {
        format!("ranks: {}", ranked.join(", "))
    };
    format!("{won}; {ranked}; {turns} turns")
}

fn digits_of(text: &str) -> Result<Vec<u8>, String> {
    text.bytes()
        .map(|b| {
            b.checked_sub(b'0')
                .filter(|d| (1..=6).contains(d))
                .ok_or_else(|| format!("`forced` must be rolls 1 to 6, not {text:?}"))
        })
        .collect()
}

//! Checking a logged game against the engine: replay its rolls and actions through the state
//! API and compare, at every decision, the seat, bot and legal actions (and the position, where
//! the log gives it: every line of a version 1 log, the key lines of a version 2 log) with the
//! engine's, and at the end the final position and the result. The replay itself gives the
//! position of every decision.

use super::Header;
use super::read::{Decision, LogError, LogReader, LoggedGame, ResultLine};
use aeroplane_core::{ActionId, Dice, Game, GameRecord, Outcome, Seat, SeededDice};

/// A decision of a checked game.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedDecision {
    /// The seat that decided.
    pub seat: usize,
    /// The action it chose.
    pub action: ActionId,
    /// The values its bot gave the legal actions (ascending ids), if it reported them.
    pub values: Option<Vec<Option<f32>>>,
}

/// A logged game that agrees with the engine, as the replay needs it.
#[derive(Clone, Debug)]
pub struct CheckedGame {
    /// The game index.
    pub game: u64,
    /// Every roll of the game, in order (the decisions' and the forced ones).
    pub rolls: Vec<u8>,
    /// Its decisions, in order.
    pub decisions: Vec<LoggedDecision>,
    /// The lineup index of the bot in each seat (`None`: not in play).
    pub bots: [Option<u8>; 4],
    /// The position the game ended in.
    pub last: Game,
    /// The record the engine counts.
    pub record: GameRecord,
    /// The seat whose bot failed and forfeited the game, if one did (`--recover`).
    pub forfeit: Option<usize>,
}

struct Checker<'a> {
    file: &'a str,
    game: u64,
    g: Game,
    record: GameRecord,
    rolls: Vec<u8>,
    /// The seeded dice of the game's deal under the header's seed: every roll must be theirs.
    dice: SeededDice,
    seed: u64,
    deal: u64,
}

impl Checker<'_> {
    fn fail(&self, line: u64, at: &str, what: String) -> LogError {
        LogError::Disagrees {
            file: self.file.to_string(),
            line,
            game: self.game,
            at: at.to_string(),
            what,
        }
    }

    fn count(&mut self, o: &Outcome) {
        self.record.count(o);
    }

    /// Checks that `roll`, about to be played by the seat to move, is the next roll of that
    /// seat's seeded dice: a game of another seed, or of another index, is named here.
    fn seeded(&mut self, roll: u8, line: u64, at: &str) -> Result<(), LogError> {
        let seat = self.g.to_move();
        let want = self.dice.roll(seat).expect("seeded dice never run out");
        if roll == want {
            return Ok(());
        }
        Err(self.fail(
            line,
            at,
            format!(
                "roll {} of the game is {roll}, where the seeded dice of seat {} give {want} (seed {}, deal {}): this game is not game {} of the run its header names (a game of another seed or another index)",
                self.rolls.len() + 1,
                seat.index(),
                self.seed,
                self.deal,
                self.game
            ),
        ))
    }

    /// Plays a roll the log says had no choice: a pass, a punished third six, or the only
    /// legal move.
    fn forced(&mut self, roll: u8, line: u64, at: &str) -> Result<(), LogError> {
        if self.g.is_over() {
            return Err(self.fail(
                line,
                at,
                format!("a forced roll {roll} after the game ended"),
            ));
        }
        self.seeded(roll, line, at)?;
        self.rolls.push(roll);
        match self.g.apply_roll(roll) {
            Err(e) => Err(self.fail(line, at, format!("forced roll {roll}: {e}"))),
            Ok(Some(o)) => {
                self.count(&o);
                Ok(())
            }
            Ok(None) => {
                let legal = self.g.legal_actions();
                if legal.len() != 1 {
                    return Err(self.fail(
                        line,
                        at,
                        format!(
                            "forced roll {roll} offers {} legal moves at `{}`: that is a decision, but the log has no line for it",
                            legal.len(),
                            self.g
                        ),
                    ));
                }
                let id = legal.as_slice()[0];
                let o = self
                    .g
                    .apply_action(u32::from(id))
                    .map_err(|e| self.fail(line, at, e.to_string()))?;
                self.count(&o);
                Ok(())
            }
        }
    }

    fn decision(
        &mut self,
        line: u64,
        k: usize,
        d: &Decision,
        bots: &[Option<u8>; 4],
    ) -> Result<LoggedDecision, LogError> {
        let at = format!("decision {}", k + 1);
        for &r in &d.forced {
            self.forced(r, line, &at)?;
        }
        if self.g.is_over() {
            return Err(self.fail(line, &at, "the game was already over".into()));
        }
        let seat = self.g.to_move().index();
        if d.seat != seat {
            return Err(self.fail(
                line,
                &at,
                format!(
                    "the log says seat {} decides; the engine has seat {seat} to roll",
                    d.seat
                ),
            ));
        }
        if bots[seat].map(usize::from) != Some(d.bot) {
            return Err(self.fail(
                line,
                &at,
                format!(
                    "the log says bot {} decides for seat {seat}, but its result line seats bot {}",
                    d.bot,
                    bots[seat].map_or("none".to_string(), |b| b.to_string())
                ),
            ));
        }
        self.seeded(d.roll, line, &at)?;
        self.rolls.push(d.roll);
        match self.g.apply_roll(d.roll) {
            Err(e) => return Err(self.fail(line, &at, format!("roll {}: {e}", d.roll))),
            Ok(Some(_)) => {
                return Err(self.fail(
                    line,
                    &at,
                    format!(
                        "roll {} offers no move here: there is nothing to decide",
                        d.roll
                    ),
                ));
            }
            Ok(None) => {}
        }
        if let Some(position) = &d.position {
            let engine = self.g.to_string();
            if engine != *position {
                return Err(self.fail(
                    line,
                    &at,
                    format!(
                        "the log's position `{}` is not the engine's `{engine}`",
                        aeroplane_core::excerpt::excerpt(position)
                    ),
                ));
            }
        }
        let legal: Vec<u8> = self.g.legal_actions().as_slice().to_vec();
        if legal.len() < 2 {
            return Err(self.fail(
                line,
                &at,
                "roll offers a single move: not a decision (it belongs in `forced`)".into(),
            ));
        }
        if legal != d.legal {
            return Err(self.fail(
                line,
                &at,
                format!(
                    "the log's legal actions {:?} are not the engine's {legal:?}",
                    d.legal
                ),
            ));
        }
        if !legal.contains(&d.action) {
            return Err(self.fail(
                line,
                &at,
                format!(
                    "action {} is not among the legal actions {legal:?}",
                    d.action
                ),
            ));
        }
        if let Some(v) = &d.values
            && v.len() != legal.len()
        {
            return Err(self.fail(
                line,
                &at,
                format!("{} values for {} legal actions", v.len(), legal.len()),
            ));
        }
        let o = self
            .g
            .apply_action(u32::from(d.action))
            .map_err(|e| self.fail(line, &at, e.to_string()))?;
        self.count(&o);
        Ok(LoggedDecision {
            seat,
            action: ActionId::new(u32::from(d.action)).expect("a legal id"),
            values: d.values.clone(),
        })
    }

    fn result(&mut self, line: u64, r: &ResultLine) -> Result<(), LogError> {
        let at = "result";
        for &roll in &r.forced {
            self.forced(roll, line, at)?;
        }
        let engine = self.g.to_string();
        if engine != r.position {
            return Err(self.fail(
                line,
                at,
                format!(
                    "the log's final position `{}` is not the engine's `{engine}`",
                    aeroplane_core::excerpt::excerpt(&r.position)
                ),
            ));
        }
        let forfeit = r.result.forfeit;
        if forfeit.is_none() && !self.g.is_over() {
            return Err(self.fail(
                line,
                at,
                "the game is not over after its last logged roll".into(),
            ));
        }
        self.record.close(&self.g);
        let turns = self.record.counters[aeroplane_core::Counter::Turns];
        if r.result.turns != turns {
            return Err(self.fail(
                line,
                at,
                format!(
                    "the log's turns {} are not the engine's {turns}",
                    r.result.turns
                ),
            ));
        }
        if let Some(counters) = &r.result.counters
            && *counters != self.record.counters
        {
            let differ: Vec<String> = aeroplane_core::Counter::ALL
                .iter()
                .filter(|&&c| counters[c] != self.record.counters[c])
                .map(|&c| {
                    format!(
                        "{} {} (engine {})",
                        c.name(),
                        counters[c],
                        self.record.counters[c]
                    )
                })
                .collect();
            return Err(self.fail(
                line,
                at,
                format!("the counters differ: {}", differ.join(", ")),
            ));
        }
        if forfeit.is_none() {
            let ranks = self.record.ranks.map(|x| (x != 0).then_some(x));
            let winner = self.record.winner.map(Seat::index);
            if ranks != r.result.ranks || winner != r.result.winner {
                return Err(self.fail(
                    line,
                    at,
                    format!(
                        "the log's winner {:?} and ranks {:?} are not the engine's {winner:?} and {ranks:?}",
                        r.result.winner, r.result.ranks
                    ),
                ));
            }
            if r.result.unfinished != self.record.unfinished {
                return Err(self.fail(line, at, "`unfinished` differs from the engine's".into()));
            }
        }
        Ok(())
    }
}

/// Replays `game` of the log whose header is `header`, checking every logged position, seat,
/// bot, legal action list and the result against the engine.
pub fn check_game(file: &str, header: &Header, game: &LoggedGame) -> Result<CheckedGame, LogError> {
    let (result_line, result) = &game.result;
    let start = Game::new(header.rules, header.players).map_err(|e| LogError::Line {
        file: file.to_string(),
        line: 1,
        what: format!("the header's game cannot be set up: {e}"),
    })?;
    let per_deal = if header.rotate_seats {
        header.players as u64
    } else {
        1
    };
    let (deal, rotation) = (game.game / per_deal, game.game % per_deal);
    let mut c = Checker {
        file,
        game: game.game,
        g: start,
        record: GameRecord::new(header.players),
        rolls: Vec::new(),
        dice: SeededDice::new(header.seed, deal),
        seed: header.seed,
        deal,
    };
    for (seat, bot) in result.bots.iter().enumerate() {
        let in_play = header.seats.contains(&seat);
        if bot.is_some() != in_play || bot.is_some_and(|b| usize::from(b) >= header.bots.len()) {
            return Err(c.fail(
                *result_line,
                "result",
                format!(
                    "`bots` {:?} does not seat one lineup bot in each seat in play {:?}",
                    result.bots, header.seats
                ),
            ));
        }
    }
    if (result.deal, result.rotation) != (deal, rotation) {
        return Err(c.fail(
            *result_line,
            "result",
            format!(
                "deal {} rotation {} is not game {}'s (deal {deal}, rotation {rotation})",
                result.deal, result.rotation, game.game
            ),
        ));
    }
    for (k, &seat) in header.seats.iter().enumerate() {
        let want = ((k as u64 + rotation) % header.players as u64) as u8;
        if result.bots.get(seat).copied().flatten() != Some(want) {
            return Err(c.fail(
                *result_line,
                "result",
                format!(
                    "`bots` {:?}: rotation {rotation} seats lineup bot {want} in seat {seat}",
                    result.bots
                ),
            ));
        }
    }
    let mut decisions = Vec::with_capacity(game.decisions.len());
    for (k, (line, d)) in game.decisions.iter().enumerate() {
        decisions.push(c.decision(*line, k, d, &result.bots)?);
    }
    c.result(*result_line, result)?;
    Ok(CheckedGame {
        game: game.game,
        rolls: c.rolls,
        decisions,
        bots: result.bots,
        last: c.g,
        record: c.record,
        forfeit: result.result.forfeit,
    })
}

/// What [`check_log`] found: a log that holds every game its header promises, each agreeing
/// with the engine and played with its seeded dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogSummary {
    /// Games checked.
    pub games: u64,
    /// Their decisions.
    pub decisions: u64,
    /// The first and last game index, if any.
    pub span: Option<(u64, u64)>,
}

/// The games a log's header promises, checked as they are read: each the next one, from the
/// first game of the header's deals to the last, none missing (what `replay --check` and
/// `grade --log` refuse a log cut short for).
#[derive(Clone, Debug)]
pub struct GameSequence {
    first: u64,
    end: u64,
    next: u64,
}

impl GameSequence {
    /// The games of `header`'s deals.
    pub fn new(header: &Header) -> GameSequence {
        let per_deal = if header.rotate_seats {
            header.players as u64
        } else {
            1
        };
        let first = header.first_deal.saturating_mul(per_deal);
        let end = header
            .first_deal
            .saturating_add(header.deals)
            .saturating_mul(per_deal);
        GameSequence {
            first,
            end,
            next: first,
        }
    }

    /// Checks that `game`, read from `file`, is the next game the header promises.
    pub fn next(&mut self, file: &str, game: &LoggedGame) -> Result<(), LogError> {
        let (first, end, next) = (self.first, self.end, self.next);
        if game.game != next {
            let (line, _) = game.result;
            let what = if game.game >= end || game.game < first {
                format!(
                    "game {} is not a game of the run its header names (games {first}..{end})",
                    game.game
                )
            } else {
                format!(
                    "game {} where game {next} comes next: games {next}..{} are missing",
                    game.game, game.game
                )
            };
            return Err(LogError::Line {
                file: file.to_string(),
                line,
                what,
            });
        }
        self.next += 1;
        Ok(())
    }

    /// Checks, at the end of `file` (its last line `line`), that every game the header
    /// promises was read.
    pub fn end(&self, file: &str, line: u64) -> Result<(), LogError> {
        if self.next != self.end {
            return Err(LogError::Line {
                file: file.to_string(),
                line,
                what: format!(
                    "the log ends before game {}: its header promises games {}..{} ({} games), it holds {} (cut short, or the log of a run that did not finish)",
                    self.next,
                    self.first,
                    self.end,
                    self.end - self.first,
                    self.next - self.first
                ),
            });
        }
        Ok(())
    }
}

/// Checks every game of a log ([`check_game`]) and that the games are exactly those its header
/// promises: game indices `first_deal × per_deal` up to the run's last, each once and in
/// order. A log cut short, one without games, or one with a game from elsewhere is an error
/// naming the first game missing or foreign.
pub fn check_log(reader: &mut LogReader) -> Result<LogSummary, LogError> {
    let file = reader.file().to_string();
    let header = reader.header().clone();
    let mut games = GameSequence::new(&header);
    let mut summary = LogSummary {
        games: 0,
        decisions: 0,
        span: None,
    };
    while let Some(game) = reader.next_game()? {
        games.next(&file, &game)?;
        check_game(&file, &header, &game)?;
        summary.games += 1;
        summary.decisions += game.decisions.len() as u64;
        summary.span = Some((summary.span.map_or(game.game, |s| s.0), game.game));
    }
    games.end(&file, reader.line())?;
    Ok(summary)
}

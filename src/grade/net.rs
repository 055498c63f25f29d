//! The net reference of a grade: where no exact table exists (the full game), each decision is
//! judged by a td net's N-ply evaluation, the search of the `td` bot (`td:net=FILE:ply=N`)
//! with the net at its leaves. A move's value is the net's expected return for the mover
//! (-1..=1: for two players `P(win) - P(loss)`, the exact grade's equity), so a decision's loss
//! is in the exact grade's units.
//!
//! A net is for one rule set and player count: a net of other rules or players is refused
//! (grading by a net of other rules would judge every decision by the wrong game).

use std::path::PathBuf;
use std::sync::Arc;

use aeroplane_core::{Game, Move, Rules, Seat};

use crate::bots::BotSpec;
use crate::bots::td::{TdBot, load_net};
use crate::td::Net;

use super::GradeError;

/// A grade's reference net: the file, the plies of search, the rules (as given, if given).
#[derive(Clone, Debug, PartialEq)]
pub struct NetReference {
    /// The net file (`.safetensors` of `aeroplane train`, or a shipped net's path).
    pub net: PathBuf,
    /// Die rolls searched beyond the decision's own (0..=[`crate::bots::td::MAX_PLY`]).
    pub ply: u8,
    /// The rules to grade on, as given (a preset or a rules file); `None`: the net's own.
    pub rules: Option<String>,
}

impl NetReference {
    /// Loads the net and checks it against the rules to grade on (the net's own unless given)
    /// and `players` (the net's own unless given): the net and those rules.
    pub fn load(&self, players: Option<usize>) -> Result<(Arc<Net>, Rules), GradeError> {
        if self.ply > crate::bots::td::MAX_PLY {
            return Err(GradeError::Job(format!(
                "ply {}: give 0 to {} (die rolls searched beyond the decision's own)",
                self.ply,
                crate::bots::td::MAX_PLY
            )));
        }
        let net = load_net(&self.net).map_err(|e| GradeError::Job(e.to_string()))?;
        let rules = match &self.rules {
            Some(r) => crate::config::load_rules(r)
                .map_err(|e| GradeError::Job(format!("rules {r}: {e}")))?,
            None => net.rules,
        };
        let players = players.unwrap_or(net.players);
        net.check_fit(&rules, players, false).map_err(|e| {
            GradeError::Job(format!(
                "net file {} cannot grade these games: {e} (a grade judges every decision by the net's own game: give a net trained for these rules and players)",
                self.net.display()
            ))
        })?;
        Ok((net, rules))
    }

    /// The `td` bot playing the reference (`td:net=FILE:ply=N`): the graded bots' opponent.
    pub fn spec(&self) -> Result<BotSpec, GradeError> {
        let mut params = std::collections::BTreeMap::new();
        params.insert(
            "net".to_string(),
            toml::Value::String(self.net.display().to_string()),
        );
        params.insert("ply".to_string(), toml::Value::Integer(i64::from(self.ply)));
        let name = format!("td:net={}:ply={}", self.net.display(), self.ply);
        crate::bots::registry::resolve(&name, "td", &params, "grade --net")
            .map_err(|e| GradeError::Job(e.to_string()))
    }
}

/// Judges decisions by a net's N-ply search: the `td` bot's own search, asked for every
/// move's value.
pub struct NetJudge {
    bot: TdBot,
}

impl NetJudge {
    /// A judge searching `ply` rolls with `net`.
    pub fn new(net: Arc<Net>, ply: u8) -> NetJudge {
        NetJudge {
            bot: TdBot::with_net("reference", net, ply),
        }
    }

    /// The value of each of `moves` for the mover at `game` with `roll`, into `out`.
    pub fn move_values(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
        out: &mut [f64],
    ) -> Result<(), String> {
        use aeroplane_core::Bot;
        self.bot
            .try_choose(game, roll, moves)
            .map_err(|f| f.what.clone())?;
        let values = self
            .bot
            .move_values()
            .ok_or("the net reported no move values")?;
        for (o, &v) in out.iter_mut().zip(values) {
            *o = f64::from(v);
        }
        Ok(())
    }
}

/// Seat 0's probability of winning at the start by the net (`(1 + value) / 2`, ply 0); not a
/// number for more than two players (the value is then not a win probability).
pub fn start_win_probability(net: &Net, rules: &Rules, players: usize) -> f64 {
    let Ok(start) = Game::new(*rules, players) else {
        return f64::NAN;
    };
    if players != 2 {
        return f64::NAN;
    }
    let enc = crate::td::encoding::Encoder::new(rules, players);
    let mut fx = crate::td::encoding::Features::default();
    let mut scratch = crate::td::net::Scratch::default();
    enc.encode(&start, Seat::in_play(players)[0], &mut fx);
    (1.0 + f64::from(net.weights.value(&fx, &mut scratch))) / 2.0
}

/// The net's checksum as the grade records it.
pub fn checksum(net: &Net) -> String {
    format!("{:016x}", net.checksum())
}

/// The rules as `aeroplane run --rules` takes them: as given, else the preset they are, else
/// `RULES` (no file holds them).
pub fn rules_arg(reference: &NetReference, rules: &Rules) -> String {
    if let Some(r) = &reference.rules {
        return r.clone();
    }
    ["appfreegame", "classic", "chinese"]
        .into_iter()
        .find(|p| crate::config::load_rules(p).is_ok_and(|r| r == *rules))
        .map_or_else(|| "RULES".to_string(), str::to_string)
}

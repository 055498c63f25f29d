//! Bots in any language: a bot program spoken to over the line protocol of
//! `docs/PROTOCOL.md` (JSON, one message per line, on the program's stdin and stdout).
//!
//! A profile of kind `external` names the program:
//!
//! ```toml
//! kind = "external"
//! command = ["python3", "bots/examples/greedy_bot.py"]
//! # cwd = "."                 # working directory (default: the harness's)
//! # env = { MY_VAR = "1" }    # extra environment
//! # timeout_ms = 5000         # per decision (and per write)
//! # startup_timeout_ms = 10000
//! [params]                    # passed to the bot in `hello`
//! ```
//!
//! One process per [`ExternalBot`], started on its first game and kept for every game after
//! it: the runner builds one bot per worker thread and lineup entry, so one process per worker
//! and lineup entry. The process runs in its own process group, killed with the group when the
//! bot is dropped (end of run, fault, panic) and on SIGINT/SIGTERM/SIGHUP (see [`process`]).
//! It is also killed when the thread that started it ends (`PR_SET_PDEATHSIG`, so that a
//! `kill -9` of the harness takes it along): use a bot on the thread that started it, or on
//! one that outlives it (the runner's workers do).
//! A bot that fails (does not start, crashes, hangs, prints garbage or an illegal move) gives a
//! [`BotFault`] naming it, its command and the offending line, and its process is killed; the
//! next game starts a fresh one.

pub mod process;
pub mod protocol;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use self::process::{Launch, PipeError, Process};
use self::protocol::{FromBot, MoveJson, PROTOCOL_VERSION, RecordJson, State, ToBot};
use super::params::{ParamValue, Params};
use super::{Bot, BotFault, FaultKind};
use aeroplane_core::Game;
use aeroplane_core::GameRecord;
use aeroplane_core::Move;
use aeroplane_core::Rules;
use aeroplane_core::Seat;

/// Per-decision timeout unless the profile sets `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;
/// Startup (handshake) timeout unless the profile sets `startup_timeout_ms`.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 10_000;
/// How long a bot has to exit after `quit` before its group is killed.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// How to run a bot program: the `external` part of its profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalSpec {
    /// Program and arguments.
    pub command: Vec<String>,
    /// Working directory (default: the harness's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Milliseconds the bot has for each decision.
    pub timeout_ms: u64,
    /// Milliseconds the bot has to answer `hello`.
    pub startup_timeout_ms: u64,
    /// Where each process's stderr goes (`<dir>/<bot>-<n>.log`); `None` drains it and keeps
    /// its last lines for error messages. Not part of what a run is.
    #[serde(skip)]
    pub log_dir: Option<PathBuf>,
}

impl ExternalSpec {
    /// A spec for `command` with the default timeouts.
    pub fn new(command: Vec<String>) -> ExternalSpec {
        ExternalSpec {
            command,
            cwd: None,
            env: BTreeMap::new(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            startup_timeout_ms: DEFAULT_STARTUP_TIMEOUT_MS,
            log_dir: None,
        }
    }

    /// The command as one line (for messages).
    pub fn command_line(&self) -> String {
        self.command
            .iter()
            .map(|a| {
                if a.is_empty() || a.contains(char::is_whitespace) {
                    format!("{a:?}")
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The keys of a profile file that describe a bot program, as written.
#[derive(Clone, Debug, Default)]
pub struct ProfileKeys {
    /// `command`.
    pub command: Option<Vec<String>>,
    /// `cwd`.
    pub cwd: Option<PathBuf>,
    /// `env`.
    pub env: BTreeMap<String, String>,
    /// `timeout_ms`.
    pub timeout_ms: Option<u64>,
    /// `startup_timeout_ms`.
    pub startup_timeout_ms: Option<u64>,
}

impl ProfileKeys {
    /// The program of a profile of kind `external` (`external` true), with defaults filled
    /// in; `None` for other kinds, which must not set these keys. The error says what is wrong.
    pub fn resolve(self, external: bool) -> Result<Option<ExternalSpec>, String> {
        if !external {
            let any = self.command.is_some()
                || self.cwd.is_some()
                || !self.env.is_empty()
                || self.timeout_ms.is_some()
                || self.startup_timeout_ms.is_some();
            if any {
                return Err("`command`, `cwd`, `env`, `timeout_ms` and `startup_timeout_ms` are only for kind `external`".into());
            }
            return Ok(None);
        }
        let command = self
            .command
            .filter(|c| !c.is_empty())
            .ok_or("a bot of kind `external` needs `command = [\"program\", \"arg\", ...]`")?;
        let timeout_ms = self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        let startup_timeout_ms = self
            .startup_timeout_ms
            .unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS);
        if timeout_ms == 0 || startup_timeout_ms == 0 {
            return Err("`timeout_ms` and `startup_timeout_ms` must be at least 1".into());
        }
        Ok(Some(ExternalSpec {
            command,
            cwd: self.cwd,
            env: self.env,
            timeout_ms,
            startup_timeout_ms,
            log_dir: None,
        }))
    }
}

/// What the process was started for (a different one needs a new `hello`).
#[derive(Clone, Copy, PartialEq)]
struct Table {
    rules: Rules,
    players: usize,
}

/// A bot program behind the [`Bot`] trait.
pub struct ExternalBot {
    name: String,
    spec: ExternalSpec,
    params: serde_json::Value,
    proc: Option<Process>,
    table: Option<Table>,
    game_index: u64,
    out: Vec<u8>,
    /// The bot's name and author from its `ready`.
    identity: Option<(String, String)>,
    pings: u64,
    /// The last line read (for error messages).
    last_line: String,
    /// A `new_game` given through the infallible [`Bot::new_game`] (no rules known yet): sent
    /// with the first `choose`.
    pending: Option<(Seat, u64)>,
}

impl ExternalBot {
    /// A bot named `name` (its profile) running `spec`, with the profile's `params`; the
    /// process starts with the first game.
    pub fn new(name: &str, spec: ExternalSpec, params: &Params) -> ExternalBot {
        let params = params
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    ParamValue::Int(i) => serde_json::Value::from(*i),
                    ParamValue::Float(x) => serde_json::Value::from(*x),
                    ParamValue::Word(w) => serde_json::Value::from(w.as_str()),
                };
                (k.to_string(), v)
            })
            .collect::<serde_json::Map<_, _>>();
        ExternalBot {
            name: name.to_string(),
            spec,
            params: serde_json::Value::Object(params),
            proc: None,
            table: None,
            game_index: 0,
            out: Vec::with_capacity(4096),
            identity: None,
            pings: 0,
            last_line: String::new(),
            pending: None,
        }
    }

    /// The process id of the running program, if one runs.
    pub fn pid(&self) -> Option<u32> {
        self.proc.as_ref().map(Process::id)
    }

    /// The name and author the program gave in `ready`, once it has started.
    pub fn identity(&self) -> Option<(&str, &str)> {
        self.identity
            .as_ref()
            .map(|(n, a)| (n.as_str(), a.as_str()))
    }

    fn fault(&self, kind: FaultKind, what: impl Into<String>, line: Option<&str>) -> Box<BotFault> {
        let stderr = self.proc.as_ref().and_then(|p| match &p.log {
            Some(log) => Some(format!(
                "its stderr: {}",
                aeroplane_core::excerpt::path(log)
            )),
            None => {
                let tail = p.stderr_tail();
                (!tail.is_empty()).then(|| format!("its last stderr lines: {}", tail.join(" | ")))
            }
        });
        // A program the harness killed because the job is stopping did not fail.
        let kind = if process::stopping() {
            FaultKind::Stopped
        } else {
            kind
        };
        Box::new(BotFault {
            bot: self.name.clone(),
            command: Some(aeroplane_core::excerpt::clip_lines(
                &self.spec.command_line(),
                1000,
            )),
            what: what.into(),
            line: line.map(|l| aeroplane_core::excerpt::clip_lines(l, 1000)),
            kind,
            stderr,
        })
    }

    /// A fault that ends the process: describes it and kills the process group.
    fn fail(
        &mut self,
        kind: FaultKind,
        what: impl Into<String>,
        line: Option<&str>,
    ) -> Box<BotFault> {
        let f = self.fault(kind, what, line);
        self.proc = None;
        self.table = None;
        f
    }

    /// Describes a pipe error while waiting for `waiting_for`, then kills the process.
    fn pipe_fault(&mut self, e: PipeError, waiting_for: &str, timeout_ms: u64) -> Box<BotFault> {
        match e {
            PipeError::Timeout => self.fail(
                FaultKind::Timeout,
                format!("timed out after {timeout_ms} ms waiting for {waiting_for}"),
                None,
            ),
            PipeError::Closed => {
                let how = match self.proc.as_mut().and_then(|p| p.exit_status(QUIT_GRACE)) {
                    Some(s) => format!("the program ended ({s})"),
                    None => "the program closed its stdout".to_string(),
                };
                self.fail(
                    FaultKind::Crash,
                    format!("{how} while the harness waited for {waiting_for}"),
                    None,
                )
            }
            PipeError::Garbage(line) => self.fail(
                FaultKind::Garbage,
                format!(
                    "printed a line that is not a protocol message (waiting for {waiting_for})"
                ),
                Some(&line),
            ),
            PipeError::Io(e) => self.fail(
                FaultKind::Pipe,
                format!("pipe error waiting for {waiting_for}: {e}"),
                None,
            ),
        }
    }

    fn send(&mut self, msg: &ToBot<'_>, timeout_ms: u64) -> Result<(), Box<BotFault>> {
        self.out.clear();
        serde_json::to_writer(&mut self.out, msg).expect("messages serialize");
        self.out.push(b'\n');
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let proc = self.proc.as_mut().expect("started");
        match proc.write(&self.out, deadline) {
            Ok(()) => Ok(()),
            Err(e) => {
                let kind = match &msg {
                    ToBot::Hello { .. } => "hello",
                    ToBot::NewGame { .. } => "new_game",
                    ToBot::Choose { .. } => "choose",
                    ToBot::GameOver { .. } => "game_over",
                    ToBot::Ping { .. } => "ping",
                    ToBot::Quit => "quit",
                };
                Err(match e {
                    PipeError::Timeout => self.fail(
                        FaultKind::Timeout,
                        format!(
                            "does not read its stdin: `{kind}` not taken within {timeout_ms} ms"
                        ),
                        None,
                    ),
                    other => self.pipe_fault(other, &format!("it to read `{kind}`"), timeout_ms),
                })
            }
        }
    }

    /// Reads one message; garbage and unknown messages are faults.
    fn receive(&mut self, waiting_for: &str, timeout_ms: u64) -> Result<FromBot, Box<BotFault>> {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let proc = self.proc.as_mut().expect("started");
        match proc.read_line(Some(deadline)) {
            Ok(line) => {
                self.last_line.clear();
                self.last_line.push_str(line);
            }
            Err(e) => return Err(self.pipe_fault(e, waiting_for, timeout_ms)),
        }
        let parsed = serde_json::from_str::<FromBot>(&self.last_line);
        let line = || Some(self.last_line.clone());
        match parsed {
            Ok(FromBot::Error { message }) => {
                let line = line();
                Err(self.fail(
                    FaultKind::BotError,
                    format!(
                        "the bot reported an error: {}",
                        aeroplane_core::excerpt::clip_lines(&message.replace('\n', "\\n"), 300)
                    ),
                    line.as_deref(),
                ))
            }
            Ok(m) => Ok(m),
            Err(e) => {
                let line = line();
                Err(self.fail(
                    FaultKind::Garbage,
                    format!(
                        "printed a line that is not a protocol message ({}) while the harness waited for {waiting_for}",
                        aeroplane_core::excerpt::clip_message(e)
                    ),
                    line.as_deref(),
                ))
            }
        }
    }

    /// Starts the program and shakes hands: any failure before the handshake is done is a
    /// failure to start ([`FaultKind::Start`], or [`FaultKind::Version`]), never a forfeit.
    fn start(&mut self, table: Table, seat: Seat) -> Result<(), Box<BotFault>> {
        self.start_inner(table, seat).map_err(|mut f| {
            if !matches!(f.kind, FaultKind::Version | FaultKind::Stopped) {
                f.kind = FaultKind::Start;
            }
            f
        })
    }

    fn start_inner(&mut self, table: Table, seat: Seat) -> Result<(), Box<BotFault>> {
        let log = match &self.spec.log_dir {
            Some(dir) => {
                if let Err(e) = crate::files::no_follow::make_dir(dir) {
                    return Err(self.fault(
                        FaultKind::Start,
                        format!(
                            "cannot create the log directory {}: {e}",
                            aeroplane_core::excerpt::path(dir)
                        ),
                        None,
                    ));
                }
                Some(process::log_path(dir, &self.name))
            }
            None => None,
        };
        let launch = Launch {
            command: &self.spec.command,
            cwd: self.spec.cwd.as_deref(),
            env: &self.spec.env,
            log,
        };
        let proc = Process::spawn(&launch).map_err(|e| {
            let cwd = self
                .spec
                .cwd
                .as_ref()
                .map(|c| format!(" in {}", aeroplane_core::excerpt::path(c)))
                .unwrap_or_default();
            self.fault(
                FaultKind::Start,
                format!("the program failed to start{cwd}: {e}"),
                None,
            )
        })?;
        self.proc = Some(proc);
        let startup = self.spec.startup_timeout_ms;
        let name = self.name.clone();
        let hello = ToBot::Hello {
            protocol: PROTOCOL_VERSION,
            tool: "aeroplane",
            tool_version: env!("CARGO_PKG_VERSION"),
            bot: &name,
            rules: serde_json::to_value(table.rules).expect("rules serialize"),
            players: table.players,
            seats: Seat::in_play(table.players)
                .iter()
                .map(|s| s.index())
                .collect(),
            seat: seat.index(),
            params: self.params.clone(),
        };
        self.send(&hello, startup)?;
        match self.receive("`ready` (the answer to `hello`)", startup)? {
            FromBot::Ready {
                protocol,
                name,
                author,
            } => {
                if protocol != PROTOCOL_VERSION {
                    return Err(self.fail(
                        FaultKind::Version,
                        format!(
                            "the bot speaks protocol version {protocol}; this harness speaks version {PROTOCOL_VERSION}"
                        ),
                        None,
                    ));
                }
                self.identity = Some((name, author));
            }
            other => {
                return Err(self.fail(
                    FaultKind::Start,
                    format!(
                        "answered `hello` with {} instead of `ready`",
                        aeroplane_core::excerpt::excerpt(&format!("{other:?}"))
                    ),
                    None,
                ));
            }
        }
        self.table = Some(table);
        // A round trip before the first game: the bot reads its stdin and answers in order.
        self.ping_within(startup)
    }

    /// Sends `ping` and waits for the matching `pong` within the decision timeout.
    pub fn ping(&mut self) -> Result<(), Box<BotFault>> {
        if self.proc.is_none() {
            return Err(self.fault(FaultKind::Crash, "the program is not running", None));
        }
        self.ping_within(self.spec.timeout_ms)
    }

    fn ping_within(&mut self, t: u64) -> Result<(), Box<BotFault>> {
        self.pings += 1;
        let id = self.pings;
        self.send(&ToBot::Ping { id }, t)?;
        match self.receive("`pong`", t)? {
            FromBot::Pong { id: got } if got == id => Ok(()),
            other => Err(self.fail(
                FaultKind::Garbage,
                format!(
                    "answered `ping` {id} with {}",
                    aeroplane_core::excerpt::excerpt(&format!("{other:?}"))
                ),
                None,
            )),
        }
    }
}

impl Bot for ExternalBot {
    fn name(&self) -> &str {
        &self.name
    }

    /// # Panics
    /// If the program fails: callers that can handle it use [`Bot::try_choose`] (as the
    /// runner and [`aeroplane_core::try_play_game`] do).
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        crate::bots::choose_or_panic(self, game, roll, moves)
    }

    /// Without the starting position, the program starts (or gets `new_game`) with the first
    /// decision; the runner calls [`Bot::try_new_game`] instead.
    fn new_game(&mut self, seat: Seat, seed: u64) {
        self.pending = Some((seat, seed));
    }

    fn try_new_game(
        &mut self,
        start: &Game,
        seat: Seat,
        seed: u64,
        game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        self.pending = None;
        let table = Table {
            rules: *start.rules(),
            players: start.players(),
        };
        if self.proc.is_some() && self.table != Some(table) {
            // Other rules or players: a new process gets its own `hello`.
            if let Some(p) = self.proc.take() {
                p.close(b"{\"type\":\"quit\"}\n", QUIT_GRACE);
            }
        }
        if self.proc.is_none() {
            self.start(table, seat)?;
        }
        self.game_index = game_index;
        self.send(
            &ToBot::NewGame {
                game: game_index,
                seat: seat.index(),
                seed,
            },
            self.spec.timeout_ms,
        )
    }

    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        if let Some((seat, seed)) = self.pending.take() {
            let index = if self.proc.is_some() {
                self.game_index + 1
            } else {
                0
            };
            self.try_new_game(game, seat, seed, index)?;
        }
        if self.proc.is_none() {
            return Err(self.fault(
                FaultKind::Crash,
                "the program is not running (no game was started)",
                None,
            ));
        }
        let t = self.spec.timeout_ms;
        let msg = ToBot::Choose {
            game: self.game_index,
            roll,
            state: State::of(game),
            moves: moves.iter().map(MoveJson::of).collect(),
        };
        self.send(&msg, t)?;
        match self.receive("a move", t)? {
            FromBot::Move { id } => {
                if let Some(k) = moves.iter().position(|m| m.notation() == id) {
                    return Ok(k);
                }
                let legal: Vec<String> = moves.iter().map(Move::notation).collect();
                let what = if protocol::looks_like_move_id(&id) {
                    format!(
                        "chose `{}`, which is not a legal move here (legal: {})",
                        aeroplane_core::excerpt::excerpt(&id),
                        legal.join(", ")
                    )
                } else {
                    format!(
                        "chose the unknown move id `{}` (legal: {})",
                        aeroplane_core::excerpt::excerpt(&id),
                        legal.join(", ")
                    )
                };
                let line = std::mem::take(&mut self.last_line);
                Err(self.fail(FaultKind::IllegalMove, what, Some(&line)))
            }
            other => Err(self.fail(
                FaultKind::IllegalMove,
                format!(
                    "answered `choose` with {} instead of `move`",
                    aeroplane_core::excerpt::excerpt(&format!("{other:?}"))
                ),
                None,
            )),
        }
    }

    fn game_over(&mut self, record: &GameRecord) -> Result<(), Box<BotFault>> {
        if self.proc.is_none() {
            return Ok(());
        }
        let msg = ToBot::GameOver {
            game: self.game_index,
            record: RecordJson::of(record),
        };
        self.send(&msg, self.spec.timeout_ms)
    }
}

impl Drop for ExternalBot {
    fn drop(&mut self) {
        if let Some(p) = self.proc.take() {
            p.close(b"{\"type\":\"quit\"}\n", QUIT_GRACE);
        }
    }
}

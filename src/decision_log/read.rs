//! Reading a decision log: its header, then its games one by one, every line bounded and
//! every problem named by its line (1-based, counted in the decompressed text).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::Deserialize;

use super::{DECISION_FIELDS, FORMAT, Header, READS};
use aeroplane_core::{Counter, Counters};

/// The longest line read: a real one is a few hundred bytes.
pub const MAX_LINE: usize = 1 << 20;

/// zstd's magic number: a compressed log starts with it.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The largest zstd window accepted (8 MiB; a log's frames use far less), so a hostile file
/// cannot make the reader take more memory.
const MAX_WINDOW_LOG: u32 = 23;

/// Why a log could not be read, or a game in it does not hold.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be opened or read.
    #[error("cannot read {file}")]
    Io {
        /// The file.
        file: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not what the schema says.
    #[error("{file}, line {line}: {what}")]
    Line {
        /// The file.
        file: String,
        /// The 1-based line.
        line: u64,
        /// What is wrong.
        what: String,
    },
    /// A logged game disagrees with the engine.
    #[error("{file}, line {line}: game {game}, {at}: {what}")]
    Disagrees {
        /// The file.
        file: String,
        /// The 1-based line.
        line: u64,
        /// The game index.
        game: u64,
        /// Which decision (`decision 3`, 1-based) or `result`.
        at: String,
        /// What the log says against what the engine does.
        what: String,
    },
    /// The game asked for is not in the log.
    #[error("{file} holds no game {game}: {holds}")]
    NoGame {
        /// The file.
        file: String,
        /// The game asked for.
        game: u64,
        /// What it holds.
        holds: String,
    },
}

/// A decision line (of either schema version).
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The game index.
    pub game: u64,
    /// The seat that chose.
    pub seat: usize,
    /// The lineup index of its bot.
    pub bot: usize,
    /// The roll.
    pub roll: u8,
    /// Rolls played without a choice since the game's previous line, in order.
    pub forced: Vec<u8>,
    /// The position at the decision (the roll waiting), in the position notation: on every
    /// line of a version 1 log, on the key lines of a version 2 log.
    pub position: Option<String>,
    /// The legal action ids, ascending.
    pub legal: Vec<u8>,
    /// The action id chosen.
    pub action: u8,
    /// The bot's value of each legal action (in `legal`'s order), if it reports values.
    pub values: Option<Vec<Option<f32>>>,
}

/// A version 1 decision line.
#[derive(Deserialize)]
struct DecisionV1 {
    game: u64,
    seat: usize,
    bot: usize,
    roll: u8,
    #[serde(default)]
    forced: Vec<u8>,
    position: String,
    legal: Vec<u8>,
    action: u8,
    #[serde(default)]
    values: Option<Vec<Option<f32>>>,
}

impl From<DecisionV1> for Decision {
    fn from(d: DecisionV1) -> Decision {
        Decision {
            game: d.game,
            seat: d.seat,
            bot: d.bot,
            roll: d.roll,
            forced: d.forced,
            position: Some(d.position),
            legal: d.legal,
            action: d.action,
            values: d.values,
        }
    }
}

/// A version 2 decision line: `[game,seat,bot,roll,"legal",action,"forced"(,values(,position))]`.
struct DecisionV2(Decision);

/// A string of decimal digits (`"0135"`), each a number.
fn digits<E: serde::de::Error>(text: &str, what: &str) -> Result<Vec<u8>, E> {
    text.bytes()
        .map(|b| {
            b.is_ascii_digit()
                .then_some(b - b'0')
                .ok_or_else(|| E::custom(format!("`{what}` is \"{text}\": digits only")))
        })
        .collect()
}

impl<'de> Deserialize<'de> for DecisionV2 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(DecisionV2Visitor)
    }
}

struct DecisionV2Visitor;

impl<'de> serde::de::Visitor<'de> for DecisionV2Visitor {
    type Value = DecisionV2;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "a decision line: [game,seat,bot,roll,\"legal\",action,\"forced\"] and optionally values and the position",
        )
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<DecisionV2, A::Error> {
        use serde::de::Error;
        let missing = |k: usize| {
            A::Error::custom(format!(
                "element {} (`{}`) is missing",
                k + 1,
                super::DECISION_FIELDS[k]
            ))
        };
        let game: u64 = seq.next_element()?.ok_or_else(|| missing(0))?;
        let seat: usize = seq.next_element()?.ok_or_else(|| missing(1))?;
        let bot: usize = seq.next_element()?.ok_or_else(|| missing(2))?;
        let roll: u8 = seq.next_element()?.ok_or_else(|| missing(3))?;
        let legal: &str = seq.next_element()?.ok_or_else(|| missing(4))?;
        let action: u8 = seq.next_element()?.ok_or_else(|| missing(5))?;
        let forced: &str = seq.next_element()?.ok_or_else(|| missing(6))?;
        let values: Option<Vec<Option<f32>>> = seq.next_element()?.flatten();
        let position: Option<String> = seq.next_element()?;
        if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            return Err(A::Error::custom("more than 9 elements"));
        }
        Ok(DecisionV2(Decision {
            game,
            seat,
            bot,
            roll,
            forced: digits(forced, "forced")?,
            position,
            legal: digits(legal, "legal")?,
            action,
            values,
        }))
    }
}

/// A game's result line (of either schema version).
#[derive(Clone, Debug, PartialEq)]
pub struct ResultLine {
    /// The game index.
    pub game: u64,
    /// Its deal.
    pub deal: u64,
    /// Its rotation.
    pub rotation: u64,
    /// The lineup index of the bot in each seat (`null`: not in play).
    pub bots: [Option<u8>; 4],
    /// Rolls played without a choice after the game's last decision.
    pub forced: Vec<u8>,
    /// The position the game ended in.
    pub position: String,
    /// The outcome.
    pub result: Outcome,
}

/// The outcome of a game, as its result line gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The winning seat, if any.
    pub winner: Option<usize>,
    /// Each seat's rank (`null`: none).
    pub ranks: [Option<u8>; 4],
    /// Turns.
    pub turns: u32,
    /// Every counter of the game record (version 1 logs only).
    pub counters: Option<Counters<u32>>,
    /// Stopped by `max_turns`.
    pub unfinished: bool,
    /// The seat whose bot failed and forfeited the game (runs with `--recover`).
    pub forfeit: Option<usize>,
}

/// A version 1 result line.
#[derive(Deserialize)]
struct ResultV1 {
    game: u64,
    deal: u64,
    rotation: u64,
    bots: [Option<u8>; 4],
    #[serde(default)]
    forced: Vec<u8>,
    position: String,
    result: OutcomeV1,
}

/// A version 1 result line's `result`.
#[derive(Deserialize)]
struct OutcomeV1 {
    winner: Option<usize>,
    ranks: [Option<u8>; 4],
    turns: u32,
    rolls: u32,
    moves: u32,
    launches: u32,
    captures: u32,
    penalties: u32,
    jumps: u32,
    flights: u32,
    bounces: u32,
    passes: u32,
    unfinished: bool,
    #[serde(default)]
    forfeit: Option<usize>,
}

impl From<ResultV1> for ResultLine {
    fn from(r: ResultV1) -> ResultLine {
        let o = r.result;
        let mut c = Counters::<u32>::default();
        for (counter, n) in [
            (Counter::Turns, o.turns),
            (Counter::Rolls, o.rolls),
            (Counter::Moves, o.moves),
            (Counter::Launches, o.launches),
            (Counter::Captures, o.captures),
            (Counter::Penalties, o.penalties),
            (Counter::Jumps, o.jumps),
            (Counter::Flights, o.flights),
            (Counter::Bounces, o.bounces),
            (Counter::Passes, o.passes),
        ] {
            c.add(counter, n);
        }
        ResultLine {
            game: r.game,
            deal: r.deal,
            rotation: r.rotation,
            bots: r.bots,
            forced: r.forced,
            position: r.position,
            result: Outcome {
                winner: o.winner,
                ranks: o.ranks,
                turns: o.turns,
                counters: Some(c),
                unfinished: o.unfinished,
                forfeit: o.forfeit,
            },
        }
    }
}

/// A version 2 result line.
#[derive(Deserialize)]
struct ResultV2<'a> {
    game: u64,
    deal: u64,
    rotation: u64,
    bots: [Option<u8>; 4],
    forced: &'a str,
    winner: Option<usize>,
    ranks: [Option<u8>; 4],
    turns: u32,
    #[serde(default)]
    unfinished: bool,
    #[serde(default)]
    forfeit: Option<usize>,
    position: String,
}

impl ResultV2<'_> {
    fn line<E: serde::de::Error>(self) -> Result<ResultLine, E> {
        Ok(ResultLine {
            game: self.game,
            deal: self.deal,
            rotation: self.rotation,
            bots: self.bots,
            forced: digits(self.forced, "forced")?,
            position: self.position,
            result: Outcome {
                winner: self.winner,
                ranks: self.ranks,
                turns: self.turns,
                counters: None,
                unfinished: self.unfinished,
                forfeit: self.forfeit,
            },
        })
    }
}

/// One game of a log: its decision lines and its result line, each with its line number.
#[derive(Clone, Debug)]
pub struct LoggedGame {
    /// The game index.
    pub game: u64,
    /// The decisions, in order, with their line numbers.
    pub decisions: Vec<(u64, Decision)>,
    /// The result line and its number.
    pub result: (u64, ResultLine),
}

/// A line read but not yet parsed.
struct Raw {
    number: u64,
    game: u64,
    result: bool,
    text: String,
}

/// A log being read.
pub struct LogReader {
    file: String,
    src: Box<dyn BufRead>,
    compressed: bool,
    line: u64,
    header: Header,
    peeked: Option<Raw>,
    last_game: Option<u64>,
    first_game: Option<u64>,
}

impl std::fmt::Debug for LogReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogReader")
            .field("file", &self.file)
            .field("line", &self.line)
            .finish()
    }
}

impl LogReader {
    /// Opens a log file (zstd-compressed or plain, told apart by its first bytes) and reads
    /// its header.
    pub fn open(path: &Path) -> Result<LogReader, LogError> {
        let file = aeroplane_core::excerpt::path(path);
        let io = |source| LogError::Io {
            file: file.clone(),
            source,
        };
        if let Some(what) = crate::files::not_a_file(path) {
            return Err(io(std::io::Error::other(format!(
                "it is {what}, not a file"
            ))));
        }
        let f = crate::files::open_input(path).map_err(io)?;
        LogReader::new(f, file)
    }

    /// Reads a log from `input`, named `file` in messages.
    pub fn new(input: impl Read + 'static, file: String) -> Result<LogReader, LogError> {
        let mut buffered = BufReader::with_capacity(1 << 16, input);
        let start = buffered.fill_buf().map_err(|source| LogError::Io {
            file: file.clone(),
            source,
        })?;
        let compressed = start.starts_with(&ZSTD_MAGIC);
        let src: Box<dyn BufRead> = if compressed {
            let mut d = zstd::stream::read::Decoder::with_buffer(buffered).map_err(|source| {
                LogError::Io {
                    file: file.clone(),
                    source,
                }
            })?;
            d.window_log_max(MAX_WINDOW_LOG)
                .map_err(|source| LogError::Io {
                    file: file.clone(),
                    source,
                })?;
            Box::new(BufReader::with_capacity(1 << 16, d))
        } else {
            Box::new(buffered)
        };
        let mut reader = LogReader {
            file,
            src,
            compressed,
            line: 0,
            header: Header {
                format: String::new(),
                version: 0,
                decision_fields: Vec::new(),
                log_positions: None,
                tool_version: String::new(),
                rules: aeroplane_core::Rules::default(),
                players: 0,
                seats: Vec::new(),
                bots: Vec::new(),
                seed: 0,
                first_deal: 0,
                deals: 0,
                rotate_seats: false,
            },
            peeked: None,
            last_game: None,
            first_game: None,
        };
        reader.header = reader.read_header()?;
        Ok(reader)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The number of the last line read (1-based: the header is line 1).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The file as messages name it.
    pub fn file(&self) -> &str {
        &self.file
    }

    fn line_error(&self, line: u64, what: impl Into<String>) -> LogError {
        LogError::Line {
            file: self.file.clone(),
            line,
            what: what.into(),
        }
    }

    /// The next line's text, or `None` at the end of the log.
    fn next_text(&mut self) -> Result<Option<String>, LogError> {
        let mut buf = Vec::new();
        let n = (&mut self.src)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| self.stream_error(e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if buf.last() != Some(&b'\n') {
            if buf.len() > MAX_LINE {
                return Err(self.line_error(
                    self.line,
                    format!("longer than {MAX_LINE} bytes: not a line of a decision log"),
                ));
            }
            return Err(self.line_error(
                self.line,
                "cut short: the last line has no newline (the log was truncated)",
            ));
        }
        buf.pop();
        String::from_utf8(buf)
            .map(Some)
            .map_err(|_| self.line_error(self.line, "not UTF-8 text"))
    }

    fn stream_error(&self, e: std::io::Error) -> LogError {
        let what = if !self.compressed {
            return LogError::Io {
                file: self.file.clone(),
                source: e,
            };
        } else if e.kind() == std::io::ErrorKind::UnexpectedEof {
            "the log ends inside a compressed frame: it was cut short (truncated)".to_string()
        } else {
            format!("the compressed data is damaged: {e}")
        };
        LogError::Line {
            file: self.file.clone(),
            line: self.line + 1,
            what,
        }
    }

    fn read_header(&mut self) -> Result<Header, LogError> {
        let foreign = "not an aeroplane decision log: its first line must be the header \
                       {\"format\":\"aeroplane-decisions\",...}";
        let text = match self.next_text() {
            Ok(Some(t)) => t,
            Ok(None) => return Err(self.line_error(1, "the file is empty: no header line")),
            Err(LogError::Line { what, .. }) if !self.compressed && self.line <= 1 => {
                return Err(self.line_error(1, format!("{foreign} ({what})")));
            }
            Err(e) => return Err(e),
        };
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|_| self.line_error(1, format!("{foreign}; it starts `{}`", short(&text))))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(self.line_error(1, format!("{foreign}; it starts `{}`", short(&text))));
        }
        let version = value.get("version");
        if !version
            .and_then(|v| v.as_u64())
            .is_some_and(|v| READS.iter().any(|&r| u64::from(r) == v))
        {
            let which = match version {
                Some(v) => format!(
                    "a decision log of version {}",
                    aeroplane_core::excerpt::excerpt(&v.to_string())
                ),
                None => "a decision log header without a `version`".to_string(),
            };
            return Err(self.line_error(
                1,
                format!(
                    "{which}: this build reads versions {} and {}",
                    READS[0], READS[1]
                ),
            ));
        }
        let header: Header = serde_json::from_value(value).map_err(|e| {
            self.line_error(
                1,
                format!(
                    "a bad header: {}",
                    aeroplane_core::excerpt::excerpt(&e.to_string())
                ),
            )
        })?;
        if header.version >= 2 && header.decision_fields != DECISION_FIELDS {
            return Err(self.line_error(
                1,
                format!(
                    "a bad header: `decision_fields` is {:?}; version {} names {DECISION_FIELDS:?}",
                    header.decision_fields, header.version
                ),
            ));
        }
        Ok(header)
    }

    /// The next line, with its game and kind read from its start (`{"game":N,`).
    fn next_raw(&mut self) -> Result<Option<Raw>, LogError> {
        if let Some(r) = self.peeked.take() {
            return Ok(Some(r));
        }
        let Some(text) = self.next_text()? else {
            return Ok(None);
        };
        let number = self.line;
        // Version 1: every line is an object starting `{"game":N,`, a result line holds
        // `"result":`. Version 2: a decision line is an array `[N,...`, a result line an object
        // `{"game":N,...`.
        let v1 = self.header.version == 1;
        let (rest, result) = match text.strip_prefix("{\"game\":") {
            Some(rest) => (Some(rest), !v1 || text.contains("\"result\":")),
            None if v1 => (None, false),
            None => (text.strip_prefix('['), false),
        };
        let game = rest
            .map(|rest| {
                rest.bytes()
                    .take_while(u8::is_ascii_digit)
                    .collect::<Vec<u8>>()
            })
            .filter(|d| !d.is_empty() && d.len() <= 20)
            .and_then(|d| String::from_utf8(d).ok()?.parse::<u64>().ok())
            .ok_or_else(|| {
                let starts = if v1 {
                    "each starts with {\"game\":N,..."
                } else {
                    "a decision line starts with [N,... and a result line with {\"game\":N,..."
                };
                self.line_error(
                    number,
                    format!(
                        "not a decision or result line: {starts}; it starts `{}`",
                        short(&text)
                    ),
                )
            })?;
        Ok(Some(Raw {
            number,
            game,
            result,
            text,
        }))
    }

    /// The next game of the log, or `None` after the last.
    pub fn next_game(&mut self) -> Result<Option<LoggedGame>, LogError> {
        self.read_game(true).map(|g| g.map(|g| g.expect("parsed")))
    }

    /// Reads the next game's lines; parses them when `parse` (else returns `Some(None)`).
    fn read_game(&mut self, parse: bool) -> Result<Option<Option<LoggedGame>>, LogError> {
        let Some(first) = self.next_raw()? else {
            return Ok(None);
        };
        let game = first.game;
        if let Some(last) = self.last_game
            && game <= last
        {
            return Err(self.line_error(
                first.number,
                format!("game {game} after game {last}: games must be in order, each once"),
            ));
        }
        self.first_game.get_or_insert(game);
        let mut decisions = Vec::new();
        let mut raw = first;
        loop {
            if raw.game != game {
                return Err(self.line_error(
                    raw.number,
                    format!(
                        "a line of game {} where game {game} has had no result line: the log is cut or out of order",
                        raw.game
                    ),
                ));
            }
            if raw.result {
                self.last_game = Some(game);
                if !parse {
                    return Ok(Some(None));
                }
                let result = self.parse_result(&raw)?;
                return Ok(Some(Some(LoggedGame {
                    game,
                    decisions,
                    result: (raw.number, result),
                })));
            }
            if parse {
                let d = self.parse_decision(&raw)?;
                decisions.push((raw.number, d));
            }
            raw = match self.next_raw()? {
                Some(r) => r,
                None => {
                    return Err(self.line_error(
                        self.line,
                        format!("the log ends inside game {game}: no result line (the log was truncated)"),
                    ));
                }
            };
        }
    }

    fn parse_decision(&self, raw: &Raw) -> Result<Decision, LogError> {
        if self.header.version == 1 {
            serde_json::from_str::<DecisionV1>(&raw.text).map(Decision::from)
        } else {
            serde_json::from_str::<DecisionV2>(&raw.text).map(|d| d.0)
        }
        .map_err(|e| self.bad_line(raw, &e))
    }

    fn parse_result(&self, raw: &Raw) -> Result<ResultLine, LogError> {
        if self.header.version == 1 {
            serde_json::from_str::<ResultV1>(&raw.text).map(ResultLine::from)
        } else {
            serde_json::from_str::<ResultV2>(&raw.text).and_then(ResultV2::line)
        }
        .map_err(|e| self.bad_line(raw, &e))
    }

    fn bad_line(&self, raw: &Raw, e: &serde_json::Error) -> LogError {
        self.line_error(
            raw.number,
            format!(
                "not a valid {} line: {}",
                if raw.result { "result" } else { "decision" },
                aeroplane_core::excerpt::excerpt(&e.to_string())
            ),
        )
    }

    /// Reads up to game `game` and returns it; the games before it are skipped without being
    /// parsed.
    pub fn find_game(&mut self, game: u64) -> Result<LoggedGame, LogError> {
        loop {
            let next = match self.next_raw()? {
                Some(r) => r,
                None => return Err(self.no_game(game)),
            };
            let at = next.game;
            self.peeked = Some(next);
            if at > game {
                let holds = match self.last_game {
                    None => format!("its first game is {at}"),
                    Some(last) => format!("it goes from game {last} to game {at}"),
                };
                return Err(LogError::NoGame {
                    file: self.file.clone(),
                    game,
                    holds,
                });
            }
            if at == game {
                return Ok(self.next_game()?.expect("a line was peeked"));
            }
            self.read_game(false)?;
        }
    }

    fn no_game(&self, game: u64) -> LogError {
        let holds = match (self.first_game, self.last_game) {
            (Some(a), Some(b)) if a == b => format!("it holds game {a} only"),
            (Some(a), Some(b)) => format!("it holds games {a}..={b}"),
            _ => "it holds no game".to_string(),
        };
        LogError::NoGame {
            file: self.file.clone(),
            game,
            holds,
        }
    }
}

fn short(text: &str) -> String {
    aeroplane_core::excerpt::clip_lines(&text.chars().take(60).collect::<String>(), 60)
}

/// The most bytes of a frame [`seek_game`] reads into memory (a game's frame is a few KB): a
/// larger one is left to the streaming reader.
const MAX_FRAME: usize = 1 << 26;

/// The bytes of one zstd frame read from `file` at its current offset (its header and block
/// headers read, its blocks skipped when `keep` is false), or `None` at the end of the file
/// or at anything but a whole frame of the standard format.
fn next_frame<R: Read + std::io::Seek>(file: &mut BufReader<R>, keep: bool) -> Option<Vec<u8>> {
    let mut frame = vec![0u8; 18];
    // The frame header: magic, descriptor, then at most 13 bytes.
    file.read_exact(&mut frame[..5]).ok()?;
    if frame[..4] != ZSTD_MAGIC {
        return None;
    }
    let fhd = frame[4];
    let single_segment = fhd & 0x20 != 0;
    let rest = usize::from(!single_segment)
        + [0, 1, 2, 4][usize::from(fhd & 3)]
        + match fhd >> 6 {
            0 => usize::from(single_segment),
            1 => 2,
            2 => 4,
            _ => 8,
        };
    file.read_exact(&mut frame[5..5 + rest]).ok()?;
    frame.truncate(5 + rest);
    loop {
        let mut h = [0u8; 3];
        file.read_exact(&mut h).ok()?;
        let header = u32::from(h[0]) | u32::from(h[1]) << 8 | u32::from(h[2]) << 16;
        let size = match (header >> 1) & 3 {
            0 | 2 => header >> 3,
            1 => 1,
            _ => return None,
        };
        if keep {
            if frame.len() + size as usize > MAX_FRAME {
                return None;
            }
            frame.extend_from_slice(&h);
            let at = frame.len();
            frame.resize(at + size as usize, 0);
            file.read_exact(&mut frame[at..]).ok()?;
        } else {
            file.seek_relative(i64::from(size)).ok()?;
        }
        if header & 1 == 1 {
            break;
        }
    }
    if fhd & 0x04 != 0 {
        let mut sum = [0u8; 4];
        file.read_exact(&mut sum).ok()?;
        frame.extend_from_slice(&sum);
    }
    Some(frame)
}

/// Game `game` of the compressed log at `path`, found by skipping whole frames (a compressed
/// log holds its header, then one frame per game with consecutive game indices): frames are
/// walked by their headers, and only the header's, the first game's and the game's own are
/// decompressed. `None` whenever this cannot be sure (a plain log, a frame that is not where
/// it should be, a game that is not the one expected, any error): the caller then reads the
/// log from its start, which names the line of any problem.
pub fn seek_game(path: &Path, game: u64) -> Option<(Header, LoggedGame)> {
    let mut file = BufReader::with_capacity(1 << 16, crate::files::open_input(path).ok()?);
    let header = next_frame(&mut file, true)?;
    let first = next_frame(&mut file, true)?;
    let read = |frame: &[u8]| -> Option<(Header, LoggedGame)> {
        let bytes = [&header[..], frame].concat();
        let mut r = LogReader::new(std::io::Cursor::new(bytes), String::new()).ok()?;
        let g = r.next_game().ok()??;
        Some((r.header, g))
    };
    let (h, g) = read(&first)?;
    let skip = game.checked_sub(g.game)?;
    if skip == 0 {
        return Some((h, g));
    }
    for _ in 1..skip {
        next_frame(&mut file, false)?;
    }
    let frame = next_frame(&mut file, true)?;
    let (h, g) = read(&frame)?;
    (g.game == game).then_some((h, g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_walked_by_their_headers() {
        for text in [&b""[..], b"x\n", &[b'7'; 300_000], &[b'a'; 5]] {
            for level in [1, 3] {
                let mut c = zstd::bulk::Compressor::new(level).unwrap();
                c.include_checksum(level == 1).unwrap();
                let frame = c.compress(text).unwrap();
                let two = [&frame[..], b"rest"].concat();
                let mut r = BufReader::new(std::io::Cursor::new(two.clone()));
                assert_eq!(next_frame(&mut r, true).unwrap(), frame);
                let mut r = BufReader::new(std::io::Cursor::new(two));
                assert!(next_frame(&mut r, false).is_some());
                let mut rest = String::new();
                r.read_to_string(&mut rest).unwrap();
                assert_eq!(rest, "rest");
                let cut = &frame[..frame.len() - 1];
                let mut r = BufReader::new(std::io::Cursor::new(cut.to_vec()));
                assert_eq!(next_frame(&mut r, true), None);
            }
        }
        let mut r = BufReader::new(std::io::Cursor::new(b"{\"format\"".to_vec()));
        assert_eq!(next_frame(&mut r, true), None);
    }
}

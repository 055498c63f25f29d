//! The value table on disk (`table.bin`) and in memory: the exact equity of every reachable
//! chance node of a solved variant, with lookups for positions and moves.
//!
//! **Format** (version [`TABLE_FORMAT`]; all integers and floats little-endian):
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `AEROTBL\0` |
//! | 4 | format version |
//! | 4 | header length `H` (at most 1 MiB) |
//! | `H` | header: JSON ([`TableHeader`]): the rules in full, the sizes of the state space, how it was solved |
//! | 0-7 | zero padding to a multiple of 8 |
//! | `8 ceil(S / 64)` | which of the `S` indexed chance nodes are reachable: one bit each, in 64-bit words |
//! | `8 N` | the equity (`f64`) of each of the `N` reachable chance nodes, in index order |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! The index of a chance node is fixed by the rules ([`super::space`]), so the header's rules
//! and sizes are checked against each other, the file's length against the sizes, and the
//! checksum against the bytes, all before a value is used: a truncated, damaged, edited or
//! foreign file is refused with the reason. The same container, with `kind = "checkpoint"`,
//! holds an unfinished solve's values.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use aeroplane_core::{Game, Move, Rules, Seat, Status};

use super::bits::Bits;
use super::space::{Size, Space};

/// The table's file name in a solve's output folder.
pub const TABLE_FILE: &str = "table.bin";
/// An unfinished solve's values, in its output folder.
pub const CHECKPOINT_FILE: &str = "solve.checkpoint";
/// The table format this build writes and reads.
pub const TABLE_FORMAT: u32 = 1;
/// The magic bytes a table starts with.
pub const MAGIC: &[u8; 8] = b"AEROTBL\0";
/// The longest header read.
const MAX_HEADER: u32 = 1 << 20;

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableHeader {
    /// `table` (a finished solve) or `checkpoint` (values after `sweeps` sweeps).
    pub kind: String,
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that wrote it.
    pub version: String,
    /// The rules solved, every option written out (their `max_turns` is not part of the
    /// values: see [`crate::solve`]).
    pub rules: Rules,
    /// Players: 2.
    pub players: u8,
    /// How chance nodes are numbered ([`INDEX_LAYOUT`]).
    pub index: String,
    /// Positions a plane can be on.
    pub positions: u64,
    /// Configurations of one seat's planes.
    pub configurations: u64,
    /// Mover states (configuration, six streak, marked planes).
    pub mover_states: u64,
    /// Chance nodes indexed (mover states times configurations).
    pub states: u64,
    /// Chance nodes reachable from the start: the values stored.
    pub reachable: u64,
    /// What a value is.
    pub value: String,
    /// The largest change at which the iteration stops.
    pub tolerance: f64,
    /// Gauss-Seidel sweeps done.
    pub sweeps: u32,
    /// The largest change of each sweep.
    pub changes: Vec<f64>,
    /// A checkpoint's sweep stopped part-way (after `sweeps` whole ones): where it stopped and
    /// its largest change so far. Never in a table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialSweep>,
}

/// Where a Gauss-Seidel sweep stopped part-way, so a resume goes on from there: the values
/// are then exactly those an unstopped sweep has at that point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialSweep {
    /// The sweep's steps done (each a configuration of one progress total and stage).
    pub step: u64,
    /// The largest change of those steps.
    pub change: f64,
}

/// How this build numbers chance nodes (see [`super::space`]): a table numbered otherwise is
/// refused, since its values would be read for the wrong positions.
pub const INDEX_LAYOUT: &str =
    "positions by step, configurations by progress; level 0 opponent-major, levels 1-2 mover-major";

/// What a value is, as the header says it.
pub const VALUE_MEANING: &str = "equity of the seat to roll at a chance node: P(it wins) - P(it loses) under optimal play by both seats, in the game without a turn cap";

/// Why a table cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The file cannot be read.
    #[error("cannot read table {path}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A folder without a table.
    #[error("{path} holds no {TABLE_FILE}{hint}")]
    Missing {
        /// The folder.
        path: String,
        /// What to do.
        hint: String,
    },
    /// Not a table of this tool.
    #[error("{path} is not a value table of `aeroplane solve`: {why}")]
    Foreign {
        /// The file.
        path: String,
        /// What gives it away.
        why: String,
    },
    /// A format this build does not read.
    #[error(
        "table {path} has format {found}; this version of aeroplane reads format {TABLE_FORMAT}: solve the variant again"
    )]
    Version {
        /// The file.
        path: String,
        /// Its format.
        found: u32,
    },
    /// Shorter or longer than its header says.
    #[error(
        "table {path} is {found} bytes but its header describes {expected}: the file was cut short or appended to"
    )]
    Length {
        /// The file.
        path: String,
        /// Bytes the header implies.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The checksum does not match.
    #[error(
        "table {path}: checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file was damaged or edited; solve the variant again"
    )]
    Checksum {
        /// The file.
        path: String,
        /// Stored.
        stored: u64,
        /// Computed.
        computed: u64,
    },
    /// The header is not a consistent description.
    #[error("table {path}: bad header: {why}")]
    Header {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// The table would take more memory than allowed.
    #[error(
        "table {path} describes {states} chance nodes ({bytes} bytes): more than the {limit} bytes a table may take"
    )]
    TooLarge {
        /// The file.
        path: String,
        /// States.
        states: u64,
        /// Bytes.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The table solves other rules than the game's.
    #[error("table {path} solves other rules: {}", differences.join("; "))]
    Rules {
        /// The table.
        path: String,
        /// Each option that differs, `option: table X, game Y`.
        differences: Vec<String>,
    },
    /// A position the table does not hold.
    #[error("table {path}: {why}")]
    Position {
        /// The table.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// The most bytes a table file may have: 16 GiB.
pub const MAX_TABLE_BYTES: u64 = 16 << 30;

/// A loaded table: the equity of every reachable chance node of one variant.
pub struct Table {
    path: String,
    header: TableHeader,
    space: Space,
    reach: Bits,
    /// Reachable chance nodes before each 64-bit word of `reach`.
    rank: Vec<u32>,
    values: Vec<f64>,
    checksum: u64,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("path", &self.path)
            .field("header", &self.header)
            .field("checksum", &self.checksum)
            .finish_non_exhaustive()
    }
}

impl Table {
    /// A table from solved values (every reachable chance node's, in a dense `values` of the
    /// space's index).
    pub(crate) fn new(
        path: String,
        header: TableHeader,
        space: Space,
        reach: Bits,
        dense: &[f64],
    ) -> Table {
        let mut values = Vec::with_capacity(header.reachable as usize);
        for (w, &word) in reach.words().iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                values.push(dense[w * 64 + bits.trailing_zeros() as usize]);
                bits &= bits - 1;
            }
        }
        Table {
            path,
            header,
            space,
            rank: ranks(&reach),
            reach,
            values,
            checksum: 0,
        }
    }

    /// Loads the table of a solve's folder (or a table file), once per process: later calls
    /// with the same path share it.
    pub fn load(path: &Path) -> Result<Arc<Table>, TableError> {
        static CACHE: Mutex<Vec<(PathBuf, Arc<Table>)>> = Mutex::new(Vec::new());
        let file = table_file(path)?;
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        let mut cache = CACHE.lock().expect("not poisoned");
        if let Some((_, t)) = cache.iter().find(|(p, _)| *p == key) {
            return Ok(Arc::clone(t));
        }
        let table = Arc::new(Table::read(&file)?);
        cache.push((key, Arc::clone(&table)));
        Ok(table)
    }

    /// Reads and checks a table file (or a checkpoint): magic, format, header, length and
    /// checksum, before anything else.
    pub fn read(file: &Path) -> Result<Table, TableError> {
        let path = file.display().to_string();
        let io = |source| TableError::Io {
            path: path.clone(),
            source,
        };
        if let Some(what) = crate::files::not_a_file(file) {
            return Err(TableError::Foreign {
                path,
                why: format!("it is {what}, not a file"),
            });
        }
        let len = std::fs::metadata(file).map_err(io)?.len();
        let mut f = crate::files::open_input(file).map_err(io)?;
        let mut head = [0u8; 16];
        use std::io::Read;
        if len < 16 {
            return Err(TableError::Foreign {
                path,
                why: format!("{len} bytes, shorter than any table"),
            });
        }
        f.read_exact(&mut head).map_err(io)?;
        if &head[..8] != MAGIC {
            return Err(TableError::Foreign {
                path,
                why: "it does not start with the table's magic bytes".into(),
            });
        }
        let format = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
        if format != TABLE_FORMAT {
            return Err(TableError::Version {
                path,
                found: format,
            });
        }
        let header_len = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes"));
        if header_len > MAX_HEADER || 16 + u64::from(header_len) > len {
            return Err(TableError::Length {
                path,
                expected: 16 + u64::from(header_len),
                found: len,
            });
        }
        let mut header_bytes = vec![0u8; header_len as usize];
        f.read_exact(&mut header_bytes).map_err(io)?;
        let header: TableHeader =
            serde_json::from_slice(&header_bytes).map_err(|e| TableError::Header {
                path: path.clone(),
                why: aeroplane_core::excerpt::clip_message(e),
            })?;
        let layout = Layout::of(&header, header_len).map_err(|why| TableError::Header {
            path: path.clone(),
            why,
        })?;
        if layout.total > MAX_TABLE_BYTES {
            return Err(TableError::TooLarge {
                path,
                states: header.states,
                bytes: layout.total,
                limit: MAX_TABLE_BYTES,
            });
        }
        if layout.total != len {
            return Err(TableError::Length {
                path,
                expected: layout.total,
                found: len,
            });
        }
        let mut bytes = Vec::with_capacity(len as usize);
        bytes.extend_from_slice(&head);
        bytes.extend_from_slice(&header_bytes);
        f.take(len - bytes.len() as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 != len {
            return Err(TableError::Length {
                path,
                expected: len,
                found: bytes.len() as u64,
            });
        }
        let body = len as usize - 8;
        let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
        let computed = super::fnv1a_words(&bytes[..body]);
        if stored != computed {
            return Err(TableError::Checksum {
                path,
                stored,
                computed,
            });
        }
        let words: Vec<u64> = bytes[layout.bits..layout.values]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let reach = Bits::from_words(words);
        if reach.count() != header.reachable {
            return Err(TableError::Header {
                path,
                why: format!(
                    "it says {} chance nodes are reachable but marks {}",
                    header.reachable,
                    reach.count()
                ),
            });
        }
        let values: Vec<f64> = bytes[layout.values..body]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        if let Some(bad) = values.iter().position(|v| !(-1.0..=1.0).contains(v)) {
            return Err(TableError::Header {
                path,
                why: format!("value {bad} is {}, not an equity in -1..=1", values[bad]),
            });
        }
        drop(bytes);
        let space = Space::new(&header.rules);
        Ok(Table {
            path,
            rank: ranks(&reach),
            reach,
            values,
            space,
            header,
            checksum: stored,
        })
    }

    /// The file's bytes; sets the checksum.
    pub(crate) fn encode(&mut self) -> Vec<u8> {
        let header = serde_json::to_vec(&self.header).expect("headers serialize");
        let layout = Layout::of(&self.header, header.len() as u32).expect("own header");
        let mut out = Vec::with_capacity(layout.total as usize);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&TABLE_FORMAT.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        out.resize(layout.bits, 0);
        for w in self.reach.words() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for v in &self.values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let sum = super::fnv1a_words(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        self.checksum = sum;
        out
    }

    /// The header.
    pub fn header(&self) -> &TableHeader {
        &self.header
    }

    /// Where it was read from (or will be written).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The rules it solves.
    pub fn rules(&self) -> &Rules {
        &self.header.rules
    }

    /// The checksum of its file.
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// The state space.
    pub(crate) fn space(&self) -> &Space {
        &self.space
    }

    /// The reachable chance nodes.
    pub(crate) fn reach(&self) -> &Bits {
        &self.reach
    }

    /// The values in dense index order (0 where unreachable): a checkpoint's values to go on
    /// from.
    pub(crate) fn dense(&self) -> Vec<f64> {
        let mut dense = super::bits::zeroed(self.header.states as usize);
        let mut i = 0;
        for (w, &word) in self.reach.words().iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                dense[w * 64 + bits.trailing_zeros() as usize] = self.values[i];
                i += 1;
                bits &= bits - 1;
            }
        }
        dense
    }

    /// Whether the table solves the game's rules for its players: the same options (`max_turns`
    /// included) and two players. The error lists what differs.
    pub fn check_rules(&self, rules: &Rules, players: usize) -> Result<(), TableError> {
        let mut differences = Vec::new();
        if players != 2 {
            differences.push(format!("players: table 2, game {players}"));
        }
        for option in aeroplane_core::RuleOption::ALL {
            let (a, b) = (self.rules().get(option), rules.get(option));
            if a != b {
                // A setting prints as `option=value`.
                let value = |s: aeroplane_core::Setting| {
                    let text = s.to_string();
                    text.split_once('=')
                        .map_or(text.clone(), |(_, v)| v.to_string())
                };
                differences.push(format!("{option}: table {}, game {}", value(a), value(b)));
            }
        }
        if differences.is_empty() {
            Ok(())
        } else {
            Err(TableError::Rules {
                path: self.path.clone(),
                differences,
            })
        }
    }

    /// The equity of the chance node at dense index `s`, if it is reachable.
    #[inline]
    pub(crate) fn value_at(&self, s: usize) -> Option<f64> {
        let (w, b) = (s >> 6, s & 63);
        let word = *self.reach.words().get(w)?;
        if word & (1 << b) == 0 {
            return None;
        }
        let below = (word & ((1u64 << b) - 1)).count_ones();
        Some(self.values[(self.rank[w] + below) as usize])
    }

    /// The equity of `game` (a chance node) for the seat to roll: its probability of winning
    /// minus its probability of losing under optimal play. `None` when the game is over, is a
    /// decision node, is of other rules, or is a position play cannot reach from the start.
    pub fn equity(&self, game: &Game) -> Option<f64> {
        let (u, o) = self.space.key(game)?;
        self.value_at(self.space.index(u, o))
    }

    /// The equity of `game` for `seat`, at a chance node or at the end of the game (1 for a
    /// win, -1 for a loss, 0 for a game stopped by the turn cap before anyone finished).
    pub fn seat_equity(&self, game: &Game, seat: Seat) -> Option<f64> {
        match game.status() {
            Status::Finished | Status::Unfinished => Some(match game.winner() {
                Some(w) if w == seat => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            }),
            Status::Playing => {
                let e = self.equity(game)?;
                Some(if game.to_move() == seat { e } else { -e })
            }
        }
    }

    /// The equity for the seat to move of each of `moves` (legal moves of `roll` at the chance
    /// node `game`), into `out` (as long as `moves`).
    pub fn move_values(
        &self,
        game: &Game,
        roll: u8,
        moves: &[Move],
        out: &mut [f64],
    ) -> Result<(), TableError> {
        let seat = game.to_move();
        for (m, v) in moves.iter().zip(out.iter_mut()) {
            let mut next = *game;
            next.apply(roll, Some(*m));
            *v = self.seat_equity(&next, seat).ok_or_else(|| TableError::Position {
                path: self.path.clone(),
                why: format!(
                    "move {m} for roll {roll} at `{}` leads to a position the table does not hold",
                    aeroplane_core::Setup::from(game)
                ),
            })?;
        }
        Ok(())
    }

    /// The value of a position given in the notation (a chance node, or a decision node with
    /// its roll waiting) for the seat to move: at a chance node its equity; at a decision node
    /// the equity of each legal move of the waiting roll, and the best of them. The errors
    /// name what is wrong: the text, or a position of other rules or one the table does not
    /// hold (not reachable from the start, or over).
    pub fn position_value(&self, game: &Game) -> Result<PositionValue, TableError> {
        let unknown = |why: String| TableError::Position {
            path: self.path.clone(),
            why,
        };
        if *game.rules() != *self.rules() {
            return Err(unknown(format!(
                "the position `{}` is of other rules than the table's",
                aeroplane_core::Setup::from(game)
            )));
        }
        let Some(roll) = game.pending_roll() else {
            let equity = self.equity(game).ok_or_else(|| {
                unknown(format!(
                    "the table holds no value of `{}`: a finished game, or a position play cannot reach from the start",
                    aeroplane_core::Setup::from(game)
                ))
            })?;
            return Ok(PositionValue {
                equity,
                roll: None,
                moves: Vec::new(),
            });
        };
        let mut chance = aeroplane_core::Setup::from(game);
        chance.roll = None;
        let chance = chance
            .into_game(*self.rules())
            .map_err(|e| unknown(e.to_string()))?;
        let moves = chance.legal_moves(roll);
        let mut values = vec![0.0; moves.len()];
        self.move_values(&chance, roll, &moves, &mut values)?;
        let equity = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Ok(PositionValue {
            equity: if moves.is_empty() {
                // No legal move: the roll passes; the value is the next chance node's.
                let mut next = chance;
                next.apply(roll, None);
                self.seat_equity(&next, chance.to_move()).ok_or_else(|| {
                    unknown("the position after the pass is not in the table".into())
                })?
            } else {
                equity
            },
            roll: Some(roll),
            moves: moves.iter().map(|m| m.to_string()).zip(values).collect(),
        })
    }

    /// The equity of the first seat to roll (seat 0) at the start.
    pub fn start_equity(&self) -> f64 {
        self.values[0]
    }
}

/// A position's value from a solved table, for the seat to move ([`Table::position_value`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PositionValue {
    /// `P(win) - P(loss)` under perfect play (at a decision node, the best move's).
    pub equity: f64,
    /// The roll waiting (a decision node), if any.
    pub roll: Option<u8>,
    /// Each legal move of that roll (move notation) with its equity, in move order.
    pub moves: Vec<(String, f64)>,
}

impl PositionValue {
    /// The probability of winning: `(1 + equity) / 2` (two players, no draws without a cap).
    pub fn win_probability(&self) -> f64 {
        (1.0 + self.equity) / 2.0
    }
}

/// Byte offsets of a table file's parts.
struct Layout {
    bits: usize,
    values: usize,
    total: u64,
}

impl Layout {
    /// The layout a header implies, after checking the header against its own rules.
    fn of(h: &TableHeader, header_len: u32) -> Result<Layout, String> {
        if h.tool != "aeroplane" || !matches!(h.kind.as_str(), "table" | "checkpoint") {
            return Err(format!(
                "tool `{}`, kind `{}`: not a table of aeroplane",
                aeroplane_core::excerpt::excerpt(&h.tool),
                aeroplane_core::excerpt::excerpt(&h.kind)
            ));
        }
        if h.index != INDEX_LAYOUT {
            return Err(format!(
                "it numbers its positions as `{}`, this version as `{INDEX_LAYOUT}`: solve the variant again",
                aeroplane_core::excerpt::excerpt(&h.index)
            ));
        }
        let size = Size::of(&h.rules);
        let expect = [
            ("players", u64::from(h.players), 2),
            ("positions", h.positions, size.positions as u64),
            ("configurations", h.configurations, size.configs),
            ("mover_states", h.mover_states, size.movers),
            ("states", h.states, size.states),
        ];
        for (what, found, want) in expect {
            if found != want {
                return Err(format!("`{what}` is {found}, but its rules give {want}"));
            }
        }
        if h.reachable > h.states || h.reachable == 0 {
            return Err(format!(
                "`reachable` is {}, not between 1 and the {} states",
                h.reachable, h.states
            ));
        }
        let bits = (16 + header_len as usize).div_ceil(8) * 8;
        let values = bits as u64 + h.states.div_ceil(64) * 8;
        let total = values
            .saturating_add(h.reachable.saturating_mul(8))
            .saturating_add(8);
        Ok(Layout {
            bits,
            values: values as usize,
            total,
        })
    }
}

/// The table file of a path: the path itself, or `table.bin` in a folder.
fn table_file(path: &Path) -> Result<PathBuf, TableError> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let file = path.join(TABLE_FILE);
    if file.exists() {
        return Ok(file);
    }
    let hint = if path.join(CHECKPOINT_FILE).exists() {
        format!(
            ": its solve has not finished; to finish it, run `aeroplane resume {}`",
            path.display()
        )
    } else {
        ": give the output folder of a solve (its setting `out`), or its table.bin".to_string()
    };
    Err(TableError::Missing {
        path: path.display().to_string(),
        hint,
    })
}

fn ranks(reach: &Bits) -> Vec<u32> {
    let mut total = 0u32;
    reach
        .words()
        .iter()
        .map(|w| {
            let r = total;
            total += w.count_ones();
            r
        })
        .collect()
}

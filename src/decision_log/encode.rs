//! Encoding a worker's games as decision-log bytes: the log's formats and the per-worker
//! encoder (a leaf the runner uses; it knows nothing of runs).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::lines::GameLines;
use aeroplane_core::GameRecord;

/// The zstd level of compressed logs (level 1: the fastest of the standard levels; higher
/// levels gained under 5% in size here at several times the cost).
pub const ZSTD_LEVEL: i32 = 1;

/// How a log is stored, from its file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// `.jsonl.zst`: zstd, one frame per game.
    Zstd,
    /// `.jsonl`: plain text.
    Plain,
}

/// How a run writes its log: the file's format and how often a decision line carries the
/// position (docs/LOG.md, "Key positions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogStyle {
    /// How the log is stored.
    pub format: LogFormat,
    /// The position is on decision lines 0, K, 2K, ... of each game (K >= 1).
    pub positions: u32,
}

/// A log file name that is neither `.jsonl.zst` nor `.jsonl`.
#[derive(Debug, thiserror::Error)]
#[error(
    "{0}: a decision log is named FILE.jsonl.zst (zstd-compressed) or FILE.jsonl (plain JSON lines)"
)]
pub struct LogNameError(pub String);

impl LogFormat {
    /// The format a file name asks for.
    pub fn of_path(path: &Path) -> Result<LogFormat, LogNameError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".jsonl.zst") && name.len() > ".jsonl.zst".len() {
            Ok(LogFormat::Zstd)
        } else if name.ends_with(".jsonl") && name.len() > ".jsonl".len() {
            Ok(LogFormat::Plain)
        } else {
            Err(LogNameError(aeroplane_core::excerpt::excerpt(
                &path.display().to_string(),
            )))
        }
    }
}

/// A worker's log writer: the lines of each game it plays, encoded (one zstd frame per game,
/// or plain lines) onto the bytes of its unit of work.
pub struct LogEncoder {
    format: LogFormat,
    lines: GameLines,
    compressor: Option<zstd::bulk::Compressor<'static>>,
}

impl std::fmt::Debug for LogEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogEncoder")
            .field("format", &self.format)
            .finish()
    }
}

impl LogEncoder {
    /// An encoder for logs of `style`.
    pub fn new(style: LogStyle) -> std::io::Result<LogEncoder> {
        let format = style.format;
        let compressor = match format {
            LogFormat::Zstd => {
                let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL)?;
                c.include_checksum(true)?;
                Some(c)
            }
            LogFormat::Plain => None,
        };
        Ok(LogEncoder {
            format,
            lines: GameLines::new(style.positions),
            compressor,
        })
    }

    /// The observer that writes the lines of the game being played.
    pub fn lines(&mut self) -> &mut GameLines {
        &mut self.lines
    }

    /// Ends the game begun on [`LogEncoder::lines`] with its result line and appends the game
    /// (a frame, or its lines) to `out`.
    pub fn finish_game(
        &mut self,
        deal: u64,
        rotation: u64,
        record: &GameRecord,
        out: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        self.lines.finish(deal, rotation, record);
        let raw = self.lines.bytes();
        match &mut self.compressor {
            None => out.extend_from_slice(raw),
            Some(c) => {
                out.reserve(zstd::zstd_safe::compress_bound(raw.len()));
                let at = out.len() as u64;
                let mut cursor = std::io::Cursor::new(&mut *out);
                cursor.set_position(at);
                c.compress_to_buffer(raw, &mut cursor)?;
            }
        }
        self.lines.clear();
        Ok(())
    }
}

//! Merging the shards of one job into exactly what one uninterrupted run writes: the shards'
//! unit records are folded in plan order, and `games.csv` is put together from the shards' rows
//! in game order.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::export::{
    CHECKPOINT_FILE, Checkpoint, ExportError, GamesCsv, JobStatus, MANIFEST_FILE, Manifest,
    OutputDir,
};
use crate::runner::{Flow, Plan};

use super::drive::{Fold, UnitLine};
use super::{JobDef, JobEnd, JobError, Outcome, planned_games};

/// One shard's folder, read.
struct ShardDir {
    dir: PathBuf,
    manifest: Manifest,
}

/// A unit's record and where its rows are.
struct Piece<R> {
    line: UnitLine<R>,
    shard: usize,
    rows: std::ops::Range<u64>,
}

/// The identity of a shard's job: without its shard and its own planned games.
fn job_identity(m: &Manifest) -> serde_json::Value {
    let mut v = m.identity();
    let map = v.as_object_mut().expect("an object");
    map.remove("shard");
    map.remove("games_planned");
    v
}

/// Merges the shards in `dirs` into `out`. Refuses shards of different jobs, a shard given
/// twice, unfinished shards and (unless `allow_partial`) an incomplete set, naming the folder.
pub(crate) fn merge<F: Fold, R>(
    out: &OutputDir,
    dirs: &[PathBuf],
    allow_partial: bool,
    def: JobDef<'_>,
    unit_deals: u64,
    fold: &mut F,
    report: impl FnOnce(&mut F, Option<&OutputDir>, &mut Manifest) -> Result<R, JobError>,
) -> Result<Outcome<R>, JobError> {
    let shards = read_shards(dirs)?;
    let count = shards[0].manifest.shard.expect("checked").count;
    let plan = Plan::chunked(def.parts, unit_deals)?;
    let mut manifest = def.manifest;
    manifest.unit_deals = unit_deals;
    manifest.games_planned = planned_games(&plan, def.parts, None);
    let want = job_identity(&manifest);
    let mut by_index = BTreeMap::new();
    let mut notes = Vec::new();
    for (k, s) in shards.iter().enumerate() {
        let differ = Manifest::differences(&job_identity(&s.manifest), &want);
        if !differ.is_empty() {
            return Err(JobError::Invalid(format!(
                "{} belongs to another job than {}: {} differ",
                s.dir.display(),
                shards[0].dir.display(),
                differ.join(", ")
            )));
        }
        let shard = s.manifest.shard.expect("checked");
        if shard.count != count {
            return Err(JobError::Invalid(format!(
                "{} is shard {}/{} but {} is one of {count} shards",
                s.dir.display(),
                shard.index,
                shard.count,
                shards[0].dir.display()
            )));
        }
        if let Some(other) = by_index.insert(shard.index, k) {
            return Err(JobError::Invalid(format!(
                "{} and {} both hold shard {}/{count}: give each shard once",
                shards[other].dir.display(),
                s.dir.display(),
                shard.index
            )));
        }
        if s.manifest.status != Some(JobStatus::Complete) {
            let msg = format!(
                "{} holds shard {}/{count} unfinished ({} of {} games): finish it with `aeroplane resume {}`",
                s.dir.display(),
                shard.index,
                s.manifest.games_played,
                s.manifest.games_planned,
                s.dir.display()
            );
            if !allow_partial {
                return Err(JobError::Invalid(msg));
            }
            notes.push(msg);
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        let msg = format!(
            "the set is incomplete: shard(s) {} of {count} missing",
            missing.join(", ")
        );
        if !allow_partial {
            return Err(JobError::Invalid(format!(
                "{msg}; give every shard's folder, or --allow-partial to summarise what is there"
            )));
        }
        notes.push(msg);
    }

    let mut pieces: Vec<Piece<F::Record>> = Vec::new();
    for (k, s) in shards.iter().enumerate() {
        let loaded = Checkpoint::read::<serde_json::Value, UnitLine<F::Record>>(
            &s.dir.join(CHECKPOINT_FILE),
        )?;
        let mut start = GamesCsv::header_len(def.recover);
        for line in loaded.records {
            let end = line.games_csv_end.unwrap_or(start);
            pieces.push(Piece {
                line,
                shard: k,
                rows: start..end,
            });
            start = end;
        }
    }
    pieces.sort_by_key(|p| p.line.unit);
    if !allow_partial {
        if let Some((i, _)) = pieces.iter().enumerate().find(|(i, p)| p.line.unit != *i) {
            return Err(JobError::Invalid(format!(
                "the shards hold no record of unit {i}: a checkpoint is missing units"
            )));
        }
        if pieces.len() < plan.units.len() {
            return Err(JobError::Invalid(format!(
                "the shards hold {} of the plan's {} units",
                pieces.len(),
                plan.units.len()
            )));
        }
    }

    manifest.status = Some(JobStatus::Running);
    out.write_json(MANIFEST_FILE, &manifest)?;
    let partial = out.file(GamesCsv::PARTIAL);
    let mut games = match (def.per_game, def.recover) {
        (true, false) => Some(GamesCsv::create(&partial)?),
        (true, true) => Some(GamesCsv::create_with_forfeits(&partial)?),
        (false, _) => None,
    };
    let mut played = 0u64;
    // One shard's rows file open at a time: a merge of thousands of shards must not hold
    // thousands of files open (the usual limit is 1,024).
    let mut open: Option<(usize, std::fs::File)> = None;
    for piece in pieces {
        let unit = plan.units.get(piece.line.unit).copied().ok_or_else(|| {
            JobError::Invalid(format!(
                "a checkpoint holds unit {} beyond the plan's {} units",
                piece.line.unit,
                plan.units.len()
            ))
        })?;
        if games.is_some() {
            let shard_dir = &shards[piece.shard].dir;
            if open.as_ref().is_none_or(|(k, _)| *k != piece.shard) {
                let p = shard_dir.join(GamesCsv::PARTIAL);
                let f = std::fs::File::open(&p).map_err(|e| ExportError::new(&p, e))?;
                open = Some((piece.shard, f));
            }
            let (_, file) = open.as_mut().expect("opened above");
            copy_range(
                file,
                piece.rows.clone(),
                &shard_dir.join(GamesCsv::PARTIAL),
                out,
            )?;
        }
        played += unit.deals * def.parts[unit.part].games_per_deal();
        if fold.fold(&unit, piece.line.record) == Flow::Stop {
            break;
        }
    }
    if let Some(g) = games.take() {
        let p = out.file(GamesCsv::PARTIAL);
        g.finish().map_err(|e| ExportError::new(&p, e))?;
        out.finish_stream(GamesCsv::PARTIAL, "games.csv")?;
    }
    let r = report(fold, Some(out), &mut manifest)?;
    let status = if notes.is_empty() {
        JobStatus::Complete
    } else {
        JobStatus::Partial
    };
    manifest.finish(status, played, None);
    out.write_json(MANIFEST_FILE, &manifest)?;
    Ok(Outcome {
        ended: JobEnd::Finished(r),
        played,
        planned: manifest.games_planned,
        notes,
    })
}

/// Appends bytes `range` of a shard's rows to the merged `games.csv.partial`.
fn copy_range(
    file: &mut std::fs::File,
    range: std::ops::Range<u64>,
    from: &Path,
    out: &OutputDir,
) -> Result<(), ExportError> {
    let err = |e| ExportError::new(from, e);
    file.seek(SeekFrom::Start(range.start)).map_err(err)?;
    let to = out.file(GamesCsv::PARTIAL);
    let mut f = crate::export::no_follow::append(&to).map_err(|e| ExportError::new(&to, e))?;
    // Streamed: a shard's games.csv can be larger than memory.
    let want = range.end - range.start;
    let copied =
        std::io::copy(&mut file.take(want), &mut f).map_err(|e| ExportError::new(&to, e))?;
    if copied != want {
        return Err(err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("ended {} bytes early", want - copied),
        )));
    }
    Ok(())
}

/// Reads every shard's manifest; each must be a shard.
fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, JobError> {
    if dirs.is_empty() {
        return Err(JobError::Invalid("merge needs the shards' folders".into()));
    }
    dirs.iter()
        .map(|d| {
            let manifest = Manifest::load(&d.join(MANIFEST_FILE))?;
            if manifest.shard.is_none() {
                return Err(JobError::Invalid(format!(
                    "{} is not a shard: its run.json has no `shard` (it was not run with --shard)",
                    d.display()
                )));
            }
            Ok(ShardDir {
                dir: d.clone(),
                manifest,
            })
        })
        .collect()
}

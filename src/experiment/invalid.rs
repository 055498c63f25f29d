//! Why settings do not make a job, or a folder's records do not belong to it: typed, and
//! worded for every front end. A setting is named as "the setting `name`" (`name` as in
//! run.json, the config files and the Python keywords); the command line words it as its flag.

use super::SettingError;
use crate::analysis::vary::VaryError;
use crate::export::NoSuchColumn;

/// Why a job cannot be made or continued.
#[derive(Debug, thiserror::Error)]
pub enum InvalidJob {
    /// A setting out of what it allows, or with another it does not go with (the job
    /// builders' checks: the setting, its value, what is allowed).
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// A sweep with no option to vary.
    #[error(
        "nothing to vary: give the setting `vary` (OPTION=v1,v2) or a [sweep] table in the config"
    )]
    NothingToVary,
    /// The sweep's options and values do not make variants.
    #[error(transparent)]
    Vary(#[from] VaryError),
    /// The pair of variants to compare is not two different variants of the sweep.
    #[error("the setting `compare` takes two different variant numbers between 1 and {variants}")]
    Compare {
        /// The sweep's variants.
        variants: usize,
    },
    /// No luck net given to a sweep fits one of its variants (each variant is measured by the
    /// net of its own rules and players).
    #[error(
        "the setting `luck`: no net given fits variant {index} `{variant}` ({players} players): {why}; each variant is measured by a net of its own rules and players, so give one net per rule variant (the setting `luck` repeated), or sweep without luck"
    )]
    SweepLuck {
        /// The variant's number (from 1).
        index: usize,
        /// Its label.
        variant: String,
        /// Its players.
        players: usize,
        /// Why each net given does not fit it.
        why: String,
    },
    /// A luck net given to a sweep that fits none of its variants.
    #[error(
        "the setting `luck`: the net {net} fits none of the sweep's variants (it is for {players} players and its own rules: {why}); give only nets of the variants' rules"
    )]
    SweepLuckUnused {
        /// The net file.
        net: String,
        /// The net's players.
        players: usize,
        /// Why it does not fit the first variant.
        why: String,
    },
    /// The column to sort by is not in the table.
    #[error("the setting `sort`: {0}")]
    Sort(NoSuchColumn),
    /// A league's pool is too small.
    #[error("the setting `bots` lists {0} bot(s): a league needs a pool of at least 2")]
    PoolTooSmall(usize),
    /// A league's pool is too large.
    #[error(
        "the setting `bots` lists {found} bots: a league takes at most {max} (its rating fit and \
         bootstrap grow faster than the square of the pool: 200 bots take seconds, 500 \
         minutes); split the pool, or league the leaders of each part"
    )]
    PoolTooLarge {
        /// Bots listed.
        found: usize,
        /// The most allowed.
        max: usize,
    },
    /// A bot listed twice in a league's pool.
    #[error("the setting `bots` lists `{0}` twice: list each bot once")]
    PoolDuplicate(String),
    /// Seats per table out of range.
    #[error("the setting `players` is {0}: a table seats 2, 3 or 4 players")]
    Players(usize),
    /// Bootstrap resamples out of range.
    #[error(
        "the setting `bootstrap` is {found}: give from {min} to {max} resamples (fewer cannot \
         place the 2.5% and 97.5% percentiles of a 95% interval; each refits every rating)"
    )]
    Bootstrap {
        /// The value given.
        found: u32,
        /// The fewest allowed.
        min: u32,
        /// The most allowed.
        max: u32,
    },
    /// An SPRT's lineup is not bot A and one to three copies of another bot.
    #[error(
        "an SPRT compares two distinct bots: give the setting `bots` as A,B (e.g. greedy,random), or A and two or three copies of B for three or four players (A,B,B,B), not {0}"
    )]
    SprtLineup(String),
    /// A setting that writes files into the output folder, without one.
    #[error("the setting `{setting}` {writes} into the output folder: give the setting `out`")]
    NeedsOut {
        /// The setting.
        setting: &'static str,
        /// What it writes.
        writes: &'static str,
    },
    /// A decision log's name that is not a plain `.jsonl.zst` or `.jsonl` file name.
    #[error(
        "the setting `log_games` is `{0}`: the decision log is written into the output folder: give a file name ending in .jsonl.zst (zstd-compressed) or .jsonl (plain JSON lines), not in a folder, not hidden, not one of the folder's own files (e.g. games.jsonl.zst)"
    )]
    LogName(String),
    /// A decision log's key-position interval that is 0.
    #[error(
        "the setting `log_positions` is 0: the decision log writes the position on every K-th decision line of a game, K at least 1 (1: every line)"
    )]
    LogPositions,
    /// A logged game whose choices the engine does not accept.
    #[error("the log's choices do not replay: {0}")]
    LoggedChoice(String),
    /// A resume without the job's folder.
    #[error("a resume needs the job's output folder")]
    ResumeNeedsOut,
    /// A shard index not below the shard count.
    #[error("the setting `shard` is {index}/{count}: the index must be below the count (0-based)")]
    Shard {
        /// 0-based index.
        index: u64,
        /// Shards in all.
        count: u64,
    },
    /// A game to replay that the run does not hold.
    #[error("game {game} is not in {run}: its games are {first}..{end}")]
    NoSuchGame {
        /// The game asked for.
        game: u64,
        /// The run's name.
        run: String,
        /// Its first game.
        first: u64,
        /// One past its last game.
        end: u64,
    },
    /// A manifest that does not describe a job.
    #[error("{file}: {what}")]
    Manifest {
        /// The manifest file.
        file: String,
        /// What is wrong.
        what: String,
    },
    /// The checkpoint's records are not those of this job.
    #[error("the checkpoint {what}: it does not belong to this job")]
    ForeignCheckpoint {
        /// What does not fit.
        what: String,
    },
    /// The checkpoint's header names another job than run.json.
    #[error(
        "the checkpoint in {dir} belongs to another job: run.json differs from it in {differ} (was run.json edited?); start again, replacing the folder (the setting `force`)"
    )]
    CheckpointOfAnotherJob {
        /// The folder.
        dir: String,
        /// The fields that differ.
        differ: String,
    },
    /// A merge with no folders.
    #[error("merge needs the shards' folders")]
    NoShards,
    /// A folder given to a merge is not a shard.
    #[error(
        "{0} is not a shard: its run.json has no `shard` field (the job was not split into shards)"
    )]
    NotAShard(String),
    /// Shards of different jobs.
    #[error("{dir} belongs to another job than {first}: they differ in {differ}")]
    ShardOfAnotherJob {
        /// The shard's folder.
        dir: String,
        /// The first shard's folder.
        first: String,
        /// The fields that differ.
        differ: String,
    },
    /// Shards whose luck was measured with different nets.
    #[error(
        "{dir} measured its luck with {net}, {first} with {first_net}: the shards of one job measure with one net"
    )]
    ShardOfAnotherLuckNet {
        /// The shard's folder.
        dir: String,
        /// Its luck nets as given and their checksums (`the net F of checksum C`).
        net: String,
        /// The first shard's folder.
        first: String,
        /// The first shard's luck nets and their checksums.
        first_net: String,
    },
    /// Shards of different splits.
    #[error("{dir} is shard {index}/{count} but {first} is one of {first_count} shards")]
    ShardCount {
        /// The shard's folder.
        dir: String,
        /// Its index.
        index: u64,
        /// Its count.
        count: u64,
        /// The first shard's folder.
        first: String,
        /// The first shard's count.
        first_count: u64,
    },
    /// One shard given twice.
    #[error("{a} and {b} both hold shard {index}/{count}: give each shard once")]
    ShardTwice {
        /// One folder.
        a: String,
        /// The other.
        b: String,
        /// The shard's index.
        index: u64,
        /// Shards in all.
        count: u64,
    },
    /// A shard that has not finished (a merge that is not allowed to be partial).
    #[error("{0}")]
    ShardUnfinished(String),
    /// Shards missing from the set (a merge that is not allowed to be partial).
    #[error(
        "{0}; give every shard's folder, or allow a partial merge (the setting `allow_partial`) to summarise what is there"
    )]
    ShardsMissing(String),
    /// A tune split into shards or merged from them: it is one sequence of iterations.
    #[error("a tune {0}: each iteration depends on the one before")]
    TuneSequential(&'static str),
    /// Units missing from the shards' checkpoints.
    #[error("{0}")]
    UnitsMissing(String),
}

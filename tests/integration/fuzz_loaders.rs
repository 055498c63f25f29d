//! Fuzzing every loader of user input: the rules file, bot profiles, run and sweep configs,
//! manifests, dice lists, and the `--bots`, `--vary` and `--sprt` specs.
//!
//! Each gets arbitrary bytes and mutations of valid inputs (the files shipped in `configs/` and
//! `bots/`, and a manifest written by a real run). Whatever the input, a loader returns (no
//! panic, which would fail the property), and a rejection is a short message without raw
//! control characters that names the file it came from.
//!
//! CI runs a short pass on a fixed seed. A longer local run:
//! `AEROPLANE_FUZZ_CASES=20000 AEROPLANE_FUZZ_SEED=7 cargo test --release --test integration fuzz_`

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use aeroplane::RulesToml;
use aeroplane::analysis::{Axis, SprtConfig, variants};
use aeroplane::bots::registry::{BotSpec, Profile};
use aeroplane::config::{RunConfigFile, SweepConfigFile, read_rules_file};
use aeroplane::experiment::Job;
use aeroplane::export::Manifest;
use aeroplane::{Rules, parse_dice, parse_lineup, read_dice};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// The fixed seed of the CI pass, unless `AEROPLANE_FUZZ_SEED` says otherwise.
const SEED: u64 = 12;

fn config(cases: u32) -> Config {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    Config {
        cases: env("AEROPLANE_FUZZ_CASES").map_or(cases, |c| c as u32),
        rng_seed: RngSeed::Fixed(env("AEROPLANE_FUZZ_SEED").unwrap_or(SEED)),
        failure_persistence: None,
        ..Config::default()
    }
}

/// The valid inputs mutations start from: every TOML file shipped in `configs/` and `bots/`,
/// a sweep config, and the manifest of a real run.
fn corpus() -> &'static [(String, Vec<u8>)] {
    static CORPUS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["configs", "bots", "bots/examples"] {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            entries.sort();
            for p in entries {
                files.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
        files.push((
            "sweep".into(),
            b"rules = \"classic\"\nbots = \"greedy,greedy\"\ngames = 10\nseed = 1\n[sweep]\novershoot = [\"illegal\", \"bounce\"]\nlaunch_rolls = [[6], [5, 6]]\nmax_turns = [100, 200]\n".to_vec(),
        ));
        files.push(("manifest".into(), manifest_of_a_run()));
        files
    })
}

fn manifest_of_a_run() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .args([
            "run",
            "--games",
            "3",
            "--bots",
            "greedy,random,random",
            "--rotate-seats",
            "-q",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(out.join("run.json")).unwrap()
}

/// One edit of a mutation.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace the byte at (position mod length).
    Set(usize, u8),
    /// Insert a byte.
    Insert(usize, u8),
    /// Remove a byte.
    Remove(usize),
    /// Insert a token that loaders treat specially.
    Token(usize, usize),
    /// Repeat a slice many times (long values, long lines).
    Repeat(usize, usize, u16),
}

const TOKENS: &[&str] = &[
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    "\n",
    "#",
    "\\",
    "\u{1b}[2J",
    "-1",
    "0",
    "1e308",
    "nan",
    "inf",
    "18446744073709551616",
    "9223372036854775807",
    "true",
    "[[sweep]]",
    "[params]",
    "base = \"classic\"",
    "kind = \"external\"",
    "depth = \"3\"",
    "\u{0}",
    "\u{feff}",
    "\"format\": 99,",
    "\"bots\": [],",
    "\"players\": 0,",
    "null",
    "{}",
    "[]",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Set(p, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Insert(p, b)),
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Edit::Token(p, t)),
        (any::<usize>(), 1usize..64, 1u16..2000).prop_map(|(p, l, n)| Edit::Repeat(p, l, n)),
    ]
}

fn mutate(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len().max(1);
        match *e {
            Edit::Set(p, b) if !bytes.is_empty() => bytes[p % len] = b,
            Edit::Insert(p, b) => bytes.insert(p % (bytes.len() + 1), b),
            Edit::Remove(p) if !bytes.is_empty() => {
                bytes.remove(p % len);
            }
            Edit::Token(p, t) => {
                let at = p % (bytes.len() + 1);
                bytes.splice(at..at, TOKENS[t].bytes());
            }
            Edit::Repeat(p, l, n) if !bytes.is_empty() => {
                let at = p % len;
                let end = (at + l).min(bytes.len());
                let piece = bytes[at..end].repeat(n as usize);
                bytes.splice(at..at, piece);
            }
            _ => {}
        }
    }
    bytes
}

/// An input: a mutated file of the corpus, or arbitrary bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => (0..corpus().len(), prop::collection::vec(edit(), 0..6))
            .prop_map(|(i, edits)| mutate(corpus()[i].1.clone(), &edits)),
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
}

/// An error chain as the command line prints it.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(&format!(": {c}"));
        cause = c.source();
    }
    s
}

/// A rejection is short, has no raw control characters but line breaks, and names `file`.
fn check_message(message: &str, file: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        message.len() < 8192,
        "{} bytes: {}",
        message.len(),
        &message[..300]
    );
    prop_assert!(
        !message
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "control characters in {message:?}"
    );
    if !file.is_empty() {
        prop_assert!(message.contains(file), "does not name {file}: {message}");
    }
    Ok(())
}

/// Writes `bytes` to a fresh file named `name`; returns it with its folder.
fn file(bytes: &[u8], name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn fuzz_rules_files(bytes in input()) {
        let (_dir, path) = file(&bytes, "variant.toml");
        if let Err(e) = read_rules_file(&path) {
            check_message(&chain(&e), &path.display().to_string())?;
        }
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = Rules::from_toml(text);
        }
    }

    #[test]
    fn fuzz_profiles(bytes in input(), inline in "[a-z_=:0-9.]{0,24}") {
        let (dir, path) = file(&bytes, "mine.toml");
        match parse_lineup(&format!("{}{inline},random", path.display()), dir.path()) {
            Ok(specs) => prop_assert_eq!(specs.len(), 2),
            Err(e) => check_message(&chain(&e), "mine")?,
        }
        if let Ok(text) = std::str::from_utf8(&bytes)
            && let Ok(p) = Profile::parse("mine", "mine.toml", text)
        {
            let _ = BotSpec::from_profile(&format!("mine{inline}"), &p);
        }
    }

    #[test]
    fn fuzz_run_configs(bytes in input()) {
        let (_dir, path) = file(&bytes, "run.toml");
        match RunConfigFile::load(&path) {
            Ok(cfg) => {
                let _ = cfg.rules("run.toml");
            }
            Err(e) => check_message(&chain(&e), &path.display().to_string())?,
        }
    }

    #[test]
    fn fuzz_sweep_configs(bytes in input()) {
        let (_dir, path) = file(&bytes, "sweep.toml");
        match SweepConfigFile::load(&path) {
            Ok(cfg) => match cfg.axes("sweep.toml") {
                Ok(axes) => {
                    let _ = variants(Rules::default(), &axes);
                }
                Err(e) => check_message(&chain(&e), "sweep.toml")?,
            },
            Err(e) => check_message(&chain(&e), &path.display().to_string())?,
        }
    }

    #[test]
    fn fuzz_manifests(bytes in input(), game in any::<u64>()) {
        let (_dir, path) = file(&bytes, "run.json");
        let name = path.display().to_string();
        match Manifest::load(&path) {
            Ok(m) => {
                if let Err(e) = Job::from_manifest(&m, &name) {
                    check_message(&chain(&e), "")?;
                }
                // Cheap bots only, and never a program named by a mutated manifest.
                if let Ok(spec) = m.spec(&name)
                    && spec.validate().is_ok()
                    && spec.lineup.iter().all(|b| b.kind == "greedy" || b.kind == "random")
                {
                    // Any game index of any manifest that loads: replayed or refused.
                    let job = aeroplane::experiment::replay::ReplayJob {
                        spec,
                        game: game % 64,
                        dice: None,
                        with_csv_row: true,
                        run_name: name.clone(),
                    };
                    let _ = job.play();
                }
            }
            Err(e) => check_message(&chain(&e), &name)?,
        }
    }

    #[test]
    fn fuzz_dice_lists(bytes in input()) {
        let streamed = read_dice(&bytes[..]);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            prop_assert_eq!(&parse_dice(text), &streamed);
        }
        match streamed {
            Ok(rolls) => prop_assert!(rolls.iter().all(|r| (1..=6).contains(r))),
            Err(e) => check_message(&e.to_string(), "")?,
        }
    }

    #[test]
    fn fuzz_specs(text in prop_oneof![
        "[ -~]{0,80}",
        any::<String>(),
        (0..corpus().len(), prop::collection::vec(edit(), 1..4))
            .prop_map(|(i, e)| String::from_utf8_lossy(&mutate(corpus()[i].1.clone(), &e))[..].chars().take(200).collect()),
    ]) {
        let dir = tempfile::tempdir().unwrap();
        if let Err(e) = parse_lineup(&text, dir.path()) {
            check_message(&chain(&e), "")?;
        }
        match text.parse::<Axis>() {
            Ok(a) => {
                let _ = variants(Rules::default(), &[a]);
            }
            Err(e) => check_message(&e.to_string(), "")?,
        }
        if let Err(e) = text.parse::<SprtConfig>() {
            check_message(&e.to_string(), "")?;
        }
    }
}

/// The options of every loader, set to wrong values: each rejection names the option.
#[test]
fn rejections_name_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let bad = ["\"x\"", "-7", "[1, 99]", "{ a = 1 }", "1e308"];
    for option in aeroplane::RuleOption::ALL.map(aeroplane::RuleOption::name) {
        for v in bad {
            let text = format!("{option} = {v}\n");
            let path = dir.path().join("v.toml");
            std::fs::write(&path, &text).unwrap();
            if let Err(e) = read_rules_file(&path) {
                let m = chain(&e);
                assert!(m.contains(option) && m.contains("v.toml"), "{text}: {m}");
            }
        }
    }
    for key in [
        "games",
        "seed",
        "threads",
        "chunk_size",
        "rotate_seats",
        "bots",
    ] {
        let path = dir.path().join("c.toml");
        std::fs::write(&path, format!("{key} = {{ a = 1 }}\n")).unwrap();
        let m = chain(&RunConfigFile::load(&path).unwrap_err());
        assert!(m.contains(key) && m.contains("c.toml"), "{key}: {m}");
    }
    for param in ["depth", "progress", "win"] {
        let path = dir.path().join("p.toml");
        std::fs::write(
            &path,
            format!("kind = \"expectimax\"\n[params]\n{param} = \"3\"\n"),
        )
        .unwrap();
        let m =
            chain(&parse_lineup(&format!("{},random", path.display()), dir.path()).unwrap_err());
        assert!(m.contains(param) && m.contains("p.toml"), "{param}: {m}");
    }
}

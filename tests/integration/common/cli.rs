//! Shared helpers for the tests that run the binary and look at the folders it writes.

use std::fs;
use std::path::Path;

/// The test hooks the binary reads (faults to inject, signals to send itself), removed from
/// the command's environment so that only a test that sets one on purpose sees it.
const TEST_HOOKS: [&str; 6] = [
    "AEROPLANE_TEST_FAULT",
    "AEROPLANE_TEST_FAULT_LOG",
    "AEROPLANE_TEST_SIGNAL",
    "AEROPLANE_TEST_SIGNAL_AFTER_GAMES",
    "AEROPLANE_TEST_SIGNAL_AFTER_UNITS",
    "AEROPLANE_TEST_SOLVE_SIGNAL",
];

/// The `aeroplane` binary, run in the repository's root (where `bots/` and `configs/` are),
/// with none of the test hooks set.
pub fn aeroplane() -> assert_cmd::Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("aeroplane");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    for hook in TEST_HOOKS {
        cmd.env_remove(hook);
    }
    cmd
}

/// Every entry of a folder (hidden ones too) by name, with its bytes (a folder's are empty),
/// sorted by name.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    v.sort();
    v
}

/// [`aeroplane`] run in `dir`.
pub fn aeroplane_in(dir: &Path) -> assert_cmd::Command {
    let mut cmd = aeroplane();
    cmd.current_dir(dir);
    cmd
}

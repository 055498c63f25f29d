//! A bot as a Rust plug-in: a crate that depends on `aeroplane` as a library, implements
//! [`Bot`], registers it as a bot kind with its own parameters, and runs a tournament through
//! the library, without forking the project.
//!
//! In your own crate: `aeroplane = { path = "../aeroplane" }` (or a git dependency) in
//! `Cargo.toml`, and this file as `src/main.rs`. Here: `cargo run --release --example
//! custom_bot -- 2000` (the argument is the number of deals).

use aeroplane::{
    Bot, Exec, Game, KindDef, Move, ParamDef, ParamKind, Params, Preset, RunSpec, Summary,
    parse_lineup, register_kind, run, write_report,
};

/// Captures when it can, else brings a plane home, else moves the plane that gains the most
/// steps; `launch_bonus` steps make launching more attractive.
struct Rusher {
    launch_bonus: f64,
}

impl Rusher {
    fn score(&self, m: &Move) -> f64 {
        let gain = if m.is_launch() {
            self.launch_bonus
        } else {
            f64::from(m.to()) - f64::from(m.from())
        };
        100.0 * f64::from(m.captures()) + 50.0 * f64::from(u8::from(m.finishes())) + gain
    }
}

impl Bot for Rusher {
    fn name(&self) -> &str {
        "rusher"
    }

    // Deterministic: it ignores `new_game`'s seed. A bot with randomness seeds its generator
    // there (see `aeroplane::RandomBot`), so that games stay a function of the run's seed.

    fn choose(&mut self, _game: &Game, _roll: u8, moves: &[Move]) -> usize {
        // The first of the best: moves come in a canonical order, so ties break the same way
        // on every machine.
        let mut best = 0;
        for (i, m) in moves.iter().enumerate() {
            if self.score(m) > self.score(&moves[best]) {
                best = i;
            }
        }
        best
    }
}

/// The kind: a name, range-checked parameters, and how to build a bot from them. The runner
/// builds one bot per worker thread and lineup entry.
static RUSHER: KindDef = KindDef {
    name: "rusher",
    summary: "capture, else finish, else the largest gain",
    params: &[ParamDef {
        name: "launch_bonus",
        kind: ParamKind::Float {
            min: 0.0,
            max: 20.0,
        },
        default: "4",
        help: "how many steps of progress a launch is worth",
    }],
    build: |_name: &str, p: &Params| -> Box<dyn Bot> {
        Box::new(Rusher {
            launch_bonus: p.float("launch_bonus"),
        })
    },
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let deals = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(1000);
    register_kind(&RUSHER)?;
    // Registered kinds are named like built-in ones, with inline parameters too; profiles
    // (`kind = "rusher"` in a .toml) work as well.
    let lineup = parse_lineup(
        "rusher,rusher:launch_bonus=12,greedy,random",
        "bots".as_ref(),
    )?;
    let spec = RunSpec {
        rules: Preset::Classic.rules(),
        lineup,
        seed: 1,
        first_deal: 0,
        deals,
        rotate_seats: true,
    };
    let tally = run(&spec, aeroplane::RunOptions::new(Exec::default()), None)?;
    let names: Vec<String> = spec.lineup.iter().map(|b| b.name.clone()).collect();
    let summary = Summary::new(&tally, &names);
    write_report(
        &mut std::io::stdout().lock(),
        "custom_bot: a plug-in bot in a classic tournament",
        &summary,
    )?;
    Ok(())
}

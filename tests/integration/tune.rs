//! SPSA on a synthetic objective: a plug-in bot kind whose strength peaks at known parameter
//! values. The bot plays the greedy move with probability
//! `exp(-((x - 0.3) / 0.5)^2 - ((n - 12) / 12)^2)` and a uniformly random move otherwise, so its
//! win rate is highest at `x = 0.3`, `n = 12` (greedy beats random about 77% of the time in
//! two-player appfreegame). Started far away (`x = 0.9`, `n = 25`), `aeroplane tune`'s job,
//! playing real games (300 iterations of 32 game pairs, the default schedules), must end
//! within 0.05 of `x = 0.3` and 1 of `n = 12`. (Over seeds 1 to 30 the largest misses were
//! 0.026 and 1.)

use std::sync::Once;
use std::sync::atomic::AtomicU64;

use aeroplane::analysis::spsa::SpsaSettings;
use aeroplane::core::splitmix64;
use aeroplane::experiment::tune::{Confirm, ParamRange};
use aeroplane::experiment::{Context, JobEnd, JobKind, TuneJob, TuneReport, TuneSpec};
use aeroplane::{
    Bot, Exec, Game, Greedy, KindDef, Move, ParamDef, ParamKind, Params, Preset, Seat,
    parse_lineup, register_kind,
};

/// The optimum of the synthetic objective.
const X_BEST: f64 = 0.3;
const N_BEST: f64 = 12.0;

fn greedy_share(x: f64, n: f64) -> f64 {
    (-((x - X_BEST) / 0.5).powi(2) - ((n - N_BEST) / 12.0).powi(2)).exp()
}

/// Greedy with probability `share`, else uniform; its own stream from the game's bot seed.
struct Peaked {
    share: f64,
    state: u64,
}

impl Peaked {
    fn unit(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        (splitmix64(self.state) >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Bot for Peaked {
    fn name(&self) -> &str {
        "peaked"
    }
    fn new_game(&mut self, _: Seat, seed: u64) {
        self.state = seed;
    }
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        if self.unit() < self.share {
            Greedy.choose(game, roll, moves)
        } else {
            ((self.unit() * moves.len() as f64) as usize).min(moves.len() - 1)
        }
    }
}

static PEAKED: KindDef = KindDef {
    name: "peaked",
    summary: "greedy with a probability that peaks at x = 0.3, n = 12 (a synthetic objective)",
    params: &[
        ParamDef {
            name: "x",
            kind: ParamKind::Float { min: 0.0, max: 1.0 },
            default: "0.9",
            help: "real coordinate",
        },
        ParamDef {
            name: "n",
            kind: ParamKind::Int { min: 0, max: 30 },
            default: "25",
            help: "integer coordinate",
        },
    ],
    build: |_: &str, p: &Params| -> Box<dyn Bot> {
        Box::new(Peaked {
            share: greedy_share(p.float("x"), p.int("n") as f64),
            state: 0,
        })
    },
};

fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| register_kind(&PEAKED).expect("a new kind"));
}

fn tune(seed: u64, iterations: u64, deals: u64, threads: usize) -> TuneReport {
    register();
    let bot = parse_lineup("peaked", "bots".as_ref()).unwrap().remove(0);
    let job = TuneJob::new(TuneSpec {
        rules: Preset::AppFreeGame.rules(),
        rules_name: "appfreegame".into(),
        bot,
        opponent: None,
        players: 2,
        ranges: vec![
            "x=0..1".parse::<ParamRange>().unwrap(),
            "n=0..30".parse().unwrap(),
        ],
        settings: SpsaSettings::new(iterations, deals),
        seed,
        confirm: Some(Confirm {
            test: "elo0=0,elo1=20".parse().unwrap(),
            max_pairs: 4000,
            chunk_deals: 16,
        }),
        given: None,
    })
    .unwrap();
    let progress = AtomicU64::new(0);
    let exec = Exec {
        threads,
        chunk_deals: 16,
        ..Exec::default()
    };
    match job
        .execute(&Context::new(exec, None, &progress))
        .unwrap()
        .ended
    {
        JobEnd::Finished(r) => r,
        other => panic!("{other:?}"),
    }
}

#[test]
fn spsa_finds_the_peak_of_a_synthetic_objective() {
    for seed in 1..=4 {
        let r = tune(seed, 300, 32, 0);
        let (x, n) = (r.params[0].tuned, r.params[1].tuned);
        assert!(
            (x - X_BEST).abs() < 0.05 && (n - N_BEST).abs() <= 1.0,
            "seed {seed}: ended at x = {x}, n = {n}"
        );
        assert_eq!(
            n.fract(),
            0.0,
            "an integer parameter is tuned to an integer"
        );
        // Far from the start, much stronger: the confirmation accepts H1.
        let c = r.confirm.as_ref().unwrap();
        assert_eq!(
            c.sprt.verdict,
            aeroplane::analysis::Verdict::AcceptH1,
            "{c:?}"
        );
    }
}

#[test]
fn a_tune_does_not_depend_on_the_thread_count() {
    let one = tune(9, 12, 8, 1);
    let two = tune(9, 12, 8, 2);
    assert_eq!(one, two);
}

//! Decisions per second of a bot program through the protocol, and the harness's own cost per
//! decision.
//!
//! ```sh
//! cargo build --release --example instant_bot
//! cargo run --release --example protocol_bench -- [games] [threads] [command...]
//! cargo run --release --example protocol_bench -- 2000 2 python3 bots/examples/greedy_bot.py
//! cargo run --release --example protocol_bench -- 2000 2 target/release/examples/instant_bot
//! ```
//!
//! The lineup is the program in all four seats (appfreegame rules, seats rotated). The number of
//! decisions comes from playing the same games in-process with a bot that counts them (the
//! program must play like greedy for the count to be exact, as greedy_bot.py does; for
//! instant_bot, which plays the first move, a counting first-move bot is used). CPU times come
//! from `getrusage`: the harness's own (all its threads) and its children's (the bot programs,
//! once they are reaped at the end of the run).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use aeroplane::bots::external::ExternalSpec;
use aeroplane::{
    Bot, BotSpec, Exec, Game, Greedy, KindDef, Move, Params, Preset, RunSpec, parse_lineup,
    register_kind, run,
};

static DECISIONS: AtomicU64 = AtomicU64::new(0);

/// Greedy, or the first move, counting its decisions.
struct Counting(bool);

impl Bot for Counting {
    fn name(&self) -> &str {
        "counting"
    }
    fn choose(&mut self, _game: &Game, _roll: u8, moves: &[Move]) -> usize {
        DECISIONS.fetch_add(1, Ordering::Relaxed);
        if self.0 { Greedy::pick(moves) } else { 0 }
    }
}

static COUNT_GREEDY: KindDef = KindDef {
    name: "count-greedy",
    summary: "greedy, counting decisions",
    params: &[],
    build: |_: &str, _: &Params| -> Box<dyn Bot> { Box::new(Counting(true)) },
};
static COUNT_FIRST: KindDef = KindDef {
    name: "count-first",
    summary: "the first move, counting decisions",
    params: &[],
    build: |_: &str, _: &Params| -> Box<dyn Bot> { Box::new(Counting(false)) },
};

/// (user, system) CPU seconds of `who`.
fn cpu2(who: i32) -> (f64, f64) {
    // SAFETY: getrusage fills the struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    (t(u.ru_utime), t(u.ru_stime))
}

fn cpu(who: i32) -> f64 {
    let (u, s) = cpu2(who);
    u + s
}

/// CPU microseconds to encode one `choose` message and decode one `move` answer, in-process: the
/// harness's own work per decision apart from the pipe's system calls.
fn codec_micros() -> f64 {
    use aeroplane::bots::external::protocol::{FromBot, MoveJson, State, ToBot};
    // A mid-game position with a choice: play greedy games until one has 3 or more moves.
    let mut game = Game::new(Preset::AppFreeGame.rules(), 4).expect("game");
    let mut dice = aeroplane::SeededDice::new(5, 0);
    let (roll, moves) = loop {
        let roll = aeroplane::Dice::roll(&mut dice, game.to_move()).expect("dice");
        let moves = game.legal_moves(roll);
        if moves.len() >= 3 && game.turns() > 40 {
            break (roll, moves);
        }
        let m = moves.first().map(|_| moves[Greedy::pick(&moves)]);
        game.apply(roll, m);
    };
    let mut buf = Vec::with_capacity(4096);
    let answer = format!("{{\"type\":\"move\",\"id\":\"{}\"}}", moves[1].notation());
    let n = 200_000;
    let c0 = cpu(libc::RUSAGE_SELF);
    let mut found = 0;
    for _ in 0..n {
        buf.clear();
        let msg = ToBot::Choose {
            game: 1,
            roll,
            state: State::of(&game),
            moves: moves.iter().map(MoveJson::of).collect(),
        };
        serde_json::to_writer(&mut buf, &msg).expect("encode");
        buf.push(b'\n');
        if let Ok(FromBot::Move { id }) = serde_json::from_str::<FromBot>(&answer) {
            found += moves.iter().position(|m| m.notation() == id).unwrap_or(0);
        }
    }
    assert!(found > 0);
    (cpu(libc::RUSAGE_SELF) - c0) / n as f64 * 1e6
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().map(|a| a.parse()).transpose()?.unwrap_or(1000);
    let threads: usize = args.get(1).map(|a| a.parse()).transpose()?.unwrap_or(1);
    let command: Vec<String> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        vec!["python3".into(), "bots/examples/greedy_bot.py".into()]
    };
    let greedy_like = !command.iter().any(|c| c.contains("instant_bot"));
    register_kind(&COUNT_GREEDY)?;
    register_kind(&COUNT_FIRST)?;
    let exec = Exec {
        threads,
        chunk_deals: 16,
        ..Exec::default()
    };
    let counter = if greedy_like {
        "count-greedy"
    } else {
        "count-first"
    };
    let mut spec = RunSpec {
        rules: Preset::AppFreeGame.rules(),
        lineup: parse_lineup(&[counter; 4].join(","), "bots".as_ref())?,
        seed: 1,
        first_deal: 0,
        deals: games,
        rotate_seats: true,
    };
    let t0 = Instant::now();
    let c0 = cpu(libc::RUSAGE_SELF);
    run(&spec, aeroplane::RunOptions::new(exec), None)?;
    let inproc_wall = t0.elapsed().as_secs_f64();
    let inproc_cpu = cpu(libc::RUSAGE_SELF) - c0;
    let decisions = DECISIONS.load(Ordering::Relaxed) as f64;

    let mut bot = BotSpec {
        name: "program".into(),
        kind: "external".into(),
        params: Params::default(),
        external: Some(ExternalSpec::new(command.clone())),
        given: None,
    };
    bot.external.as_mut().expect("set").timeout_ms = 60_000;
    spec.lineup = vec![bot; 4];
    let (s0, k0) = (cpu(libc::RUSAGE_SELF), cpu(libc::RUSAGE_CHILDREN));
    let (u0, y0) = cpu2(libc::RUSAGE_SELF);
    let t0 = Instant::now();
    let tally = run(&spec, aeroplane::RunOptions::new(exec), None)?;
    let wall = t0.elapsed().as_secs_f64();
    let harness = cpu(libc::RUSAGE_SELF) - s0;
    let (u1, y1) = cpu2(libc::RUSAGE_SELF);
    let children = cpu(libc::RUSAGE_CHILDREN) - k0;
    println!(
        "{} games, {decisions} decisions, {threads} thread(s), bot: {}",
        tally.games,
        command.join(" ")
    );
    println!(
        "through the protocol: {wall:.3} s wall, {:.0} decisions/s",
        decisions / wall
    );
    println!(
        "in-process, same games: {inproc_wall:.3} s wall ({:.2} µs CPU per decision, game play included)",
        inproc_cpu / decisions * 1e6
    );
    println!(
        "harness CPU per decision: {:.2} µs (of which game play in-process: {:.2} µs; the rest is the protocol: {:.2} µs)",
        harness / decisions * 1e6,
        inproc_cpu / decisions * 1e6,
        (harness - inproc_cpu) / decisions * 1e6
    );
    println!(
        "  harness user {:.2} µs + system {:.2} µs per decision; encoding a choose and decoding a move in-process: {:.2} µs",
        (u1 - u0) / decisions * 1e6,
        (y1 - y0) / decisions * 1e6,
        codec_micros()
    );
    println!(
        "bot programs' CPU per decision: {:.2} µs; wall per decision per thread: {:.2} µs",
        children / decisions * 1e6,
        wall * threads as f64 / decisions * 1e6
    );
    Ok(())
}

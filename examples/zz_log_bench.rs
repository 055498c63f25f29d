use aeroplane::config::parse_lineup;
use aeroplane::decision_log::{LogEncoder, LogFormat};
use aeroplane::runner::RunSpec;
use aeroplane_core::Preset;
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
fn main() {
    let n: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let spec = RunSpec {
        rules: Preset::AppFreeGame.rules(),
        lineup: parse_lineup("greedy,greedy,greedy,greedy", "bots".as_ref()).unwrap(),
        seed: 1,
        first_deal: 0,
        deals: n,
        rotate_seats: false,
    };
    let start = aeroplane::Game::new(spec.rules, 4).unwrap();
    for _ in 0..3 {
        let mut bots: Vec<Box<dyn aeroplane::Bot>> =
            spec.lineup.iter().map(|b| b.build()).collect();
        let t = cpu();
        for g in 0..n {
            spec.play_with(g, &mut bots, &mut ()).unwrap();
        }
        let base = cpu() - t;
        let mut res = vec![];
        for format in [LogFormat::Plain, LogFormat::Zstd] {
            let mut enc = LogEncoder::new(format).unwrap();
            let mut out = Vec::with_capacity(1 << 20);
            let mut total = 0usize;
            let t = cpu();
            for g in 0..n {
                enc.lines().begin(g, &start, spec.bot_at_seat(0));
                let p = spec.play_with(g, &mut bots, enc.lines()).unwrap();
                enc.finish_game(g, 0, &p.record, &mut out).unwrap();
                total += out.len();
                out.clear();
            }
            res.push((cpu() - t, total));
        }
        println!(
            "base {:.1} us/game; plain {:.1} us/game {} B/game (x{:.2}); zstd {:.1} us/game {} B/game (x{:.2})",
            base * 1e6 / n as f64,
            res[0].0 * 1e6 / n as f64,
            res[0].1 as u64 / n,
            res[0].0 / base,
            res[1].0 * 1e6 / n as f64,
            res[1].1 as u64 / n,
            res[1].0 / base
        );
    }
}

//! Which linear control variates of the measured luck narrow a result most (docs/LUCK.md,
//! "Fitted coefficients"; issue 33, item 1): the first bot's per-deal win and score against
//! the fixed adjustment `--luck` makes (coefficient 1 on the net luck) and against least-squares
//! fits on several sets of regressors (own and others' luck, per relative seat, win and return
//! luck), each fitted on the other half of the deals (cross-fitting, so the fit does not see
//! the deals it adjusts). Prints the variance ratio (plain / adjusted) and the coefficients.
//!
//! ```text
//! cargo run --release --example luck_fit -- classic greedy,greedy,expectimax,expectimax \
//!     bots/nets/td-classic-4p.safetensors 1000
//! ```
//!
//! Arguments: rules, lineup, net, rotated deals (deal `d` plays the dice of seed 33, deal `d`,
//! once per rotation of the lineup, as `run --rotate-seats` does).
use aeroplane::analysis::luck::{LuckMeter, LuckNet, score_of};
use aeroplane::config::{load_rules, parse_lineup};
use aeroplane_core::{Game, Seat, SeededDice, play_game};

fn solve(a: &mut [Vec<f64>], b: &mut [f64]) -> Vec<f64> {
    let n = b.len();
    for i in 0..n {
        let p = (i..n)
            .max_by(|&x, &y| a[x][i].abs().total_cmp(&a[y][i].abs()))
            .unwrap();
        a.swap(i, p);
        b.swap(i, p);
        let pivot = a[i].clone();
        for r in 0..n {
            if r != i {
                let f = a[r][i] / pivot[i];
                for (v, p) in a[r].iter_mut().zip(&pivot).skip(i) {
                    *v -= f * p;
                }
                b[r] -= f * b[i];
            }
        }
    }
    (0..n).map(|i| b[i] / a[i][i]).collect()
}

fn var(v: &[f64]) -> f64 {
    let m = v.iter().sum::<f64>() / v.len() as f64;
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0)
}

/// Variance ratio of y against y - x beta (beta fitted on the other half).
fn ratio(y: &[f64], x: &[Vec<f64>]) -> (f64, Vec<f64>) {
    let k = x[0].len();
    let fit = |idx: &dyn Fn(usize) -> bool| {
        let mut a = vec![vec![0.0; k]; k];
        let mut b = vec![0.0; k];
        for d in 0..y.len() {
            if !idx(d) {
                continue;
            }
            for i in 0..k {
                b[i] += x[d][i] * y[d];
                for j in 0..k {
                    a[i][j] += x[d][i] * x[d][j];
                }
            }
        }
        solve(&mut a, &mut b)
    };
    let b0 = fit(&|d| d % 2 == 1);
    let b1 = fit(&|d| d % 2 == 0);
    let adj: Vec<f64> = (0..y.len())
        .map(|d| {
            let b = if d % 2 == 0 { &b0 } else { &b1 };
            y[d] - (0..k).map(|i| b[i] * x[d][i]).sum::<f64>()
        })
        .collect();
    (var(y) / var(&adj), b0)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rules_name, bots, net, deals] = args.as_slice() else {
        anyhow::bail!("usage: luck_fit RULES LINEUP NET DEALS");
    };
    let deals: u64 = deals.parse()?;
    let rules = load_rules(rules_name)?;
    let lineup = parse_lineup(bots, std::path::Path::new("bots"))?;
    let n = lineup.len();
    let net = LuckNet::load(net)?;
    let mut meter: LuckMeter = net.meter(&rules, n)?;
    let seats = Seat::in_play(n);
    // Per deal, per entry 0: y_win, y_score, luck features [own w, own r, then per relative seat w, r].
    let mut yw = Vec::new();
    let mut ys = Vec::new();
    let mut feats: Vec<Vec<f64>> = Vec::new();
    for d in 0..deals {
        let (mut w, mut s) = (0.0, 0.0);
        let mut f = vec![0.0; 2 * n];
        for r in 0..n {
            let mut b: Vec<_> = (0..n).map(|i| lineup[(i + r) % n].build()).collect();
            meter.begin();
            let start = Game::new(rules, n).unwrap();
            let rec = play_game(start, &mut b, &mut SeededDice::new(33, d), &mut meter).unwrap();
            let l = meter.game();
            // entry 0 sits at i with (i + r) % n == 0.
            let i = (n - r) % n;
            let seat = seats[i];
            w += f64::from(u8::from(rec.ranks[seat.index()] == 1));
            s += score_of(&rec.ranks, seat, n);
            for k in 0..n {
                let o = seats[(i + k) % n].index();
                f[2 * k] += l.win[o];
                f[2 * k + 1] += l.ret[o];
            }
        }
        yw.push(w);
        ys.push(s);
        feats.push(f);
    }
    let pick =
        |cols: &dyn Fn(&[f64]) -> Vec<f64>| feats.iter().map(|f| cols(f)).collect::<Vec<_>>();
    let others_w = |f: &[f64]| (1..n).map(|k| f[2 * k]).sum::<f64>() / (n - 1) as f64;
    let others_r = |f: &[f64]| (1..n).map(|k| f[2 * k + 1]).sum::<f64>() / (n - 1) as f64;
    let netw = pick(&|f| vec![f[0] - others_w(f)]);
    let netr = pick(&|f| vec![(f[1] - others_r(f)) / 2.0]);
    let fixed = |y: &[f64], x: &[Vec<f64>]| {
        let adj: Vec<f64> = y.iter().zip(x).map(|(y, x)| y - x[0]).collect();
        var(y) / var(&adj)
    };
    println!("win: fixed net {:.3}", fixed(&yw, &netw));
    println!("score: fixed net {:.3}", fixed(&ys, &netr));
    for (name, y) in [("win", &yw), ("score", &ys)] {
        let sets: Vec<(&str, Vec<Vec<f64>>)> = vec![
            ("net w fitted", netw.clone()),
            ("net r fitted", netr.clone()),
            ("own w, others w", pick(&|f| vec![f[0], others_w(f)])),
            ("own r, others r", pick(&|f| vec![f[1], others_r(f)])),
            (
                "own+others w,r",
                pick(&|f| vec![f[0], others_w(f), f[1], others_r(f)]),
            ),
            ("per seat w", pick(&|f| (0..n).map(|k| f[2 * k]).collect())),
            (
                "per seat r",
                pick(&|f| (0..n).map(|k| f[2 * k + 1]).collect()),
            ),
            ("per seat w,r", pick(&|f| f.to_vec())),
        ];
        for (s, x) in sets {
            let (r, b) = ratio(y, &x);
            println!("{name}: {s:<18} {r:.3}  beta {b:.3?}");
        }
    }
    Ok(())
}

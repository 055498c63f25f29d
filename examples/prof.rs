use aeroplane::*;
use std::time::Instant;
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(200_000);
    let t = Instant::now();
    let mut refs: Vec<Box<dyn Bot>> = (0..4).map(|_| Box::new(Greedy) as Box<dyn Bot>).collect();
    let mut acc = 0u64;
    let rules = Rules::default();
    for i in 0..n {
        let game = Game::new(rules, 4).unwrap();
        let rec = play_game(game, &mut refs, &mut SeededDice::new(1, i), &mut ()).unwrap();
        acc += rec.turns as u64;
    }
    println!("{:.0} g/s {}", n as f64 / t.elapsed().as_secs_f64(), acc);
}

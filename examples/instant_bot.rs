//! A bot program that answers instantly: the first legal move, found by a string search rather
//! than by parsing the JSON. Used by `examples/protocol_bench.rs` to measure what the harness
//! and the pipes cost per decision, apart from any bot's own thinking.
//!
//! `cargo build --release --example instant_bot`, then a profile with
//! `command = ["target/release/examples/instant_bot"]`.

use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        if input.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let answer = if line.starts_with(r#"{"type":"choose""#) {
            // The first move's id: the first `"id":"` after `"moves":`.
            let moves = line.find(r#""moves":"#).expect("moves");
            let start = moves + line[moves..].find(r#""id":""#).expect("an id") + 6;
            let end = start + line[start..].find('"').expect("end of id");
            format!("{{\"type\":\"move\",\"id\":\"{}\"}}\n", &line[start..end])
        } else if line.starts_with(r#"{"type":"hello""#) {
            "{\"type\":\"ready\",\"protocol\":1,\"name\":\"instant_bot\",\"author\":\"aeroplane examples\"}\n".to_string()
        } else if let Some(rest) = line.strip_prefix(r#"{"type":"ping","id":"#) {
            format!(
                "{{\"type\":\"pong\",\"id\":{}}}\n",
                rest.trim_end().trim_end_matches('}')
            )
        } else if line.starts_with(r#"{"type":"quit""#) {
            return;
        } else {
            continue;
        };
        if out
            .write_all(answer.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            return;
        }
    }
}

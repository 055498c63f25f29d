//! The td bot of main 722a564 (before the leaf fix) over the line protocol (docs/PROTOCOL.md),
//! for before/after matches. Params: `rules` (a preset name), `net` (a shipped net path),
//! `ply`.
use std::io::{BufRead, Write};
use std::sync::Arc;

use aeroplane_core::Bot;
use aeroplane_ai::bots::td::TdBot;
use aeroplane_ai::td::file::Net;
use aeroplane_core::{Game, Preset};
use serde_json::{Value, json};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut bot: Option<TdBot> = None;
    let mut rules = None;
    let mut players = 2;
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let m: Value = serde_json::from_str(&line).unwrap();
        let reply = match m["type"].as_str().unwrap() {
            "hello" => {
                let p = &m["params"];
                let preset: Preset = p["rules"].as_str().unwrap().parse().unwrap();
                rules = Some(preset.rules());
                players = m["players"].as_u64().unwrap() as usize;
                let path = p["net"].as_str().unwrap();
                let (_, bytes) = aeroplane_ai::shipped::NETS
                    .iter()
                    .find(|(n, _)| *n == path)
                    .expect("a shipped net");
                let net = Arc::new(Net::from_bytes(bytes).unwrap());
                let ply = p["ply"].as_i64().unwrap() as u8;
                bot = Some(TdBot::with_net("old", net, ply));
                Some(json!({"type":"ready","protocol":1,"name":"td-old"}))
            }
            "new_game" => None,
            "game_over" => None,
            "ping" => Some(json!({"type":"pong","id":m["id"]})),
            "quit" => break,
            "choose" => {
                let s = &m["state"];
                let rules = rules.unwrap();
                let planes = usize::from(rules.planes());
                let mut fields = Vec::new();
                let seats: Vec<String> = (0..4)
                    .map(|k| match s["steps"][k].as_array() {
                        None => "-".to_string(),
                        Some(a) => a[..planes]
                            .iter()
                            .map(|x| match x.as_i64().unwrap() {
                                -1 => "h".to_string(),
                                v => v.to_string(),
                            })
                            .collect::<Vec<_>>()
                            .join(","),
                    })
                    .collect();
                fields.push(seats.join("/"));
                fields.push(s["to_move"].to_string());
                fields.push("-".to_string());
                fields.push(s["sixes"].to_string());
                let planes_of = |v: &Value| {
                    let a: Vec<String> =
                        v.as_array().unwrap().iter().map(|x| x.to_string()).collect();
                    if a.is_empty() { "-".to_string() } else { a.join("") }
                };
                fields.push(planes_of(&s["moved_this_turn"]));
                fields.push(planes_of(&s["moved_last"]));
                let mut fin: Vec<(u64, usize)> = (0..4)
                    .filter_map(|k| s["ranks"][k].as_u64().filter(|&r| r > 0).map(|r| (r, k)))
                    .collect();
                fin.sort();
                let fin: Vec<String> = fin.iter().map(|(_, k)| k.to_string()).collect();
                fields.push(if fin.is_empty() { "-".to_string() } else { fin.join(",") });
                fields.push(s["turns"].to_string());
                let text = fields.join(" ");
                let game = Game::from_notation(rules, &text)
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(game.players(), players);
                let roll = m["roll"].as_u64().unwrap() as u8;
                let moves = game.legal_moves(roll);
                let b = bot.as_mut().unwrap();
                b.try_new_game(&game, game.to_move(), 0, 0).unwrap();
                let pick = b.choose(&game, roll, &moves);
                Some(json!({"type":"move","id":moves[pick].notation()}))
            }
            t => Some(json!({"type":"error","message":format!("unknown {t}")})),
        };
        if let Some(r) = reply {
            writeln!(out, "{r}").unwrap();
            out.flush().unwrap();
        }
    }
}

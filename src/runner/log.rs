//! A run's decision log as the runner writes it: the header of a run's log (what run it
//! belongs to), and the log of a few games played one after another. The log's format
//! (`crate::decision_log`) knows nothing of runs.

use aeroplane_core::Bot;

use super::{PlayOptions, RunError, RunSpec};
use crate::bots::BotSpec;
use crate::decision_log::{
    DECISION_FIELDS, DEFAULT_LOG_POSITIONS, FORMAT, Header, HeaderBot, LogEncoder, LogFormat,
    LogStyle, VERSION,
};

impl Header {
    /// The header of a run's log, with the position on every `positions`-th decision line.
    pub fn of(spec: &RunSpec, positions: u32) -> Header {
        Header {
            format: FORMAT.to_string(),
            version: VERSION,
            decision_fields: DECISION_FIELDS.iter().map(|f| f.to_string()).collect(),
            log_positions: Some(positions.max(1)),
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            rules: spec.rules,
            players: spec.players(),
            seats: aeroplane_core::Seat::in_play(spec.players())
                .iter()
                .map(|s| s.index())
                .collect(),
            bots: spec
                .lineup
                .iter()
                .map(|b| HeaderBot {
                    name: b.name.clone(),
                    kind: b.kind.clone(),
                })
                .collect(),
            seed: spec.seed,
            first_deal: spec.first_deal,
            deals: spec.deals,
            rotate_seats: spec.rotate_seats,
        }
    }
}

/// Plays games `games` of `spec` one after another and returns their log, header first, with
/// the default key positions ([`DEFAULT_LOG_POSITIONS`]): the bytes a run of those games
/// writes (for tests and small logs; a run writes logs through its workers).
pub fn log_games(
    spec: &RunSpec,
    games: std::ops::Range<u64>,
    format: LogFormat,
) -> Result<Vec<u8>, RunError> {
    log_games_with(
        spec,
        games,
        LogStyle {
            format,
            positions: DEFAULT_LOG_POSITIONS,
        },
    )
}

/// [`log_games`] in a given style (format and key positions).
pub fn log_games_with(
    spec: &RunSpec,
    games: std::ops::Range<u64>,
    style: LogStyle,
) -> Result<Vec<u8>, RunError> {
    let format = style.format;
    let mut out = Header::of(spec, style.positions).encoded(format);
    let mut enc = LogEncoder::new(style).map_err(RunError::Sink)?;
    let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(BotSpec::build).collect();
    let start = aeroplane_core::Game::new(spec.rules, spec.players())?;
    for game in games {
        let (deal, rotation) = spec.locate(game);
        enc.lines().begin(game, &start, spec.bot_at_seat(rotation));
        let with = PlayOptions {
            bots: Some(&mut bots),
            ..Default::default()
        };
        let played = spec.play(game, enc.lines(), with)?;
        enc.finish_game(deal, rotation, &played.record, &mut out)
            .map_err(RunError::Sink)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_lineup;
    use crate::decision_log::read::{self, LogError, LogReader};
    use crate::decision_log::{check, lines};
    use aeroplane_core::{Action, Game, Observer, Outcome, Preset};

    /// One roll of a game: the position before it, the die, how many moves it offered, the
    /// position after it.
    struct Roll {
        before: Game,
        roll: u8,
        legal: usize,
        after: Game,
    }

    impl Roll {
        /// The position the seat chose from: the decision node when the roll offered moves.
        fn decision(&self) -> Game {
            let mut g = self.before;
            if self.legal > 0 {
                let _ = g.apply_roll(self.roll);
            }
            g
        }
    }

    /// Every roll of a game.
    #[derive(Default)]
    struct Rolls(Vec<Roll>);

    impl Observer for Rolls {
        fn on_roll(&mut self, before: &Game, outcome: &Outcome) {
            let played = match outcome.action {
                Action::Move(m) => Some(m),
                Action::Pass | Action::Penalty { .. } => None,
            };
            let mut after = *before;
            after.apply(outcome.roll, played);
            self.0.push(Roll {
                before: *before,
                roll: outcome.roll,
                legal: before.legal_moves(outcome.roll).len(),
                after,
            });
        }
    }

    fn spec(preset: Preset, bots: &str, deals: u64, rotate: bool) -> RunSpec {
        RunSpec {
            rules: preset.rules(),
            lineup: parse_lineup(bots, "bots".as_ref()).unwrap(),
            seed: 9,
            first_deal: 0,
            deals,
            rotate_seats: rotate,
        }
    }

    fn reader(bytes: Vec<u8>) -> Result<LogReader, LogError> {
        LogReader::new(std::io::Cursor::new(bytes), "log".into())
    }

    fn decompress(bytes: &[u8]) -> String {
        String::from_utf8(zstd::stream::decode_all(bytes).unwrap()).unwrap()
    }

    #[test]
    fn positions_are_written_as_the_notation_writes_them() {
        for preset in Preset::ALL {
            let s = spec(preset, "random,random,random", 20, false);
            for game in 0..20 {
                let mut rec = Rolls::default();
                s.play(game, &mut rec, Default::default()).unwrap();
                for step in &rec.0 {
                    for g in [step.before, step.decision(), step.after] {
                        let mut out = Vec::new();
                        lines::push_position(&mut out, &g, None);
                        assert_eq!(String::from_utf8(out).unwrap(), g.to_string());
                    }
                    let mut out = Vec::new();
                    lines::push_position(&mut out, &step.before, Some(step.roll));
                    if step.legal > 0 {
                        assert_eq!(String::from_utf8(out).unwrap(), step.decision().to_string());
                    }
                }
            }
        }
    }

    fn style(format: LogFormat, positions: u32) -> LogStyle {
        LogStyle { format, positions }
    }

    #[test]
    fn a_log_reads_back_and_every_game_checks() {
        let s = spec(Preset::Classic, "expectimax:depth=1,random,greedy", 4, true);
        for positions in [1, 3, DEFAULT_LOG_POSITIONS] {
            let zst = log_games_with(&s, 0..12, style(LogFormat::Zstd, positions)).unwrap();
            let plain = log_games_with(&s, 0..12, style(LogFormat::Plain, positions)).unwrap();
            assert_eq!(decompress(&zst), String::from_utf8(plain.clone()).unwrap());
            for bytes in [zst, plain] {
                let mut r = reader(bytes).unwrap();
                assert_eq!(r.header(), &Header::of(&s, positions));
                assert_eq!(r.header().version, 2);
                let mut n = 0;
                while let Some(game) = r.next_game().unwrap() {
                    assert_eq!(game.game, n);
                    let checked = check::check_game("log", r.header(), &game).unwrap();
                    // One line per roll that offered two or more moves.
                    let mut rec = Rolls::default();
                    let played = s.play(n, &mut rec, Default::default()).unwrap();
                    let asked: Vec<_> = rec.0.iter().filter(|st| st.legal > 1).collect();
                    assert_eq!(game.decisions.len(), asked.len());
                    assert_eq!(checked.record, played.record);
                    assert_eq!(
                        checked.rolls,
                        rec.0.iter().map(|st| st.roll).collect::<Vec<_>>()
                    );
                    for (k, ((_, d), step)) in game.decisions.iter().zip(&asked).enumerate() {
                        let expectimax = s.bot_at_seat(game.result.1.rotation)[d.seat] == 0;
                        assert_eq!(d.values.is_some(), expectimax);
                        // The key lines, and only they, carry the position: the engine's.
                        let key = (k as u32).is_multiple_of(positions);
                        assert_eq!(d.position.is_some(), key, "decision {k}");
                        if let Some(p) = &d.position {
                            assert_eq!(*p, step.decision().to_string());
                        }
                    }
                    assert_eq!(game.result.1.position, checked.last.to_string());
                    n += 1;
                }
                assert_eq!(n, 12);
            }
        }
    }

    #[test]
    fn lines_are_the_schemas_arrays_and_objects() {
        let s = spec(Preset::AppFreeGame, "expectimax:depth=1,greedy", 2, false);
        let plain = log_games_with(&s, 0..2, style(LogFormat::Plain, 4)).unwrap();
        let text = String::from_utf8(plain).unwrap();
        let mut lines = text.lines();
        let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_eq!(header["version"], 2);
        assert_eq!(header["log_positions"], 4);
        assert_eq!(
            header["decision_fields"],
            serde_json::json!(DECISION_FIELDS)
        );
        let mut per_game = [0usize; 2];
        for line in lines {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(a) = v.as_array() {
                let game = a[0].as_u64().unwrap() as usize;
                let k = per_game[game];
                per_game[game] += 1;
                let seat = a[1].as_u64().unwrap();
                assert!(a[4].as_str().unwrap().bytes().all(|b| b.is_ascii_digit()));
                assert!(
                    a[6].as_str()
                        .unwrap()
                        .bytes()
                        .all(|b| (b'1'..=b'6').contains(&b))
                );
                // Values from expectimax (bot 0, seat 0), the position on every 4th line.
                let len = match (seat == 0, k % 4 == 0) {
                    (true, true) | (false, true) => 9,
                    (true, false) => 8,
                    (false, false) => 7,
                };
                assert_eq!(a.len(), len, "{line}");
                if len == 9 {
                    assert!(Game::from_notation(s.rules, a[8].as_str().unwrap()).is_ok());
                    assert_eq!(a[7].is_null(), seat != 0);
                }
            } else {
                let o = v.as_object().unwrap();
                let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
                keys.sort_unstable();
                assert_eq!(
                    keys,
                    [
                        "bots", "deal", "forced", "game", "position", "ranks", "rotation", "turns",
                        "winner"
                    ]
                );
            }
        }
        assert!(per_game.iter().all(|&n| n > 8), "{per_game:?}");
    }

    #[test]
    fn a_version_1_log_still_reads_and_checks() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/decision_log_v1.jsonl.zst");
        let mut r = LogReader::open(&path).unwrap();
        assert_eq!(r.header().version, 1);
        let s = RunSpec {
            seed: 4,
            ..spec(Preset::Classic, "expectimax:depth=1,greedy", 2, true)
        };
        let mut n = 0;
        while let Some(game) = r.next_game().unwrap() {
            assert!(game.decisions.iter().all(|(_, d)| d.position.is_some()));
            assert!(game.result.1.result.counters.is_some());
            let checked = check::check_game("log", r.header(), &game).unwrap();
            assert_eq!(
                checked.record,
                s.play(n, &mut (), Default::default()).unwrap().record
            );
            n += 1;
        }
        assert_eq!(n, 4);
        // Other versions are refused, naming what this build reads.
        let text = decompress(&std::fs::read(&path).unwrap());
        let v3 = text.replacen("\"version\":1", "\"version\":3", 1);
        let e = reader(v3.into_bytes()).unwrap_err().to_string();
        assert!(
            e.contains("line 1") && e.contains("version 3") && e.contains("reads versions 1 and 2"),
            "{e}"
        );
    }

    #[test]
    fn bad_logs_name_the_line_and_what_is_wrong() {
        let s = spec(Preset::AppFreeGame, "greedy,random", 3, false);
        let plain = log_games_with(&s, 0..3, style(LogFormat::Plain, 5)).unwrap();
        let zst = log_games(&s, 0..3, LogFormat::Zstd).unwrap();
        let check_all = |bytes: Vec<u8>| -> Result<u64, LogError> {
            let mut r = reader(bytes)?;
            let mut n = 0;
            while let Some(g) = r.next_game()? {
                check::check_game("log", r.header(), &g)?;
                n += 1;
            }
            Ok(n)
        };
        assert_eq!(check_all(plain.clone()).unwrap(), 3);
        let text = String::from_utf8(plain.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let edit = |at: usize, line: String| -> Vec<u8> {
            let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            edited[at] = line;
            (edited.join("\n") + "\n").into_bytes()
        };
        // Cut short: inside a line, and between a game's lines.
        let cut = &plain[..plain.len() - 10];
        let e = check_all(cut.to_vec()).unwrap_err().to_string();
        assert!(
            e.contains(&format!("line {}", lines.len())) && e.contains("truncated"),
            "{e}"
        );
        let upto: usize = lines[..5].iter().map(|l| l.len() + 1).sum();
        let e = check_all(plain[..upto].to_vec()).unwrap_err().to_string();
        assert!(
            e.contains("no result line") && e.contains("truncated"),
            "{e}"
        );
        let e = check_all(zst[..zst.len() - 3].to_vec())
            .unwrap_err()
            .to_string();
        assert!(e.contains("cut short"), "{e}");
        // A damaged frame (its checksum catches it).
        let mut bad = zst.clone();
        let at = bad.len() - 40;
        bad[at] ^= 0x55;
        let e = check_all(bad).unwrap_err().to_string();
        assert!(e.contains("damaged") || e.contains("not a"), "{e}");
        // Foreign files.
        for foreign in [
            &b"game,deal\n1,2\n"[..],
            b"{\"a\":1}\n",
            b"",
            b"\x00\x01\x02",
        ] {
            let e = check_all(foreign.to_vec()).unwrap_err().to_string();
            assert!(e.contains("line 1"), "{e}");
        }
        // A key position the engine disagrees with: named with its game and decision. Game 1's
        // sixth decision line is a key line (the position on lines 1, 6, 11, ...).
        let d = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with("[1,"))
            .nth(5)
            .unwrap()
            .0;
        assert!(lines[d].ends_with("\"]"), "{}", lines[d]);
        // The turn count, the position's last field, one more than it is.
        let end = lines[d].len() - 2;
        let turns_at = lines[d][..end].rfind(' ').unwrap() + 1;
        let turns: u32 = lines[d][turns_at..end].parse().unwrap();
        let e = check_all(edit(
            d,
            format!("{}{}\"]", &lines[d][..turns_at], turns + 1),
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(&format!("line {}", d + 1)) && e.contains("game 1, decision 6"),
            "{e}"
        );
        assert!(e.contains("not the engine's"), "{e}");
        // A choice that is not the one played: the next key position (or the result) disagrees,
        // or the changed action is not legal.
        let d2 = d + 1;
        let mut fields: Vec<serde_json::Value> = serde_json::from_str(lines[d2]).unwrap();
        let legal = fields[4].as_str().unwrap().to_string();
        let other = legal
            .bytes()
            .find(|&b| u64::from(b - b'0') != fields[5])
            .unwrap();
        fields[5] = serde_json::json!(other - b'0');
        let e = check_all(edit(d2, serde_json::to_string(&fields).unwrap()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("game 1, "), "{e}");
        // Not the schema: bad digits, a missing element, too many, a result line without a key.
        for (broken, says) in [
            (lines[2].replacen(",\"", ",\"x", 1), "digits only"),
            (
                lines[2][..lines[2].rfind(",\"").unwrap()].to_string() + "]",
                "`forced`",
            ),
            (lines[2].replacen(']', ",null,\"p\",1]", 1), "more than 9"),
        ] {
            let e = check_all(edit(2, broken)).unwrap_err().to_string();
            assert!(e.contains("line 3") && e.contains(says), "{e}");
        }
        let r = 1 + lines[1..].iter().position(|l| l.starts_with('{')).unwrap();
        let e = check_all(edit(r, lines[r].replace("\"turns\"", "\"turn\"")))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("line {}", r + 1)) && e.contains("turns"),
            "{e}"
        );
        let e = check_all(edit(r, lines[r].replace("\"turns\":", "\"turns\":1")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("result") && e.contains("turns"), "{e}");
        // Games out of order.
        let mut swapped: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let last = swapped.len() - 1;
        swapped.swap(1, last);
        let e = check_all((swapped.join("\n") + "\n").into_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn a_game_is_found_by_its_index() {
        let s = spec(Preset::Chinese, "greedy,greedy,greedy,greedy", 30, false);
        let zst = log_games(&s, 5..30, LogFormat::Zstd).unwrap();
        let mut r = reader(zst.clone()).unwrap();
        let g = r.find_game(17).unwrap();
        assert_eq!(g.game, 17);
        check::check_game("log", r.header(), &g).unwrap();
        let e = reader(zst.clone())
            .unwrap()
            .find_game(3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no game 3"), "{e}");
        let e = reader(zst.clone())
            .unwrap()
            .find_game(30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no game 30") && e.contains("5..=29"), "{e}");
        // Found by skipping frames: the same game as read from the start.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.jsonl.zst");
        std::fs::write(&path, &zst).unwrap();
        for want in [5, 6, 17, 29] {
            let (h, g) = read::seek_game(&path, want).unwrap();
            assert_eq!(&h, reader(zst.clone()).unwrap().header());
            let mut r = reader(zst.clone()).unwrap();
            let slow = r.find_game(want).unwrap();
            assert_eq!(g.game, want);
            assert_eq!(g.decisions.len(), slow.decisions.len());
            for ((_, a), (_, b)) in g.decisions.iter().zip(&slow.decisions) {
                assert_eq!(a, b);
            }
            assert_eq!(g.result.1, slow.result.1);
        }
        for absent in [3, 30, 1000] {
            assert!(read::seek_game(&path, absent).is_none());
        }
        // A plain log, and a log cut short, are left to the reader that names lines.
        let plain = dir.path().join("g.jsonl");
        std::fs::write(&plain, log_games(&s, 5..30, LogFormat::Plain).unwrap()).unwrap();
        assert!(read::seek_game(&plain, 17).is_none());
        std::fs::write(&path, &zst[..zst.len() - 100]).unwrap();
        assert!(read::seek_game(&path, 29).is_none());
        assert!(read::seek_game(&path, 17).is_some());
        let _ = Game::new(s.rules, 4).unwrap();
    }
}

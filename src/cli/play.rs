//! `aeroplane play`: a game in the terminal against the bots (or bots watched, or persons
//! taking turns at one keyboard). The game is the page's ([`Session`]: seeded dice, the bots
//! named as `run --bots` names them, undo, the decision-log record); this file is the terminal
//! (ratatui over crossterm), the keys and the record file, which is rewritten whole after every
//! change so a stop at any moment loses nothing. `play_screen.rs` draws.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};

use aeroplane_web::bots::{PERSON, offered};
use aeroplane_web::session::Session;

use super::common::load_rules;
use super::play_screen::{self, View};

/// Arguments of `aeroplane play`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane play                                  (you, red, against the default bot)
  aeroplane play --bots person,expectimax,greedy,person --seed 7
  aeroplane play --bots greedy,td-classic-4p,mcts,expectimax --rules classic   (watch bots)
  aeroplane play --resume aeroplane-play-seed1.jsonl
  aeroplane play --page aeroplane.html            (the browser page, one file)")]
pub struct PlayArgs {
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// One player per seat in seat order, comma-separated: `person` for a seat a person plays
    /// (several persons take turns at the keyboard), or a bot as `run --bots` names it (a
    /// profile of bots/ or kind:key=value). Their count is the number of players. The default
    /// is a person against the default bot: the td net of these rules and players at ply 1
    /// where one is shipped, else expectimax.
    #[arg(long, conflicts_with = "players")]
    pub bots: Option<String>,
    /// With the default lineup: the number of players, 2 to 4 (a person and bots).
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=4))]
    pub players: Option<u8>,
    /// The seed: the dice are game 0 of `aeroplane run --seed` with this seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the record (a decision log, what `aeroplane replay --log` reads) is written after
    /// every move. Not an existing file. [default: aeroplane-play-seedS.jsonl, numbered on if
    /// taken]
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Go on with the unfinished game of a record (the same position and history), writing on
    /// to the same file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rules", "bots", "players", "seed", "record"])]
    pub resume: Option<PathBuf>,
    /// Milliseconds between two bots' moves, so they can be followed (0: at once).
    #[arg(long, value_name = "MS", default_value_t = 700, value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub delay: u64,
    /// Write the browser page instead (one HTML file that plays against the bots with no
    /// network and no build) to FILE and stop; `-` for standard output.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["bots", "players", "seed", "record", "resume"])]
    pub page: Option<PathBuf>,
}

/// The lineup when `--bots` is not given: a person in seat 0 and the default bot elsewhere.
fn default_lineup(rules: &aeroplane_core::Rules, players: usize) -> Vec<String> {
    let offered = offered(Some(rules), players);
    let bot = offered
        .iter()
        .map(|(n, _)| n)
        .find(|n| n.starts_with("td-") && n.ends_with(":ply=1"))
        .cloned()
        .unwrap_or_else(|| "expectimax".to_string());
    std::iter::once(PERSON.to_string())
        .chain(std::iter::repeat_n(bot, players - 1))
        .collect()
}

/// `aeroplane-play-seedS.jsonl`, or `-2`, `-3`, ... when taken.
fn default_record(seed: u64) -> PathBuf {
    (1..)
        .map(|n| {
            PathBuf::from(if n == 1 {
                format!("aeroplane-play-seed{seed}.jsonl")
            } else {
                format!("aeroplane-play-seed{seed}-{n}.jsonl")
            })
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .expect("a free name")
}

/// Runs `aeroplane play`.
pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    if let Some(page) = &args.page {
        super::page::write_page(page)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (session, record) = match &args.resume {
        Some(path) => {
            let text = aeroplane::files::read_text(path)
                .with_context(|| format!("cannot read --resume {}", path.display()))?;
            let session = Session::from_log(&text).map_err(|e| {
                anyhow::anyhow!(
                    "--resume {}: not a record of one game that play can go on with: {e}",
                    path.display()
                )
            })?;
            (session, path.clone())
        }
        None => {
            let rules = load_rules(&args.rules).context("--rules")?;
            let lineup: Vec<String> = match &args.bots {
                Some(text) => text.split(',').map(|s| s.trim().to_string()).collect(),
                None => default_lineup(&rules, usize::from(args.players.unwrap_or(2))),
            };
            if !(2..=4).contains(&lineup.len()) {
                bail!(
                    "--bots names {} player(s): give one per seat, 2, 3 or 4 of them, comma-separated (`person` or a bot, e.g. person,greedy)",
                    lineup.len()
                );
            }
            let session = Session::new(rules, lineup.len(), &lineup, args.seed)
                .map_err(|e| anyhow::anyhow!("--bots: {e}"))?;
            let record = match &args.record {
                Some(p) => {
                    if std::fs::symlink_metadata(p).is_ok() {
                        bail!(
                            "--record {} exists: name a new file (or go on with its game: --resume {})",
                            p.display(),
                            p.display()
                        );
                    }
                    p.clone()
                }
                None => default_record(args.seed),
            };
            (session, record)
        }
    };
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        bail!(
            "aeroplane play needs a terminal: its standard input and output must be one (to play bots without a terminal, use aeroplane run or aeroplane replay)"
        );
    }
    save(&session, &record)?;
    eprintln!(
        "recording the game to {} (aeroplane play --resume {} goes on with it)",
        record.display(),
        record.display()
    );
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("cannot watch signals")?;
    }
    // The loop sees the flag between two reads of the keyboard; but once the terminal is gone
    // (SIGHUP), crossterm's wait for a key spins without returning, and a bot's long think
    // does not look either. So a second after a signal the process ends from here: the
    // record was saved after the last move, and is replaced only whole.
    let done = Arc::new(AtomicBool::new(false));
    {
        let (stop, done) = (Arc::clone(&stop), Arc::clone(&done));
        let file = record.display().to_string();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
            }
            std::thread::sleep(Duration::from_secs(1));
            if !done.load(Ordering::Relaxed) {
                ratatui::restore();
                say!(
                    "stopped by a signal: the game is saved in {file}: aeroplane play --resume {file} goes on with it"
                );
                std::process::exit(130);
            }
        });
    }
    let mut app = App {
        session,
        record,
        cursor: 0,
        message: String::new(),
        help: false,
        confirm_quit: false,
        delay: Duration::from_millis(args.delay),
        last_bot: None,
    };
    // ratatui's setup: raw mode, the alternate screen and a panic hook that restores both.
    // Its terminal writes through stdout's line buffer, which sends a frame in pieces; this
    // one sends each frame in one write, so a frame is never seen half drawn.
    drop(ratatui::try_init().context("cannot set up the terminal")?);
    let guard = Restore;
    let terminal = Terminal::new(CrosstermBackend::new(std::io::BufWriter::with_capacity(
        1 << 16,
        std::io::stdout(),
    )))
    .context("cannot set up the terminal")?;
    let end = app.play(terminal, &stop);
    done.store(true, Ordering::Relaxed);
    drop(guard);
    let end = end?;
    let file = app.record.display();
    match end {
        End::Quit if app.session.state().phase == "over" => {
            eprintln!(
                "the game is over; its record is {file} (aeroplane replay --log {file} --check)"
            );
            Ok(ExitCode::SUCCESS)
        }
        End::Quit => {
            eprintln!(
                "the game is saved in {file}: aeroplane play --resume {file} goes on with it"
            );
            Ok(ExitCode::SUCCESS)
        }
        End::Signal => {
            eprintln!(
                "stopped by a signal: the game is saved in {file}: aeroplane play --resume {file} goes on with it"
            );
            Ok(ExitCode::from(130))
        }
    }
}

/// Leaves the alternate screen and raw mode when dropped (on an error as on a quit; ratatui's
/// panic hook does it on a panic).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Writes the record whole (a temporary file renamed over it).
fn save(session: &Session, path: &Path) -> anyhow::Result<()> {
    aeroplane::files::write_whole(path, session.log().as_bytes())
        .with_context(|| format!("cannot write the record {}", path.display()))
}

/// How the game's screen ended.
enum End {
    /// A person quit.
    Quit,
    /// SIGINT, SIGTERM or SIGHUP.
    Signal,
}

/// The terminal `play` draws on.
type Screen = Terminal<CrosstermBackend<std::io::BufWriter<std::io::Stdout>>>;

struct App {
    session: Session,
    record: PathBuf,
    cursor: usize,
    message: String,
    help: bool,
    confirm_quit: bool,
    delay: Duration,
    /// When the last bot's move was played.
    last_bot: Option<Instant>,
}

impl App {
    fn draw(&self, terminal: &mut Screen, thinking: bool) -> anyhow::Result<()> {
        let state = self.session.state();
        let record = self.record.display().to_string();
        terminal
            .draw(|f| {
                play_screen::draw(
                    f,
                    &View {
                        state: &state,
                        rolls: self.session.rolls(0),
                        rules: self.session.rules(),
                        cursor: self.cursor,
                        record: &record,
                        message: &self.message,
                        help: self.help,
                        confirm_quit: self.confirm_quit,
                        thinking,
                    },
                )
            })
            .context("cannot draw on the terminal")?;
        Ok(())
    }

    fn play(&mut self, mut terminal: Screen, stop: &AtomicBool) -> anyhow::Result<End> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(End::Signal);
            }
            self.draw(&mut terminal, false)?;
            let state = self.session.state();
            let bots_turn = state.phase == "roll" && !state.person_to_move;
            let mut wait = Duration::from_millis(200);
            if bots_turn && !self.help && !self.confirm_quit {
                let due = self
                    .last_bot
                    .map_or(Duration::ZERO, |t| self.delay.saturating_sub(t.elapsed()));
                if due.is_zero() {
                    self.draw(&mut terminal, true)?;
                    self.session
                        .bot_move()
                        .map_err(|e| anyhow::anyhow!("the bot's move failed: {e}"))?;
                    self.last_bot = Some(Instant::now());
                    self.after_change()?;
                    continue;
                }
                wait = wait.min(due);
            }
            if !event::poll(wait).context("cannot read the keyboard")? {
                continue;
            }
            let Event::Key(key) = event::read().context("cannot read the keyboard")? else {
                continue;
            };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
                return Ok(End::Quit);
            }
            if self.help {
                self.help = false;
                continue;
            }
            if self.confirm_quit {
                match key.code {
                    KeyCode::Char('y' | 'Y' | 'q') => return Ok(End::Quit),
                    _ => self.confirm_quit = false,
                }
                continue;
            }
            if self.key(key.code, &state)? {
                return Ok(End::Quit);
            }
        }
    }

    /// One key; true to quit.
    fn key(
        &mut self,
        code: KeyCode,
        state: &aeroplane_web::session::StateJson,
    ) -> anyhow::Result<bool> {
        let choosing = state.phase == "choose" && state.person_to_move;
        match code {
            KeyCode::Char('q' | 'Q') | KeyCode::Esc => {
                if state.phase == "over" {
                    return Ok(true);
                }
                self.confirm_quit = true;
            }
            KeyCode::Char('?' | 'h') => self.help = true,
            KeyCode::Char('u' | 'U') => match self.session.undo() {
                Ok(()) => {
                    self.after_change()?;
                    self.message = "Undone: back to your last decision (the seeded die gives the same roll again).".into();
                }
                Err(e) => self.message = format!("Cannot undo: {e}."),
            },
            KeyCode::Enter | KeyCode::Char(' ' | 'r' | 'R')
                if state.phase == "roll" && state.person_to_move =>
            {
                self.session
                    .roll()
                    .map_err(|e| anyhow::anyhow!("the roll failed: {e}"))?;
                self.after_change()?;
                // A roll without a choice was played at once: say what it did.
                if self.session.state().phase != "choose"
                    && let Some(r) = self.session.rolls(0).last()
                {
                    self.message = format!("You rolled {}: {}.", r.roll, r.text);
                }
            }
            KeyCode::Up if choosing => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down if choosing => {
                self.cursor = (self.cursor + 1).min(state.legal.len().saturating_sub(1));
            }
            KeyCode::Enter if choosing => self.apply(self.cursor)?,
            KeyCode::Char(c @ '1'..='9') if choosing => {
                let k = usize::from(c as u8 - b'1');
                if k < state.legal.len() {
                    self.apply(k)?;
                } else {
                    self.message = format!(
                        "There is no move {c}: the moves are 1 to {}.",
                        state.legal.len()
                    );
                }
            }
            KeyCode::Char(c) if state.phase == "choose" && !state.person_to_move => {
                self.message = format!("`{c}`: a bot is playing; ? shows the keys.");
            }
            _ => self.message = "? shows the keys.".into(),
        }
        Ok(false)
    }

    fn apply(&mut self, k: usize) -> anyhow::Result<()> {
        self.session
            .apply(k)
            .map_err(|e| anyhow::anyhow!("the move failed: {e}"))?;
        self.after_change()
    }

    /// After any change of the game: the record saved, the cursor back on the first move, the
    /// bots' pause started again.
    fn after_change(&mut self) -> anyhow::Result<()> {
        save(&self.session, &self.record)?;
        self.cursor = 0;
        self.message.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Preset;

    #[test]
    fn the_default_bot_is_the_td_net_of_the_rules_at_ply_1_else_expectimax() {
        let two = default_lineup(&Preset::Classic.rules(), 2);
        assert_eq!(two, ["person", "td-classic-2p:ply=1"]);
        let three = default_lineup(&Preset::Classic.rules(), 3);
        assert_eq!(three, ["person", "expectimax", "expectimax"]);
        let four = default_lineup(&Preset::AppFreeGame.rules(), 4);
        assert_eq!(four[3], "td-appfreegame-4p:ply=1");
    }
}

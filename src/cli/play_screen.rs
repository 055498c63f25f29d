//! What `aeroplane play` draws: the board (ring, colour cells, home lanes, hangars, every
//! plane by its seat's letter and number), the seats, whose turn, the die, the legal moves in
//! words, the rolls played with the bots' values, and the help and quit boxes. Pure drawing
//! from a [`View`]: the terminal, keys and files are `play.rs`'s, so the screen is tested here
//! on ratatui's test backend.

use aeroplane_core::board::{self, RING_CELLS};
use aeroplane_core::{HANGAR, Rules, Seat};
use aeroplane_web::layout::{Layout, MARGIN, Point, UNIT};
use aeroplane_web::session::{RollJson, StateJson};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout as Split, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, List, ListItem, ListState, Paragraph, Wrap};

/// The smallest terminal the screen is drawn in (columns, rows).
pub const MIN_SIZE: (u16, u16) = (90, 30);
/// Columns per board cell.
const CELL: u16 = 4;
/// Each seat's letter on the board.
pub const LETTERS: [char; 4] = ['R', 'Y', 'B', 'G'];

/// Each seat's colour on the terminal.
const COLOURS: [Color; 4] = [Color::Red, Color::Yellow, Color::Blue, Color::Green];

/// Everything one frame shows.
pub struct View<'a> {
    /// The game's state (the page's).
    pub state: &'a StateJson,
    /// The rolls played so far.
    pub rolls: &'a [RollJson],
    /// The rules (for the board's lanes).
    pub rules: &'a Rules,
    /// The highlighted legal move.
    pub cursor: usize,
    /// The record file, as shown.
    pub record: &'a str,
    /// A note or error for the status line.
    pub message: &'a str,
    /// The help box is open.
    pub help: bool,
    /// The quit question is open.
    pub confirm_quit: bool,
    /// A bot is choosing its move.
    pub thinking: bool,
}

fn seat_style(seat: usize) -> Style {
    Style::default().fg(COLOURS[seat & 3])
}

/// A seat as a person reads it: `R red`.
pub fn seat_name(seat: usize) -> String {
    let s = Seat::new(seat).expect("a seat");
    format!("{} {}", LETTERS[seat & 3], s.colour())
}

fn grid(p: Point) -> (usize, usize) {
    let at = |v: f32| (((v - MARGIN) / UNIT - 0.5).round().clamp(0.0, 14.0)) as usize;
    (at(p.x), at(p.y))
}

/// The board as 15 rows of 15 cells, each [`CELL`] columns wide.
fn board_lines(v: &View) -> Vec<Line<'static>> {
    let layout = Layout::new(v.rules);
    // Per cell: its text and style.
    let mut cells: Vec<Vec<(String, Style)>> =
        vec![vec![("    ".to_string(), Style::default()); 15]; 15];
    let dim = Style::default().add_modifier(Modifier::DIM);
    let put = |cells: &mut Vec<Vec<(String, Style)>>, p: Point, text: String, style: Style| {
        let (x, y) = grid(p);
        cells[y][x] = (text, style);
    };
    // The centre.
    for row in &mut cells[6..9] {
        for cell in &mut row[6..9] {
            *cell = (" ◆◆ ".to_string(), dim);
        }
    }
    for i in 0..RING_CELLS {
        let colour = board::cell_colour(i).index();
        put(
            &mut cells,
            layout.ring[usize::from(i)],
            " ·· ".to_string(),
            seat_style(colour),
        );
    }
    for seat in Seat::ALL {
        let k = seat.index();
        let style = seat_style(k);
        for step in 51..layout.centre {
            put(
                &mut cells,
                layout.spots[k][usize::from(step)],
                " == ".to_string(),
                style,
            );
        }
        put(
            &mut cells,
            layout.take_off(seat),
            format!(" {}^ ", LETTERS[k]),
            style.add_modifier(Modifier::DIM),
        );
        for plane in 0..aeroplane_core::PLANES {
            put(
                &mut cells,
                layout.hangar[k][plane],
                " .. ".to_string(),
                style.add_modifier(Modifier::DIM),
            );
        }
    }
    // The planes: a cell's text is its seat's letter and the planes' numbers.
    let mut planes: Vec<Vec<(usize, Vec<usize>)>> = vec![Vec::new(); 15 * 15];
    for (seat, steps) in v.state.steps.iter().enumerate() {
        let Some(s) = Seat::new(seat) else { continue };
        for (plane, &step) in steps.iter().enumerate() {
            let step = if step < 0 { HANGAR } else { step as u8 };
            let (x, y) = grid(layout.spot(s, plane, step));
            let here = &mut planes[y * 15 + x];
            match here.iter_mut().find(|(k, _)| *k == seat) {
                Some((_, list)) => list.push(plane),
                None => here.push((seat, vec![plane])),
            }
        }
    }
    // The highlighted move's planes and where they go.
    let (moving, target) = match v.state.legal.get(v.cursor) {
        Some(m) if v.state.person_to_move => {
            let seat = Seat::new(v.state.to_move).expect("a seat");
            let to = grid(layout.spot(seat, 0, m.to.clamp(0, 255) as u8));
            (m.planes.clone(), Some(to))
        }
        _ => (Vec::new(), None),
    };
    for (i, here) in planes.iter().enumerate() {
        let Some((seat, list)) = here.first() else {
            continue;
        };
        let mut text = LETTERS[*seat].to_string();
        for p in list.iter().take(3) {
            text.push(char::from(b'0' + *p as u8));
        }
        let mut style = seat_style(*seat).add_modifier(Modifier::BOLD);
        if *seat == v.state.to_move && list.iter().any(|p| moving.contains(p)) {
            style = style.add_modifier(Modifier::REVERSED);
        }
        cells[i / 15][i % 15] = (format!("{text:^4}"), style);
    }
    if let Some((x, y)) = target {
        let (text, style) = &cells[y][x];
        let mark = if text.trim().is_empty() || text.contains('·') || text.contains('=') {
            " ** ".to_string()
        } else {
            text.clone()
        };
        cells[y][x] = (
            mark,
            style
                .fg(COLOURS[v.state.to_move & 3])
                .add_modifier(Modifier::REVERSED | Modifier::BOLD),
        );
    }
    cells
        .into_iter()
        .map(|row| {
            Line::from(
                row.into_iter()
                    .map(|(t, s)| Span::styled(t, s))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// The die's face, five lines.
pub fn die_lines(roll: u8) -> [String; 5] {
    let pips: [&[(usize, usize)]; 6] = [
        &[(1, 1)],
        &[(0, 0), (2, 2)],
        &[(0, 0), (1, 1), (2, 2)],
        &[(0, 0), (0, 2), (2, 0), (2, 2)],
        &[(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)],
        &[(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)],
    ];
    let face = pips[usize::from(roll.clamp(1, 6)) - 1];
    let row = |r: usize| {
        let mut s = String::from("│ ");
        for c in 0..3 {
            s.push(if face.contains(&(r, c)) { '●' } else { ' ' });
            s.push(' ');
        }
        s.push('│');
        s
    };
    [
        "┌───────┐".to_string(),
        row(0),
        row(1),
        row(2),
        format!("└── {roll} ──┘"),
    ]
}

fn player_word(state: &StateJson, seat: usize) -> String {
    match state.seats.iter().find(|s| s.seat == seat) {
        Some(s) if s.person => "person".to_string(),
        Some(s) => s.player.clone(),
        None => "not in play".to_string(),
    }
}

fn panel_lines(v: &View) -> Vec<Line<'static>> {
    let s = v.state;
    let mut out = vec![
        Line::from(format!("Seed {} · {} rules", s.seed, s.rules)),
        Line::from(format!("Turn {} · {} rolls played", s.turns, s.rolls)),
        Line::from(""),
    ];
    for seat in &s.seats {
        let steps = &s.steps[seat.seat];
        let home = steps
            .iter()
            .filter(|&&x| x >= 0 && x as u8 >= v.rules.centre())
            .count();
        let hangar = steps.iter().filter(|&&x| x < 0).count();
        let mark = if seat.seat == s.to_move && s.phase != "over" {
            "▶ "
        } else {
            "  "
        };
        out.push(Line::from(vec![
            Span::raw(mark),
            Span::styled(
                seat_name(seat.seat),
                seat_style(seat.seat).add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!(" · {}", player_word(s, seat.seat))),
        ]));
        out.push(Line::from(format!(
            "    home {home}/{} · hangar {hangar}",
            steps.len()
        )));
    }
    out.push(Line::from(""));
    let who = format!("{} ({})", seat_name(s.to_move), player_word(s, s.to_move));
    let turn = match s.phase {
        "over" => {
            let mut t = String::from("Game over");
            if let Some(w) = s.winner {
                t.push_str(&format!(": {} ({}) wins", seat_name(w), player_word(s, w)));
            } else if s.unfinished {
                t.push_str(": the turn limit was reached");
            }
            t
        }
        "choose" => format!("{who} rolled {}: choose a move", s.roll.unwrap_or(0)),
        _ if v.thinking => format!("{who} is thinking…"),
        _ if s.person_to_move => format!("{who} to roll: press Enter"),
        _ => format!("{who} to roll"),
    };
    out.push(Line::styled(
        turn,
        seat_style(s.to_move).add_modifier(Modifier::BOLD),
    ));
    let shown = s.roll.or_else(|| v.rolls.last().map(|r| r.roll));
    if let Some(roll) = shown {
        let by = if s.roll.is_some() {
            s.to_move
        } else {
            v.rolls.last().map_or(s.to_move, |r| r.seat)
        };
        for l in die_lines(roll) {
            out.push(Line::styled(l, seat_style(by)));
        }
    }
    out
}

fn value_text(x: Option<f32>) -> String {
    x.map_or("-".to_string(), |x| format!("{x:.3}"))
}

/// One roll played, in words: `#12 B blue (greedy) rolled 5: plane 1: step 3 to step 8`, and
/// on a second line the bot's values of its candidates when it gave them (`*` its choice).
pub fn roll_lines(r: &RollJson) -> Vec<String> {
    let s = format!(
        "#{} {} ({}) rolled {}: {}",
        r.n,
        seat_name(r.seat),
        r.player,
        r.roll,
        r.text
    );
    if let Some(values) = &r.values {
        let parts: Vec<String> = r
            .legal
            .iter()
            .zip(values)
            .enumerate()
            .map(|(i, (m, x))| {
                let star = if r.chosen == Some(i) { "*" } else { "" };
                format!("{}{star} {}", m.notation, value_text(*x))
            })
            .collect();
        return vec![s, format!("      values: {}", parts.join(", "))];
    }
    vec![s]
}

const HELP: &str = "Keys
  Enter, space, r   roll the die (your turn)
  1 to 9            play that move
  ↑ ↓ then Enter    choose a move and play it
  u                 undo: back to your last decision
  ?                 this help (any key closes it)
  q                 quit (asks while the game goes on)
  Ctrl-C            quit at once

The record is saved after every move: a quit game
goes on with `aeroplane play --resume FILE`, and
`aeroplane replay --log FILE --check` checks it.

On the board: R, Y, B, G are red, yellow, blue and
green; a plane is its seat's letter and number (R0),
planes on one cell are listed (R01). ·· is a ring
cell in its colour, == a home lane, R^ a take-off
cell, .. an empty hangar slot, ◆ the centre. The
chosen move's planes are shown reversed and ** is
where they go.";

/// Draws one frame.
pub fn draw(frame: &mut Frame, v: &View) {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let text = format!(
            "The terminal is {}x{}: aeroplane play needs at least {}x{} (columns x rows). Make it larger; q quits.",
            area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [top, moves, log, status] = Split::vertical([
        Constraint::Length(17),
        Constraint::Length(moves_height(v.state)),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let [board_area, panel] =
        Split::horizontal([Constraint::Length(15 * CELL + 2), Constraint::Min(20)]).areas(top);
    frame.render_widget(
        Paragraph::new(board_lines(v)).block(Block::bordered().title(" Board ")),
        board_area,
    );
    frame.render_widget(
        Paragraph::new(panel_lines(v))
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Game ")),
        panel,
    );
    draw_moves(frame, v, moves);
    // The newest rolls that fit, oldest first.
    let height = usize::from(log.height.saturating_sub(2));
    let mut items: Vec<Line> = Vec::new();
    for r in v.rolls.iter().rev() {
        let lines = roll_lines(r);
        if items.len() + lines.len() > height {
            break;
        }
        for l in lines.into_iter().rev() {
            items.push(Line::styled(l, seat_style(r.seat)));
        }
    }
    items.reverse();
    frame.render_widget(
        Paragraph::new(items).block(Block::bordered().title(" Rolls played (newest last) ")),
        log,
    );
    let status_text = if v.message.is_empty() {
        format!("record: {} · ? help · u undo · q quit", v.record)
    } else {
        v.message.to_string()
    };
    frame.render_widget(
        Paragraph::new(status_text).style(Style::default().add_modifier(Modifier::REVERSED)),
        status,
    );
    if v.help {
        popup(frame, area, " Help ", HELP, 56, 24);
    } else if v.confirm_quit {
        let text = format!(
            "The game is not over. Quit now?\n\nIt is saved in {}:\n`aeroplane play --resume {}` goes on with it.\n\ny: quit    n or Esc: keep playing",
            v.record, v.record
        );
        popup(frame, area, " Quit? ", &text, 70, 9);
    }
}

fn moves_height(state: &StateJson) -> u16 {
    (state.legal.len().clamp(1, 8) as u16) + 2
}

fn draw_moves(frame: &mut Frame, v: &View, area: Rect) {
    let s = v.state;
    let title = match (s.phase, s.roll) {
        ("choose", Some(r)) if s.person_to_move => {
            format!(
                " {} rolled {r}: your moves (1-9, or ↑↓ and Enter) ",
                seat_name(s.to_move)
            )
        }
        ("over", _) => " The game is over ".to_string(),
        _ => " Moves ".to_string(),
    };
    let block = Block::bordered().title(title);
    if s.phase == "choose" && s.person_to_move {
        let items: Vec<ListItem> = s
            .legal
            .iter()
            .map(|m| ListItem::new(format!("{}. {}", m.index + 1, m.text)))
            .collect();
        let mut list_state = ListState::default().with_selected(Some(v.cursor));
        frame.render_stateful_widget(
            List::new(items)
                .block(block)
                .highlight_symbol("> ")
                .highlight_style(seat_style(s.to_move).add_modifier(Modifier::REVERSED)),
            area,
            &mut list_state,
        );
    } else {
        let text = match s.phase {
            "over" => format!("The record is complete: {} (q quits)", v.record),
            _ if s.person_to_move => "Press Enter (or space, or r) to roll the die.".to_string(),
            _ => "The bots are playing.".to_string(),
        };
        frame.render_widget(Paragraph::new(text).block(block), area);
    }
}

fn popup(frame: &mut Frame, area: Rect, title: &str, text: &str, width: u16, height: u16) {
    let w = width.min(area.width);
    let h = height.min(area.height);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(text.to_string())
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(title.to_string())),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Preset;
    use aeroplane_web::session::Session;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn screen(session: &Session, w: u16, h: u16, cursor: usize) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        let state = session.state();
        t.draw(|f| {
            draw(
                f,
                &View {
                    state: &state,
                    rolls: session.rolls(0),
                    rules: session.rules(),
                    cursor,
                    record: "g.jsonl",
                    message: "",
                    help: false,
                    confirm_quit: false,
                    thinking: false,
                },
            )
        })
        .unwrap();
        let buf = t.backend().buffer().clone();
        let mut out = String::new();
        for y in 0..h {
            for x in 0..w {
                out.push_str(buf[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }

    fn person_vs(bot: &str) -> Session {
        let seats = vec!["person".to_string(), bot.to_string()];
        Session::new(Preset::AppFreeGame.rules(), 2, &seats, 1).unwrap()
    }

    #[test]
    fn the_start_shows_every_plane_in_its_hangar_and_the_seats() {
        let s = person_vs("greedy");
        let text = screen(&s, 100, 40, 0);
        for p in ["R0", "R1", "R2", "R3", "B0", "B3"] {
            assert!(text.contains(p), "{p} in\n{text}");
        }
        assert!(text.contains("R red · person"), "{text}");
        assert!(text.contains("B blue · greedy"), "{text}");
        assert!(text.contains("to roll: press Enter"), "{text}");
        // Yellow and green are not in play: no planes of theirs.
        assert!(!text.contains("Y0") && !text.contains("G0"), "{text}");
    }

    #[test]
    fn a_roll_with_a_choice_lists_the_moves_in_words_and_draws_the_die() {
        let mut s = person_vs("greedy");
        // Roll until the person has a choice (the bots' rolls in between).
        for _ in 0..200 {
            let st = s.state();
            if st.phase == "choose" {
                break;
            }
            if st.person_to_move {
                s.roll().unwrap();
            } else {
                s.bot_move().unwrap();
            }
        }
        let st = s.state();
        assert_eq!(st.phase, "choose");
        let text = screen(&s, 100, 40, 1);
        assert!(text.contains(&format!("1. {}", st.legal[0].text)), "{text}");
        assert!(
            text.contains(&format!("> 2. {}", st.legal[1].text)),
            "{text}"
        );
        assert!(
            text.contains(&format!("└── {} ──┘", st.roll.unwrap())),
            "{text}"
        );
        assert!(text.contains("**") || text.contains("R0"), "{text}");
    }

    #[test]
    fn a_small_terminal_is_told_so() {
        let s = person_vs("greedy");
        let text = screen(&s, 60, 20, 0);
        assert!(text.contains("The terminal is 60x20"), "{text}");
        assert!(text.contains("needs at least 90x30"), "{text}");
    }

    #[test]
    fn a_bots_values_are_shown_with_its_choice_starred() {
        let seats = vec!["expectimax:depth=1".to_string(), "greedy".to_string()];
        let mut s = Session::new(Preset::AppFreeGame.rules(), 2, &seats, 3).unwrap();
        let mut line = None;
        for _ in 0..300 {
            s.bot_move().unwrap();
            if let Some(r) = s.rolls(0).last().filter(|r| r.values.is_some()) {
                line = Some(roll_lines(r).join("\n"));
                break;
            }
        }
        let line = line.expect("expectimax reports values");
        assert!(line.contains("\n      values: "), "{line}");
        assert!(line.contains("* "), "{line}");
        assert!(line.contains("(expectimax:depth=1) rolled"), "{line}");
    }

    #[test]
    fn the_die_has_its_pips() {
        assert_eq!(die_lines(5)[1], "│ ●   ● │");
        assert_eq!(die_lines(5)[2], "│   ●   │");
        assert_eq!(die_lines(1)[1], "│       │");
    }
}

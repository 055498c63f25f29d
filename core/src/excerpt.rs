//! Short, safe quotes of input in messages: a bad value can be megabytes long or hold
//! terminal escape sequences, and an error message should be neither.

/// The most characters of one line of bad input quoted in an error message.
pub const EXCERPT_CHARS: usize = 120;

/// At most [`EXCERPT_CHARS`] characters of `text`, with control characters (terminal escape
/// sequences among them) shown escaped and a count of what was left off.
pub fn excerpt(text: &str) -> String {
    clip(text, EXCERPT_CHARS)
}

/// Every line of `message` clipped to at most `max` characters (see [`excerpt`]); control
/// characters other than line breaks and tabs shown escaped. For messages that quote input,
/// such as a TOML parser's, which quotes the whole offending line.
pub fn clip_lines(message: &str, max: usize) -> String {
    message
        .split('\n')
        .map(|line| clip(line, max))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A path as a message names it: whole (up to 1,000 characters), control characters escaped.
pub fn path(p: &std::path::Path) -> String {
    clip(&p.display().to_string(), 1000)
}

/// A parser's message (TOML, JSON) made fit to quote: trimmed, every line at most 200
/// characters, except the list of allowed names after serde's "`, expected " (our own
/// vocabulary, never input), which is kept whole so no allowed key is cut mid-word.
pub fn clip_message(message: impl std::fmt::Display) -> String {
    message
        .to_string()
        .trim()
        .split('\n')
        .map(|line| match line.find("`, expected ") {
            Some(i) if line.len() - i <= 2000 => {
                format!("{}{}", clip(&line[..=i], 200), &line[i + 1..])
            }
            _ => clip(line, 200),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn clip(line: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    for (shown, c) in chars.by_ref().enumerate() {
        if shown == max {
            let rest = 1 + chars.count();
            out.push_str(&format!("… ({rest} more characters)"));
            return out;
        }
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// An error and its causes on one line (`a: b: c`), a cause whose words the line already holds
/// said once: how every front end (the command line, Python, a job's status) words an error.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let c_text = c.to_string();
        if !text.contains(&c_text) {
            text.push_str(": ");
            text.push_str(&c_text);
        }
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_escape_control_characters() {
        assert_eq!(excerpt("depth"), "depth");
        let long = "x".repeat(1000);
        assert_eq!(
            excerpt(&long),
            format!("{}… (880 more characters)", "x".repeat(120))
        );
        assert_eq!(excerpt("\u{1b}[2Jclear"), "\\u{1b}[2Jclear");
        assert_eq!(clip_lines("ab\ncdef", 2), "ab\ncd… (2 more characters)");
    }

    /// Issue 22, item 11: serde's list of allowed keys was cut mid-word after 200 characters.
    #[test]
    fn lists_of_allowed_keys_are_never_cut() {
        let keys: Vec<String> = (0..30).map(|i| format!("`key_number_{i}`")).collect();
        let msg = format!("unknown field `foo`, expected one of {}", keys.join(", "));
        assert_eq!(clip_message(&msg), msg);
        // The unknown name itself is input, and is clipped.
        let long = format!("unknown field `{}`, expected `a` or `b`", "x".repeat(500));
        let clipped = clip_message(&long);
        assert!(
            clipped.len() < 300 && clipped.ends_with(", expected `a` or `b`"),
            "{clipped}"
        );
    }

    /// A cause already in its error's words is not said twice.
    #[test]
    fn an_error_chain_says_each_cause_once() {
        #[derive(Debug)]
        struct E(&'static str, Option<Box<E>>);
        impl std::fmt::Display for E {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
        impl std::error::Error for E {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                self.1.as_deref().map(|e| e as _)
            }
        }
        let inner = E("disk full", None);
        let mid = E("cannot write run.json: disk full", Some(Box::new(inner)));
        let top = E("the job failed", Some(Box::new(mid)));
        assert_eq!(
            chain(&top),
            "the job failed: cannot write run.json: disk full"
        );
        assert_eq!(chain(&E("alone", None)), "alone");
    }
}

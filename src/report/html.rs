//! The page: an XHTML document with inline CSS, built section by section.

use serde_json::Value;

/// Escapes text for XML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A rate as a percentage with two decimals: `0.2514` -> `25.14%`.
pub(crate) fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// A rate with its interval: `25.14% [24.80, 25.48]`.
pub(crate) fn pct_interval(x: f64, lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(l), Some(h)) => format!("{} [{:.2}, {:.2}]", pct(x), 100.0 * l, 100.0 * h),
        _ => pct(x),
    }
}

/// A JSON scalar or list as short text.
pub(crate) fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(json_text).collect::<Vec<_>>().join(",")
        ),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A table cell: its text (escaped when rendered) and whether it is a number.
#[derive(Clone)]
pub(crate) struct Td {
    text: String,
    num: bool,
}

/// A text cell.
pub(crate) fn td(text: impl Into<String>) -> Td {
    Td {
        text: text.into(),
        num: false,
    }
}

/// A number cell (right-aligned).
pub(crate) fn tn(text: impl Into<String>) -> Td {
    Td {
        text: text.into(),
        num: true,
    }
}

const STYLE: &str = r##"
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", Arial, sans-serif;
  color: #1a1a1a; background: #ffffff; max-width: 62rem; margin: 1.5rem auto; padding: 0 1.2rem;
  line-height: 1.45; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem 0; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem 0; border-bottom: 2px solid #0072B2; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem 0; }
p.sub { color: #444; margin: 0 0 1rem 0; }
p.finding { font-size: 1.05rem; background: #f2f6fa; border-left: 4px solid #0072B2; padding: .5rem .8rem; }
p.note { color: #444; font-size: .92rem; border-left: 4px solid #E69F00; padding: .3rem .8rem; background: #fffaf0; }
div.problems { border: 2px solid #D55E00; background: #fff3ec; padding: .4rem .9rem; margin: .8rem 0 1rem 0; }
div.problems h2 { border-bottom: none; margin: .2rem 0 .3rem 0; color: #8a2f00; }
div.problems li { margin: .15rem 0; overflow-wrap: anywhere; }
figure { margin: .8rem 0 1rem 0; }
figure svg { display: block; max-width: 100%; height: auto; }
/* A white halo keeps dark chart labels readable where a line crosses them. */
figure svg text[fill="#1A1A1A"] { paint-order: stroke; stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }
figcaption { font-size: .9rem; color: #444; margin-top: .3rem; }
div.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: .5rem 0 1rem 0; font-size: .9rem; }
th, td { border: 1px solid #bbb; padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: #eef1f4; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td { overflow-wrap: anywhere; }
tr.best td { background: #fff0c2; font-weight: bold; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .88rem; }
pre { background: #f4f4f4; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: .15rem 1rem; margin: .5rem 0 1rem 0; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; }
footer { margin-top: 2.5rem; font-size: .85rem; color: #555; border-top: 1px solid #ccc; padding-top: .5rem; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  h2 { break-after: avoid; }
  figure, table, pre, p.finding { break-inside: avoid; }
  div.scroll { overflow: visible; }
  table { font-size: 8pt; }
  a { color: inherit; text-decoration: none; }
}
"##;

/// The most columns one table shows: a wider one is split into several, each repeating its
/// key columns, so no table is cut off at the page's edge (or in print).
pub(crate) const MAX_COLUMNS: usize = 8;

/// A report page under construction.
pub(crate) struct Page {
    title: String,
    body: String,
    /// Where the folder's problems go: after the subtitle.
    problems_at: usize,
}

impl Page {
    /// A page with a heading and a subtitle line.
    pub fn new(title: &str, subtitle: &str) -> Page {
        let mut body = String::new();
        body.push_str(&format!(
            "<h1>{}</h1>\n<p class=\"sub\">{}</p>\n",
            esc(title),
            esc(subtitle)
        ));
        Page {
            title: title.to_string(),
            problems_at: body.len(),
            body,
        }
    }

    /// A section heading.
    pub fn h2(&mut self, id: &str, text: &str) {
        self.body
            .push_str(&format!("<h2 id=\"{}\">{}</h2>\n", esc(id), esc(text)));
    }

    /// A sub-heading.
    pub fn h3(&mut self, text: &str) {
        self.body.push_str(&format!("<h3>{}</h3>\n", esc(text)));
    }

    /// A paragraph of plain text.
    pub fn p(&mut self, text: &str) {
        self.body.push_str(&format!("<p>{}</p>\n", esc(text)));
    }

    /// A finding in words, set off from the text.
    pub fn finding(&mut self, text: &str) {
        self.body
            .push_str(&format!("<p class=\"finding\">{}</p>\n", esc(text)));
    }

    /// A caveat or a note about missing files.
    pub fn note(&mut self, text: &str) {
        self.body
            .push_str(&format!("<p class=\"note\">{}</p>\n", esc(text)));
    }

    /// Preformatted text (a command, a file).
    pub fn pre(&mut self, text: &str) {
        self.body
            .push_str(&format!("<pre><code>{}</code></pre>\n", esc(text)));
    }

    /// Preformatted text with an id (tests find the command that made a folder by it).
    pub fn pre_id(&mut self, id: &str, text: &str) {
        self.body.push_str(&format!(
            "<pre id=\"{}\"><code>{}</code></pre>\n",
            esc(id),
            esc(text)
        ));
    }

    /// A list of links: (relative address, text).
    pub fn links(&mut self, links: &[(String, String)]) {
        self.body.push_str("<ul class=\"links\">\n");
        for (href, text) in links {
            self.body.push_str(&format!(
                "<li><a href=\"{}\">{}</a></li>\n",
                esc(href),
                esc(text)
            ));
        }
        self.body.push_str("</ul>\n");
    }

    /// Label/value pairs.
    pub fn facts(&mut self, pairs: &[(&str, String)]) {
        self.body.push_str("<dl class=\"facts\">\n");
        for (k, v) in pairs {
            self.body
                .push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(v)));
        }
        self.body.push_str("</dl>\n");
    }

    /// A chart (SVG text from [`super::chart`]) with a caption.
    pub fn figure(&mut self, svg: &str, caption: &str) {
        self.body.push_str("<figure>\n");
        self.body.push_str(strip_prolog(svg));
        self.body.push_str(&format!(
            "\n<figcaption>{}</figcaption>\n</figure>\n",
            esc(caption)
        ));
    }

    /// A table; the row at `highlight` is marked (bold on a tinted background). Wider than
    /// [`MAX_COLUMNS`], it is split into tables that each repeat the first `keys` columns.
    pub fn table_keyed(
        &mut self,
        head: &[&str],
        rows: Vec<Vec<Td>>,
        highlight: Option<usize>,
        keys: usize,
    ) {
        if head.len() <= MAX_COLUMNS || keys >= head.len() {
            return self.table(head, rows, highlight);
        }
        let per = MAX_COLUMNS.saturating_sub(keys).max(1);
        let rest: Vec<usize> = (keys..head.len()).collect();
        for part in rest.chunks(per) {
            let cols: Vec<usize> = (0..keys).chain(part.iter().copied()).collect();
            let h: Vec<&str> = cols.iter().map(|&c| head[c]).collect();
            let r: Vec<Vec<Td>> = rows
                .iter()
                .map(|row| cols.iter().filter_map(|&c| row.get(c).cloned()).collect())
                .collect();
            self.table(&h, r, highlight);
        }
    }

    /// A table; the row at `highlight` is marked (bold on a tinted background).
    pub fn table(&mut self, head: &[&str], rows: Vec<Vec<Td>>, highlight: Option<usize>) {
        self.body
            .push_str("<div class=\"scroll\">\n<table>\n<thead><tr>");
        for h in head {
            self.body.push_str(&format!("<th>{}</th>", esc(h)));
        }
        self.body.push_str("</tr></thead>\n<tbody>\n");
        for (i, row) in rows.into_iter().enumerate() {
            if Some(i) == highlight {
                self.body.push_str("<tr class=\"best\">");
            } else {
                self.body.push_str("<tr>");
            }
            for c in row {
                if c.num {
                    self.body
                        .push_str(&format!("<td class=\"n\">{}</td>", esc(&c.text)));
                } else {
                    self.body.push_str(&format!("<td>{}</td>", esc(&c.text)));
                }
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody>\n</table>\n</div>\n");
    }

    /// The finished document, with the folder's problems listed after the subtitle.
    pub fn finish(mut self, footer: &str, problems: &[String]) -> String {
        if !problems.is_empty() {
            let mut block = String::from(
                "<div class=\"problems\" id=\"problems\">\n<h2>This folder's files are damaged or disagree</h2>\n<p>The figures below come from these files; where a file is wrong it is left out or marked. Re-run the job (see Reproduce) for sound files.</p>\n<ul>\n",
            );
            for p in problems {
                block.push_str(&format!("<li>{}</li>\n", esc(p)));
            }
            block.push_str("</ul>\n</div>\n");
            self.body.insert_str(self.problems_at, &block);
        }
        format!(
            "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n{}<footer>{}</footer>\n</body>\n</html>\n",
            esc(&self.title),
            STYLE,
            self.body,
            esc(footer)
        )
    }
}

/// An SVG document without an XML declaration, to inline it.
fn strip_prolog(svg: &str) -> &str {
    let s = svg.trim_start();
    if s.starts_with("<?xml") {
        s.find("?>").map_or(s, |i| s[i + 2..].trim_start())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_svg_prologs_are_dropped() {
        assert_eq!(
            esc("a<b & \"c\" 'd'"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;"
        );
        assert_eq!(strip_prolog("<?xml version=\"1.0\"?>\n<svg/>"), "<svg/>");
        assert_eq!(
            pct_interval(0.25, Some(0.2), Some(0.3)),
            "25.00% [20.00, 30.00]"
        );
    }
}

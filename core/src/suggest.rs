//! "Did you mean ...?": the known name closest to a mistyped one, for error messages.
//!
//! A name that differs from a known one only in case is that one. Otherwise the known name at
//! the smallest edit distance is suggested, ignoring case and counting insertions, deletions,
//! substitutions and swaps of two neighbouring characters as one edit each, when the distance is
//! small for the length of the name: at most one edit per three characters, and at least one.
//! Ties go to the name listed first.

/// The known name closest to `given`, if one is close enough (see the module documentation).
pub fn closest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let given = given.trim();
    if given.is_empty() {
        return None;
    }
    let known: Vec<&str> = known.into_iter().collect();
    if let Some(same) = known.iter().find(|k| k.eq_ignore_ascii_case(given)) {
        return Some(same);
    }
    let lower: Vec<char> = given.to_lowercase().chars().collect();
    let limit = (lower.len() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for &name in &known {
        let candidate: Vec<char> = name.to_lowercase().chars().collect();
        let d = distance(&lower, &candidate);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, name));
        }
    }
    best.map(|(_, name)| name)
}

/// The rest of a message about an unknown name `given`, after the name: `": {rest}"`, or, when a
/// known name is close, `"; did you mean `{name}`? {Rest}"` (the first letter of `rest`
/// capitalised).
pub fn tail<'a>(given: &str, known: impl IntoIterator<Item = &'a str>, rest: &str) -> String {
    match closest(given, known) {
        Some(name) => {
            let mut chars = rest.chars();
            let rest: String = match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            };
            format!("; did you mean `{name}`? {rest}")
        }
        None => format!(": {rest}"),
    }
}

/// The optimal string alignment distance: Levenshtein plus swaps of adjacent characters.
fn distance(a: &[char], b: &[char]) -> usize {
    // rows[i][j] = distance between a[..i] and b[..j]; three rolling rows suffice.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTS: [&str; 7] = [
        "expectimax",
        "expectimax-deep",
        "greedy",
        "mcts",
        "mcts-rollout",
        "montecarlo",
        "random",
    ];

    fn d(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        distance(&a, &b)
    }

    #[test]
    fn distance_counts_each_kind_of_edit_once() {
        assert_eq!(d("", ""), 0);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("classic", "classic"), 0);
        assert_eq!(d("clasic", "classic"), 1); // deletion
        assert_eq!(d("classicc", "classic"), 1); // insertion
        assert_eq!(d("klassic", "classic"), 1); // substitution
        assert_eq!(d("mcst", "mcts"), 1); // swap of neighbours
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("ca", "abc"), 3); // OSA: a swapped pair is not edited again
    }

    #[test]
    fn case_insensitive_match_comes_first() {
        assert_eq!(closest("Greedy", BOTS), Some("greedy"));
        assert_eq!(closest("MCTS", BOTS), Some("mcts"));
        assert_eq!(
            closest("Classic", ["appfreegame", "classic", "chinese"]),
            Some("classic")
        );
    }

    #[test]
    fn small_typos_find_the_intended_name() {
        assert_eq!(closest("expectimx", BOTS), Some("expectimax"));
        assert_eq!(closest("expectimax-dep", BOTS), Some("expectimax-deep"));
        assert_eq!(closest("gredy", BOTS), Some("greedy"));
        assert_eq!(closest("radnom", BOTS), Some("random"));
        assert_eq!(closest("mcst", BOTS), Some("mcts"));
        assert_eq!(closest("MonteCarlo ", BOTS), Some("montecarlo"));
        let presets = ["appfreegame", "classic", "chinese"];
        assert_eq!(closest("clasic", presets), Some("classic"));
        assert_eq!(closest("chinse", presets), Some("chinese"));
        assert_eq!(closest("appfreegam", presets), Some("appfreegame"));
    }

    #[test]
    fn distant_or_empty_names_suggest_nothing() {
        assert_eq!(closest("wizard", BOTS), None);
        assert_eq!(closest("alphazero", BOTS), None);
        assert_eq!(closest("", BOTS), None);
        assert_eq!(closest("x", BOTS), None);
        assert_eq!(closest("expectimax", std::iter::empty()), None);
    }

    #[test]
    fn ties_go_to_the_name_listed_first() {
        assert_eq!(closest("ab", ["aa", "bb"]), Some("aa"));
        assert_eq!(closest("ab", ["bb", "aa"]), Some("bb"));
    }

    #[test]
    fn message_with_and_without_a_suggestion() {
        assert_eq!(
            tail("expectimx", BOTS, "known bots are a, b"),
            "; did you mean `expectimax`? Known bots are a, b"
        );
        assert_eq!(
            tail("wizard", BOTS, "known bots are a, b"),
            ": known bots are a, b"
        );
    }
}

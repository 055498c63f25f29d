//! A tune's files: `history.csv` (one row per iteration) and `tuned.toml` (a bot profile).

use crate::analysis::spsa::Dimension;
use crate::bots::registry::{BotSpec, ParamValue};

use super::space::decimals;
use super::state::HistoryRow;

/// The columns of `history.csv` for parameters `names`: the iteration; per parameter the point
/// `theta_k`, the perturbation `c_k`, the sign, the two values played and the gradient
/// estimate; then the iteration's games and result.
pub fn history_header(names: &[&str]) -> Vec<String> {
    let mut h = vec!["iteration".to_string()];
    for suffix in ["", "_c", "_flip", "_plus", "_minus", "_grad"] {
        h.extend(names.iter().map(|n| format!("{n}{suffix}")));
    }
    h.extend(
        [
            "deals",
            "games",
            "plus_wins",
            "minus_wins",
            "opponent_wins",
            "unfinished",
            "result",
            "result_se",
        ]
        .map(String::from),
    );
    h
}

/// `history.csv` as bytes.
pub fn history_csv(dims: &[Dimension], scale: i64, rows: &[HistoryRow]) -> Vec<u8> {
    let names: Vec<&str> = dims.iter().map(|d| d.name.as_str()).collect();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(history_header(&names))
        .expect("writing to memory");
    for row in rows {
        let mut rec = vec![row.probe.iteration.to_string()];
        let value = |d: &Dimension, x: f64| format!("{x:.*}", decimals(d) + 2);
        rec.extend(dims.iter().zip(&row.step.before).map(|(d, &x)| value(d, x)));
        rec.extend(dims.iter().zip(&row.probe.c).map(|(d, &x)| value(d, x)));
        rec.extend(row.probe.flip.iter().map(|f| f.to_string()));
        rec.extend(dims.iter().zip(&row.probe.plus).map(|(d, &x)| value(d, x)));
        rec.extend(dims.iter().zip(&row.probe.minus).map(|(d, &x)| value(d, x)));
        rec.extend(row.step.gradient.iter().map(|g| format!("{g:.6e}")));
        let o = &row.outcome;
        rec.extend(
            [
                o.deals,
                o.games,
                o.plus_wins,
                o.minus_wins,
                o.opponent_wins,
                o.unfinished,
            ]
            .map(|x| x.to_string()),
        );
        rec.push(format!("{:.6}", o.result(scale)));
        rec.push(
            o.standard_error(scale)
                .map_or_else(String::new, |s| format!("{s:.6}")),
        );
        w.write_record(&rec).expect("writing to memory");
    }
    w.into_inner().expect("writing to memory")
}

/// A TOML value as a profile writes it.
fn toml_value(v: &ParamValue) -> String {
    match v {
        ParamValue::Int(i) => i.to_string(),
        ParamValue::Float(x) => format!("{x:?}"),
        ParamValue::Word(w) => toml::Value::String(w.clone()).to_string(),
    }
}

/// `tuned.toml`: a profile of the tuned bot's kind with every parameter, the tuned ones at
/// their tuned values (`tuned`, already rounded), headed by comments saying how it was made.
pub fn tuned_profile(
    tuned: &BotSpec,
    dims: &[Dimension],
    values: &[f64],
    description: &str,
    comments: &[String],
) -> String {
    let mut text = String::new();
    for c in comments {
        text.push_str("# ");
        text.push_str(c);
        text.push('\n');
    }
    text.push_str(&format!(
        "kind = {}\ndescription = {}\n\n[params]\n",
        toml::Value::String(tuned.kind.clone()),
        toml::Value::String(description.to_string())
    ));
    for (name, value) in tuned.params.iter() {
        let written = match dims.iter().position(|d| d.name == name) {
            Some(i) if !dims[i].integer => format!("{:.*}", decimals(&dims[i]), values[i]),
            Some(i) => format!("{}", values[i] as i64),
            None => toml_value(value),
        };
        text.push_str(&format!("{name} = {written}\n"));
    }
    text
}

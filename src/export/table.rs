//! One table abstraction for every CSV a job writes: a file name, a header, and typed cells
//! that render to text once and sort by value.

use std::cmp::Ordering;

/// One cell: the text written, and the value it sorts by.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The cell as written to CSV.
    pub text: String,
    /// The value it sorts by: a number, or `None` for text and empty cells.
    pub value: Option<f64>,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            value: None,
        }
    }

    /// An empty cell (undefined).
    pub fn empty() -> Cell {
        Cell::text("")
    }

    /// An integer cell.
    pub fn int(v: impl Into<u64>) -> Cell {
        let v = v.into();
        Cell {
            text: v.to_string(),
            value: Some(v as f64),
        }
    }

    /// A number with six decimals; empty when undefined or not finite.
    pub fn fixed(x: Option<f64>) -> Cell {
        match x {
            Some(v) if v.is_finite() => Cell {
                text: format!("{v:.6}"),
                value: Some(v),
            },
            _ => Cell::empty(),
        }
    }

    /// A number with six decimals that may be infinite (an Elo of a score of 0 or 1): `inf` or
    /// `-inf` then; empty when undefined.
    pub fn fixed_or_inf(x: Option<f64>) -> Cell {
        match x {
            Some(v) if v.is_infinite() => Cell {
                text: if v > 0.0 { "inf" } else { "-inf" }.to_string(),
                value: Some(v),
            },
            _ => Cell::fixed(x),
        }
    }

    /// A p-value in scientific notation with `digits` decimals (also below the smallest `f64`:
    /// `3.214e-412`); empty when undefined.
    pub fn p_value(x: Option<crate::stats::PValue>, digits: usize) -> Cell {
        match x {
            Some(p) => Cell {
                text: p.sci(digits),
                value: Some(p.log10()),
            },
            None => Cell::empty(),
        }
    }

    /// A number in scientific notation with `digits` decimals (p-values); empty when undefined.
    pub fn sci(x: Option<f64>, digits: usize) -> Cell {
        match x {
            Some(v) if v.is_finite() => Cell {
                text: format!("{v:.digits$e}"),
                value: Some(v),
            },
            _ => Cell::empty(),
        }
    }

    /// Orders two cells: numbers by value, text by text, empty cells last.
    fn cmp_for_sort(&self, other: &Cell) -> Ordering {
        match (self.text.is_empty(), other.text.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => match (self.value, other.value) {
                (Some(a), Some(b)) => a.total_cmp(&b),
                _ => self.text.cmp(&other.text),
            },
        }
    }
}

/// A CSV table: a file name, a stable header, and rows as long as the header.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// File name in the output directory.
    pub file: &'static str,
    /// Column names (stable: part of the project's interface).
    pub header: Vec<&'static str>,
    /// The rows.
    pub rows: Vec<Vec<Cell>>,
}

/// A sort request: a column, ascending or descending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortKey {
    /// Column name.
    pub column: String,
    /// Descending order.
    pub descending: bool,
}

impl SortKey {
    /// Parses `column` or `-column` (descending).
    pub fn parse(text: &str) -> SortKey {
        match text.strip_prefix('-') {
            Some(c) => SortKey {
                column: c.to_string(),
                descending: true,
            },
            None => SortKey {
                column: text.to_string(),
                descending: false,
            },
        }
    }
}

impl std::fmt::Display for SortKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}",
            if self.descending { "-" } else { "" },
            self.column
        )
    }
}

/// A column that is not in a table.
#[derive(Debug, thiserror::Error)]
#[error("`{column}` is not a {file} column; allowed: {allowed}")]
pub struct NoSuchColumn {
    /// The name asked for.
    pub column: String,
    /// The table's file.
    pub file: &'static str,
    /// The table's columns.
    pub allowed: String,
}

impl Table {
    /// A table with a header and no rows yet.
    pub fn new(file: &'static str, header: &[&'static str]) -> Table {
        Table {
            file,
            header: header.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row.
    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.header.len(), "{}", self.file);
        self.rows.push(row);
    }

    /// The position of a column.
    pub fn column(&self, name: &str) -> Result<usize, NoSuchColumn> {
        self.header
            .iter()
            .position(|&h| h == name)
            .ok_or_else(|| NoSuchColumn {
                column: name.to_string(),
                file: self.file,
                allowed: self.header.join(", "),
            })
    }

    /// The row order `key` asks for (a stable sort: ties keep their order), as row indices.
    pub fn sorted_order(&self, key: &SortKey) -> Result<Vec<usize>, NoSuchColumn> {
        let k = self.column(&key.column)?;
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.rows[a][k], &self.rows[b][k]);
            let o = x.cmp_for_sort(y);
            // Empty cells stay last either way.
            if key.descending && !x.text.is_empty() && !y.text.is_empty() {
                o.reverse()
            } else {
                o
            }
        });
        Ok(order)
    }

    /// The table as CSV bytes (header first).
    pub fn to_csv(&self) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.header).expect("writing to memory");
        for row in &self.rows {
            w.write_record(row.iter().map(|c| c.text.as_str()))
                .expect("writing to memory");
        }
        w.into_inner().expect("writing to memory")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_by_value_keeps_empty_cells_last_and_ties_in_order() {
        let mut t = Table::new("t.csv", &["name", "x"]);
        for (n, x) in [
            ("a", Some(2.0)),
            ("b", None),
            ("c", Some(10.0)),
            ("d", Some(2.0)),
        ] {
            t.push(vec![Cell::text(n), Cell::fixed(x)]);
        }
        assert_eq!(t.sorted_order(&SortKey::parse("x")).unwrap(), [0, 3, 2, 1]);
        assert_eq!(t.sorted_order(&SortKey::parse("-x")).unwrap(), [2, 0, 3, 1]);
        assert_eq!(
            t.sorted_order(&SortKey::parse("name")).unwrap(),
            [0, 1, 2, 3]
        );
        let e = t.sorted_order(&SortKey::parse("y")).unwrap_err();
        assert!(e.to_string().contains("allowed: name, x"), "{e}");
        assert_eq!(
            String::from_utf8(t.to_csv()).unwrap(),
            "name,x\na,2.000000\nb,\nc,10.000000\nd,2.000000\n"
        );
    }
}

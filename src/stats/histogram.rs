//! An exact histogram of small non-negative integers (game lengths), with moments and quantiles
//! derived from the integer counts.

/// Counts of each value; merges exactly in any order.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
}

impl PartialEq for Histogram {
    /// Equal when every value has the same count (spare capacity is not compared).
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Histogram {}

impl serde::Serialize for Histogram {
    /// The values seen, as `[value, count]` pairs in ascending order.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|(v, c)| [u64::from(v), c]))
    }
}

impl<'de> serde::Deserialize<'de> for Histogram {
    /// The pairs [`Serialize`](serde::Serialize) writes.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let pairs = Vec::<[u64; 2]>::deserialize(d)?;
        let mut h = Histogram::default();
        for [v, c] in pairs {
            let v = u32::try_from(v).map_err(|_| D::Error::custom("value out of range"))?;
            h.add(v);
            h.counts[v as usize] += c - 1;
        }
        Ok(h)
    }
}

/// Moments and nearest-rank quantiles of a [`Histogram`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Spread {
    /// Number of values.
    pub n: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1; 0 for a single value).
    pub sd: f64,
    /// Smallest value.
    pub min: u32,
    /// 5th percentile.
    pub p5: u32,
    /// 25th percentile.
    pub p25: u32,
    /// Median.
    pub median: u32,
    /// 75th percentile.
    pub p75: u32,
    /// 95th percentile.
    pub p95: u32,
    /// Largest value.
    pub max: u32,
}

impl Histogram {
    /// An empty histogram with room for values below `capacity` without reallocating.
    pub fn with_capacity(capacity: usize) -> Self {
        Histogram {
            counts: vec![0; capacity],
        }
    }

    /// Counts one value.
    #[inline]
    pub fn add(&mut self, value: u32) {
        let v = value as usize;
        if v >= self.counts.len() {
            self.counts.resize(v + 1, 0);
        }
        self.counts[v] += 1;
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// Number of values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// (value, count) for every value counted at least once, ascending.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(v, &c)| (v as u32, c))
    }

    /// Sum of the values and sum of their squares, exact.
    pub fn sums(&self) -> (u128, u128) {
        self.iter().fold((0, 0), |(s, q), (v, c)| {
            let (v, c) = (u128::from(v), u128::from(c));
            (s + v * c, q + v * v * c)
        })
    }

    /// The nearest-rank `percent`-th percentile: the smallest value whose cumulative count
    /// reaches `ceil(n * percent / 100)` (at least 1). `None` when empty.
    pub fn percentile(&self, percent: u32) -> Option<u32> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let rank = (u128::from(n) * u128::from(percent)).div_ceil(100).max(1);
        let mut cum = 0u128;
        for (v, c) in self.iter() {
            cum += u128::from(c);
            if cum >= rank {
                return Some(v);
            }
        }
        self.iter().last().map(|(v, _)| v)
    }

    /// Mean, standard deviation and quantiles; `None` when empty. The variance is computed
    /// from exact integer sums: `(n*Σx² - (Σx)²) / (n(n-1))`.
    pub fn spread(&self) -> Option<Spread> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let (s, q) = self.sums();
        let nn = u128::from(n);
        let mean = s as f64 / n as f64;
        let sd = if n > 1 {
            let num = nn * q - s * s;
            (num as f64 / (nn * (nn - 1)) as f64).sqrt()
        } else {
            0.0
        };
        let p = |x| self.percentile(x).expect("not empty");
        Some(Spread {
            n,
            mean,
            sd,
            min: self.iter().next().map(|(v, _)| v).expect("not empty"),
            p5: p(5),
            p25: p(25),
            median: p(50),
            p75: p(75),
            p95: p(95),
            max: self.iter().last().map(|(v, _)| v).expect("not empty"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u32]) -> Histogram {
        let mut h = Histogram::default();
        for &v in values {
            h.add(v);
        }
        h
    }

    #[test]
    fn nearest_rank_percentiles() {
        let h = of(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(h.percentile(5), Some(1));
        assert_eq!(h.percentile(25), Some(3));
        assert_eq!(h.percentile(50), Some(5));
        assert_eq!(h.percentile(75), Some(8));
        assert_eq!(h.percentile(95), Some(10));
        assert_eq!(h.percentile(100), Some(10));
        assert_eq!(of(&[]).percentile(50), None);
    }

    #[test]
    fn spread_matches_the_textbook_formulas() {
        let values = [3u32, 7, 7, 19, 24, 24, 24, 100];
        let s = of(&values).spread().unwrap();
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        assert!((s.mean - mean).abs() < 1e-12);
        assert!((s.sd - var.sqrt()).abs() < 1e-9);
        assert_eq!((s.min, s.median, s.max), (3, 19, 100));
        let one = of(&[4]).spread().unwrap();
        assert_eq!((one.mean, one.sd, one.min, one.max), (4.0, 0.0, 4, 4));
    }

    #[test]
    fn merge_is_exact_and_order_free() {
        let (a, b) = (of(&[1, 5, 5, 9]), of(&[2, 30]));
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab.iter().collect::<Vec<_>>(), ba.iter().collect::<Vec<_>>());
        assert_eq!(
            ab.iter().collect::<Vec<_>>(),
            of(&[1, 2, 5, 5, 9, 30]).iter().collect::<Vec<_>>()
        );
    }
}

//! Simultaneous perturbation stochastic approximation (SPSA), as in Spall (1992, 1998) and in
//! the tuners of chess engines (fishtest, OpenBench): the optimiser behind `aeroplane tune`.
//!
//! Pure arithmetic, no games: the caller measures each iteration's match and hands the result
//! back; the state is the current point `theta` and the iteration count. Every random choice
//! (the perturbation's signs and the rounding of integer parameters) comes from
//! [`stream(seed, k, SPSA_STREAM)`](aeroplane_core::stream), so iteration `k` depends on
//! `(seed, k)` and the results before it, never on time or threads.
//!
//! **One iteration** `k = 0, 1, ..., K - 1` (`K` iterations in all), for parameters `i` with
//! ranges `[lo_i, hi_i]`:
//!
//! ```text
//! c_k,i   = c_i / (k + 1)^gamma                    perturbation
//! a_k,i   = a_i / (A + k + 1)^alpha                gain
//! Delta_i = +1 or -1, each with probability 1/2    (independent for each i and k)
//! theta+  = clip(theta + c_k Delta),  theta- = clip(theta - c_k Delta)   (elementwise)
//! y       = the match result of theta+ against theta-, in [-1, 1] (wins - losses per game)
//! g_k,i   = y / (2 c_k,i Delta_i)                  gradient estimate
//! theta_i <- clip(theta_i + a_k,i g_k,i)           (a maximisation: uphill)
//! ```
//!
//! with Spall's exponents `alpha = 0.602` and `gamma = 0.101` and the stability constant
//! `A = 10%` of the iterations ([`ALPHA`], [`GAMMA`], [`STABILITY_SHARE`]). `clip` keeps each
//! value in its range. As in fishtest, the gradient divides by the nominal `2 c_k,i` even
//! where clipping shortened the perturbation.
//!
//! **Per-parameter constants from the range.** With `w_i = hi_i - lo_i` and `M` deals per
//! iteration:
//!
//! ```text
//! c_i = perturbation * w_i                                    (default perturbation 0.1)
//! a_i = step * w_i * 2 c_i * (A + 1)^alpha * sqrt(M)          (default step 0.02)
//! ```
//!
//! So the first iteration probes each parameter at ±10% of its range, shrinking to about half
//! that by iteration 1,000, and the step of parameter `i` in iteration `k` is
//!
//! ```text
//! step * w_i * (y sqrt(M)) * Delta_i * ((A + 1) / (A + k + 1))^alpha * (k + 1)^gamma
//! ```
//!
//! `y sqrt(M)` is the result in units of its standard error when a deal's result has standard
//! deviation 1 (its largest possible), so in the first iteration a noise-sized result moves
//! each parameter by at most about `step` of its range, and a real advantage moves it
//! further. The perturbation sets how far apart the two probes play (signal against bias), the
//! step how far a result moves the point; they do not interact. This is fishtest's schedule
//! (`theta += (a_k / c_k) * result * flip`, with `a = r c^2`) with `c` and the learning rate
//! set from the range instead of given per parameter.
//!
//! With `step = 0` the point never moves: every iteration estimates the gradient at the
//! start, and the mean of the estimates (with its standard error over iterations) measures it.
//!
//! **Integer parameters** keep a real `theta`; the values played are rounded stochastically,
//! as fishtest does (`floor(x + u)`, `u` uniform in `[0, 1)`), so the value played is `x` in
//! expectation and the objective stays smooth in `theta`. The tuned value is `theta` rounded to
//! the nearest integer.

use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Spall's exponent of the gain sequence `a_k`.
pub const ALPHA: f64 = 0.602;
/// Spall's exponent of the perturbation sequence `c_k`.
pub const GAMMA: f64 = 0.101;
/// The stability constant `A` as a share of the iterations.
pub const STABILITY_SHARE: f64 = 0.1;
/// The first perturbation as a share of each parameter's range.
pub const DEFAULT_PERTURBATION: f64 = 0.1;
/// The first step a noise-sized result makes, as a share of each parameter's range.
pub const DEFAULT_STEP: f64 = 0.02;
/// The stream number of the perturbations and roundings (under the tune's seed, with the
/// iteration as the game index).
pub const SPSA_STREAM: u64 = 0x5350_5341;
/// The most iterations a tune takes (its history is kept in memory: a few hundred bytes each).
pub const MAX_ITERATIONS: u64 = 1_000_000;
/// The most deals per iteration (an iteration's deals are scored in memory).
pub const MAX_DEALS: u64 = 1_000_000;

/// One tuned parameter: its name, its range and whether it takes integers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dimension {
    /// The parameter's name.
    pub name: String,
    /// The smallest value tried.
    pub lo: f64,
    /// The largest value tried.
    pub hi: f64,
    /// Whether the values played are integers.
    pub integer: bool,
}

impl Dimension {
    /// The width of the range.
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }

    /// `x` kept in the range.
    pub fn clip(&self, x: f64) -> f64 {
        x.clamp(self.lo, self.hi)
    }
}

/// The settings of a tune.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpsaSettings {
    /// Iterations `K` (at least 1).
    pub iterations: u64,
    /// Deals per iteration `M` (at least 1): scales `a` so that steps are in standard errors.
    pub deals: u64,
    /// The exponent of `a_k`.
    pub alpha: f64,
    /// The exponent of `c_k`.
    pub gamma: f64,
    /// The stability constant `A` (default: [`STABILITY_SHARE`] of the iterations).
    pub stability: f64,
    /// `c_i` as a share of parameter `i`'s range.
    pub perturbation: f64,
    /// The first step of a noise-sized result, as a share of each range; 0 holds the point
    /// still, so the mean gradient estimate is the gradient at the start.
    pub step: f64,
}

impl SpsaSettings {
    /// The defaults for `iterations` iterations of `deals` deals.
    pub fn new(iterations: u64, deals: u64) -> SpsaSettings {
        SpsaSettings {
            iterations,
            deals,
            alpha: ALPHA,
            gamma: GAMMA,
            stability: (STABILITY_SHARE * iterations as f64).round(),
            perturbation: DEFAULT_PERTURBATION,
            step: DEFAULT_STEP,
        }
    }

    /// Checks every setting, naming the one that is wrong.
    pub fn check(&self) -> Result<(), SpsaError> {
        if self.iterations == 0 || self.iterations > MAX_ITERATIONS {
            return Err(SpsaError::Setting {
                name: "iterations",
                value: self.iterations.to_string(),
                allowed: "an integer from 1 to 1,000,000",
            });
        }
        if self.deals == 0 || self.deals > MAX_DEALS {
            return Err(SpsaError::Setting {
                name: "pairs per iteration",
                value: self.deals.to_string(),
                allowed: "an integer from 1 to 1,000,000",
            });
        }
        let real = |name: &'static str, v: f64, ok: bool, allowed: &'static str| {
            if v.is_finite() && ok {
                Ok(())
            } else {
                Err(SpsaError::Setting {
                    name,
                    value: v.to_string(),
                    allowed,
                })
            }
        };
        real(
            "alpha",
            self.alpha,
            self.alpha > 0.0 && self.alpha <= 1.0,
            "a number in (0, 1] (Spall: 0.602)",
        )?;
        real(
            "gamma",
            self.gamma,
            self.gamma >= 0.0 && self.gamma < self.alpha,
            "a number from 0 to below alpha (Spall: 0.101)",
        )?;
        real(
            "stability",
            self.stability,
            self.stability >= 0.0,
            "a number of iterations, 0 or more (default: 10% of the iterations)",
        )?;
        real(
            "perturbation",
            self.perturbation,
            self.perturbation > 0.0 && self.perturbation <= 0.5,
            "a share of each range above 0 and at most 0.5",
        )?;
        real(
            "step",
            self.step,
            (0.0..=1.0).contains(&self.step),
            "a share of each range from 0 to 1 (0: estimate the gradient without moving)",
        )
    }
}

/// Why a tune cannot start.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpsaError {
    /// No parameter to tune.
    #[error("nothing to tune: give at least one parameter with its range")]
    NoParameters,
    /// A parameter named twice.
    #[error("parameter `{0}` is given twice: give each parameter once")]
    Repeated(String),
    /// A range whose ends are not finite numbers.
    #[error("parameter `{name}`: the range {lo}..{hi} must have finite ends")]
    NotFinite {
        /// The parameter.
        name: String,
        /// The lower end as given.
        lo: f64,
        /// The upper end as given.
        hi: f64,
    },
    /// An empty or inverted range.
    #[error(
        "parameter `{name}`: the range {lo}..{hi} is {}: give LO..HI with LO below HI",
        if lo == hi { "empty" } else { "inverted" }
    )]
    EmptyRange {
        /// The parameter.
        name: String,
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
    },
    /// An integer parameter with a range that is not integers.
    #[error("parameter `{name}` takes integers: the range {lo}..{hi} must have integer ends")]
    IntegerRange {
        /// The parameter.
        name: String,
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
    },
    /// A starting value outside its range.
    #[error(
        "parameter `{name}`: the starting value {start} is outside the range {lo}..{hi}: widen the range or start the bot inside it"
    )]
    StartOutside {
        /// The parameter.
        name: String,
        /// The start.
        start: f64,
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
    },
    /// A setting out of range.
    #[error("bad {name} {value}: allowed is {allowed}")]
    Setting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
}

/// The two points of one iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The iteration `k`.
    pub iteration: u64,
    /// The signs `Delta_i`.
    pub flip: Vec<i8>,
    /// The perturbations `c_k,i`.
    pub c: Vec<f64>,
    /// The values `theta+` plays (clipped; integers rounded).
    pub plus: Vec<f64>,
    /// The values `theta-` plays.
    pub minus: Vec<f64>,
}

/// What one iteration did to the point.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The iteration `k`.
    pub iteration: u64,
    /// The point before it.
    pub before: Vec<f64>,
    /// The gradient estimates `g_k,i`.
    pub gradient: Vec<f64>,
    /// The point after it.
    pub after: Vec<f64>,
}

/// An SPSA optimiser: its dimensions, constants and current point.
#[derive(Clone, Debug, PartialEq)]
pub struct Spsa {
    dims: Vec<Dimension>,
    settings: SpsaSettings,
    c: Vec<f64>,
    a: Vec<f64>,
    theta: Vec<f64>,
    next: u64,
}

impl Spsa {
    /// An optimiser over `dims` starting at `start` (one value per dimension, inside its
    /// range); checks every range and setting.
    pub fn new(
        dims: Vec<Dimension>,
        start: Vec<f64>,
        settings: SpsaSettings,
    ) -> Result<Spsa, SpsaError> {
        settings.check()?;
        check_dimensions(&dims)?;
        for (d, &s) in dims.iter().zip(&start) {
            if !(s.is_finite() && s >= d.lo && s <= d.hi) {
                return Err(SpsaError::StartOutside {
                    name: d.name.clone(),
                    start: s,
                    lo: d.lo,
                    hi: d.hi,
                });
            }
        }
        assert_eq!(dims.len(), start.len(), "one start value per dimension");
        let root_m = (settings.deals as f64).sqrt();
        let first_gain = (settings.stability + 1.0).powf(settings.alpha);
        let c: Vec<f64> = dims
            .iter()
            .map(|d| settings.perturbation * d.width())
            .collect();
        let a = dims
            .iter()
            .zip(&c)
            .map(|(d, &c)| settings.step * d.width() * 2.0 * c * first_gain * root_m)
            .collect();
        Ok(Spsa {
            dims,
            settings,
            c,
            a,
            theta: start,
            next: 0,
        })
    }

    /// The dimensions.
    pub fn dimensions(&self) -> &[Dimension] {
        &self.dims
    }

    /// The settings.
    pub fn settings(&self) -> &SpsaSettings {
        &self.settings
    }

    /// The current point `theta`.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// The next iteration (the number done so far).
    pub fn iteration(&self) -> u64 {
        self.next
    }

    /// Whether every iteration is done.
    pub fn is_done(&self) -> bool {
        self.next >= self.settings.iterations
    }

    /// The constants `c_i`.
    pub fn c(&self) -> &[f64] {
        &self.c
    }

    /// The constants `a_i`.
    pub fn a(&self) -> &[f64] {
        &self.a
    }

    /// `c_k,i = c_i / (k + 1)^gamma`.
    pub fn c_at(&self, k: u64) -> Vec<f64> {
        let f = ((k + 1) as f64).powf(self.settings.gamma);
        self.c.iter().map(|c| c / f).collect()
    }

    /// `a_k,i = a_i / (A + k + 1)^alpha`.
    pub fn a_at(&self, k: u64) -> Vec<f64> {
        let f = (self.settings.stability + (k + 1) as f64).powf(self.settings.alpha);
        self.a.iter().map(|a| a / f).collect()
    }

    /// The probe of the next iteration: its signs and the two points, from
    /// `stream(seed, k, SPSA_STREAM)` (the signs first, then two rounding draws per
    /// parameter, drawn for real parameters too so the stream's use never depends on kinds).
    pub fn probe(&self, seed: u64) -> Probe {
        let k = self.next;
        let mut rng = aeroplane_core::stream(seed, k, SPSA_STREAM);
        let flip: Vec<i8> = self
            .dims
            .iter()
            .map(|_| {
                if aeroplane_core::below(&mut rng, 2) == 1 {
                    1
                } else {
                    -1
                }
            })
            .collect();
        let c = self.c_at(k);
        let mut plus = Vec::with_capacity(self.dims.len());
        let mut minus = Vec::with_capacity(self.dims.len());
        for (i, d) in self.dims.iter().enumerate() {
            let shift = c[i] * f64::from(flip[i]);
            let (u_plus, u_minus) = (unit(&mut rng), unit(&mut rng));
            plus.push(played(d, self.theta[i] + shift, u_plus));
            minus.push(played(d, self.theta[i] - shift, u_minus));
        }
        Probe {
            iteration: k,
            flip,
            c,
            plus,
            minus,
        }
    }

    /// Applies the next iteration's result `y` (the match of `probe`'s `theta+` against its
    /// `theta-`: wins minus losses per game, in `[-1, 1]`).
    ///
    /// # Panics
    /// If `probe` is not the probe of the next iteration, or `y` is not finite.
    pub fn update(&mut self, probe: &Probe, y: f64) -> Step {
        assert_eq!(
            probe.iteration, self.next,
            "the probe of the next iteration"
        );
        assert!(y.is_finite(), "a finite result");
        let a = self.a_at(self.next);
        let before = self.theta.clone();
        let gradient: Vec<f64> = probe
            .c
            .iter()
            .zip(&probe.flip)
            .map(|(c, &f)| y / (2.0 * c * f64::from(f)))
            .collect();
        for (i, d) in self.dims.iter().enumerate() {
            self.theta[i] = d.clip(self.theta[i] + a[i] * gradient[i]);
        }
        self.next += 1;
        Step {
            iteration: probe.iteration,
            before,
            gradient,
            after: self.theta.clone(),
        }
    }

    /// The tuned values: `theta`, integer parameters rounded to the nearest integer.
    pub fn tuned(&self) -> Vec<f64> {
        self.dims
            .iter()
            .zip(&self.theta)
            .map(|(d, &t)| if d.integer { d.clip(t.round()) } else { t })
            .collect()
    }
}

/// Checks names and ranges of the dimensions.
pub fn check_dimensions(dims: &[Dimension]) -> Result<(), SpsaError> {
    if dims.is_empty() {
        return Err(SpsaError::NoParameters);
    }
    for (i, d) in dims.iter().enumerate() {
        if dims[..i].iter().any(|e| e.name == d.name) {
            return Err(SpsaError::Repeated(d.name.clone()));
        }
        if !(d.lo.is_finite() && d.hi.is_finite()) {
            return Err(SpsaError::NotFinite {
                name: d.name.clone(),
                lo: d.lo,
                hi: d.hi,
            });
        }
        if d.lo >= d.hi {
            return Err(SpsaError::EmptyRange {
                name: d.name.clone(),
                lo: d.lo,
                hi: d.hi,
            });
        }
        if d.integer && (d.lo.fract() != 0.0 || d.hi.fract() != 0.0) {
            return Err(SpsaError::IntegerRange {
                name: d.name.clone(),
                lo: d.lo,
                hi: d.hi,
            });
        }
    }
    Ok(())
}

/// A uniform number in `[0, 1)` from 32 random bits.
fn unit(rng: &mut rand_pcg::Pcg32) -> f64 {
    f64::from(rng.next_u32()) / 4_294_967_296.0
}

/// The value played for a perturbed `x`: clipped, and for an integer parameter rounded
/// stochastically (`floor(x + u)`) and clipped again.
fn played(d: &Dimension, x: f64, u: f64) -> f64 {
    let x = d.clip(x);
    if d.integer {
        d.clip((x + u).floor())
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(name: &str, lo: f64, hi: f64, integer: bool) -> Dimension {
        Dimension {
            name: name.into(),
            lo,
            hi,
            integer,
        }
    }

    #[test]
    fn schedules_follow_the_formulas() {
        let s = SpsaSettings::new(100, 16);
        assert_eq!(s.stability, 10.0);
        let spsa = Spsa::new(vec![dim("x", 0.0, 2.0, false)], vec![1.0], s).unwrap();
        assert!((spsa.c()[0] - 0.2).abs() < 1e-15);
        let a = 0.02 * 2.0 * 2.0 * 0.2 * 11f64.powf(ALPHA) * 4.0;
        assert!((spsa.a()[0] - a).abs() < 1e-12);
        assert!((spsa.c_at(9)[0] - 0.2 / 10f64.powf(GAMMA)).abs() < 1e-15);
        assert!((spsa.a_at(9)[0] - a / 20f64.powf(ALPHA)).abs() < 1e-12);
    }

    #[test]
    fn a_noise_sized_first_result_moves_by_the_step_share() {
        // y = 1/sqrt(M) in the first iteration moves theta by step * width.
        let s = SpsaSettings::new(50, 25);
        let mut spsa = Spsa::new(vec![dim("x", -3.0, 5.0, false)], vec![1.0], s).unwrap();
        let probe = spsa.probe(7);
        let step = spsa.update(&probe, 0.2);
        let moved = step.after[0] - step.before[0];
        assert!(
            (moved.abs() - 0.02 * 8.0).abs() < 1e-12,
            "{moved} for flip {:?}",
            probe.flip
        );
        assert_eq!(moved.signum(), f64::from(probe.flip[0]));
    }

    #[test]
    fn probes_depend_on_seed_and_iteration_only() {
        let s = SpsaSettings::new(10, 4);
        let dims = vec![dim("x", 0.0, 1.0, false), dim("n", 0.0, 10.0, true)];
        let spsa = Spsa::new(dims.clone(), vec![0.5, 5.0], s).unwrap();
        assert_eq!(spsa.probe(3), spsa.clone().probe(3));
        let flips: Vec<Vec<i8>> = (0..64).map(|seed| spsa.probe(seed).flip).collect();
        assert!(flips.iter().any(|f| f[0] == 1) && flips.iter().any(|f| f[0] == -1));
        for seed in 0..64 {
            let p = spsa.probe(seed);
            assert_eq!(p.plus[1].fract(), 0.0, "integers are played");
            assert!((p.plus[1] - (5.0 + f64::from(p.flip[1]))).abs() <= 1.0);
            assert!((p.plus[0] - 0.5 - 0.1 * f64::from(p.flip[0])).abs() < 1e-12);
            assert!((p.minus[0] - 0.5 + 0.1 * f64::from(p.flip[0])).abs() < 1e-12);
        }
    }

    #[test]
    fn stochastic_rounding_is_unbiased() {
        // theta 2.3 perturbed by c = 0.2 * 10 = 2: the played values average 4.3 and 0.3.
        let s = SpsaSettings {
            perturbation: 0.2,
            ..SpsaSettings::new(10, 4)
        };
        let spsa = Spsa::new(vec![dim("n", 0.0, 10.0, true)], vec![2.3], s).unwrap();
        let (mut up, mut n) = (0.0, 0.0);
        for seed in 0..20_000 {
            let p = spsa.probe(seed);
            let hi = if p.flip[0] == 1 {
                p.plus[0]
            } else {
                p.minus[0]
            };
            up += hi;
            n += 1.0;
        }
        assert!((up / n - 4.3).abs() < 0.02, "{}", up / n);
    }

    #[test]
    fn values_stay_in_range() {
        let s = SpsaSettings {
            step: 1.0,
            ..SpsaSettings::new(30, 100)
        };
        let mut spsa = Spsa::new(vec![dim("x", 0.0, 1.0, false)], vec![0.95], s).unwrap();
        for _ in 0..30 {
            let p = spsa.probe(1);
            assert!((0.0..=1.0).contains(&p.plus[0]) && (0.0..=1.0).contains(&p.minus[0]));
            let y = if p.flip[0] == 1 { 1.0 } else { -1.0 };
            spsa.update(&p, y);
            assert!((0.0..=1.0).contains(&spsa.theta()[0]));
        }
        assert_eq!(spsa.theta()[0], 1.0);
        assert!(spsa.is_done());
    }

    /// A noisy concave objective: the match of two points is a mean of `m` ±1 results whose
    /// expectation is `f(plus) - f(minus)`.
    fn noisy_match(rng: &mut rand_pcg::Pcg32, plus: &[f64], minus: &[f64], m: u32) -> f64 {
        let f = |t: &[f64]| -0.5 * ((t[0] - 1.3).powi(2) + ((t[1] - 6.0) / 4.0).powi(2));
        let p = (0.5 + 0.5 * (f(plus) - f(minus))).clamp(0.0, 1.0);
        let wins = (0..m).filter(|_| unit(rng) < p).count() as f64;
        (2.0 * wins - f64::from(m)) / f64::from(m)
    }

    #[test]
    fn converges_on_a_noisy_quadratic() {
        let dims = vec![dim("x", 0.0, 3.0, false), dim("n", 0.0, 20.0, true)];
        let mut ends = Vec::new();
        for seed in 0..8 {
            let s = SpsaSettings::new(1500, 64);
            let mut spsa = Spsa::new(dims.clone(), vec![0.3, 15.0], s).unwrap();
            let mut rng = aeroplane_core::stream(seed, 0, 1);
            while !spsa.is_done() {
                let p = spsa.probe(seed);
                let y = noisy_match(&mut rng, &p.plus, &p.minus, 64);
                spsa.update(&p, y);
            }
            ends.push(spsa.tuned());
        }
        for t in &ends {
            assert!((t[0] - 1.3).abs() < 0.25, "{ends:?}");
            assert!((t[1] - 6.0).abs() <= 2.0, "{ends:?}");
        }
    }

    #[test]
    fn bad_settings_and_ranges_are_named() {
        let s = SpsaSettings::new(10, 4);
        let e = |dims: Vec<Dimension>, start: Vec<f64>| {
            Spsa::new(dims, start, s).unwrap_err().to_string()
        };
        assert!(e(vec![], vec![]).contains("nothing to tune"));
        assert!(
            e(vec![dim("x", 1.0, 1.0, false)], vec![1.0]).contains("`x`: the range 1..1 is empty")
        );
        assert!(e(vec![dim("x", 2.0, 1.0, false)], vec![1.0]).contains("is inverted"));
        assert!(e(vec![dim("x", f64::NAN, 1.0, false)], vec![1.0]).contains("finite"));
        assert!(e(vec![dim("d", 0.5, 3.0, true)], vec![1.0]).contains("integer ends"));
        assert!(e(vec![dim("x", 0.0, 1.0, false)], vec![2.0]).contains("starting value 2"));
        assert!(
            e(
                vec![dim("x", 0.0, 1.0, false), dim("x", 0.0, 2.0, false)],
                vec![0.5, 0.5]
            )
            .contains("given twice")
        );
        let zero = SpsaSettings::new(0, 4).check().unwrap_err().to_string();
        assert!(zero.contains("bad iterations 0"), "{zero}");
        let alpha = SpsaSettings {
            alpha: f64::INFINITY,
            ..s
        };
        assert!(alpha.check().unwrap_err().to_string().contains("alpha"));
    }
}

//! `exp` and `ln` of `f32` that give the same bits in the browser as in the harness on its
//! reference platform (x86-64 Linux, glibc 2.28 or newer, a CPU with FMA and AVX2).
//!
//! The bots call [`exp`] (softmax temperatures, the net's output softmax) and [`ln`] (UCT's
//! exploration term). Natively they are the standard library's `f32::exp` and `f32::ln`, which
//! call the platform's C library, so native results (and every digest) are what they always
//! were. On `wasm32` the standard library's come from a port of FreeBSD's `msun`, whose last
//! bit differs from glibc's for many inputs; a td bot's move values (written in the decision
//! log) and, rarely, a search bot's choice would then differ between the page and
//! `aeroplane run`. So on `wasm32` they are [`glibc_expf`] and [`glibc_logf`]: glibc's
//! `expf` and `logf` (the algorithms of Arm's optimized-routines, in `f64` with tables) as
//! glibc's x86-64 build runs them on a CPU with FMA (`__expf_fma`, `__logf_fma`: the same C
//! compiled with `-mfma`, where the compiler fuses five multiply-adds; each is
//! [`f64::mul_add`] here, which rounds once as the hardware does). The tests check them
//! against the platform's functions where that platform is the reference.
//!
//! Provenance: the algorithms, polynomial coefficients and tables are those of Arm's
//! optimized-routines (`math/expf.c`, `math/logf.c`, published under MIT OR Apache-2.0 WITH
//! LLVM-exception), which glibc took over unchanged; they are written here anew in Rust, the
//! coefficients and table entries as the bit patterns of their `f64` values.

/// `e^x`: natively the platform's `expf`, on `wasm32` [`glibc_expf`].
#[inline]
pub fn exp(x: f32) -> f32 {
    #[cfg(target_arch = "wasm32")]
    {
        glibc_expf(x)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        x.exp()
    }
}

/// The natural logarithm: natively the platform's `logf`, on `wasm32` [`glibc_logf`].
#[inline]
pub fn ln(x: f32) -> f32 {
    #[cfg(target_arch = "wasm32")]
    {
        glibc_logf(x)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        x.ln()
    }
}

/// `__exp2f_data.tab`: `2^(i/32)` with the index bits taken out of the exponent field.
const EXP2F_TAB: [u64; 32] = [
    0x3ff0000000000000,
    0x3fefd9b0d3158574,
    0x3fefb5586cf9890f,
    0x3fef9301d0125b51,
    0x3fef72b83c7d517b,
    0x3fef54873168b9aa,
    0x3fef387a6e756238,
    0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715,
    0x3feef1a7373aa9cb,
    0x3feedea64c123422,
    0x3feece086061892d,
    0x3feebfdad5362a27,
    0x3feeb42b569d4f82,
    0x3feeab07dd485429,
    0x3feea47eb03a5585,
    0x3feea09e667f3bcd,
    0x3fee9f75e8ec5f74,
    0x3feea11473eb0187,
    0x3feea589994cce13,
    0x3feeace5422aa0db,
    0x3feeb737b0cdc5e5,
    0x3feec49182a3f090,
    0x3feed503b23e255d,
    0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47,
    0x3fef199bdd85529c,
    0x3fef3720dcef9069,
    0x3fef5818dcfba487,
    0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da,
    0x3fefd0765b6e4540,
];

/// glibc's `expf` (`sysdeps/ieee754/flt-32/e_expf.c`) as its x86-64 FMA build computes it:
/// `x * 32 / ln 2 = k + r`, `e^x = 2^(k/32) * 2^(r/32)`, the second factor a cubic in `r`.
pub fn glibc_expf(x: f32) -> f32 {
    const INV_LN2_N: f64 = f64::from_bits(0x40471547652b82fe); // 32 / ln 2
    const SHIFT: f64 = f64::from_bits(0x4338000000000000); // 0x1.8p52
    const C0: f64 = f64::from_bits(0x3ebc6af84b912394);
    const C1: f64 = f64::from_bits(0x3f2ebfce50fac4f3);
    const C2: f64 = f64::from_bits(0x3f962e42ff0c52d6);
    let bits = x.to_bits();
    let abstop = (bits >> 20) & 0x7ff;
    if abstop >= 0x42b {
        // |x| >= 88, or x is not finite.
        if bits == f32::NEG_INFINITY.to_bits() {
            return 0.0;
        }
        if abstop >= 0x7f8 {
            return x + x;
        }
        if x > f32::from_bits(0x42b17217) {
            // Above ln(0x1p128): overflow.
            return f32::INFINITY;
        }
        if x < f32::from_bits(0xc2cff1b4) {
            // Below ln(0x1p-150): underflow.
            return 0.0;
        }
        if x < f32::from_bits(0xc2ce8ecf) {
            // Below ln(0x1p-149): `__math_may_uflowf`, 0x1.4p-75f squared.
            return f32::from_bits(1);
        }
    }
    let xd = f64::from(x);
    let kd_shifted = INV_LN2_N.mul_add(xd, SHIFT);
    let ki = kd_shifted.to_bits();
    let kd = kd_shifted - SHIFT;
    let r = INV_LN2_N.mul_add(xd, -kd);
    let t = EXP2F_TAB[(ki & 31) as usize].wrapping_add(ki << 47);
    let s = f64::from_bits(t);
    let z = r.mul_add(C0, C1);
    let r2 = r * r;
    let y = r.mul_add(C2, 1.0);
    let y = z.mul_add(r2, y);
    (y * s) as f32
}

/// `__logf_data.tab`: `(1/c, ln c)` for the 16 subintervals of `[0x1.6p-1, 0x1.6p0)`.
const LOGF_TAB: [(u64, u64); 16] = [
    (0x3ff661ec79f8f3be, 0xbfd57bf7808caade),
    (0x3ff571ed4aaf883d, 0xbfd2bef0a7c06ddb),
    (0x3ff49539f0f010b0, 0xbfd01eae7f513a67),
    (0x3ff3c995b0b80385, 0xbfcb31d8a68224e9),
    (0x3ff30d190c8864a5, 0xbfc6574f0ac07758),
    (0x3ff25e227b0b8ea0, 0xbfc1aa2bc79c8100),
    (0x3ff1bb4a4a1a343f, 0xbfba4e76ce8c0e5e),
    (0x3ff12358f08ae5ba, 0xbfb1973c5a611ccc),
    (0x3ff0953f419900a7, 0xbfa252f438e10c1e),
    (0x3ff0000000000000, 0x0000000000000000),
    (0x3fee608cfd9a47ac, 0x3faaa5aa5df25984),
    (0x3feca4b31f026aa0, 0x3fbc5e53aa362eb4),
    (0x3feb2036576afce6, 0x3fc526e57720db08),
    (0x3fe9c2d163a1aa2d, 0x3fcbc2860d224770),
    (0x3fe886e6037841ed, 0x3fd1058bc8a07ee1),
    (0x3fe767dcf5534862, 0x3fd4043057b6ee09),
];

/// glibc's `logf` (`sysdeps/ieee754/flt-32/e_logf.c`) as its x86-64 FMA build computes it:
/// `x = 2^k z`, `ln x = k ln 2 + ln c + ln(z/c)`, the last a polynomial in `r = z/c - 1`.
pub fn glibc_logf(x: f32) -> f32 {
    const LN2: f64 = f64::from_bits(0x3fe62e42fefa39ef);
    const A0: f64 = f64::from_bits(0xbfd00ea348b88334);
    const A1: f64 = f64::from_bits(0x3fd5575b0be00b6a);
    const A2: f64 = f64::from_bits(0xbfdffffef20a4123);
    const OFF: u32 = 0x3f330000;
    let mut ix = x.to_bits();
    if ix == 0x3f800000 {
        return 0.0;
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // x < 0x1p-126, or x is not finite.
        if ix.wrapping_mul(2) == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7f80_0000 {
            return x;
        }
        if (ix & 0x8000_0000) != 0 || ix.wrapping_mul(2) >= 0xff00_0000 {
            // A negative number or a NaN: NaN (glibc's `(x - x) / (x - x)`).
            return if x.is_nan() { x + x } else { f32::NAN };
        }
        // A subnormal: normalise it.
        ix = (x * f32::from_bits(0x4b00_0000)).to_bits();
        ix = ix.wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> 19) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & 0xff80_0000);
    let (invc, logc) = (f64::from_bits(LOGF_TAB[i].0), f64::from_bits(LOGF_TAB[i].1));
    let z = f64::from(f32::from_bits(iz));
    let r = z.mul_add(invc, -1.0);
    let y0 = f64::from(k).mul_add(LN2, logc);
    let r2 = r * r;
    let y = r.mul_add(A1, A2);
    let y = r2.mul_add(A0, y);
    let y = r2.mul_add(y, r + y0);
    y as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs spread over every exponent and sign: `2^32 / STRIDE` bit patterns, and every
    /// pattern near the special cases' bounds.
    fn inputs() -> impl Iterator<Item = f32> {
        const STRIDE: u64 = 4093;
        let spread = (0..(1u64 << 32) / STRIDE).map(|i| (i * STRIDE) as u32);
        let bounds = [
            0x42b17217u32,
            0xc2cff1b4,
            0xc2ce8ecf,
            0x3f800000,
            0x0080_0000,
            0x42b00000,
        ]
        .into_iter()
        .flat_map(|b| b - 64..b + 64);
        spread.chain(bounds).map(f32::from_bits)
    }

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn exact_values() {
        assert_eq!(glibc_expf(0.0), 1.0);
        assert_eq!(glibc_expf(f32::NEG_INFINITY), 0.0);
        assert_eq!(glibc_expf(f32::INFINITY), f32::INFINITY);
        assert_eq!(glibc_expf(100.0), f32::INFINITY);
        assert_eq!(glibc_expf(-200.0), 0.0);
        assert!(glibc_expf(f32::NAN).is_nan());
        assert_eq!(glibc_logf(1.0), 0.0);
        assert_eq!(glibc_logf(0.0), f32::NEG_INFINITY);
        assert_eq!(glibc_logf(f32::INFINITY), f32::INFINITY);
        assert!(glibc_logf(-1.0).is_nan());
        assert_eq!(glibc_logf(2.0), std::f32::consts::LN_2);
        assert_eq!(glibc_expf(1.0), std::f32::consts::E);
        assert_eq!(glibc_logf(f32::from_bits(1)), -103.27893);
    }

    #[test]
    fn within_an_ulp_of_the_f64_functions() {
        for x in inputs() {
            let near = |got: f32, want: f64| {
                let w = want as f32;
                same(got, w) || (got.to_bits() as i64 - w.to_bits() as i64).abs() <= 1
            };
            if x.is_finite() {
                assert!(near(glibc_expf(x), f64::from(x).exp()), "exp {x:e}");
            }
            if x > 0.0 && x.is_finite() {
                assert!(near(glibc_logf(x), f64::from(x).ln()), "ln {x:e}");
            }
        }
    }

    /// On the reference platform the port is the C library's function, bit for bit (glibc
    /// picks its FMA build when the CPU has FMA and AVX2).
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_port_is_glibc_on_the_reference_platform() {
        if !(std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("avx2"))
        {
            eprintln!("not the reference platform: glibc runs its build without FMA here");
            return;
        }
        for x in inputs() {
            assert!(
                same(glibc_expf(x), x.exp()),
                "exp {x:e} ({:#x})",
                x.to_bits()
            );
            assert!(same(glibc_logf(x), x.ln()), "ln {x:e} ({:#x})", x.to_bits());
        }
    }
}

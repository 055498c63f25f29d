//! The bit set of reachable chance nodes, and the zeroed value array the sweeps and a loaded
//! table's lookups read.

/// A set of chance nodes, one bit each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bits {
    words: Vec<u64>,
}

impl Bits {
    pub(crate) fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
        }
    }
    pub(crate) fn from_words(words: Vec<u64>) -> Bits {
        Bits { words }
    }
    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words[i >> 6] & (1 << (i & 63)) != 0
    }
    #[inline]
    pub(crate) fn set(&mut self, i: usize) {
        self.words[i >> 6] |= 1 << (i & 63);
    }
    pub(crate) fn count(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }
}

/// `n` zeros, in memory the kernel is asked to back with huge pages (Linux): the sweeps read
/// values all over it, and 4 KiB pages would cost a TLB miss on most reads.
pub(crate) fn zeroed(n: usize) -> Vec<f64> {
    let v = vec![0.0f64; n];
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + n * std::mem::size_of::<f64>();
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: advice on whole pages inside the vector's own allocation; it changes how
            // the kernel backs them, never their contents (they are zeros either way).
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    v
}

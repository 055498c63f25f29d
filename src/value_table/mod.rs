//! The value table's format, below the bots and the solving job that both use it: how chance
//! nodes are numbered ([`space`]), the file `table.bin` and its lookups ([`table`]), the bit set
//! of reachable nodes and the checksum. The `exact` bot reads a table through it; the job that
//! computes one (`crate::solve`) writes it.

mod bits;
pub mod space;
pub mod table;

pub(crate) use bits::{Bits, zeroed};
pub use space::{Size, Space};
pub use table::{
    CHECKPOINT_FILE, MAGIC, PartialSweep, PositionValue, TABLE_FILE, TABLE_FORMAT, Table,
    TableError, TableHeader, VALUE_MEANING,
};

/// FNV-1a 64 over the bytes taken eight at a time as little-endian words (the last one padded
/// with zeros): the checksum of table files.
pub fn fnv1a_words(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(last)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

//! Dice lists from a stream (a file, standard input): read in pieces by the core's
//! [`DiceParser`], so an endless or huge source is refused in bounded memory.

use std::io::Read;

use aeroplane_core::{DiceError, DiceParser};

/// Reads a dice list (die faces separated by commas and/or white space) from `reader`, holding
/// no more than the rolls: a bad token is refused after at most 32 bytes, a list at
/// [`aeroplane_core::MAX_DICE_ROLLS`] rolls.
pub fn read_dice(mut reader: impl Read) -> Result<Vec<u8>, DiceError> {
    let mut parser = DiceParser::default();
    let mut buf = [0u8; 8192];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(DiceError::Read(e.to_string())),
        };
        parser.push(&buf[..n])?;
    }
    parser.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_streams_stop_early() {
        let e = read_dice(std::io::repeat(0)).unwrap_err();
        assert!(e.to_string().contains("at position 1"), "{e}");
        let e = read_dice(std::io::repeat(b'6')).unwrap_err();
        assert!(matches!(e, DiceError::BadValue { position: 1, .. }));
        assert_eq!(read_dice(&b"6 3,\n2"[..]).unwrap(), [6, 3, 2]);
    }
}

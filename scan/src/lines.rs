//! Finding the n-th line break of a text from either end, 16 bytes at a time (what the records
//! of long tool results and arguments are cut at).

use crate::find::line_breaks16;

/// How many line breaks the 16 bytes of `part` hold.
fn count(part: &[u8]) -> usize {
    let mut lanes = [0u8; 16];
    lanes.copy_from_slice(part);
    line_breaks16(&lanes).count_ones() as usize
}

/// The index of the `n`-th line break (`n` from 0) in `bytes`, if there are that many.
pub fn nth_line_break(bytes: &[u8], mut n: usize) -> Option<usize> {
    let mut pos = 0;
    while let Some(part) = bytes.get(pos..pos + 16) {
        let count = count(part);
        if count > n {
            break;
        }
        n -= count;
        pos += 16;
    }
    let rest = bytes.get(pos..)?;
    let (i, _) = rest
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(n)?;
    Some(pos + i)
}

/// The index of the `n`-th line break from the end (`n` from 0) in `bytes`, if there are that
/// many.
pub fn nth_line_break_back(bytes: &[u8], mut n: usize) -> Option<usize> {
    let mut end = bytes.len();
    while let Some(part) = end.checked_sub(16).and_then(|start| bytes.get(start..end)) {
        let count = count(part);
        if count > n {
            break;
        }
        n -= count;
        end -= 16;
    }
    let rest = bytes.get(..end)?;
    let (i, _) = rest
        .iter()
        .enumerate()
        .rev()
        .filter(|&(_, &b)| b == b'\n')
        .nth(n)?;
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8], n: usize) -> Option<usize> {
        bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(n)
            .map(|(i, _)| i)
    }

    fn naive_back(bytes: &[u8], n: usize) -> Option<usize> {
        let (i, _) = bytes
            .iter()
            .enumerate()
            .rev()
            .filter(|&(_, &b)| b == b'\n')
            .nth(n)?;
        Some(i)
    }

    #[test]
    fn finds_breaks_among_bytes_next_to_them() {
        // Bytes one away from a line break (0x0b, 0x09, 0x8a) and high bytes around it.
        let text = b"\x0b\n\x09\x8a\n\xff\x0a\x80\x0a\x0a\x8a\x0b\xfe\n\x00\x7f\n";
        for n in 0..8 {
            assert_eq!(nth_line_break(text, n), naive(text, n), "{n}");
            assert_eq!(nth_line_break_back(text, n), naive_back(text, n), "{n}");
        }
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_counting_byte_by_byte(
            bytes in proptest::collection::vec(proptest::sample::select(vec![b'\n', b'a', 0x0b, 0x8a, 0xff, 0x09, 0]), 0..80),
            n in 0..30usize,
        ) {
            proptest::prop_assert_eq!(nth_line_break(&bytes, n), naive(&bytes, n));
            proptest::prop_assert_eq!(nth_line_break_back(&bytes, n), naive_back(&bytes, n));
        }
    }
}

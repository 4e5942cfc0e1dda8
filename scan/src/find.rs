//! Finding the next byte of interest in a string's text, 16 bytes at a time where there is SIMD
//! (wasm32 `simd128`, x86_64 SSE2) and 8 at a time (SWAR) elsewhere.

/// The index of the first byte at or after `pos` that ends a run of plain string content: a
/// quote, a backslash or a control byte (below 0x20); `bytes.len()` when there is none.
pub(crate) fn string_stop(bytes: &[u8], pos: usize) -> usize {
    first(bytes, pos, true)
}

/// Bit `i` is set when byte `i` of `chunk` ends a run of plain string content (as for
/// [`string_stop`]).
pub(crate) fn stops16(chunk: &[u8; 16]) -> u32 {
    mask16(chunk, true)
}

/// Moves over string content from `pos` (not inside an escape sequence) 64 bytes at a time, as
/// long as it is plain text and one-letter escapes: returns the index of the first unescaped
/// quote, control byte or backslash of another escape (`\u`, a bad one, or one whose escaped
/// byte is in the next block), or where the last whole block ends.
pub(crate) fn skip_escaped(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(part) = bytes.get(pos..pos + 64) {
        let mut chunk = [0u8; 64];
        chunk.copy_from_slice(part);
        // The four masks in one pass over the block (each byte loaded once).
        let mut masks = [0u64; 4];
        for (k, part) in chunk.chunks_exact(16).enumerate() {
            let mut quarter = [0u8; 16];
            quarter.copy_from_slice(part);
            for (mask, lane) in masks.iter_mut().zip(escape_lanes(&quarter)) {
                *mask |= u64::from(lane) << (16 * k);
            }
        }
        let [backslashes, quotes, controls, common] = masks;
        let (starts, escaped) = escapes(backslashes, &mut false);
        // What an escape may not escape: a control byte; and what is checked one at a time
        // (escapes are sparse once `\\` and `\"` are left out): `/` and the letters of
        // one-letter escapes go on, anything else (`\u`) stops at its backslash. An escape
        // whose escaped byte is in the next block stops at its backslash too.
        let mut other = ((escaped & controls) >> 1) | (starts & (1 << 63));
        // `\n` and `\t` (common: one or two in every line of code) are left out with masks
        // rather than checked one at a time.
        let mut rest = escaped & !backslashes & !quotes & !controls & !common;
        while rest != 0 {
            let at = rest.trailing_zeros();
            if !matches!(
                chunk.get(at as usize),
                Some(b'/' | b'b' | b'f' | b'n' | b'r' | b't')
            ) {
                other |= 1 << at.saturating_sub(1);
                break;
            }
            rest &= rest - 1;
        }
        let stop = ((quotes | controls) & !escaped) | other;
        if stop != 0 {
            return pos + stop.trailing_zeros() as usize;
        }
        pos += 64;
    }
    pos
}

/// Whether a JSON string's escaped text has a `\u` or `\/` escape (which `serde_json` writes
/// otherwise), 64 bytes at a time: the escapes are found without a loop, and the bytes they
/// escape checked all at once.
pub fn rewritten_escape(raw: &[u8]) -> bool {
    let mut split = false;
    let mut blocks = raw.chunks(64);
    blocks.any(|part| {
        let mut chunk = [0u8; 64];
        chunk
            .get_mut(..part.len())
            .unwrap_or_default()
            .copy_from_slice(part);
        let backslashes = mask64(&chunk, backslashes16);
        if backslashes == 0 && !split {
            return false;
        }
        let (_, escaped) = escapes(backslashes, &mut split);
        let rewritten = mask64(&chunk, |lanes| equal16(lanes, b'u') | equal16(lanes, b'/'));
        escaped & rewritten != 0
    })
}

/// The 64-bit mask of a block from the 16-bit masks `lanes` gives of its quarters.
pub(crate) fn mask64(chunk: &[u8; 64], lanes: fn(&[u8; 16]) -> u32) -> u64 {
    let mut mask = 0;
    for (k, part) in chunk.chunks_exact(16).enumerate() {
        let mut quarter = [0u8; 16];
        quarter.copy_from_slice(part);
        mask |= u64::from(lanes(&quarter)) << (16 * k);
    }
    mask
}

/// Bit `i` is set when byte `i` of `chunk` is `byte`.
#[inline(always)]
pub(crate) fn equal64(chunk: &[u8; 64], byte: u8) -> u64 {
    let mut mask = 0;
    for (k, part) in chunk.chunks_exact(16).enumerate() {
        let mut quarter = [0u8; 16];
        quarter.copy_from_slice(part);
        mask |= u64::from(equal16(&quarter, byte)) << (16 * k);
    }
    mask
}

/// Bit `i` is set when byte `i` of `chunk` is a quote.
pub(crate) fn quotes16(chunk: &[u8; 16]) -> u32 {
    equal16(chunk, b'"')
}

/// Bit `i` is set when byte `i` of `chunk` is a line break.
pub(crate) fn line_breaks16(chunk: &[u8; 16]) -> u32 {
    equal16(chunk, b'\n')
}

/// Bit `i` is set when byte `i` of `chunk` is a backslash.
pub(crate) fn backslashes16(chunk: &[u8; 16]) -> u32 {
    mask16(chunk, false)
}

/// The index of the first backslash at or after `pos`; `bytes.len()` when there is none.
pub fn backslash(bytes: &[u8], pos: usize) -> usize {
    first(bytes, pos, false)
}

fn first(bytes: &[u8], mut pos: usize, stops: bool) -> usize {
    while let Some(chunk) = bytes.get(pos..pos + 16) {
        let mut lanes = [0u8; 16];
        lanes.copy_from_slice(chunk);
        let mask = mask16(&lanes, stops);
        if mask != 0 {
            return pos + mask.trailing_zeros() as usize;
        }
        pos += 16;
    }
    let is_stop = |b: &u8| *b == b'\\' || (stops && (*b == b'"' || *b < 0x20));
    bytes
        .get(pos..)
        .and_then(|rest| rest.iter().position(is_stop))
        .map_or(bytes.len(), |k| pos + k)
}

/// Bit `i` is set when byte `i` is a backslash (or, with `stops`, a quote or a control byte).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn mask16(lanes: &[u8; 16], stops: bool) -> u32 {
    use core::arch::wasm32::*;
    // SAFETY: `lanes` is 16 readable bytes; v128_load has no alignment requirement.
    let v = unsafe { v128_load(lanes.as_ptr().cast()) };
    let mut hit = u8x16_eq(v, u8x16_splat(b'\\'));
    if stops {
        hit = v128_or(hit, u8x16_eq(v, u8x16_splat(b'"')));
        hit = v128_or(hit, u8x16_lt(v, u8x16_splat(0x20)));
    }
    u8x16_bitmask(hit) as u32
}

/// What [`skip_escaped`] reads of 16 bytes, one bit a byte: backslashes, quotes, control bytes
/// (below 0x20), and the letters `n` and `t` (of the common escapes).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn escape_lanes(lanes: &[u8; 16]) -> [u32; 4] {
    use core::arch::wasm32::*;
    // SAFETY: `lanes` is 16 readable bytes; v128_load has no alignment requirement.
    let v = unsafe { v128_load(lanes.as_ptr().cast()) };
    let is = |byte: u8| u8x16_eq(v, u8x16_splat(byte));
    let controls = u8x16_lt(v, u8x16_splat(0x20));
    let bits = |x: v128| u32::from(u8x16_bitmask(x));
    [
        bits(is(b'\\')),
        bits(is(b'"')),
        bits(controls),
        bits(v128_or(is(b'n'), is(b't'))),
    ]
}

#[cfg(target_arch = "x86_64")]
fn escape_lanes(lanes: &[u8; 16]) -> [u32; 4] {
    use core::arch::x86_64::*;
    // SAFETY: as in `mask16`.
    unsafe {
        let v = _mm_loadu_si128(lanes.as_ptr().cast());
        let is = |byte: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8));
        let controls = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
        let bits = |x: __m128i| _mm_movemask_epi8(x) as u32;
        [
            bits(is(b'\\')),
            bits(is(b'"')),
            bits(controls),
            bits(_mm_or_si128(is(b'n'), is(b't'))),
        ]
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
fn escape_lanes(lanes: &[u8; 16]) -> [u32; 4] {
    let mut masks = [0u32; 4];
    for (i, &b) in lanes.iter().enumerate() {
        let classes = [b == b'\\', b == b'"', b < 0x20, b == b'n' || b == b't'];
        for (mask, yes) in masks.iter_mut().zip(classes) {
            *mask |= u32::from(yes) << i;
        }
    }
    masks
}

/// Bit `i` is set when byte `i` is `byte`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn equal16(lanes: &[u8; 16], byte: u8) -> u32 {
    use core::arch::wasm32::*;
    // SAFETY: `lanes` is 16 readable bytes; v128_load has no alignment requirement.
    let v = unsafe { v128_load(lanes.as_ptr().cast()) };
    u8x16_bitmask(u8x16_eq(v, u8x16_splat(byte))) as u32
}

#[cfg(target_arch = "x86_64")]
fn equal16(lanes: &[u8; 16], byte: u8) -> u32 {
    use core::arch::x86_64::*;
    // SAFETY: as in `mask16`.
    unsafe {
        let v = _mm_loadu_si128(lanes.as_ptr().cast());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))) as u32
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
fn equal16(lanes: &[u8; 16], byte: u8) -> u32 {
    let mut mask = 0;
    for (i, &b) in lanes.iter().enumerate() {
        if b == byte {
            mask |= 1 << i;
        }
    }
    mask
}

#[cfg(target_arch = "x86_64")]
fn mask16(lanes: &[u8; 16], stops: bool) -> u32 {
    use core::arch::x86_64::*;
    // SAFETY: `lanes` is 16 readable bytes; loadu has no alignment requirement, and SSE2 is
    // part of every x86_64 target.
    unsafe {
        let v = _mm_loadu_si128(lanes.as_ptr().cast());
        let mut hit = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        if stops {
            hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)));
            // Unsigned v < 0x20, as min(v, 0x1F) == v.
            let low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
            hit = _mm_or_si128(hit, low);
        }
        _mm_movemask_epi8(hit) as u32
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
fn mask16(lanes: &[u8; 16], stops: bool) -> u32 {
    let mut mask = 0;
    for (i, &b) in lanes.iter().enumerate() {
        if b == b'\\' || (stops && (b == b'"' || b < 0x20)) {
            mask |= 1 << i;
        }
    }
    mask
}

/// The backslashes of a block that start an escape, and the bytes they escape, from the mask
/// of its `backslashes`: a run of them escapes every second one, and the byte after the run
/// when it is odd. `split` says a backslash ending the block before escapes this block's first
/// byte, and is set when this block's last one escapes the next. Without a loop: subtracting
/// the run starts at even bits from the bits one up carries through each run and leaves the
/// bits after its odd positions (as simdjson finds escaped quotes).
pub(crate) fn escapes(backslashes: u64, split: &mut bool) -> (u64, u64) {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let carried = u64::from(*split);
    let potential = backslashes & !carried;
    let codes = (((potential << 1) | ODD).wrapping_sub(potential)) ^ ODD;
    let escaped = codes ^ (backslashes | carried);
    let starts = codes & backslashes;
    *split = starts >> 63 != 0;
    (starts, escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_stop_anywhere() {
        for len in 0..40 {
            for at in 0..len {
                for stop in [b'"', b'\\', 0x01, 0x1F] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = stop;
                    if let Some(b) = bytes.get_mut(at + 1) {
                        *b = b'"';
                    }
                    assert_eq!(string_stop(&bytes, 0), at);
                    assert_eq!(string_stop(&bytes, at + 1), (at + 1).min(len));
                    let want = if stop == b'\\' { at } else { len };
                    assert_eq!(backslash(&bytes, 0), want);
                }
            }
            assert_eq!(string_stop(&vec![0xE9u8; len], 0), len);
            assert_eq!(string_stop(&vec![b' '; len], len), len);
        }
    }

    /// The definition: escapes walked one at a time.
    fn rewritten_one_by_one(raw: &[u8]) -> bool {
        let mut pos = 0;
        loop {
            let at = backslash(raw, pos);
            match raw.get(at + 1) {
                None => return false,
                Some(b'u' | b'/') => return true,
                Some(_) => pos = at + 2,
            }
        }
    }

    proptest::proptest! {
        /// Escaped texts a few blocks long, with runs of backslashes across block boundaries.
        #[test]
        fn rewritten_escapes_are_found_as_one_at_a_time(parts in proptest::collection::vec(
            proptest::prop_oneof![
                8 => "[a-z/u ]{1,30}", 4 => r#"\\[nt"\\bfr]"#, 1 => r"\\u00e9", 1 => r"\\/",
                2 => r"(\\\\){1,40}",
            ],
            0..40,
        )) {
            let raw = parts.concat();
            proptest::prop_assert_eq!(
                rewritten_escape(raw.as_bytes()),
                rewritten_one_by_one(raw.as_bytes()),
                "{}", raw
            );
        }
    }
}

//! Classifying 64 bytes into one bit mask per byte class: with SIMD on wasm32 (`simd128`) and
//! x86_64 (SSE2, always there), one byte at a time elsewhere.

/// Bit `i` of each mask says whether byte `i` of the block is of that class.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Masks {
    pub lower: u64,
    pub upper: u64,
    pub digits: u64,
    /// A space or a tab.
    pub space: u64,
    pub newline: u64,
    /// Printable ASCII that is not a letter, digit or space.
    pub punctuation: u64,
    /// The first byte of a non-ASCII UTF-8 character.
    pub lead: u64,
    /// The first byte of a character of three or four UTF-8 bytes (CJK, kana, Hangul, most
    /// symbols; emoji).
    pub lead3: u64,
    /// The first byte of a character of four UTF-8 bytes (most emoji).
    pub lead4: u64,
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    use core::arch::wasm32::*;
    let mut m = Masks::default();
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        let mut lanes = [0u8; 16];
        lanes.copy_from_slice(chunk);
        // SAFETY: `lanes` is 16 readable bytes; v128_load has no alignment requirement.
        let v = unsafe { v128_load(lanes.as_ptr().cast()) };
        // Unsigned `v - low < count` as a signed comparison of `v - low + 0x80`: V8 compiles
        // `i8x16.lt_s` to one instruction, `i8x16.lt_u` to several. (A range starting at 0 or
        // ending at 0xFF, a single bound, LLVM turns back into one unsigned comparison.)
        let within = |low: u8, count: u8| {
            let shifted = u8x16_add(v, u8x16_splat(0x80u8.wrapping_sub(low)));
            i8x16_lt(shifted, i8x16_splat((count ^ 0x80) as i8))
        };
        let is = |byte: u8| u8x16_eq(v, u8x16_splat(byte));
        let shift = 16 * k as u32;
        let bits = |x: v128| (u8x16_bitmask(x) as u64) << shift;
        m.lower |= bits(within(b'a', 26));
        m.upper |= bits(within(b'A', 26));
        m.digits |= bits(within(b'0', 10));
        m.space |= bits(v128_or(is(b' '), is(b'\t')));
        m.newline |= bits(is(b'\n'));
        // Printable for now: letters and digits are taken out below, on the whole masks.
        m.punctuation |= bits(within(0x21, 0x7E - 0x21 + 1));
        let lead = bits(u8x16_ge(v, u8x16_splat(0xC0)));
        m.lead |= lead;
        // Most text is ASCII: the lengths of characters beyond it only where there are some.
        if lead != 0 {
            m.lead3 |= bits(u8x16_ge(v, u8x16_splat(0xE0)));
            m.lead4 |= bits(u8x16_ge(v, u8x16_splat(0xF0)));
        }
    }
    m.punctuation &= !(m.lower | m.upper | m.digits);
    m
}

#[cfg(target_arch = "x86_64")]
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    use core::arch::x86_64::*;
    let mut m = Masks::default();
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: `chunk` is 16 readable bytes; loadu has no alignment requirement, and SSE2
        // is part of every x86_64 target.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            // Unsigned `v - low < count`, as `min(v - low, count - 1) == v - low`.
            let within = |low: u8, count: u8| {
                let d = _mm_sub_epi8(v, _mm_set1_epi8(low as i8));
                _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8((count - 1) as i8)), d)
            };
            let is = |byte: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8));
            let lower = within(b'a', 26);
            let upper = within(b'A', 26);
            let digits = within(b'0', 10);
            let alnum = _mm_or_si128(_mm_or_si128(lower, upper), digits);
            let printable = within(0x21, 0x7E - 0x21 + 1);
            // Unsigned `v >= low`, as `max(v, low) == v`.
            let at_least = |low: u8| _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(low as i8)), v);
            let shift = 16 * k as u32;
            let bits = |x: __m128i| (_mm_movemask_epi8(x) as u16 as u64) << shift;
            m.lower |= bits(lower);
            m.upper |= bits(upper);
            m.digits |= bits(digits);
            m.space |= bits(_mm_or_si128(is(b' '), is(b'\t')));
            m.newline |= bits(is(b'\n'));
            m.punctuation |= bits(_mm_andnot_si128(alnum, printable));
            let lead = bits(at_least(0xC0));
            m.lead |= lead;
            // Most text is ASCII: the lengths of characters beyond it only where there are some.
            if lead != 0 {
                m.lead3 |= bits(at_least(0xE0));
                m.lead4 |= bits(at_least(0xF0));
            }
        }
    }
    m
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    portable(block)
}

/// One byte at a time; also what the SIMD versions are tested against.
#[cfg_attr(
    any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    allow(dead_code)
)]
pub(super) fn portable(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        let set = |mask: &mut u64, yes: bool| *mask |= if yes { bit } else { 0 };
        set(&mut m.lower, b.is_ascii_lowercase());
        set(&mut m.upper, b.is_ascii_uppercase());
        set(&mut m.digits, b.is_ascii_digit());
        set(&mut m.space, b == b' ' || b == b'\t');
        set(&mut m.newline, b == b'\n');
        set(
            &mut m.punctuation,
            b.is_ascii_graphic() && !b.is_ascii_alphanumeric(),
        );
        set(&mut m.lead, b >= 0xC0);
        set(&mut m.lead3, b >= 0xE0);
        set(&mut m.lead4, b >= 0xF0);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simd_classes_equal_the_portable_ones() {
        let mut block = [0u8; 64];
        for start in (0..256).step_by(64) {
            for (i, b) in block.iter_mut().enumerate() {
                *b = (start + i) as u8;
            }
            assert_eq!(classify(&block), portable(&block), "bytes {start}..");
        }
    }
}

//! An LZMA decoder: the raw stream `xz --format=raw --lzma1=...` writes, of a known size. Built
//! for wasm32 as a module of its own, about 2 KB, that the preview module's inlined copy
//! (`preview-wasm-inline.js`, written by `scripts/inline-wasm.mjs --lzma`) is unpacked with:
//! LZMA packs that module 14% smaller than deflate, and no platform decompressor reads it, while
//! a decoder in JavaScript took 3 to 7 times longer than this one on a page's first load.
//!
//! It follows the reference decoder of the format's author (`LzmaSpec.cpp` in the LZMA SDK): a
//! range decoder over adaptive bit probabilities, literals coded by the byte before them,
//! matches by length and distance with the four latest distances reused. The whole output is
//! the dictionary. A stream that is not one, ends early or points outside the output is an
//! error, never a panic.
#![cfg_attr(target_arch = "wasm32", no_std)]

/// Why a stream could not be unpacked.
#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    /// The first byte is not 0, or the settings are out of range (`lc + lp` over 4, `pb` over 4).
    NotLzma,
    /// The stream ended before the output was full.
    EndsEarly,
    /// A match reaches before the first byte or past the last.
    BadMatch,
}

// Every adaptive probability of the decoder (11 bits, starting at one half) is in one array, at
// these offsets: one fill instead of one per table (the module's code 1 KB smaller).
/// A length decoder's probabilities: two choices, 16 × 8 low, 16 × 8 middle, 256 high.
const LENGTHS: usize = 2 + 128 + 128 + 256;
const IS_MATCH: usize = 0;
const IS_REP: usize = IS_MATCH + 192;
const IS_REP_G0: usize = IS_REP + 12;
const IS_REP_G1: usize = IS_REP_G0 + 12;
const IS_REP_G2: usize = IS_REP_G1 + 12;
const IS_REP0_LONG: usize = IS_REP_G2 + 12;
const SLOTS: usize = IS_REP0_LONG + 192;
const DISTANCES: usize = SLOTS + 256;
const ALIGN: usize = DISTANCES + 115;
const MATCH_LENGTH: usize = ALIGN + 16;
const REP_LENGTH: usize = MATCH_LENGTH + LENGTHS;
/// The literal probabilities, for `lc + lp` up to 4.
const LITERALS: usize = REP_LENGTH + LENGTHS;
const PROBS: usize = LITERALS + (0x300 << 4);

/// The range decoder over the input.
struct Range<'a> {
    input: &'a [u8],
    at: usize,
    range: u32,
    code: u32,
}

impl Range<'_> {
    fn next(&mut self) -> Result<u32, Error> {
        let byte = *self.input.get(self.at).ok_or(Error::EndsEarly)?;
        self.at += 1;
        Ok(u32::from(byte))
    }

    fn normalize(&mut self) -> Result<(), Error> {
        if self.range < 1 << 24 {
            self.range <<= 8;
            self.code = (self.code << 8) | self.next()?;
        }
        Ok(())
    }

    /// One bit of probability `p`, which moves 1/32 of the way toward the bit decoded.
    fn bit(&mut self, p: &mut u16) -> Result<u32, Error> {
        let bound = (self.range >> 11) * u32::from(*p);
        let bit = if self.code < bound {
            self.range = bound;
            *p += (2048 - *p) >> 5;
            0
        } else {
            self.range -= bound;
            self.code -= bound;
            *p -= *p >> 5;
            1
        };
        self.normalize()?;
        Ok(bit)
    }

    /// `n` bits, highest first, from the tree of probabilities `p[1..1 << n]`.
    fn tree(&mut self, p: &mut [u16], n: u32) -> Result<u32, Error> {
        let mut m = 1usize;
        for _ in 0..n {
            let bit = self.bit(p.get_mut(m).ok_or(Error::NotLzma)?)?;
            m = (m << 1) | bit as usize;
        }
        Ok(m as u32 - (1 << n))
    }

    /// The same, lowest bit first.
    fn reverse(&mut self, p: &mut [u16], n: u32) -> Result<u32, Error> {
        let mut m = 1usize;
        let mut symbol = 0;
        for i in 0..n {
            let bit = self.bit(p.get_mut(m).ok_or(Error::NotLzma)?)?;
            m = (m << 1) | bit as usize;
            symbol |= bit << i;
        }
        Ok(symbol)
    }

    /// `n` bits of equal probability.
    fn direct(&mut self, n: u32) -> Result<u32, Error> {
        let mut result = 0u32;
        for _ in 0..n {
            self.range >>= 1;
            let bit = u32::from(self.code >= self.range);
            if bit == 1 {
                self.code -= self.range;
            }
            result = (result << 1) | bit;
            self.normalize()?;
        }
        Ok(result)
    }

    /// A length less 2: 0-7 from `low`, 8-15 from `mid` (per position state), 16-271 from `high`.
    fn length(&mut self, p: &mut [u16], pos_state: usize) -> Result<u32, Error> {
        let (choices, rest) = p.split_at_mut(2);
        let (low, rest) = rest.split_at_mut(128);
        let (mid, high) = rest.split_at_mut(128);
        let at = pos_state * 8;
        if self.bit(&mut choices[0])? == 0 {
            return self.tree(&mut low[at..at + 8], 3);
        }
        if self.bit(&mut choices[1])? == 0 {
            return Ok(8 + self.tree(&mut mid[at..at + 8], 3)?);
        }
        Ok(16 + self.tree(high, 8)?)
    }
}

/// Fills `out` with what raw LZMA stream `input` holds, coded with literal context bits `lc`,
/// literal position bits `lp` and position bits `pb`.
pub fn unpack(input: &[u8], out: &mut [u8], lc: u32, lp: u32, pb: u32) -> Result<(), Error> {
    if lc + lp > 4 || pb > 4 || input.len() < 5 || input[0] != 0 {
        return Err(Error::NotLzma);
    }
    let code = u32::from_be_bytes([input[1], input[2], input[3], input[4]]);
    let mut rc = Range {
        input,
        at: 5,
        range: u32::MAX,
        code,
    };
    let mut p = [1024u16; PROBS];
    let (pos_mask, lit_mask) = ((1usize << pb) - 1, (1usize << lp) - 1);
    let (mut state, mut pos) = (0usize, 0usize);
    let mut reps = [0usize; 4];
    while pos < out.len() {
        let pos_state = pos & pos_mask;
        if rc.bit(&mut p[IS_MATCH + (state << 4) + pos_state])? == 0 {
            let prev = if pos > 0 {
                usize::from(out[pos - 1])
            } else {
                0
            };
            let base = LITERALS + 0x300 * (((pos & lit_mask) << lc) + (prev >> (8 - lc)));
            let probs = &mut p[base..base + 0x300];
            let mut symbol = 1usize;
            if state >= 7 {
                // After a match, the byte at the match distance steers the first bits.
                let mut matched = usize::from(
                    *out.get(pos.wrapping_sub(reps[0] + 1))
                        .ok_or(Error::BadMatch)?,
                );
                while symbol < 0x100 {
                    let match_bit = (matched >> 7) & 1;
                    matched <<= 1;
                    let bit = rc.bit(&mut probs[((1 + match_bit) << 8) + symbol])? as usize;
                    symbol = (symbol << 1) | bit;
                    if match_bit != bit {
                        break;
                    }
                }
            }
            while symbol < 0x100 {
                symbol = (symbol << 1) | rc.bit(&mut probs[symbol])? as usize;
            }
            out[pos] = (symbol - 0x100) as u8;
            pos += 1;
            state = match state {
                0..4 => 0,
                4..10 => state - 3,
                _ => state - 6,
            };
            continue;
        }
        let length;
        if rc.bit(&mut p[IS_REP + state])? != 0 {
            if pos == 0 {
                return Err(Error::BadMatch);
            }
            if rc.bit(&mut p[IS_REP_G0 + state])? == 0 {
                if rc.bit(&mut p[IS_REP0_LONG + (state << 4) + pos_state])? == 0 {
                    // One byte at the last distance.
                    state = if state < 7 { 9 } else { 11 };
                    out[pos] = *out
                        .get(pos.wrapping_sub(reps[0] + 1))
                        .ok_or(Error::BadMatch)?;
                    pos += 1;
                    continue;
                }
            } else {
                let which = if rc.bit(&mut p[IS_REP_G1 + state])? == 0 {
                    1
                } else if rc.bit(&mut p[IS_REP_G2 + state])? == 0 {
                    2
                } else {
                    3
                };
                reps[..=which].rotate_right(1);
            }
            length = rc.length(&mut p[REP_LENGTH..REP_LENGTH + LENGTHS], pos_state)?;
            state = if state < 7 { 8 } else { 11 };
        } else {
            reps.rotate_right(1);
            length = rc.length(&mut p[MATCH_LENGTH..MATCH_LENGTH + LENGTHS], pos_state)?;
            state = if state < 7 { 7 } else { 10 };
            // The distance: a 6-bit slot (per length up to 5), then its low bits.
            let at = SLOTS + ((length.min(3) as usize) << 6);
            let slot = rc.tree(&mut p[at..at + 64], 6)?;
            reps[0] = if slot < 4 {
                slot as usize
            } else {
                let n = (slot >> 1) - 1;
                let base = (2 | (slot & 1)) << n;
                let low = if slot < 14 {
                    let from = DISTANCES + (base - slot) as usize;
                    rc.reverse(&mut p[from..ALIGN], n)?
                } else {
                    (rc.direct(n - 4)? << 4) + rc.reverse(&mut p[ALIGN..MATCH_LENGTH], 4)?
                };
                base.wrapping_add(low) as usize
            };
            // The end marker (a distance of all ones) may follow the last byte; the output's
            // size says where that is, so it is never read.
            if reps[0] >= pos {
                return Err(Error::BadMatch);
            }
        }
        let length = length as usize + 2;
        if length > out.len() - pos {
            return Err(Error::BadMatch);
        }
        let from = pos - reps[0] - 1;
        for k in 0..length {
            out[pos + k] = out[from + k];
        }
        pos += length;
    }
    Ok(())
}

/// The wasm32 export: unpacks `in_len` bytes at `input` into `out_len` bytes at `out`, with the
/// settings `lc | lp << 4 | pb << 8`; 0 when it could, 1 when not. The caller places both in
/// memory it grew past the module's own (so nothing else lives there).
///
/// # Safety
/// `input..input + in_len` and `out..out + out_len` must be memory of this module that does not
/// overlap.
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn unpack_at(
    input: *const u8,
    in_len: usize,
    out: *mut u8,
    out_len: usize,
    settings: u32,
) -> u32 {
    // SAFETY: the caller hands two regions of this module's memory that do not overlap.
    let (input, out) = unsafe {
        (
            core::slice::from_raw_parts(input, in_len),
            core::slice::from_raw_parts_mut(out, out_len),
        )
    };
    u32::from(
        unpack(
            input,
            out,
            settings & 15,
            (settings >> 4) & 15,
            (settings >> 8) & 15,
        )
        .is_err(),
    )
}

#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

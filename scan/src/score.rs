//! The score of the default token heuristic (`context_compaction::Heuristic`).
//!
//! The text is read 64 bytes at a time: each block is classified into one bit mask per byte
//! class (with SIMD where there is some, see `classify`), and every score is a count of bits in
//! masks derived from those, with what a run carries over from one block to the next. The
//! byte-at-a-time definition (`bytewise`) scores short texts, and the tests check the two
//! agree on any text.

mod classify;

use crate::find::escapes;
use classify::{Masks, classify};

// Weights in hundredths of a token. Words, long words, punctuation, line breaks and indents
// were fitted on the calibration session (bench/accuracy.mjs); characters beyond ASCII, digit
// runs and mixed case on a corpus from npm (bench/heuristic-fit.mjs), and tested on another
// (bench/heuristic.mjs).
const WORD: u64 = 100; // a run of ASCII letters (camelCase humps are separate runs)
const LONG_WORD_LETTER: u64 = 25; // each letter of a run beyond the sixth
// Each run of four letters that goes capital, capital, small, capital or capital, small,
// capital, capital (`GVsB`, `GsBV`): case flipping at random, as in base64, breaks text into
// tokens of two or three letters. Identifiers hardly ever do it (`getElementById` does not).
const MIXED_CASE: u64 = 251;
const DIGIT_GROUP: u64 = 100; // each group of up to three digits (digits are split in threes)
const DIGIT_RUN: u64 = 61; // each run of digits
// A run of digits right after a space or a tab: the space does not join the digits.
const DIGITS_AFTER_SPACE: u64 = 63;
pub(crate) const PUNCTUATION: u64 = 40; // each ASCII symbol
const NEWLINE: u64 = 100; // each line break
const INDENT: u64 = 50; // each run of two or more spaces or tabs
// Each character beyond ASCII, by its length in UTF-8: two bytes (accented Latin, Greek,
// Cyrillic, Hebrew, Arabic) mostly join their neighbours in one token; three (CJK, kana,
// Hangul, Indic scripts, most symbols) are about one each; four (emoji) are two or three.
const TWO_BYTE_CHAR: u64 = 26;
const THREE_BYTE_CHAR: u64 = 86;
const FOUR_BYTE_CHAR: u64 = 237;

/// The score of `bytes` in hundredths of a token. Scores add up over texts joined at ASCII
/// punctuation, which ends every run the pass looks at (how JSON is scored piece by piece).
pub fn score(bytes: &[u8]) -> u64 {
    // Short texts (keys, ids, the pieces between escapes) are cheaper a byte at a time than
    // as a whole block.
    if bytes.len() < SHORT {
        return bytewise(bytes);
    }
    let mut runs = Runs::default();
    // Zero bytes are control characters: they score nothing and end every run.
    let total = each_block(bytes, |chunk, _| Some(runs.plain_block(chunk))).unwrap_or_default();
    total + runs.finish()
}

/// The sum of `block` over the 64-byte blocks of `bytes`, the last one padded with zero bytes;
/// `block` also gets the mask of the bytes that are the text's.
fn each_block(bytes: &[u8], mut block: impl FnMut(&[u8; 64], u64) -> Option<u64>) -> Option<u64> {
    let mut total = 0;
    let mut blocks = bytes.chunks_exact(64);
    // Whole blocks are read in place (a copy each would cost as much as the scoring).
    for part in blocks.by_ref() {
        let chunk: &[u8; 64] = part.try_into().ok()?;
        total += block(chunk, u64::MAX)?;
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let mut chunk = [0; 64];
        chunk
            .get_mut(..rest.len())
            .unwrap_or_default()
            .copy_from_slice(rest);
        total += block(&chunk, u64::MAX >> (64 - rest.len()))?;
    }
    Some(total)
}

/// The score of `bytes` written as a quoted JSON string (escaped as `serde_json` escapes it),
/// without writing it: block by block, each escaped byte is classed as what it is written as
/// (the letter of `\n`, `\t`, `\r`, `\b`, `\f` starting a word, after a backslash).
/// `None` for a short text with something to escape, or a control byte written `\u00xx`.
pub fn score_quoted(bytes: &[u8]) -> Option<u64> {
    if bytes.len() < SHORT {
        let plain = crate::find::string_stop(bytes, 0) == bytes.len();
        return plain.then(|| 2 * PUNCTUATION + bytewise(bytes));
    }
    let mut runs = Runs::default();
    // The zero bytes after the text are not escaped: they are not there.
    let total = each_block(bytes, |chunk, valid| runs.quoted_block(chunk, valid))?;
    Some(2 * PUNCTUATION + total + runs.finish())
}

/// The score of a JSON string's value from its escaped text, without unescaping it: block by
/// block, each backslash is classed as nothing (ending every run, as the control byte or the
/// line break it stands for would) and each escaped byte as what it stands for; the backslash
/// of a `\t` is skipped over, so the tab joins the spaces on either side.
/// `None` for a text with `\u` escapes (or a broken one), which is unescaped and scored instead.
pub fn score_escaped(raw: &[u8]) -> Option<u64> {
    let mut runs = Runs::default();
    // Whether the last block ended in a backslash (the next block starts with what it escapes).
    let mut split = false;
    let total = each_block(raw, |chunk, valid| {
        runs.escaped_block(chunk, valid, &mut split)
    })?;
    (!split).then(|| total + runs.finish())
}

/// What runs carry from one block into the next: the previous block's masks (their top bits
/// are the bytes just before this block) and the length of a digit run still open.
#[derive(Default)]
struct Runs {
    letters: u64,
    lower: u64,
    upper: u64,
    /// The lower-case letters that stand for themselves (not for a control byte).
    small: u64,
    continued: u64,
    space: u64,
    /// Bit i: the byte before byte i (skipping skipped bytes) is a space.
    space_before: u64,
    /// The bytes that are not in the text at all (the backslash of a `\t`).
    skipped: u64,
    digits: u64,
    open_digits: u64,
}

impl Runs {
    // Not inlined: each loop calls it for its full blocks and for the last one, and one copy
    // keeps the package small.
    #[inline(never)]
    fn plain_block(&mut self, chunk: &[u8; 64]) -> u64 {
        self.block(&classify(chunk), 0, 0)
    }

    /// A block of a text written as a JSON string: the bytes `valid` marks are the text's.
    #[inline(never)]
    fn quoted_block(&mut self, chunk: &[u8; 64], valid: u64) -> Option<u64> {
        let mut m = classify(chunk);
        let escaped = crate::find::mask64(chunk, crate::find::stops16) & valid;
        // Quotes and backslashes are punctuation already (each gets a backslash in front);
        // the control bytes become letters.
        let controls = escaped & !m.punctuation;
        let mut other = controls & !m.space & !m.newline;
        while other != 0 {
            let at = other.trailing_zeros() as usize;
            if !matches!(chunk.get(at), Some(b'\r' | 0x08 | 0x0c)) {
                return None;
            }
            other &= other - 1;
        }
        m.lower |= controls;
        m.space &= !controls;
        m.newline &= !controls;
        Some(self.block(&m, controls, 0) + PUNCTUATION * ones(escaped))
    }

    /// A block of a JSON string's escaped text: the bytes `valid` marks are the text's;
    /// `split` says the block before ended in a backslash, and is set when this one does.
    #[inline(never)]
    fn escaped_block(&mut self, chunk: &[u8; 64], valid: u64, split: &mut bool) -> Option<u64> {
        let mut m = classify(chunk);
        let backslashes = crate::find::mask64(chunk, crate::find::backslashes16) & valid;
        let (starts, escaped) = escapes(backslashes, split);
        // The escaped bytes that are letters: `\n` and `\t` are what they stand for, `\r`,
        // `\b` and `\f` control bytes, `\u` is not scored here. (The others are `\"`, `\\`
        // and `\/`, punctuation as they stand.) The first two are common (a line break or an
        // indent in every line of code) and found with masks: a loop over them took a
        // mispredicted branch at nearly every line.
        let letters = escaped & !m.punctuation;
        let newlines = letters & crate::find::equal64(chunk, b'n');
        let tabs = letters & crate::find::equal64(chunk, b't');
        let mut rest = letters & !newlines & !tabs;
        while rest != 0 {
            if !matches!(
                chunk.get(rest.trailing_zeros() as usize),
                Some(b'r' | b'b' | b'f')
            ) {
                return None;
            }
            rest &= rest - 1;
        }
        // A tab escaped across the blocks: the backslash ending the last block is skipped.
        self.skipped |= (tabs & 1) << 63;
        m.punctuation &= !starts;
        m.lower &= !escaped;
        m.newline |= newlines;
        m.space |= tabs;
        Some(self.block(&m, 0, tabs >> 1))
    }

    /// The score of one classified block; `forced` marks letters that start a word whatever
    /// comes before them, and `skipped` bytes that are not in the text (each is followed by a
    /// byte that is).
    fn block(&mut self, m: &Masks, forced: u64, skipped: u64) -> u64 {
        // `before(x, prev, k)`: bit i is bit i-k of the stream (from the previous block below 0).
        let before = |x: u64, prev: u64, k: u32| (x << k) | (prev >> (64 - k));
        let letters = m.lower | m.upper;
        // A word starts at a letter after a non-letter, or at an upper after a lower (camelCase).
        let starts = (letters & !before(letters, self.letters, 1))
            | (m.upper & before(m.lower, self.lower, 1))
            | forced;
        let continued = letters & !starts;
        // A letter that is the seventh or later of its word: it and the five before it continue.
        let mut long = continued;
        for k in 1..=5 {
            long &= before(continued, self.continued, k);
        }
        // Capitals ending `UULU` or `ULUU`; a forced letter stands for a control byte, written
        // with a backslash before it, so it is not a small letter between capitals.
        let small = m.lower & !forced;
        let (up, down) = (m.upper, small);
        let up_at = |k| before(up, self.upper, k);
        let down_at = |k| before(down, self.small, k);
        let mixed = up & up_at(3) & ((down_at(1) & up_at(2)) | (up_at(1) & down_at(2)));
        // Bit i of `x` at the byte before i in the text: one back, or two over a skipped byte.
        let skip = before(skipped, self.skipped, 1);
        let back = |x: u64, prev: u64| (before(x, prev, 1) & !skip) | (before(x, prev, 2) & skip);
        // The second space of a run marks a run of two or more.
        let space_before = back(m.space, self.space);
        let indents = m.space & space_before & !back(space_before, self.space_before);
        let digits_after_space = m.digits & !before(m.digits, self.digits, 1) & space_before;
        let total = WORD * ones(starts)
            + LONG_WORD_LETTER * ones(long)
            + MIXED_CASE * ones(mixed)
            + INDENT * ones(indents)
            + PUNCTUATION * ones(m.punctuation)
            + NEWLINE * ones(m.newline)
            + TWO_BYTE_CHAR * ones(m.lead & !m.lead3)
            + THREE_BYTE_CHAR * ones(m.lead3 & !m.lead4)
            + FOUR_BYTE_CHAR * ones(m.lead4)
            + DIGITS_AFTER_SPACE * ones(digits_after_space)
            + self.digit_runs(m.digits);
        self.letters = letters;
        self.lower = m.lower;
        self.upper = m.upper;
        self.small = small;
        self.continued = continued;
        self.space = m.space;
        self.space_before = space_before;
        self.skipped = skipped;
        self.digits = m.digits;
        total
    }

    /// The scores of the digit runs that end in this block (each run at once: digits are sparse).
    fn digit_runs(&mut self, digits: u64) -> u64 {
        let mut total = 0;
        let mut rest = digits;
        if self.open_digits > 0 {
            let len = digits.trailing_ones() as u64;
            self.open_digits += len;
            if len == 64 {
                return 0;
            }
            total += digit_run(self.open_digits);
            self.open_digits = 0;
            rest &= !((1u64 << len) - 1);
        }
        while rest != 0 {
            let at = rest.trailing_zeros();
            let len = (rest >> at).trailing_ones();
            if at + len == 64 {
                self.open_digits = len as u64;
                break;
            }
            total += digit_run(len as u64);
            rest &= !(((1u64 << len) - 1) << at);
        }
        total
    }

    /// The digit run still open at the end of the text.
    fn finish(&self) -> u64 {
        if self.open_digits == 0 {
            return 0;
        }
        digit_run(self.open_digits)
    }
}

/// The score of a run of `len` digits (not counting what comes before it).
fn digit_run(len: u64) -> u64 {
    DIGIT_RUN + DIGIT_GROUP * len.div_ceil(3)
}

fn ones(x: u64) -> u64 {
    x.count_ones() as u64
}

// Below this many bytes, `bytewise` is faster than a block.
const SHORT: usize = 24;

/// The definition: one byte at a time, run by run.
pub(crate) fn bytewise(bytes: &[u8]) -> u64 {
    let mut total = 0;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let start = i;
        i += 1;
        if byte.is_ascii_alphabetic() {
            let mut prev = byte;
            while let Some(&next) = bytes.get(i) {
                // A lower-to-upper step starts a new word, as tokenizers split camelCase.
                if !next.is_ascii_alphabetic()
                    || (next.is_ascii_uppercase() && prev.is_ascii_lowercase())
                {
                    break;
                }
                prev = next;
                i += 1;
            }
            total += WORD + LONG_WORD_LETTER * ((i - start).saturating_sub(6) as u64);
            // Every letter of the run, its first one too, may end a mixed-case run of four.
            total += MIXED_CASE * (start..i).filter(|&k| mixed_case(bytes, k)).count() as u64;
        } else if byte.is_ascii_digit() {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            total += digit_run((i - start) as u64);
            if start > 0 && matches!(bytes.get(start - 1), Some(b' ' | b'\t')) {
                total += DIGITS_AFTER_SPACE;
            }
        } else if byte == b'\n' {
            total += NEWLINE;
        } else if byte == b' ' || byte == b'\t' {
            while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
                i += 1;
            }
            if i - start >= 2 {
                total += INDENT;
            }
        } else if byte.is_ascii() {
            if !byte.is_ascii_control() {
                total += PUNCTUATION;
            }
        } else if byte >= 0xF0 {
            // UTF-8 lead bytes: one per character beyond ASCII (continuation bytes, 0x80 to
            // 0xBF, are skipped), its length told by its first bits.
            total += FOUR_BYTE_CHAR;
        } else if byte >= 0xE0 {
            total += THREE_BYTE_CHAR;
        } else if byte >= 0xC0 {
            total += TWO_BYTE_CHAR;
        }
    }
    total
}

/// Whether byte `at` is a capital ending four letters `UULU` or `ULUU`.
fn mixed_case(bytes: &[u8], at: usize) -> bool {
    let is = |back: usize, class: fn(&u8) -> bool| {
        at.checked_sub(back)
            .and_then(|k| bytes.get(k))
            .is_some_and(class)
    };
    let (up, down) = (u8::is_ascii_uppercase, u8::is_ascii_lowercase);
    is(0, up) && is(3, up) && ((is(1, down) && is(2, up)) || (is(1, up) && is(2, down)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The block scorer itself, whatever the length (zero bytes at the end change nothing).
    fn blocks(bytes: &[u8]) -> u64 {
        let mut padded = bytes.to_vec();
        padded.resize(bytes.len().max(SHORT), 0);
        score(&padded)
    }

    #[test]
    fn blocks_agree_with_the_definition_on_edge_cases() {
        let long = "a".repeat(200);
        let digits = "7".repeat(130);
        let spaces = " ".repeat(70);
        let mixed = format!("{}x{}", " ".repeat(63), "y");
        for text in [
            "",
            "a",
            "getElementById",
            "1234567",
            "{\"a\":1}",
            "日本語",
            "a\n\n    b",
            long.as_str(),
            digits.as_str(),
            spaces.as_str(),
            mixed.as_str(),
            "ABCdefGHIjklMNOpqrSTUvwxYZ",
            "\u{1}\u{7f}\t\t x",
            "aGVsbG8gd29ybGQ=AbCDxYZaBcD",
            "ids 12 345\t6789 x1 2",
            "😀👍🏽 日本語 Привет",
        ] {
            assert_eq!(
                score(text.as_bytes()),
                bytewise(text.as_bytes()),
                "{text:?}"
            );
        }
        // Runs across every block boundary position.
        for n in 55..75 {
            for piece in ["a", "Ab", "1", " ", "\t ", "é", "ABcD", " 12", "日", "😀"] {
                let text = format!("{}{}", "-".repeat(n), piece.repeat(12));
                assert_eq!(
                    score(text.as_bytes()),
                    bytewise(text.as_bytes()),
                    "{n} {piece}"
                );
            }
        }
    }

    #[test]
    fn escaped_texts_score_as_their_values() {
        for json in [
            r#""line one\nline two\n\n  indented \"quoted\" back\\slash \/ end\r\n""#,
            r#""abc\ndef""#,
            r#""\n\n\n""#,
            r#""camel\nCase""#,
            r#""a\tb""#,
            r#""\t\tif (x) {\n\t\t\treturn  \t y;\n\t}""#,
            r#""  \t  ""#,
            r#""x \t\t \ty""#,
            r#""\t""#,
            r#""a \"\t b""#,
        ] {
            let value: String = serde_json::from_str(json).unwrap();
            let raw = &json.as_bytes()[1..json.len() - 1];
            assert_eq!(
                score_escaped(raw),
                Some(bytewise(value.as_bytes())),
                "{json}"
            );
        }
        assert_eq!(score_escaped(br"\u00e9"), None);
    }

    #[test]
    fn blocks_agree_with_the_definition_on_the_session() {
        let text = include_str!("../../tests/fixtures/large-session.jsonl");
        for line in text.lines() {
            assert_eq!(blocks(line.as_bytes()), bytewise(line.as_bytes()));
        }
    }

    proptest! {
        #[test]
        fn escaped_texts_agree_with_the_bytewise(parts in prop::collection::vec(
            prop_oneof![
                Just("a"), Just("Word"), Just("42"), Just(" "), Just("  "), Just("\t"),
                Just("\n"), Just("\""), Just("\\"), Just("/"), Just("\r"), Just("é"),
                Just("\u{8}"), Just("\u{c}"), Just("\t\t"), Just("getElementById"),
                Just("AB"), Just("cD"), Just(" 7"), Just("日本"), Just("😀"),
            ],
            // Up to a few blocks, so that escapes fall across block boundaries.
            0..120,
        )) {
            let value = parts.concat();
            let json = serde_json::to_string(&value).unwrap();
            let raw = &json.as_bytes()[1..json.len() - 1];
            prop_assert_eq!(score_escaped(raw), Some(bytewise(value.as_bytes())));
        }

        #[test]
        fn blocks_agree_with_the_definition(bytes in prop::collection::vec(
            prop_oneof![
                Just(b'a'), Just(b'Z'), Just(b'q'), Just(b'5'), Just(b' '), Just(b'\t'),
                Just(b'\n'), Just(b'.'), Just(0x01u8), Just(0xC3u8), Just(0xA9u8), any::<u8>()
            ],
            0..400,
        )) {
            prop_assert_eq!(blocks(&bytes), bytewise(&bytes));
        }
    }

    proptest! {
        /// The escapes of a block found without a loop are those found one at a time.
        #[test]
        fn escapes_agree_with_one_at_a_time(runs in any::<u64>(), more in any::<u64>(), split in any::<bool>()) {
            // Long runs of backslashes as well as lone ones.
            let backslashes = runs | (more & (more << 1));
            let mut escaped = u64::from(split);
            let (mut starts, mut carry) = (0, false);
            let mut rest = backslashes & !escaped;
            while rest != 0 {
                let at = rest.trailing_zeros();
                starts |= 1 << at;
                if at == 63 {
                    carry = true;
                    break;
                }
                escaped |= 2 << at;
                rest &= !(3 << at);
            }
            let mut got_split = split;
            prop_assert_eq!(escapes(backslashes, &mut got_split), (starts, escaped));
            prop_assert_eq!(got_split, carry);
        }
    }

    fn quoted(text: &str) -> u64 {
        score(serde_json::to_string(text).unwrap().as_bytes())
    }

    #[test]
    fn quoted_scores_equal_scoring_the_escaped_text() {
        for text in [
            "a\nb",
            "\n\nfoo\tBar\r\n",
            "say \"hi\" \\o/",
            "x\nsomeVeryLongIdentifierName",
            "  \t  x",
            "A\u{8}b\u{c}C",
            "AB\u{8}D A\u{c}CD AB\tD",
        ] {
            // Long enough to be scored in blocks, with escapes across block boundaries.
            let text = text.repeat(23);
            assert_eq!(
                score_quoted(text.as_bytes()),
                Some(quoted(&text)),
                "{text:?}"
            );
        }
        for text in ["", "plain", "café 日本"] {
            assert_eq!(
                score_quoted(text.as_bytes()),
                Some(quoted(text)),
                "{text:?}"
            );
        }
        // Short texts with escapes, and `\u00xx` escapes, are not scored here.
        assert_eq!(score_quoted(b"a\nb"), None);
        assert_eq!(
            score_quoted(
                &[b'x'; 70]
                    .iter()
                    .chain(b"\x01")
                    .copied()
                    .collect::<Vec<_>>()
            ),
            None
        );
    }

    proptest! {
        #[test]
        fn any_quoted_score_equals_scoring_the_escaped_text(parts in prop::collection::vec(
            prop_oneof![
                "[a-zA-Z]{1,40}", "[0-9]{1,5}", "[ ]{1,4}", "[\n\t\r\"\\\\\x08\x0c]", "[.,;(){}/_-]", "(é|日本|😀)",
            ], 0..40)) {
            let text = parts.concat();
            if let Some(got) = score_quoted(text.as_bytes()) {
                prop_assert_eq!(got, quoted(&text), "{:?}", text);
            }
        }
    }
}

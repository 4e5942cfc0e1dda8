//! The score of the default token heuristic (`context_compaction::Heuristic`): one pass over
//! the bytes of a text.

// Weights in hundredths of a token, fitted on the calibration session (bench/accuracy.mjs).
const WORD: u64 = 100; // a run of ASCII letters (camelCase humps are separate runs)
const LONG_WORD_LETTER: u64 = 25; // each letter of a run beyond the sixth
const DIGIT_GROUP: u64 = 150; // each group of up to three digits
const PUNCTUATION: u64 = 40; // each ASCII symbol
const NEWLINE: u64 = 100; // each line break
const INDENT: u64 = 50; // each run of two or more spaces or tabs
const NON_ASCII: u64 = 100; // each non-ASCII character

/// The score of `bytes` in hundredths of a token. Scores add up over texts joined at ASCII
/// punctuation, which ends every run the pass looks at (how JSON is scored piece by piece).
pub fn score(bytes: &[u8]) -> u64 {
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
        } else if byte.is_ascii_digit() {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            total += DIGIT_GROUP * (i - start).div_ceil(3) as u64;
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
        } else if byte >= 0xC0 {
            // A UTF-8 lead byte: one per non-ASCII character (continuation bytes are skipped).
            total += NON_ASCII;
        }
    }
    total
}

//! JSON held in a JSON string (OpenAI's tool-call `arguments`), read from the string's escaped
//! text without unescaping it: when the text it holds is already the compact JSON `serde_json`
//! writes of the value it reads, the heuristic score of that value is the score of the held
//! text, which [`score_escaped`] takes from the escaped text directly.

use crate::find::escapes;
use crate::find::{backslashes16, mask64, quotes16};
use crate::score::score_escaped;

// Deeper nesting, and more keys open at once, are left to the general path (arguments are
// shallow: a handful of keys, seldom more than two levels).
const MAX_DEPTH: usize = 16;
const MAX_KEYS: usize = 64;
// The longest integer `serde_json` surely writes back as it stands (it holds any of 18 digits).
const MAX_DIGITS: usize = 18;

/// The heuristic score of the value the JSON text held in a JSON string holds, written as
/// compact JSON as `serde_json` writes it; `raw` is the string's content as a scanner accepted
/// it (escapes as written). `None` when that is not known from the text as it stands: the held
/// text is not JSON, or not written as `serde_json` writes it (whitespace, a number it writes
/// otherwise such as `1.50` or `-0`, a `\u` or `\/` escape, a repeated key, an escaped key),
/// nests deeper than 16, or the string has `\u` escapes of its own. The caller then unescapes
/// the text and reads it in full.
pub fn score_held_json(raw: &[u8]) -> Option<u64> {
    let mut held = Held {
        raw,
        pos: 0,
        keys: [(0, 0); MAX_KEYS],
        open_keys: 0,
    };
    held.value(0)?;
    if held.pos != raw.len() {
        return None;
    }
    score_escaped(raw)
}

/// A reader of the held text, one step of its grammar at a time. In the escaped text, every
/// quote of the held text is `\"` and every backslash `\\`.
struct Held<'a> {
    raw: &'a [u8],
    pos: usize,
    /// The keys of the objects open at `pos` (as ranges of `raw`), innermost last.
    keys: [(usize, usize); MAX_KEYS],
    open_keys: usize,
}

impl Held<'_> {
    fn byte(&self, at: usize) -> Option<u8> {
        self.raw.get(at).copied()
    }

    /// Moves past `b` when it is next.
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.byte(self.pos) == Some(b);
        self.pos += usize::from(hit);
        hit
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.byte(self.pos)? {
            b'\\' => self.string().map(|_| ()),
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.raw.get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// An integer `serde_json` writes back as it stands (no fraction, exponent or `-0`).
    fn number(&mut self) -> Option<()> {
        let negative = self.eat(b'-');
        let start = self.pos;
        while self.byte(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits = self.pos - start;
        let first = self.byte(start)?;
        let plain = (1..=MAX_DIGITS).contains(&digits)
            && (first != b'0' || (digits == 1 && !negative))
            && !matches!(self.byte(self.pos), Some(b'.' | b'e' | b'E'));
        plain.then_some(())
    }

    /// A held string starting at its `\"`; returns the range of its content when it has no
    /// escapes (its own or its holder's). Read 64 bytes at a time: the holder's escapes are
    /// found without a loop; what they escape is a held backslash, a held quote (the closing
    /// one unless a held backslash escapes it) or a slash; anything else (a control byte, a
    /// `\u`) is not compact JSON wherever it is. Only held backslashes and quotes are looked
    /// at one by one.
    fn string(&mut self) -> Option<Option<(usize, usize)>> {
        if self.byte(self.pos + 1)? != b'"' {
            return None;
        }
        let start = self.pos + 2;
        let mut plain = true;
        let mut block = start;
        // Whether the block before ended in a backslash escaping this block's first byte.
        let mut split = false;
        // Bytes before `read` are read (a held escape may reach into the next block).
        let mut read = start;
        loop {
            let padded;
            // Whole blocks are read in place, the last one copied and padded.
            let chunk: &[u8; 64] = match self.raw.get(block..block + 64) {
                Some(whole) => whole.try_into().ok()?,
                None => {
                    padded = block_at(self.raw.get(block..)?)?;
                    &padded
                }
            };
            let backslashes = mask64(chunk, backslashes16);
            let quotes = mask64(chunk, quotes16);
            let (_, escaped) = escapes(backslashes, &mut split);
            let slashes = escaped & !backslashes & !quotes;
            let mut rest = slashes;
            while rest != 0 {
                if chunk.get(rest.trailing_zeros() as usize) != Some(&b'/') {
                    return None;
                }
                rest &= rest - 1;
            }
            let mut held = escaped & (backslashes | quotes);
            while held != 0 {
                let bit = held.trailing_zeros();
                held &= held - 1;
                let at = block + bit as usize;
                if at < read {
                    continue;
                }
                if quotes & (1 << bit) != 0 {
                    self.pos = at + 1;
                    plain &= slashes & ((1 << bit) - 1) == 0;
                    return Some(plain.then_some((start, at - 1)));
                }
                // A held backslash, and what it escapes: `\\` or `\"` (written `\\\\` and
                // `\\\"`), or a one-letter escape; `\u` and `\/`, which serde_json writes
                // otherwise, or not JSON.
                plain = false;
                read = match self.byte(at + 1)? {
                    b'\\' if matches!(self.byte(at + 2)?, b'\\' | b'"') => at + 3,
                    b'n' | b't' | b'r' | b'b' | b'f' => at + 2,
                    _ => return None,
                };
            }
            plain &= slashes == 0;
            block += 64;
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        if self.eat(b']') {
            return Some(());
        }
        loop {
            self.value(depth + 1)?;
            if self.eat(b']') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        if self.eat(b'}') {
            return Some(());
        }
        let first = self.open_keys;
        loop {
            if self.byte(self.pos)? != b'\\' {
                return None;
            }
            // Keys compare as they are written only when they have no escapes.
            let (start, end) = self.string()??;
            let key = self.raw.get(start..end)?;
            let keys = self.keys.get(first..self.open_keys)?;
            if keys.iter().any(|&(s, e)| self.raw.get(s..e) == Some(key)) {
                return None;
            }
            *self.keys.get_mut(self.open_keys)? = (start, end);
            self.open_keys += 1;
            if !self.eat(b':') {
                return None;
            }
            self.value(depth + 1)?;
            if self.eat(b'}') {
                self.open_keys = first;
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }
}

/// The first 64 bytes of `rest`, padded with zero bytes; `None` when it is empty.
fn block_at(rest: &[u8]) -> Option<[u8; 64]> {
    let mut chunk = [0u8; 64];
    let n = rest.len().min(64);
    if n == 0 {
        return None;
    }
    chunk.get_mut(..n)?.copy_from_slice(rest.get(..n)?);
    Some(chunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` written as the content of a JSON string.
    fn held(text: &str) -> String {
        let quoted = serde_json::to_string(text).unwrap();
        quoted[1..quoted.len() - 1].to_owned()
    }

    fn compact_score(text: &str) -> u64 {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        crate::score(value.to_string().as_bytes())
    }

    #[test]
    fn scores_compact_json_as_serde_json_writes_it() {
        for text in [
            r#"{"path":"src/main.rs","limit":200,"flags":[true,false,null]}"#,
            r#"{"command":"ls -la\n  cd /tmp && echo \"hi\" \\ back","n":-12}"#,
            r#"[[],{},"",[1,[2,{"a":{"b":"c"}}]],0,-7]"#,
            r#""just a string with   spaces""#,
            r#"{"a":{"a":{"a":1}},"b":"café 日本 😀 a/b"}"#,
        ] {
            assert_eq!(
                score_held_json(held(text).as_bytes()),
                Some(compact_score(text)),
                "{text}"
            );
        }
    }

    #[test]
    fn leaves_what_serde_json_writes_otherwise_to_the_caller() {
        for text in [
            r#"{"a": 1}"#,
            r#"{"a":1} "#,
            r#"{"a":1.5}"#,
            r#"{"a":1e2}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":1234567890123456789}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\/"}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a\n":1}"#,
            r#"{"a":1,}"#,
            r#"{"a"}"#,
            "{\"a\":\"line\nbreak\"}",
            "[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]",
            "not json",
            "{\"a\":tru}",
        ] {
            assert_eq!(score_held_json(held(text).as_bytes()), None, "{text}");
        }
        // The holder's own `\u` escapes.
        assert_eq!(score_held_json(br#"{\"a\":\"\u00e9\"}"#), None);
        // Repeats in different objects are not repeats.
        let text = r#"{"a":{"a":1,"b":2},"b":[{"a":1},{"a":2}]}"#;
        assert_eq!(
            score_held_json(held(text).as_bytes()),
            Some(compact_score(text))
        );
    }
}

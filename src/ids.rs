//! The tool-call ids of one message, held compactly.
//!
//! A long history keeps the facts of every message, and most of them hold one id. As a
//! `Vec<String>`, each id cost two allocations (the vector's and the string's) and the vector
//! 12 bytes more in every message's facts; here a message's ids are one allocation (none when
//! it has none) of their exact bytes, so pairing calls with results compares the ids
//! themselves, never a hash of them.

use std::fmt;

/// The ids of the tool calls one message makes (or answers), in order: each id's length in
/// decimal, a `:`, then the id's bytes, all in one boxed string.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Ids(Box<str>);

impl Ids {
    /// No ids.
    pub fn new() -> Ids {
        Ids::default()
    }

    /// Adds `id` after the others, as `Vec::push` would ([`Ids::push_str`] without a `String`).
    pub fn push(&mut self, id: String) {
        self.push_str(&id);
    }

    /// Adds `id` after the others (one allocation of the exact size, the old one freed).
    pub fn push_str(&mut self, id: &str) {
        let mut text = String::with_capacity(self.0.len() + decimal_len(id.len()) + 1 + id.len());
        text.push_str(&self.0);
        push_entry(&mut text, id);
        self.0 = text.into_boxed_str();
    }

    /// The ids, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { rest: &self.0 }
    }

    /// How many ids.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `id` is among them.
    pub fn contains(&self, id: &str) -> bool {
        self.iter().any(|own| own == id)
    }

    /// Ids `start..start + count` (fewer past the end).
    pub fn slice(&self, start: usize, count: usize) -> Ids {
        self.iter().skip(start).take(count).collect()
    }
}

/// Writes one entry: the id's length, `:`, the id.
fn push_entry(text: &mut String, id: &str) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = id.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 || at == 0 {
            break;
        }
    }
    for &d in digits.get(at..).unwrap_or(&[]) {
        text.push(char::from(d));
    }
    text.push(':');
    text.push_str(id);
}

/// How many decimal digits `n` takes.
fn decimal_len(mut n: usize) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// The ids of an [`Ids`], in order.
#[derive(Clone)]
pub struct Iter<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.rest.as_bytes();
        let mut len = 0usize;
        let mut at = 0;
        // Only `push_entry` writes entries: digits, then a colon.
        while let Some(&b) = bytes.get(at) {
            at += 1;
            if b == b':' {
                let id = self.rest.get(at..at + len)?;
                self.rest = self.rest.get(at + len..)?;
                return Some(id);
            }
            len = len * 10 + usize::from(b.wrapping_sub(b'0'));
        }
        None
    }
}

impl<'a> IntoIterator for &'a Ids {
    type Item = &'a str;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Ids {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Ids {
        let mut text = String::new();
        for id in iter {
            push_entry(&mut text, id.as_ref());
        }
        Ids(text.into_boxed_str())
    }
}

impl<S: AsRef<str>> Extend<S> for Ids {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        let mut text = String::from(std::mem::take(&mut self.0));
        for id in iter {
            push_entry(&mut text, id.as_ref());
        }
        self.0 = text.into_boxed_str();
    }
}

impl fmt::Debug for Ids {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for Ids {
    fn eq(&self, other: &Vec<S>) -> bool {
        self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Ids {
    fn eq(&self, other: &[S]) -> bool {
        self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_back_as_pushed() {
        let awkward = ["", "a", "1:2", ":", "toolu_01", "é😀", "12345678901:x"];
        let long = "x".repeat(1234);
        let mut ids = Ids::new();
        assert!(ids.is_empty());
        for id in awkward.iter().copied().chain([long.as_str()]) {
            ids.push_str(id);
        }
        let mut all: Vec<&str> = awkward.to_vec();
        all.push(&long);
        assert_eq!(ids, all);
        assert_eq!(ids.len(), all.len());
        assert!(ids.contains("1:2") && ids.contains("") && !ids.contains("2"));
        assert_eq!(ids.slice(2, 2), vec!["1:2", ":"]);
        assert_eq!(all.iter().collect::<Ids>(), ids);
        let mut extended: Ids = all.iter().take(3).collect();
        extended.extend(all.iter().skip(3));
        assert_eq!(extended, ids);
        assert_eq!(format!("{:?}", ids.slice(0, 2)), r#"["", "a"]"#);
    }
}

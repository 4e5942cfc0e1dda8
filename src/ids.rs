//! The tool-call ids of one message, held compactly.
//!
//! A long history keeps the facts of every message, and most of them hold one id. As a
//! `Vec<String>`, each id cost two allocations (the vector's and the string's) and the vector
//! 12 bytes more in every message's facts; here a message's ids are one allocation (none when
//! it has none) of their exact bytes, so pairing calls with results compares the ids
//! themselves, never a hash of them. A message that answers exactly the calls of a recent one
//! shares that one's allocation ([`RecentCalls`]): most results do.

use std::fmt;
use std::sync::Arc;

/// The ids of the tool calls one message makes (or answers), in order: each id's length in
/// decimal, a `:`, then the id's bytes, all in one shared string (`None` for no ids).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Ids(Option<Arc<str>>);

impl Ids {
    /// No ids.
    pub fn new() -> Ids {
        Ids::default()
    }

    /// Adds `id` after the others, as `Vec::push` would ([`Ids::push_str`] without a `String`).
    pub fn push(&mut self, id: String) {
        self.push_str(&id);
    }

    /// Adds `id` after the others (one allocation of the exact size, the old one let go).
    pub fn push_str(&mut self, id: &str) {
        // The first id of most messages is short: written on the stack, then copied once into
        // its shared string (a `String` first was an allocation and a copy more per message, 5%
        // of a cold plan of 10k messages).
        let mut entry = [0u8; SHORT];
        if self.is_empty()
            && let Some(text) = short_entry(&mut entry, id)
        {
            self.0 = Some(Arc::from(text));
            return;
        }
        let own = self.text();
        let mut text = String::with_capacity(own.len() + decimal_len(id.len()) + 1 + id.len());
        text.push_str(own);
        push_entry(&mut text, id);
        *self = Ids::of(text);
    }

    /// The ids, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { rest: self.text() }
    }

    /// Shares `other`'s allocation when it holds the same ids.
    pub fn share(&mut self, other: &Ids) {
        if let (Some(own), Some(theirs)) = (&self.0, &other.0)
            && !Arc::ptr_eq(own, theirs)
            && own == theirs
        {
            self.0 = Some(Arc::clone(theirs));
        }
    }

    /// The ids written out (see [`Ids`]).
    pub(crate) fn text(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }

    /// The ids `text` writes out (as [`Ids::text`] gives them), or `None` when it is not such
    /// a text: each entry's length in decimal, with no leading zero, a `:`, that many bytes.
    #[cfg(any(target_arch = "wasm32", test))]
    pub(crate) fn from_text(text: &str) -> Option<Ids> {
        let mut rest = text;
        while !rest.is_empty() {
            let (len, after) = rest.split_once(':')?;
            let plain = !len.is_empty() && len.bytes().all(|b| b.is_ascii_digit());
            if !plain || (len.len() > 1 && len.starts_with('0')) {
                return None;
            }
            rest = after.get(len.parse::<usize>().ok()?..)?;
        }
        // Copied once, straight into the shared string.
        Some(Ids((!text.is_empty()).then(|| Arc::from(text))))
    }

    /// The ids written out in `text` (none when it is empty).
    fn of(text: String) -> Ids {
        Ids((!text.is_empty()).then(|| Arc::from(text)))
    }

    /// How many ids.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
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
    push_decimal(text, id.len() as u64);
    text.push(':');
    text.push_str(id);
}

/// Appends `n` in decimal digits, by hand: `write!` goes through `core::fmt`, which took 3% of
/// a first plan with the facts cache on (its texts are mostly numbers, `crate::facts_text`).
pub(crate) fn push_decimal(text: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
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
}

/// The longest entry [`Ids::push_str`] writes on the stack.
const SHORT: usize = 96;

/// The entry of `id` (see [`push_entry`]) written into `out`, when it fits.
fn short_entry<'a>(out: &'a mut [u8; SHORT], id: &str) -> Option<&'a str> {
    let digits = decimal_len(id.len());
    let len = digits + 1 + id.len();
    let entry = out.get_mut(..len)?;
    let mut rest = id.len();
    for d in entry.iter_mut().take(digits).rev() {
        *d = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    let (colon, bytes) = entry.get_mut(digits..)?.split_first_mut()?;
    *colon = b':';
    bytes.copy_from_slice(id.as_bytes());
    std::str::from_utf8(entry).ok()
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
        Ids::of(text)
    }
}

impl<S: AsRef<str>> Extend<S> for Ids {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        let mut text = String::from(self.text());
        for id in iter {
            push_entry(&mut text, id.as_ref());
        }
        *self = Ids::of(text);
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

/// The call ids of the latest messages that made calls, for the results read after them to
/// share ([`Ids::share`]): a result usually follows its call within a few messages, and then
/// holds no bytes of its own (at 100k messages, about 1.5 MB of wasm memory less).
#[derive(Default)]
pub(crate) struct RecentCalls {
    calls: [Ids; RecentCalls::LEN],
    next: usize,
}

impl RecentCalls {
    const LEN: usize = 8;

    /// Lets `results` share the ids of one of the latest calls when they are the same, then
    /// remembers `calls` (a message's own calls do not answer its results).
    pub(crate) fn note(&mut self, calls: &Ids, results: &mut Ids) {
        if !results.is_empty()
            && let Some(same) = self.calls.iter().find(|c| *c == results)
        {
            results.share(same);
        }
        if !calls.is_empty() {
            if let Some(slot) = self.calls.get_mut(self.next) {
                *slot = calls.clone();
            }
            self.next = (self.next + 1) % Self::LEN;
        }
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
        assert_eq!(Ids::new(), Vec::<String>::new().iter().collect::<Ids>());
        // Written on the stack or through a `String`, the same entries.
        for id in [
            "",
            "x",
            &"y".repeat(SHORT - 3),
            &"z".repeat(SHORT - 2),
            &long,
        ] {
            let mut one = Ids::new();
            one.push_str(id);
            assert_eq!(one, vec![id]);
            assert_eq!(one.text(), format!("{}:{id}", id.len()));
        }
        assert!(std::iter::empty::<&str>().collect::<Ids>().is_empty());
    }

    fn same_allocation(a: &Ids, b: &Ids) -> bool {
        matches!((&a.0, &b.0), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
    }

    #[test]
    fn results_share_the_ids_of_a_recent_call_with_the_same_ids() {
        let ids = |list: &[&str]| list.iter().collect::<Ids>();
        let mut recent = RecentCalls::default();
        let (call, mut none) = (ids(&["a", "b"]), Ids::new());
        recent.note(&call, &mut none);
        // Another message's calls, then results: the same ids share, others do not.
        recent.note(&ids(&["c"]), &mut none);
        let (mut same, mut other, mut part) = (ids(&["a", "b"]), ids(&["b", "a"]), ids(&["a"]));
        for results in [&mut same, &mut other, &mut part] {
            recent.note(&Ids::new(), results);
        }
        assert!(same_allocation(&same, &call) && same == ids(&["a", "b"]));
        assert!(!same_allocation(&other, &call) && !same_allocation(&part, &call));
        assert_eq!((other, part), (ids(&["b", "a"]), ids(&["a"])));
        // A message's own calls are remembered after its results are looked at.
        let (own, mut answered) = (ids(&["d"]), ids(&["d"]));
        recent.note(&own, &mut answered);
        assert!(!same_allocation(&own, &answered));
        // Only the latest calls are remembered.
        for k in 0..RecentCalls::LEN {
            recent.note(&ids(&[&format!("x{k}")]), &mut none);
        }
        let mut late = ids(&["a", "b"]);
        recent.note(&Ids::new(), &mut late);
        assert!(!same_allocation(&late, &call) && late == call);
    }
}

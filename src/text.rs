//! Messages built without `core::fmt`: [`text!`] joins its pieces (string slices, integers,
//! errors, places) into a `String`.
//!
//! `format!` goes through `core::fmt` (its argument tables, `fmt::write`, padding and the
//! integer formatters), which the wasm module then carries for its error messages alone. The
//! crate's messages are built here instead, and the `Display` of its own types calls the same
//! [`Piece`] (one wording for both), so `core::fmt` stays out of the module wherever nothing in
//! it calls `Display` (bench/README.md, Package size).

use std::borrow::Cow;

/// Something [`text!`] can append to a message.
pub(crate) trait Piece {
    /// Appends the text of `self` to `text`.
    fn push_to(&self, text: &mut String);
}

/// Joins its pieces (each a [`Piece`]: `&str`, `String`, an integer, an error, ...) into a
/// `String`, as `format!` with plain `{}` placeholders would.
macro_rules! text {
    ($($piece:expr),* $(,)?) => {{
        let mut text = String::new();
        $( $crate::text::Piece::push_to(&$piece, &mut text); )*
        text
    }};
}

impl Piece for str {
    fn push_to(&self, text: &mut String) {
        text.push_str(self);
    }
}

impl Piece for String {
    fn push_to(&self, text: &mut String) {
        text.push_str(self);
    }
}

impl Piece for Cow<'_, str> {
    fn push_to(&self, text: &mut String) {
        text.push_str(self);
    }
}

impl Piece for Box<str> {
    fn push_to(&self, text: &mut String) {
        text.push_str(self);
    }
}

impl Piece for char {
    fn push_to(&self, text: &mut String) {
        text.push(*self);
    }
}

impl<T: Piece + ?Sized> Piece for &T {
    fn push_to(&self, text: &mut String) {
        (**self).push_to(text);
    }
}

// A host's error (an estimator's, a summarizer's) by its `Display`. The crate's own errors,
// which are all the wasm module makes (a thrown value is a `HostError`, a wrong result a
// `Failure`), are found by their type and written without `core::fmt`.
impl Piece for dyn std::error::Error + 'static {
    fn push_to(&self, text: &mut String) {
        if let Some(error) = self.downcast_ref::<crate::Error>() {
            error.push_to(text);
        } else if let Some(error) = self.downcast_ref::<crate::retry::GenerateError>() {
            error.push_to(text);
        } else {
            host_error(self, text);
        }
    }
}

impl Piece for crate::error::BoxError {
    fn push_to(&self, text: &mut String) {
        (**self).push_to(text);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn host_error(error: &(dyn std::error::Error + 'static), text: &mut String) {
    text.push_str(&error.to_string());
}

#[cfg(target_arch = "wasm32")]
fn host_error(error: &(dyn std::error::Error + 'static), text: &mut String) {
    crate::wasm::error::push_host_error(error, text);
}

impl Piece for u64 {
    fn push_to(&self, text: &mut String) {
        crate::ids::push_decimal(text, *self);
    }
}

impl Piece for usize {
    fn push_to(&self, text: &mut String) {
        crate::ids::push_decimal(text, *self as u64);
    }
}

impl Piece for u32 {
    fn push_to(&self, text: &mut String) {
        crate::ids::push_decimal(text, u64::from(*self));
    }
}

impl Piece for i64 {
    fn push_to(&self, text: &mut String) {
        if *self < 0 {
            text.push('-');
        }
        crate::ids::push_decimal(text, self.unsigned_abs());
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    #[test]
    fn pieces_read_as_format_writes_them() {
        let (n, big, negative, c) = (7usize, u64::MAX, i64::MIN, 'é');
        let owned = String::from("owned");
        let cow: Cow<'_, str> = Cow::Borrowed("cow");
        let boxed: Box<str> = "boxed".into();
        assert_eq!(
            text!(
                "a[", n, "] ", big, ' ', negative, c, owned, cow, boxed, 0u32, -3i64
            ),
            format!("a[{n}] {big} {negative}{c}{owned}{cow}{boxed}0-3")
        );
    }
}

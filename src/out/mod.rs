//! What the package returns, as plain data: the shape of each output (its keys, in order, and
//! what each holds) is written once here, value by value, into a [`Sink`] the binding implements
//! (it builds the JavaScript values as they come: no tree in between). What only the binding
//! holds (a host's own message arrays, typed arrays, a thrown value) is a slot it fills in
//! ([`Sink::slot`]).
//!
//! Each writer writes one value: under `key` when an object is open, as the next item when an
//! array is, as the whole output when nothing is (the key is then unused; the binding's
//! callers pass `""`).

mod manager;
mod plan;
mod record;
mod summary;

pub use manager::{event, maintained, ran, run_error};
pub use plan::{clear_plan, clearable, estimate, plan};
pub use record::{any_record, clear_record, draft, outcome, receipt, record, records};
pub use summary::{chunk, generate_request, generate_slot, prompts};

use crate::summarizer::Usage;

/// Where an output is written: one call per value, objects and arrays between
/// [`Sink::open`] and [`Sink::close`].
pub trait Sink {
    /// `null`.
    fn null(&mut self, key: &'static str);
    /// A boolean.
    fn bool(&mut self, key: &'static str, value: bool);
    /// A number.
    fn number(&mut self, key: &'static str, value: f64);
    /// A string.
    fn text(&mut self, key: &'static str, value: &str);
    /// The `k`-th value the binding holds.
    fn slot(&mut self, key: &'static str, k: usize);
    /// Opens an object, or (`list`) an array: what follows goes in it until [`Sink::close`].
    fn open(&mut self, key: &'static str, list: bool);
    /// Closes the innermost open object or array.
    fn close(&mut self);
    /// A whole number (a count of tokens, messages, …).
    fn count(&mut self, key: &'static str, value: u64) {
        self.number(key, value as f64);
    }
}

/// The plan's slots, for [`plan`].
pub mod plan_slot {
    /// `firstKeptId`: the id of the message the kept suffix starts in, or `null`.
    pub const ID: usize = 0;
    /// `messageTokens`: the estimate of each message (a `Float64Array`).
    pub const TOKENS: usize = 1;
    /// `messagesToSummarize`, or (a plan of a body) `messageSpans`.
    pub const FIRST: usize = 2;
    /// `turnPrefixMessages`.
    pub const SECOND: usize = 3;
}

/// `{ input, output, cacheRead, cacheWrite, totalTokens }`.
pub fn usage<W: Sink>(w: &mut W, key: &'static str, usage: &Usage) {
    w.open(key, false);
    w.count("input", usage.input);
    w.count("output", usage.output);
    w.count("cacheRead", usage.cache_read);
    w.count("cacheWrite", usage.cache_write);
    w.count("totalTokens", usage.total_tokens);
    w.close();
}

/// The `kind` of a clear plan and of its record.
pub const CLEAR: &str = "clear";

#[cfg(test)]
mod tests;

//! The tokens of the messages a plan from the tail did not read: each one's size at the tokens
//! per unit of size of the tail. One rule for the two places that need it: the raw facts of a
//! tail calibrated over the whole prefix ([`fill_unread`]), and the calibrated `messageTokens`
//! of a plan whose prefix was not even sized, filled in when the host first reads them
//! ([`fill_deferred`]).

use crate::facts::MessageFacts;

/// Sets the tokens of the messages before `start` that were not read (all but `read`, indices
/// in order): their `sizes` times the tokens per unit of size of the messages read. Their facts
/// are otherwise the default ones, placeholders: no role of their own (never a system message,
/// never a turn start, never an assistant) and no tool calls; a failed attempt stays marked
/// failed (calibration counts it 0 whatever its tokens).
pub fn fill_unread(messages: &mut [MessageFacts], sizes: &[f64], start: usize, read: &[u32]) {
    let mut tokens: Vec<f64> = messages.iter().map(|f| f.tokens as f64).collect();
    // Raw tokens: a failed attempt's stand for its size as any other's do.
    fill_deferred(&mut tokens, sizes, start, read, &[]);
    for (f, t) in messages.iter_mut().zip(tokens).take(start) {
        f.tokens = t as u64;
    }
}

/// [`fill_unread`] for the calibrated `tokens` of every message (as a plan's `messageTokens`),
/// `failed` the failed attempts (in order): a failed attempt counts 0 once calibrated, so it is
/// 0 before the tail and says nothing of the rate in it.
pub fn fill_deferred(
    tokens: &mut [f64],
    sizes: &[f64],
    start: usize,
    read: &[u32],
    failed: &[u32],
) {
    // Both lists are in order and short next to the messages.
    let has = |list: &[u32], i: usize| list.binary_search(&(i as u32)).is_ok();
    // The rate is the tail's alone: the messages read before it (system messages) are picked
    // by kind, not a sample of the prefix.
    let (mut sum, mut size) = (0.0, 0.0);
    for (i, (t, s)) in tokens.iter().zip(sizes).enumerate().skip(start) {
        if !has(failed, i) {
            sum += t;
            size += s;
        }
    }
    let rate = if size > 0.0 { sum / size } else { 0.0 };
    for (i, (t, s)) in tokens.iter_mut().zip(sizes).enumerate().take(start) {
        if !has(read, i) {
            *t = if has(failed, i) {
                0.0
            } else {
                (s * rate).round()
            };
        }
    }
}

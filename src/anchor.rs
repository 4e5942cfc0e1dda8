//! Provider-true estimates: what the provider reported it counted for earlier requests of a
//! conversation, used two ways.
//!
//! - *Anchoring*: the estimate of a request that extends a reported one is the reported count
//!   plus the estimate of what changed since (new messages, another system prompt or tools).
//! - *Calibration*: the ratio between reported counts and our estimates of the same requests
//!   scales every estimated part (messages, system prompt, summary, tools, a new summary), so
//!   that the trigger, a plan's estimates and a required reduction compare figures of one
//!   estimator.
//!
//! The provider never counts an assistant attempt that failed or was aborted (request builders
//! drop it), so our estimate of a reported request leaves such messages out, and so does a
//! calibrated estimate: with a usable report they count nothing. Counting them would both
//! lower the ratio (the failed attempt's tokens inflate our side of it) and overcount every
//! request that holds them.
//!
//! A report is skipped when it is zero, points past the request, or is more than
//! [`MAX_RATIO`] times off our estimate of the request it describes either way: the history
//! was compacted or rewritten since, and the count describes another request. Without a usable
//! report nothing changes: the facts are left exactly as they were.

use crate::facts::RequestFacts;
pub use crate::report::{Calibration, Report};

/// A report more than this many times above or below our estimate of the same request is
/// taken to describe another request.
pub const MAX_RATIO: f64 = 2.0;

/// Calibrates and anchors `facts` (raw estimates) with `reports`; leaves them unchanged when
/// none is usable. The anchor is the latest usable report; the ratio is its count over our
/// estimate of the same request, which averages over the whole conversation up to it.
pub fn calibrate(facts: &mut RequestFacts, reports: &[Report]) {
    // What the provider does not read is left out first: its reports count what it reads.
    facts.open_window();
    let fixed_now = fixed_tokens(facts);
    let len = facts.messages.len();
    if let Some(calibration) = choose(reports, len, fixed_now, |end| prefix_tokens(facts, end)) {
        apply(facts, calibration);
    }
}

/// Calibrates `facts` (raw estimates) by `calibration` (from [`choose`], or a ratio found
/// otherwise) and anchors them to its report.
pub fn apply(facts: &mut RequestFacts, calibration: Calibration) {
    scale(facts, &calibration);
    let added = calibration
        .anchor
        .map_or(0, |anchor| facts.message_tokens(anchor.messages));
    facts.calibration = anchored(calibration, fixed_tokens(facts), added, facts.total_parts());
}

/// The fewest tokens (our raw estimate) between two reports for their difference to give a
/// ratio: over a few thousand tokens the provider's count and ours differ by up to a tenth
/// more than over the whole conversation; from about 16,000 on, within about 5% (measured
/// on the bench's recorded session).
pub const MIN_SPAN: u64 = 16_000;

/// The ratio of what the provider counted for the messages between two reports of one
/// conversation (`later`'s count minus `earlier`'s, the same system prompt, summary and tools
/// in both) over our raw estimate `raw` of those messages (failed attempts left out); `None`
/// when they are not two requests of which one extends the other, or span too little to say.
/// A long history planned from its tail calibrates by this ratio of the messages it read,
/// rather than by the whole conversation's, whose estimate needs every message.
pub fn span_ratio(earlier: Report, later: Report, raw: u64) -> Option<Calibration> {
    if earlier.messages >= later.messages
        || earlier.fixed != later.fixed
        || earlier.tokens == 0
        || later.tokens <= earlier.tokens
        || raw < MIN_SPAN
    {
        return None;
    }
    let ratio = (later.tokens - earlier.tokens) as f64 / raw as f64;
    (1.0 / MAX_RATIO..=MAX_RATIO)
        .contains(&ratio)
        .then(|| Calibration {
            ratio_ppm: ((ratio * 1e6).round() as u64).max(1),
            adjustment: 0,
            anchor: Some(later),
        })
}

/// Whether `ratio` (a report's count over our estimate of its request) is within
/// [`MAX_RATIO`] of 1 either way, with the estimate's error taken `margin` (>= 1) times larger.
pub fn within(ratio: f64, margin: f64) -> bool {
    (1.0 / (MAX_RATIO * margin)..=MAX_RATIO * margin).contains(&ratio)
}

/// The calibration the latest usable of `reports` gives a request of `len` messages (its
/// adjustment still 0, see [`anchored`]), or `None`. `fixed_now` is our raw estimate of the
/// request's system prompt, summary and tools, and `raw(n)` that of its first `n` messages as
/// the provider counts them (failed attempts left out).
pub(crate) fn choose(
    reports: &[Report],
    len: usize,
    fixed_now: u64,
    raw: impl Fn(usize) -> u64,
) -> Option<Calibration> {
    let (anchor, raw) = latest_usable(reports, len, fixed_now, raw)?;
    let ratio = (anchor.tokens as f64 / raw.max(1) as f64).clamp(1.0 / MAX_RATIO, MAX_RATIO);
    Some(Calibration {
        ratio_ppm: ((ratio * 1e6).round() as u64).max(1),
        adjustment: 0,
        anchor: Some(anchor),
    })
}

/// `calibration` with the adjustment that anchors the request's estimate: the report, plus
/// what changed since, calibrated. `fixed_now` is the request's calibrated system prompt,
/// summary and tools, `added` its calibrated messages after the anchor, `total_parts` the sum
/// of all its calibrated parts.
pub(crate) fn anchored(
    calibration: Calibration,
    fixed_now: u64,
    added: u64,
    total_parts: u64,
) -> Calibration {
    let Some(anchor) = calibration.anchor else {
        return calibration;
    };
    let fixed_then = anchor.fixed.map_or(fixed_now, |t| calibration.scale(t));
    let anchored = anchor.tokens as i64 + fixed_now as i64 - fixed_then as i64 + added as i64;
    Calibration {
        adjustment: anchored - total_parts as i64,
        ..calibration
    }
}

/// The system prompt, summary and tools of `facts`.
fn fixed_tokens(facts: &RequestFacts) -> u64 {
    facts.system_prompt + facts.summary + facts.tools
}

/// The report of the longest request that is a usable prefix of this one (of two for the same
/// request, the later one in `reports`), and our raw estimate of that request.
fn latest_usable(
    reports: &[Report],
    len: usize,
    fixed_now: u64,
    raw: impl Fn(usize) -> u64,
) -> Option<(Report, u64)> {
    // Latest first, by insertion (a few reports; a library sort would add kilobytes to the
    // module); usually the first one is usable, so the prefix is summed once.
    let mut candidates: Vec<Report> = Vec::with_capacity(reports.len());
    for &report in reports {
        if report.messages <= len && report.tokens > 0 {
            // Before the earlier ones for the same request: the later report wins.
            let at = candidates.partition_point(|r| r.messages > report.messages);
            candidates.insert(at, report);
        }
    }
    candidates.into_iter().find_map(|report| {
        let raw = report.fixed.unwrap_or(fixed_now) + raw(report.messages);
        plausible(report.tokens, raw).then_some((report, raw))
    })
}

/// Our estimate of the first `end` messages as the provider counts them (failed attempts left
/// out).
fn prefix_tokens(facts: &RequestFacts, end: usize) -> u64 {
    facts
        .messages
        .iter()
        .take(end)
        .filter(|f| !f.failed())
        .map(|f| f.tokens)
        .sum()
}

fn plausible(reported: u64, raw: u64) -> bool {
    let (reported, raw) = (reported as f64, raw as f64);
    reported <= raw * MAX_RATIO && reported * MAX_RATIO >= raw
}

/// Multiplies every estimated part of `facts` by the calibration's ratio (a message's steps
/// too, so that they still add up to it); a failed attempt counts nothing.
fn scale(facts: &mut RequestFacts, calibration: &Calibration) {
    facts.system_prompt = calibration.scale(facts.system_prompt);
    facts.summary = calibration.scale(facts.summary);
    facts.tools = calibration.scale(facts.tools);
    for f in &mut facts.messages {
        let failed = f.failed();
        f.tokens = calibration.scale_message(f.tokens, failed);
        for step in &mut f.steps {
            step.tokens = calibration.scale_message(step.tokens, failed);
        }
    }
}

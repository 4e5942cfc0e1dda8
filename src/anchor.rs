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
//! A report is skipped when it is zero, points past the request, or is more than
//! [`MAX_RATIO`] times off our estimate of the request it describes either way: the history
//! was compacted or rewritten since, and the count describes another request. Without a usable
//! report nothing changes: the facts are left exactly as they were.

use crate::facts::RequestFacts;
use crate::formats::MessageUsage;

/// A report more than this many times above or below our estimate of the same request is
/// taken to describe another request.
pub const MAX_RATIO: f64 = 2.0;
/// How many of the latest reports the ratio is taken over.
const RECENT: usize = 16;
/// Below this much growth of our estimate between the first and last report, the ratio is the
/// latest report's own (growth over a few tokens says little).
const MIN_GROWTH: u64 = 2_000;
/// A report this much below an earlier one starts a new history (a compaction happened
/// between them); smaller drops are noise (reasoning the provider does not send again).
const DROP: f64 = 0.9;

/// What the provider counted for one earlier request of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// The request held the first `messages` messages of the current request.
    pub messages: usize,
    /// The tokens the provider counted for those messages with the system prompt, summary and
    /// tools (input, cache reads and cache writes).
    pub tokens: u64,
    /// Our estimate of that request's system prompt, summary and tools, when they differ from
    /// the current request's (`None`: the same).
    pub fixed: Option<u64>,
}

impl Report {
    /// The report an assistant message at `index` carries: the request before it, which the
    /// provider counted as `usage.input`, and the message itself, its `usage.output` (so that a
    /// message of several steps, whose last step's request held the steps before, is covered
    /// whole).
    pub fn carried(index: usize, usage: MessageUsage) -> Report {
        Report {
            messages: index + 1,
            tokens: usage.input + usage.output,
            fixed: None,
        }
    }
}

/// How a request's estimate was calibrated and anchored; the default changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Calibration {
    /// The ratio every estimated part was multiplied by, in millionths (0: none).
    pub ratio_ppm: u64,
    /// The anchored estimate of the request minus the sum of its calibrated parts.
    pub adjustment: i64,
    /// The report the estimate is anchored to.
    pub anchor: Option<Report>,
}

impl Calibration {
    /// The ratio (1 when not calibrated).
    pub fn ratio(&self) -> f64 {
        match self.ratio_ppm {
            0 => 1.0,
            ppm => ppm as f64 / 1e6,
        }
    }

    /// `tokens` of our estimate, calibrated.
    pub fn scale(&self, tokens: u64) -> u64 {
        match self.ratio_ppm {
            0 => tokens,
            _ => (tokens as f64 * self.ratio()).round() as u64,
        }
    }
}

/// Calibrates and anchors `facts` (raw estimates) with `reports`; leaves them unchanged when
/// none is usable.
pub fn calibrate(facts: &mut RequestFacts, reports: &[Report]) {
    let fixed_now = facts.system_prompt + facts.summary + facts.tools;
    let mut prefix = Vec::with_capacity(facts.messages.len() + 1);
    let mut sum = 0;
    prefix.push(0);
    for f in &facts.messages {
        sum += f.tokens;
        prefix.push(sum);
    }
    let usable = usable(reports, &prefix, fixed_now);
    let Some(&(anchor, anchor_raw)) = usable.last() else {
        return;
    };
    let ratio = ratio(&usable, anchor, anchor_raw);
    let calibration = Calibration {
        ratio_ppm: ((ratio * 1e6).round() as u64).max(1),
        adjustment: 0,
        anchor: Some(anchor),
    };
    scale(facts, &calibration);
    // The anchored estimate: the report, plus what changed since, calibrated.
    let fixed_scaled = facts.system_prompt + facts.summary + facts.tools;
    let fixed_then = anchor.fixed.map_or(fixed_scaled, |t| calibration.scale(t));
    let added = facts.message_tokens(anchor.messages);
    let anchored = anchor.tokens as i64 + fixed_scaled as i64 - fixed_then as i64 + added as i64;
    facts.calibration = Calibration {
        adjustment: anchored - facts.total_parts() as i64,
        ..calibration
    };
}

/// The reports that describe a prefix of this request, each with our estimate of it, in order,
/// from the last new history on (at most [`RECENT`]).
fn usable(reports: &[Report], prefix: &[u64], fixed_now: u64) -> Vec<(Report, u64)> {
    let mut sorted: Vec<Report> = reports.to_vec();
    sorted.sort_by_key(|r| r.messages);
    let mut usable: Vec<(Report, u64)> = Vec::new();
    for report in sorted {
        let Some(&messages) = prefix.get(report.messages) else {
            continue;
        };
        let raw = report.fixed.unwrap_or(fixed_now) + messages;
        if report.tokens == 0 || !plausible(report.tokens, raw) {
            continue;
        }
        // The same request reported twice: the later report stands.
        if usable
            .last()
            .is_some_and(|(r, _)| r.messages == report.messages)
        {
            usable.pop();
        }
        if usable
            .last()
            .is_some_and(|(r, _)| (report.tokens as f64) < r.tokens as f64 * DROP)
        {
            usable.clear();
        }
        usable.push((report, raw));
    }
    let from = usable.len().saturating_sub(RECENT);
    usable.split_off(from)
}

fn plausible(reported: u64, raw: u64) -> bool {
    let (reported, raw) = (reported as f64, raw as f64);
    reported <= raw * MAX_RATIO && reported * MAX_RATIO >= raw
}

/// The growth of the reported counts over the growth of our estimate across the reports (what
/// the next messages will cost), or the latest report's own ratio when they grew too little.
fn ratio(usable: &[(Report, u64)], anchor: Report, anchor_raw: u64) -> f64 {
    let own = anchor.tokens as f64 / anchor_raw.max(1) as f64;
    let ratio = match usable.first() {
        Some(&(first, first_raw)) if anchor_raw >= first_raw + MIN_GROWTH => {
            let grown = anchor.tokens.saturating_sub(first.tokens) as f64;
            grown / (anchor_raw - first_raw) as f64
        }
        _ => own,
    };
    ratio.clamp(1.0 / MAX_RATIO, MAX_RATIO)
}

/// Multiplies every estimated part of `facts` by the calibration's ratio.
fn scale(facts: &mut RequestFacts, calibration: &Calibration) {
    facts.system_prompt = calibration.scale(facts.system_prompt);
    facts.summary = calibration.scale(facts.summary);
    facts.tools = calibration.scale(facts.tools);
    for f in &mut facts.messages {
        f.tokens = calibration.scale(f.tokens);
    }
}

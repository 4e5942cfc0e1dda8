//! What the provider reported, as the planner holds it: the usage an assistant message
//! carries ([`MessageUsage`]), a count of an earlier request ([`Report`]), and how a request's
//! estimate was calibrated and anchored to one ([`Calibration`]). Plain data shared by the
//! readers, the facts and `crate::anchor`, which decides with them.

/// What a provider reported for one request, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageUsage {
    /// The prompt: input, cache reads and cache writes.
    pub input: u64,
    /// The answer.
    pub output: u64,
}

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

    /// This report, for its messages as a rewrite inside them (a clearing) left them: our raw
    /// estimate of them went from `then` to `now`, and the count goes down (or up) by the
    /// difference, calibrated. Until an answer reports the rewritten request, this is the
    /// best count of it: the report as it was describes the larger request.
    pub fn rewritten(self, then: u64, now: u64, calibration: &Calibration) -> Report {
        let tokens = match then >= now {
            true => self.tokens.saturating_sub(calibration.scale(then - now)),
            false => self.tokens + calibration.scale(now - then),
        };
        Report { tokens, ..self }
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

    /// `tokens` of our estimate of (part of) a message, calibrated: nothing for a failed
    /// attempt once calibrated, which the provider never counts.
    pub fn scale_message(&self, tokens: u64, failed: bool) -> u64 {
        match (self.ratio_ppm, failed) {
            (0, _) => tokens,
            (_, true) => 0,
            _ => self.scale(tokens),
        }
    }
}

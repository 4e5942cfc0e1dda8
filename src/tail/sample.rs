//! A sample of a long history's sizes: what an anchored plan knows of the messages it does not
//! read, to tell whether a report can describe this history at all (`super::anchored`). One
//! message in each [`STRIDE`] before the latest ones is sized ([`History::sizes`]); the latest
//! ones, read exactly, give the tokens per unit of size.

use crate::anchor::Report;
use crate::error::Result;
use crate::facts::RequestFacts;
use crate::history::{History, Sizes};

/// One message in each block of this many before the messages read first is sized.
const STRIDE: usize = 8;

/// The sizes of one message in each [`STRIDE`] before `end`, and the tokens per unit of size of the
/// messages from `end` on (read exactly).
pub(super) struct Sample {
    /// The sampled messages before `end`, and their sizes, in order.
    sampled: Vec<(usize, f64)>,
    end: usize,
    per_size: f64,
}

impl Sample {
    /// The sample of `history`, whose messages from `end` on are read into `facts`; `None`
    /// when it says nothing (the messages read have no size).
    pub(super) fn take<H: History + ?Sized>(
        history: &H,
        facts: &RequestFacts,
        end: usize,
    ) -> Result<Option<Sample>> {
        let count = facts.messages.len();
        // One message at a scrambled place in each block of STRIDE: histories repeat short
        // patterns (a question and its answer, a call and its result), which a fixed step
        // would sample one kind of.
        let picked = (0..end.div_ceil(STRIDE))
            .map(|block| block * STRIDE + scramble(block) % STRIDE)
            .filter(|&i| i < end);
        let indices: Vec<u32> = picked.chain(end..count).map(|i| i as u32).collect();
        // A message that cannot be read is not sampled: the plan does not read it, and what
        // reads it (the plan's `messageTokens`, `apply`) names it.
        let Sizes { sizes, .. } = history.sizes(Some(&indices), true)?;
        let mut sampled: Vec<(usize, f64)> = indices
            .iter()
            .map(|&i| i as usize)
            .zip(sizes)
            .filter(|(_, size)| !size.is_nan())
            .collect();
        let tail_size: f64 = sampled
            .iter()
            .filter(|(i, _)| *i >= end)
            .map(|(_, s)| s)
            .sum();
        sampled.retain(|(i, _)| *i < end);
        if tail_size <= 0.0 {
            return Ok(None);
        }
        let per_size = tokens(facts, end..count) as f64 / tail_size;
        Ok(Some(Sample {
            sampled,
            end,
            per_size,
        }))
    }

    /// Our raw estimate of the request `report` describes, from the sample before `end` and
    /// the messages read after it (`facts`).
    fn estimate(&self, report: &Report, facts: &RequestFacts) -> f64 {
        let stop = report.messages;
        let sized: f64 = self
            .sampled
            .iter()
            .filter(|(i, _)| *i < stop)
            .map(|(_, s)| s)
            .sum();
        let fixed = facts.system_prompt + facts.summary + facts.tools;
        report.fixed.unwrap_or(fixed) as f64
            + tokens(facts, self.end..stop.max(self.end)) as f64
            + sized * STRIDE as f64 * self.per_size
    }

    /// The ratio of `report`'s count to our estimate of the request it describes, by the
    /// sample; `None` for a report calibration skips anyway (zero, or past the request).
    pub(super) fn ratio(&self, report: &Report, facts: &RequestFacts) -> Option<f64> {
        if report.tokens == 0 || report.messages > facts.messages.len() {
            return None;
        }
        Some(report.tokens as f64 / self.estimate(report, facts).max(1.0))
    }
}

/// A well-mixed function of `n` (SplitMix64's finalizer): the same places on every plan.
fn scramble(n: usize) -> usize {
    let mut z = (n as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) as usize
}

/// Our raw estimate of messages `range` of `facts` as the provider counts them (failed
/// attempts left out).
fn tokens(facts: &RequestFacts, range: std::ops::Range<usize>) -> u64 {
    let read = facts.messages.get(range).unwrap_or(&[]);
    read.iter().filter(|f| !f.failed()).map(|f| f.tokens).sum()
}

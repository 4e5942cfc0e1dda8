//! A history that grows: message facts kept across calls, with what planning needs maintained
//! as messages are appended, so a steady-state plan costs O(kept messages), not O(history).
//! Calibrated to what the provider reported ([`Ledger::calibrate`]), the facts hold calibrated
//! estimates and the raw ones are kept beside them.

use crate::hash::HashMap;

use crate::anchor::{self, Calibration, Report};
use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::plan::{History, Plan, plan_history};
use crate::request::PlanOptions;
use crate::steps::Positions;
use crate::window::{self, ProviderCompaction};

/// Facts of a growing history and the tool-call pairing between its messages.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    facts: Vec<MessageFacts>,
    /// The planning positions once a message has steps (`None`: the messages themselves).
    positions: Option<Positions>,
    /// Tool-call id → the latest position that made the call. Boxed `str` keys: the entries
    /// are laid out as the other maps' `&str` ones, so the module has one copy of the table's
    /// resizing code, not two.
    calls: HashMap<Box<str>, usize>,
    /// `blocked[c]`: how many call/result pairs a cut at position `c` would separate.
    blocked: Vec<u32>,
    message_tokens: u64,
    pinned_tokens: u64,
    /// Whether the host pinned a message (its pairs are then checked at each plan).
    host_pinned: bool,
    raw: Raw,
    /// Whether the messages before the newest provider summary count ([`crate::window`]).
    mode: ProviderCompaction,
    /// The position of the newest provider summary (0 without one): cuts fall after it.
    window: usize,
}

/// Our raw estimates of the messages, while the facts hold them calibrated.
#[derive(Debug, Clone, Default)]
struct Raw {
    /// Each message's tokens.
    tokens: Vec<u64>,
    /// The tokens of each later step, in message order.
    steps: Vec<u64>,
    /// `sent[n]`: the first `n` messages as the provider counts them (failed attempts left
    /// out); one more entry than messages.
    sent: Vec<u64>,
    /// The calibration the facts hold (the default: none, they are the raw estimates).
    calibration: Calibration,
}

impl Ledger {
    /// An empty history.
    pub fn new() -> Self {
        Ledger {
            blocked: vec![0],
            raw: Raw {
                sent: vec![0],
                ..Raw::default()
            },
            ..Ledger::default()
        }
    }

    /// An empty history whose provider summaries are read as `mode` says.
    pub fn with_mode(mode: ProviderCompaction) -> Self {
        Ledger {
            mode,
            ..Ledger::new()
        }
    }

    /// A history of `facts`, in order.
    pub fn from_facts(facts: impl IntoIterator<Item = MessageFacts>) -> Self {
        let mut ledger = Ledger::new();
        for f in facts {
            ledger.push(f);
        }
        ledger
    }

    /// Appends the facts of the next message (raw estimates). A result pairs with the call of
    /// its id in its own message, else the latest earlier one; results whose call is unknown
    /// constrain nothing.
    pub fn push(&mut self, mut facts: MessageFacts) {
        if !facts.steps.is_empty() && self.positions.is_none() {
            // The first message with steps: pairing is redone over positions (no message had
            // steps before, so their raw tokens are all there is to restore).
            let before = std::mem::take(&mut self.facts);
            let raw = std::mem::take(&mut self.raw);
            *self = Ledger {
                positions: Some(Positions::default()),
                ..Ledger::with_mode(self.mode)
            };
            self.raw.calibration = raw.calibration;
            for (mut f, tokens) in before.into_iter().zip(raw.tokens) {
                f.tokens = tokens;
                self.push(f);
            }
        }
        self.raw.tokens.push(facts.tokens);
        let sent = self.raw.sent.last().copied().unwrap_or(0);
        self.raw
            .sent
            .push(sent + if facts.failed() { 0 } else { facts.tokens });
        let (calibration, failed) = (self.raw.calibration, facts.failed());
        for step in &mut facts.steps {
            self.raw.steps.push(step.tokens);
            step.tokens = calibration.scale_message(step.tokens, failed);
        }
        facts.tokens = calibration.scale_message(facts.tokens, failed);
        match self.positions.take() {
            None => self.pair(&facts),
            Some(mut positions) => {
                let first = positions.facts.len();
                positions.push(self.facts.len(), &facts);
                for position in positions.facts.get(first..).unwrap_or(&[]) {
                    self.pair(position);
                }
                self.positions = Some(positions);
            }
        }
        self.message_tokens += facts.tokens;
        if facts.is_pinned() {
            self.pinned_tokens += facts.tokens;
        }
        let opens = facts.provider_summary() && self.mode == ProviderCompaction::Window;
        self.host_pinned |= facts.pinned();
        self.facts.push(facts);
        if opens {
            self.open_window();
        }
    }

    /// The newest message holds a provider summary: the messages before it count nothing from
    /// now on (but the system and pinned ones), and cuts fall after it. O(history), once per
    /// provider compaction.
    fn open_window(&mut self) {
        let last = self.facts.len().saturating_sub(1);
        let mut steps = 0;
        for (f, raw) in self.facts.iter_mut().zip(&mut self.raw.tokens).take(last) {
            let count = f.steps.len();
            if !window::counts_before_window(f) {
                window::close(f);
                *raw = 0;
                let raw_steps = self.raw.steps.get_mut(steps..steps + count);
                raw_steps.unwrap_or(&mut []).fill(0);
            }
            steps += count;
        }
        let mut sent = 0;
        let after = self.raw.sent.iter_mut().skip(1);
        for ((f, &raw), after) in self.facts.iter().zip(&self.raw.tokens).zip(after) {
            sent += if f.failed() { 0 } else { raw };
            *after = sent;
        }
        self.message_tokens = self.facts.iter().map(|f| f.tokens).sum();
        let pinned = self.facts.iter().filter(|f| f.is_pinned());
        self.pinned_tokens = pinned.map(|f| f.tokens).sum();
        self.window = match &mut self.positions {
            None => last,
            Some(positions) => {
                positions.retoken(&self.facts);
                let first = positions
                    .starts
                    .iter()
                    .rposition(|&(i, part)| i == last && part == 0);
                first.unwrap_or(0)
            }
        };
    }

    /// Pairs the calls and results of the next position with the earlier ones.
    fn pair(&mut self, facts: &MessageFacts) {
        let j = self.blocked.len().saturating_sub(1);
        self.blocked.push(0);
        // A result whose call is in the same position is answered there (see
        // `plan::largest_valid_cut`), whatever earlier call has its id.
        let elsewhere = facts
            .tool_result_ids
            .iter()
            .filter(|id| !facts.tool_call_ids.contains(id));
        for id in elsewhere {
            let Some(&i) = self.calls.get(id) else {
                continue;
            };
            // Cuts i+1..=j would keep the result and summarize the call.
            for count in self.blocked.iter_mut().take(j + 1).skip(i + 1) {
                *count += 1;
            }
        }
        for id in &facts.tool_call_ids {
            self.calls.insert(id.into(), j);
        }
    }

    /// The facts so far (their tokens calibrated when the history is).
    pub fn facts(&self) -> &[MessageFacts] {
        &self.facts
    }

    /// The tokens of every message, as [`Ledger::facts`] holds them.
    pub fn message_tokens(&self) -> u64 {
        self.message_tokens
    }

    /// The estimate of the whole request, with the fixed parts `fixed` (as
    /// [`Ledger::calibrate`] gives them): what [`RequestFacts::total`] gives for these messages,
    /// without a copy of their facts.
    pub fn total(&self, fixed: &RequestFacts) -> u64 {
        (fixed.total_parts() + self.message_tokens)
            .saturating_add_signed(fixed.calibration.adjustment)
    }

    /// How many messages.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// Calibrates the history to the latest usable of `reports` (see [`crate::anchor`]), as
    /// [`crate::Compactor::plan`] calibrates the same messages, and returns `fixed` (the raw
    /// system prompt, summary and tools) calibrated and anchored, to plan with. Without a usable
    /// report, the raw estimates. Costs O(history) when the ratio changes, else O(reports).
    pub fn calibrate(&mut self, fixed: &RequestFacts, reports: &[Report]) -> RequestFacts {
        let fixed_now = fixed.system_prompt + fixed.summary + fixed.tools;
        let sent = &self.raw.sent;
        let chosen = anchor::choose(reports, self.len(), fixed_now, |end| {
            sent.get(end).copied().unwrap_or(0)
        });
        let calibration = chosen.unwrap_or_default();
        self.rescale(calibration);
        let mut out = RequestFacts {
            system_prompt: calibration.scale(fixed.system_prompt),
            summary: calibration.scale(fixed.summary),
            tools: calibration.scale(fixed.tools),
            provider_compaction: self.mode,
            ..RequestFacts::default()
        };
        if let Some(anchor) = calibration.anchor {
            let added = self.facts.iter().skip(anchor.messages).map(|f| f.tokens);
            let fixed_now = out.system_prompt + out.summary + out.tools;
            let total = fixed_now + self.message_tokens;
            out.calibration = anchor::anchored(calibration, fixed_now, added.sum(), total);
        }
        out
    }

    /// Sets the facts' tokens to the raw estimates calibrated by `calibration` (nothing to do
    /// when the ratio is the one they hold).
    fn rescale(&mut self, calibration: Calibration) {
        if calibration.ratio_ppm == self.raw.calibration.ratio_ppm {
            self.raw.calibration = calibration;
            return;
        }
        self.raw.calibration = calibration;
        let mut steps = self.raw.steps.iter();
        let (mut total, mut pinned) = (0, 0);
        // One pass: a long history's facts are read once.
        for (f, &tokens) in self.facts.iter_mut().zip(&self.raw.tokens) {
            let failed = f.failed();
            f.tokens = calibration.scale_message(tokens, failed);
            for step in &mut f.steps {
                let raw = steps.next().copied().unwrap_or(0);
                step.tokens = calibration.scale_message(raw, failed);
            }
            total += f.tokens;
            if f.is_pinned() {
                pinned += f.tokens;
            }
        }
        (self.message_tokens, self.pinned_tokens) = (total, pinned);
        if let Some(positions) = &mut self.positions {
            positions.retoken(&self.facts);
        }
    }

    /// Plans over this history; `fixed` gives the system prompt, summary and tools (its own
    /// messages are not read), calibrated by [`Ledger::calibrate`] when the history is. The
    /// same plan as [`crate::Compactor::plan`] on the same facts.
    pub(crate) fn plan(
        &self,
        fixed: &RequestFacts,
        options: PlanOptions,
        keep_recent_tokens: u64,
        trigger_ratio: f64,
    ) -> Result<Option<Plan>> {
        if self.host_pinned {
            crate::pinned::check_pairs(&self.facts)?;
        }
        let history = History {
            facts: self.positions.as_ref().map_or(&self.facts, |p| &p.facts),
            valid_cut: &|limit| {
                (1..=limit)
                    .rev()
                    .find(|&cut| self.blocked.get(cut).is_none_or(|n| *n == 0))
            },
            message_tokens: self.message_tokens,
            pinned_tokens: self.pinned_tokens,
            first_cut: self.window + 1,
        };
        let plan = plan_history(fixed, &history, options, keep_recent_tokens, trigger_ratio)?;
        let plan = match &self.positions {
            Some(positions) => plan.map(|plan| plan.over_messages(positions, &self.facts)),
            None => plan,
        };
        Ok(plan.map(|plan| plan.with_tokens(&self.facts)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_beside_its_call_blocks_no_cut_whatever_earlier_call_has_its_id() {
        // UIMessages of a model that numbers its calls per response: every answer holds
        // `call_0` and its result (as `plan::largest_valid_cut` pairs them).
        let answer = || MessageFacts {
            tool_call_ids: ["call_0"].into_iter().collect(),
            tool_result_ids: ["call_0"].into_iter().collect(),
            ..MessageFacts::default()
        };
        let ledger = Ledger::from_facts([
            MessageFacts::default(),
            answer(),
            MessageFacts::default(),
            answer(),
        ]);
        assert!(
            ledger.blocked.iter().all(|&n| n == 0),
            "{:?}",
            ledger.blocked
        );
    }

    #[test]
    fn the_total_is_the_request_facts_total_anchored_as_the_fixed_parts_are() {
        let message = |tokens| MessageFacts {
            tokens,
            ..MessageFacts::default()
        };
        let ledger = Ledger::from_facts([message(120), message(30), message(400)]);
        let mut fixed = RequestFacts {
            system_prompt: 50,
            summary: 7,
            tools: 11,
            ..RequestFacts::default()
        };
        for adjustment in [0, 90, -600] {
            fixed.calibration.adjustment = adjustment;
            let whole = RequestFacts {
                messages: ledger.facts().to_vec(),
                ..fixed.clone()
            };
            assert_eq!(
                ledger.total(&fixed),
                whole.total(),
                "adjustment {adjustment}"
            );
        }
    }
}

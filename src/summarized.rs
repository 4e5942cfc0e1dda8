//! What a plan summarizes of a request's messages, read one message at a time from wherever
//! the caller keeps them ([`Messages`]): the canonical units an apply hands the summarizer,
//! and the records a generator summarizer shows its model. One rule for both: the messages a
//! request pins are left out ([`Summarized`]), and a message the cut falls inside is read only
//! up to the step the cut starts.

use std::borrow::Cow;
use std::ops::Range;

use context_compaction_scan::Val;

use crate::error::Result;
use crate::formats::{Format, Path, Records, Sink, Units};
use crate::generator::{Generator, GeneratorSummarizer, Purpose};
use crate::message::Message;
use crate::options::HostRequest;
use crate::pinned::{Found, Summarized};
use crate::plan::Plan;
use crate::retry::Sleeper;
use crate::summarizer::SummarizeRequest;
use crate::token::Estimator;

/// A request's messages as their holder reads them out.
pub trait Messages {
    /// How many there are.
    fn count(&self) -> usize;

    /// Calls `each(i, message)` for each of messages `indices`, in order: the message laid
    /// out for `format`'s reader, or `None` for one to be read from [`Messages::json`].
    fn each(
        &self,
        format: Format,
        indices: &[u32],
        each: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
    ) -> Result<()>;

    /// The JSON text of message `i`; errors name `path`.
    fn json(&self, i: usize, path: &str) -> Result<Cow<'_, str>>;
}

/// Messages held as their JSON texts.
impl Messages for &[&str] {
    fn count(&self) -> usize {
        self.len()
    }

    fn each(
        &self,
        _: Format,
        indices: &[u32],
        each: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
    ) -> Result<()> {
        for &i in indices.iter().filter(|&&i| (i as usize) < self.len()) {
            each(i as usize, None)?;
        }
        Ok(())
    }

    fn json(&self, i: usize, _: &str) -> Result<Cow<'_, str>> {
        Ok(Cow::Borrowed(self.get(i).copied().unwrap_or_default()))
    }
}

/// The canonical units of `messages` `range` (in `format`) a plan summarizes, leaving out
/// those `pinned` pins; with `last_part` > 0, of the last one only the units before the step
/// that starts at that part (`None` when no step starts there).
pub fn units<M: Messages + ?Sized>(
    messages: &M,
    format: Format,
    pinned: &[u32],
    range: Range<usize>,
    last_part: usize,
) -> Result<Option<Vec<Message>>> {
    let mut found = last_part == 0;
    let summarized = Summarized::new(range.clone(), pinned);
    let mut out = Vec::new();
    messages.each(format, &summarized.to_read(), &mut |i, message| {
        let mut units = Units::default();
        read(messages, format, i, message, &mut units)?;
        let mut host = units.finish();
        if last_part > 0 && i + 1 == range.end {
            let step = host.steps.iter().find(|s| s.part == last_part);
            found = step.is_some();
            host.units.truncate(step.map_or(0, |s| s.unit));
        }
        if summarized.includes(i, Found::of_host(&host)) {
            out.extend(host.units);
        }
        Ok(())
    })?;
    Ok(found.then_some(out))
}

/// The records (what the generator summarizer shows the model) of the messages [`units`]
/// gives the units of, written as each message is read, without building its units:
/// `Some(None)` when they hold no units (nothing to summarize).
pub fn records<M: Messages + ?Sized>(
    messages: &M,
    format: Format,
    pinned: &[u32],
    range: Range<usize>,
    last_part: usize,
) -> Result<Option<Option<String>>> {
    let summarized = Summarized::new(range.clone(), pinned);
    let mut records = Records::default();
    messages.each(format, &summarized.to_read(), &mut |i, message| {
        if last_part > 0 && i + 1 == range.end {
            records.stop_at_step(last_part);
        }
        read(messages, format, i, message, &mut records)?;
        records.end_message(summarized.includes(i, records.found()));
        Ok(())
    })?;
    let found = last_part == 0 || records.reached_cut();
    Ok(found.then(|| records.finish()))
}

/// Reads message `i` into `sink`: laid out, or from its JSON text.
fn read<M: Messages + ?Sized>(
    messages: &M,
    format: Format,
    i: usize,
    message: Option<Val>,
    sink: &mut dyn for<'a> Sink<'a>,
) -> Result<()> {
    match message {
        Some(message) => format.read_into(message, Path::message(i), sink),
        None => {
            let path = text!("messages[", i, "]");
            format.read_json_into(&messages.json(i, &path)?, &path, sink)
        }
    }
}

impl<A: Messages, E: Estimator> HostRequest<A, E> {
    /// [`units`] of this request's messages.
    pub fn units(&self, range: Range<usize>, last_part: usize) -> Result<Option<Vec<Message>>> {
        units(&self.messages, self.format, &self.pinned, range, last_part)
    }

    /// What an apply of `plan` (checked with [`Plan::check_apply`]) summarizes: the units of
    /// its history and of its turn prefix.
    pub fn apply_units(&self, plan: &Plan) -> Result<(Vec<Message>, Vec<Message>)> {
        let history = self.plan_units(plan, plan.messages_to_summarize.clone(), 0)?;
        Ok((history, self.prefix_units(plan)?))
    }

    /// The prompts `generator` would send to summarize what `plan` cuts from this request.
    pub fn prompts<G, S>(
        &self,
        generator: &GeneratorSummarizer<G, S>,
        plan: &Plan,
    ) -> Result<Vec<(Purpose, String)>>
    where
        G: Generator,
        S: Sleeper<Context = G::Context>,
    {
        plan.check_fits(self.messages.count())?;
        let (h, focus) = (plan.messages_to_summarize.clone(), self.focus.as_deref());
        if generator.context_window_tokens.is_some() {
            // A window's chunks are counted from units, as apply counts them.
            let (history, prefix) = (self.plan_units(plan, h, 0)?, self.prefix_units(plan)?);
            return generator.prompts(&SummarizeRequest {
                previous_summary: &self.summary,
                messages: &history,
                turn_prefix_messages: &prefix,
                estimator: &self.estimator,
                focus,
            });
        }
        // Records written as the messages are read: no units are built.
        let (messages, format, pinned) = (&self.messages, self.format, &self.pinned);
        let records = |range, part| {
            records(messages, format, pinned, range, part)?.ok_or_else(|| plan.part_error())
        };
        let history = records(h, 0)?;
        let (p, part) = plan.prefix_range();
        let prefix = records(p, part)?;
        let (history, prefix) = (history.as_deref(), prefix.as_deref());
        let units = || self.prefix_units(plan);
        generator.prompts_of(
            &self.summary,
            history,
            prefix,
            units,
            &self.estimator,
            focus,
        )
    }

    /// The units of a plan's turn prefix: its whole messages, then the parts before the cut
    /// of a message cut inside.
    fn prefix_units(&self, plan: &Plan) -> Result<Vec<Message>> {
        let (range, part) = plan.prefix_range();
        self.plan_units(plan, range, part)
    }

    /// [`HostRequest::units`], a plan whose `first_kept_part` starts no step being an error.
    fn plan_units(&self, plan: &Plan, range: Range<usize>, part: usize) -> Result<Vec<Message>> {
        self.units(range, part)?.ok_or_else(|| plan.part_error())
    }
}

/// The records of messages given as JSON texts, as [`records`] makes them: kept with what
/// a plan summarizes, where the rule on pinned messages and split steps is.
impl Format {
    /// The records of host messages given as JSON texts (`messages[i]` in errors): what
    /// [`crate::records::serialize`] makes of their units, written as the reader reads them.
    pub fn records_json<'t>(self, texts: impl IntoIterator<Item = &'t str>) -> Result<String> {
        let texts: Vec<&str> = texts.into_iter().collect();
        Ok(self.records_json_until(&texts, &[], 0)?.unwrap_or_default())
    }

    /// [`Format::records_json`] of the messages a plan summarizes when the request pins
    /// `pinned` (sorted indices; [`crate::pinned::Summarized`]), with the last message written
    /// only up to the step that starts at part `last_part` (when > 0): the records of a plan
    /// that keeps the rest of it. `None` when no step starts there.
    pub fn records_json_until(
        self,
        texts: &[&str],
        pinned: &[u32],
        last_part: usize,
    ) -> Result<Option<String>> {
        let range = 0..texts.len();
        let records = records(&texts, self, pinned, range, last_part)?;
        Ok(records.map(Option::unwrap_or_default))
    }
}

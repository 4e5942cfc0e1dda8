//! What to do with a request whose messages are a body (`planBytes`): its facts read from the
//! bytes, calibrated to the usage its latest answers carry and to its explicit reports, then
//! clear first or summarize ([`Compactor::decide_with`]), the tool results and calls read from
//! the same bytes. Everything comes from the body; nothing is asked of a host.

use std::ops::Range;

use crate::anchor::{self, Report};
use crate::clearing::{ClearingPolicy, Finder, Found, read_indices};
use crate::compactor::{Compactor, Planned};
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::formats::Format;
use crate::history::Parts;
use crate::request::PlanOptions;
use crate::summarizer::Summarizer;

/// What [`decide`] found: where each message is in the body, the facts, and the decision.
#[derive(Debug)]
pub struct Decided {
    /// The byte range of each message's JSON text.
    pub spans: Vec<Range<usize>>,
    /// The facts, calibrated.
    pub facts: RequestFacts,
    /// What to do (`None`: nothing).
    pub planned: Option<Planned>,
}

/// Decides what `compactor` does with the request of `parts` whose messages (in `format`) are
/// `body`: the same decision as for those messages as objects.
pub fn decide<S: Summarizer>(
    compactor: &Compactor<S>,
    body: &[u8],
    format: Format,
    parts: &Parts<'_>,
    options: PlanOptions,
) -> Result<Decided> {
    let read = super::facts(body, format, parts.estimator)?;
    let mut facts = parts.fixed_facts()?;
    facts.messages = read.messages;
    // The request's pinned indices, checked now that the body says how many messages it holds.
    let pinned = crate::pinned::checked(parts.pinned.to_vec(), facts.messages.len(), "pinned")?;
    crate::pinned::mark_first(&pinned, &mut facts.messages);
    let spans = read.spans;
    let reports = reports(body, &spans, format, parts, &facts)?;
    anchor::calibrate(&mut facts, &reports);
    let mut find = |policy: &ClearingPolicy| found(body, &spans, format, parts, &facts, policy);
    let mut summarize = || compactor.plan_with_facts(&facts, options);
    let planned =
        compactor.decide_with(&facts, options, parts.estimator, &mut find, &mut summarize)?;
    Ok(Decided {
        spans,
        facts,
        planned,
    })
}

/// The JSON text of message `i` of `body`, `None` when it has none (or it is not UTF-8).
pub fn message_text<'b>(body: &'b [u8], spans: &[Range<usize>], i: usize) -> Option<&'b str> {
    let span = spans.get(i)?;
    std::str::from_utf8(body.get(span.clone())?).ok()
}

/// The `id` of message `i` of `body` when it is a string (UIMessages have one).
pub fn message_id(body: &[u8], spans: &[Range<usize>], i: usize) -> Option<String> {
    let text = message_text(body, spans, i)?;
    let mut nodes = Vec::new();
    let tape = crate::formats::scan(text, "body", &mut nodes).ok()?;
    let message = tape.root();
    message.field("id")?.str().map(|id| id.into_owned())
}

/// The reports of the body's request (raw facts `facts`): the usage on its latest answers and
/// the explicit ones of `parts` ([`crate::reported::reports`]).
fn reports(
    body: &[u8],
    spans: &[Range<usize>],
    format: Format,
    parts: &Parts<'_>,
    facts: &RequestFacts,
) -> Result<Vec<Report>> {
    crate::reported::reports(parts, facts, |latest| {
        let usage = |&i: &u32| match message_text(body, spans, i as usize) {
            Some(text) => format.usage_json(text, &text!("messages[", i, "]")),
            None => Ok(None),
        };
        latest.iter().map(usage).collect()
    })
}

/// The tool results and calls of the messages of `body` that hold any.
fn found(
    body: &[u8],
    spans: &[Range<usize>],
    format: Format,
    parts: &Parts<'_>,
    facts: &RequestFacts,
    policy: &ClearingPolicy,
) -> Result<Found> {
    let tracking = &policy.file_tracking;
    let mut finder = Finder::new(parts.estimator, tracking, false, policy.reads_arguments());
    for i in read_indices(&facts.messages, false) {
        let i = i as usize;
        let text = message_text(body, spans, i)
            .ok_or_else(|| Error::invalid_request(text!("messages[", i, "]: not UTF-8")))?;
        finder.read_json(format, i, text)?;
    }
    finder.finish()
}

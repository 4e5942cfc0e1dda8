//! Drafts as JavaScript sees them: a draft object out (`compactor.draft`, `beforeCommit`), a
//! draft object read back (`compactor.commit`, possibly edited), and the digest of what a cut
//! covers in a request's messages. The rules are the core's (`crate::draft`).

use std::ops::Range;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::convert::{self, JsRequest};
use super::engine::Engine;
use crate::apply::CommitInput;
use crate::draft::{Digest, Draft, cover};
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::{Plan, PlanFields};

/// The digest of what a cut at part `part` of message `first` covers in `messages`: the units
/// a summary of them is given.
pub(crate) fn digest(request: &JsRequest, first: usize, part: usize) -> Result<Digest> {
    let messages = &request.messages;
    let (range, part) = cover(first, part);
    if range.end > messages.length() as usize {
        return Err(Error::invalid_request(text!(
            "the cut at messages[",
            first,
            "] is beyond the request's ",
            messages.length(),
            " messages"
        )));
    }
    digest_of(request, range, part)?.ok_or_else(|| {
        Error::invalid_request(text!(
            "messages[",
            first,
            "]: no step starts at part ",
            part,
            " (firstKeptPart)"
        ))
    })
}

/// [`digest`] of `range` (`None` when the last message has no step at part `part`); the
/// messages the request pins are in no summary, so in no digest.
fn digest_of(request: &JsRequest, range: Range<usize>, part: usize) -> Result<Option<Digest>> {
    let units = request.units(range, part)?;
    Ok(units.map(|units| Digest::of_summarized(&[&units])))
}

/// The digest [`Draft::check_covers`] asks for: a message the draft cuts inside that has no
/// step at its part any more changed since, so the draft is stale.
fn covered(request: &JsRequest, range: Range<usize>, part: usize) -> Result<Digest> {
    let last = range.end.saturating_sub(1);
    digest_of(request, range, part)?.ok_or_else(|| {
        Error::Stale(text!(
            "messages[",
            last,
            "] has no step at part ",
            part,
            " any more (a message the draft summarizes changed)"
        ))
    })
}

/// `draft` (of `request`) carried onto `onto` at `cut` ([`Draft::rebased`]): `stale` when it
/// does not cover `request`.
pub(crate) fn rebased(
    request: &JsRequest,
    draft: &Draft,
    onto: &JsRequest,
    cut: (usize, usize),
) -> Result<Draft> {
    let from = (request.summary.as_str(), request.messages.length() as usize);
    let covered = |range, part| covered(request, range, part);
    draft.rebased(from, covered, cut, |_, _| digest(onto, cut.0, cut.1))
}

/// Whether `draft` may still be committed onto `request` ([`Draft::covers`]).
pub(crate) fn covers(request: &JsRequest, draft: &Draft) -> Result<bool> {
    let length = request.messages.length() as usize;
    draft.covers(&request.summary, length, |range, part| {
        covered(request, range, part)
    })
}

/// Commits `draft` onto `request`: `{ summary, messages, record }` as apply gives it, or
/// `stale` when the request no longer holds what the draft covers.
pub(crate) fn commit(engine: &Engine, request: &JsRequest, draft: &Draft) -> Result<JsValue> {
    let facts = engine.facts(request)?;
    let (applied, kept) = commit_with_facts(request, &facts, draft)?;
    Ok(convert::outcome(
        &applied.summary,
        kept,
        Some(&applied.record),
    ))
}

/// Checks that `draft` covers `request` ([`Draft::check_covers`], `stale` otherwise).
pub(crate) fn check_covers(request: &JsRequest, draft: &Draft) -> Result<()> {
    let length = request.messages.length() as usize;
    draft.check_covers(&request.summary, length, |range, part| {
        covered(request, range, part)
    })
}

/// [`commit`] onto a request whose facts are `facts` (a manager's, calibrated to what it
/// learned): the new summary and record, and the kept messages.
pub(crate) fn commit_with_facts(
    request: &JsRequest,
    facts: &RequestFacts,
    draft: &Draft,
) -> Result<(crate::apply::Applied, Array)> {
    check_covers(request, draft)?;
    let input = CommitInput {
        facts,
        require_reduction: request.require_reduction,
        estimator: &request.estimator,
    };
    let applied = crate::apply::commit_with_facts(input, draft)?;
    let kept = convert::kept(&request.messages, facts, &cut(draft)?)?;
    Ok((applied, kept))
}

/// A plan that only says where `draft` cuts (for the kept messages).
fn cut(draft: &Draft) -> Result<Plan> {
    let fields = PlanFields {
        first_kept_index: Some(draft.first_kept_index),
        first_kept_part: Some(draft.first_kept_part),
        turn_prefix_start: Some(draft.first_kept_index),
    };
    // With `turnPrefixStart` given, the lists are not asked for.
    Plan::from_fields(fields, || Ok((0, 0)), || Ok(None))
}

//! What the package says of a decision of the Rust `Compactor` in `tests/differential.rs`: its
//! plan, the record of applying it and the messages a clearing rewrites, as the expected file
//! writes them; and what its sizer is told of each format.

use super::*;

/// What the package's plan says of `planned` (over `facts`, with the messages `unread` not
/// read).
pub(crate) fn plan_json(
    input: &Input,
    planned: Option<&Planned>,
    facts: &RequestFacts,
    unread: Option<&tail::Unread>,
) -> Value {
    let mut tokens: Vec<f64> = facts.messages.iter().map(|f| f.tokens as f64).collect();
    if let Some(unread) = unread {
        // Filled in when the plan's `messageTokens` is first read: the sizer's pass.
        let sizes = input.history().sizes(None, false).unwrap();
        fill_deferred(
            &mut tokens,
            &sizes.sizes,
            unread.start,
            &unread.read,
            &sizes.failed,
        );
    }
    match planned {
        None => Value::Null,
        Some(Planned::Clear(clearing)) => clear_plan(clearing, facts, &tokens, input.long),
        Some(Planned::Summarize(plan)) => json!({
            "firstKeptIndex": plan.first_kept_index,
            "firstKeptPart": plan.first_kept_part,
            "splitTurn": plan.split_turn,
            "estimateBefore": plan.estimate_before,
            "estimateAfterWithoutSummary": plan.estimate_after_without_summary,
            "messageTokens": numbers(&tokens, input.long),
            "turnPrefixStart": plan.turn_prefix_messages.start,
            // The package's lists leave out the messages kept for being pinned.
            "summarized": unpinned(facts, plan.messages_to_summarize.clone()),
            "turnPrefix": unpinned(facts, turn_prefix(plan)),
            "pinnedIndices": pinned::kept_before(&facts.messages, plan.first_kept_index),
        }),
    }
}

/// The record of applying `planned` (over the facts of every message, as `apply` reads them),
/// and the messages a clearing rewrites.
pub(crate) fn applied(
    compactor: &Compactor<Fixed>,
    input: &Input,
    planned: Option<&Planned>,
    options: PlanOptions,
) -> (Value, Value) {
    match planned {
        None => (Value::Null, Value::Null),
        Some(Planned::Clear(clearing)) => {
            let (record, rewritten) = cleared(input, clearing);
            (record, kept(rewritten, input.long))
        }
        Some(Planned::Summarize(plan)) => {
            let input_apply = ApplyInput {
                facts: &input.facts,
                summary: "",
                history: &input.units(plan.messages_to_summarize.clone(), 0),
                turn_prefix: &input.units(turn_prefix(plan), plan.first_kept_part),
                require_reduction: options.require_reduction,
                estimator: &ESTIMATOR,
                focus: None,
            };
            let record = match run(compactor.apply_with_facts(input_apply, plan, &())) {
                Ok(applied) => json!({
                    "summary": applied.record.summary,
                    "firstKeptIndex": applied.record.first_kept_index,
                    "estimateBefore": applied.record.estimate_before,
                    "estimateAfter": applied.record.estimate_after,
                }),
                Err(error) => json!({ "error": error.code() }),
            };
            (record, Value::Null)
        }
    }
}

/// How many of the messages in `range` are not pinned.
fn unpinned(facts: &RequestFacts, range: std::ops::Range<usize>) -> usize {
    range.filter(|&i| !facts.messages[i].is_pinned()).count()
}

/// The messages a summary's turn prefix reads (the one cut inside included).
fn turn_prefix(plan: &Plan) -> std::ops::Range<usize> {
    let prefix = &plan.turn_prefix_messages;
    prefix.start..prefix.end + usize::from(plan.first_kept_part > 0)
}

pub(crate) fn clear_plan(
    clearing: &Clearing,
    facts: &RequestFacts,
    tokens: &[f64],
    long: bool,
) -> Value {
    let results: Vec<Value> = clearing
        .results
        .iter()
        .map(|r| {
            json!({
                "index": r.index,
                "toolCallId": r.tool_call_id,
                "toolName": r.tool_name,
                "tokens": r.tokens,
                "text": r.text,
            })
        })
        .collect();
    json!({
        "kind": "clear",
        "clearedResults": kept(Value::Array(results), long),
        "argumentMessages": kept(json!(clearing.argument_messages), long),
        "estimateBefore": clearing.estimate_before,
        "estimateAfter": clearing.estimate_after,
        "tokensFreed": clearing.tokens_freed(),
        "estimateAfterWithoutSummary": clearing.estimate_after.saturating_sub(facts.summary),
        "messageTokens": numbers(tokens, long),
    })
}

/// The record of `clearing` (its estimates as given).
pub(crate) fn clear_record(clearing: &Clearing) -> Value {
    json!({
        "kind": "clear",
        "summary": "",
        "firstKeptIndex": 0,
        "estimateBefore": clearing.estimate_before,
        "estimateAfter": clearing.estimate_after,
        "tokensFreed": clearing.tokens_freed(),
        "clearedResults": clearing.results.len(),
    })
}

/// Applies `clearing` to the messages of `input` as `apply` does a clear plan (re-reading the
/// rewritten messages for the estimate after): the record, and the rewritten messages
/// (index and message). The clearing done is the clearing planned.
pub(crate) fn cleared(input: &Input, clearing: &Clearing) -> (Value, Value) {
    let texts = |i: usize, _: &str| Ok(input.texts[i].clone());
    let len = input.texts.len();
    let edited = clearing::rewrite_json(input.format, clearing, len, texts).unwrap();
    let estimator = Heuristic::new();
    let done = clearing::done_json(
        clearing.clone(),
        input.format,
        &input.facts,
        &edited,
        texts,
        &estimator,
    )
    .unwrap();
    // The clearing done is the clearing planned, its estimate after too (with usage, both are
    // calibrated alike).
    assert!(
        done == *clearing,
        "{:?}: applied as planned: {} results, estimate after {}; planned {}, {}",
        input.format,
        done.results.len(),
        done.estimate_after,
        clearing.results.len(),
        clearing.estimate_after
    );
    let record = clear_record(&done);
    let rewritten: Vec<Value> = edited
        .iter()
        .map(|(i, m)| json!([i, serde_json::from_str::<Value>(&m.text).unwrap()]))
        .collect();
    (record, Value::Array(rewritten))
}

/// What the package's sizer is told of `format`: the keys its reader reads, its system roles,
/// how a failed attempt is marked, and where its marker pins a message.
pub(crate) fn sizer_arguments(format: Format) -> Value {
    let mark = format.failed_mark();
    json!({
        "keys": format.keys(),
        "systemRoles": format.system_roles(),
        "failRole": mark.map(|m| m.role),
        "failKey": mark.map(|m| m.key),
        "failValues": mark.map_or(&[][..], |m| m.values),
        "pinPath": format.pin_path(),
    })
}

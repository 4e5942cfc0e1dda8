//! What the package returns, as plain data: the shape of each output (its keys, in order, and
//! what each holds) is written once here, and one generic conversion in the binding turns an
//! [`Out`] into a JavaScript value. What only the binding holds (a host's own message arrays,
//! typed arrays, a thrown value) is a [`Out::Slot`] it fills in.

use crate::clearing::{Clearing, Found};
use crate::facts::RequestFacts;
use crate::manager::{Event, Maintained};
use crate::plan::Plan;
use crate::record::Record;
use crate::summarizer::Usage;

/// A plain value: `null`, a boolean, a number, a string, an array, an object (keys in
/// order), or the `k`-th value the binding gives.
#[derive(Debug, Clone, PartialEq)]
pub enum Out<'a> {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A whole number (a count of tokens, messages, …).
    Count(u64),
    /// Any other number.
    Number(f64),
    /// A string.
    Text(&'a str),
    /// An array.
    List(Vec<Out<'a>>),
    /// An object.
    Fields(Vec<(&'static str, Out<'a>)>),
    /// The `k`-th value the binding holds.
    Slot(usize),
}

/// The plan's slots, for [`Out::plan`].
pub mod plan_slot {
    /// `firstKeptId`: the id of the message the kept suffix starts in, or `null`.
    pub const ID: usize = 0;
    /// `messageTokens`: the estimate of each message (a `Float64Array`).
    pub const TOKENS: usize = 1;
    /// `messagesToSummarize`, or (a plan of a body) `messageSpans`.
    pub const FIRST: usize = 2;
    /// `turnPrefixMessages`.
    pub const SECOND: usize = 3;
}

impl<'a> Out<'a> {
    /// `{ input, output, cacheRead, cacheWrite, totalTokens }`.
    pub fn usage(usage: &Usage) -> Out<'a> {
        Out::Fields(vec![
            ("input", Out::Count(usage.input)),
            ("output", Out::Count(usage.output)),
            ("cacheRead", Out::Count(usage.cache_read)),
            ("cacheWrite", Out::Count(usage.cache_write)),
            ("totalTokens", Out::Count(usage.total_tokens)),
        ])
    }

    /// A record: `{ summary, firstKeptIndex, estimateBefore, estimateAfter, usage? }`, and of
    /// a trim `kind: "trim"` and `tokensFreed`.
    pub fn record(record: &'a Record) -> Out<'a> {
        let mut fields = vec![
            ("summary", Out::Text(&record.summary)),
            ("firstKeptIndex", Out::Count(record.first_kept_index as u64)),
            ("estimateBefore", Out::Count(record.estimate_before)),
            ("estimateAfter", Out::Count(record.estimate_after)),
        ];
        if let Some(usage) = &record.usage {
            fields.push(("usage", Out::usage(usage)));
        }
        if record.trimmed {
            fields.push(("kind", Out::Text("trim")));
            let freed = record.estimate_before.saturating_sub(record.estimate_after);
            fields.push(("tokensFreed", Out::Count(freed)));
        }
        Out::Fields(fields)
    }

    /// The record of a clearing that left the summary `summary`: `{ kind: "clear", summary,
    /// firstKeptIndex: 0, estimateBefore, estimateAfter, tokensFreed, clearedResults }` (how
    /// many results it cleared).
    pub fn clear_record(summary: &'a str, clearing: &Clearing) -> Out<'a> {
        Out::Fields(vec![
            ("kind", Out::Text(CLEAR)),
            ("summary", Out::Text(summary)),
            ("firstKeptIndex", Out::Count(0)),
            ("estimateBefore", Out::Count(clearing.estimate_before)),
            ("estimateAfter", Out::Count(clearing.estimate_after)),
            ("tokensFreed", Out::Count(clearing.tokens_freed())),
            ("clearedResults", Out::Count(clearing.results.len() as u64)),
        ])
    }

    /// A record of either kind: of a clearing, the clear record of `cleared`; none: `null`.
    pub fn any_record(record: Option<&'a Record>, cleared: Option<&Clearing>) -> Out<'a> {
        match (record, cleared) {
            (None, _) => Out::Null,
            (Some(record), Some(cleared)) => Out::clear_record(&record.summary, cleared),
            (Some(record), None) => Out::record(record),
        }
    }

    /// `{ summary, messages, record }` of an apply: the messages are slot 0.
    pub fn outcome(summary: &'a str, record: Out<'a>) -> Out<'a> {
        Out::Fields(vec![
            ("summary", Out::Text(summary)),
            ("messages", Out::Slot(0)),
            ("record", record),
        ])
    }

    /// An estimate: `{ total, systemPrompt, summary, messages, tools }`, and when the
    /// provider's counts were used, the `ratio` and the `anchor` (`{ messages, tokens }`).
    pub fn estimate(facts: &RequestFacts) -> Out<'a> {
        let tokens = facts
            .messages
            .iter()
            .map(|f| Out::Count(f.tokens))
            .collect();
        let mut fields = vec![
            ("total", Out::Count(facts.total())),
            ("systemPrompt", Out::Count(facts.system_prompt)),
            ("summary", Out::Count(facts.summary)),
            ("messages", Out::List(tokens)),
            ("tools", Out::Count(facts.tools)),
        ];
        // Without the provider's counts the estimate is as it was.
        let calibration = &facts.calibration;
        if let Some(anchor) = calibration.anchor {
            fields.push(("ratio", Out::Number(calibration.ratio())));
            let anchor = Out::Fields(vec![
                ("messages", Out::Count(anchor.messages as u64)),
                ("tokens", Out::Count(anchor.tokens)),
            ]);
            fields.push(("anchor", anchor));
        }
        Out::Fields(fields)
    }

    /// A summary plan, its slots those of [`plan_slot`]: where the kept suffix starts, the
    /// message arrays (`with_messages`: none for a plan of a body), the turn prefix, the
    /// estimates, `messageTokens`, then (a plan of a body) `messageSpans`.
    pub fn plan(plan: &Plan, with_messages: bool) -> Out<'a> {
        let mut fields = vec![
            ("firstKeptIndex", Out::Count(plan.first_kept_index as u64)),
            ("firstKeptPart", Out::Count(plan.first_kept_part as u64)),
            ("firstKeptId", Out::Slot(plan_slot::ID)),
        ];
        if with_messages {
            fields.push(("messagesToSummarize", Out::Slot(plan_slot::FIRST)));
            fields.push(("turnPrefixMessages", Out::Slot(plan_slot::SECOND)));
        }
        let start = plan.turn_prefix_messages.start as u64;
        fields.extend([
            ("turnPrefixStart", Out::Count(start)),
            ("splitTurn", Out::Bool(plan.split_turn)),
            ("estimateBefore", Out::Count(plan.estimate_before)),
            (
                "estimateAfterWithoutSummary",
                Out::Count(plan.estimate_after_without_summary),
            ),
            ("messageTokens", Out::Slot(plan_slot::TOKENS)),
        ]);
        if !with_messages {
            fields.push(("messageSpans", Out::Slot(plan_slot::FIRST)));
        }
        Out::Fields(fields)
    }

    /// The plan of a clearing (of a request with `facts`): `{ kind: "clear", clearedResults,
    /// argumentMessages, estimateBefore, estimateAfter, tokensFreed }` with the fields of a
    /// summary plan that summarizes nothing, so that it is a plan too; `messageTokens` is slot
    /// 0, and `with_messages` (not for a plan of a body) adds empty message arrays and
    /// `messages` (the messages with the cleared ones rewritten), slot 1.
    pub fn clear_plan(
        facts: &RequestFacts,
        clearing: &'a Clearing,
        with_messages: bool,
    ) -> Out<'a> {
        let results = clearing.results.iter().map(|r| {
            Out::Fields(vec![
                ("index", Out::Count(r.index as u64)),
                ("toolCallId", Out::Text(&r.tool_call_id)),
                (
                    "toolName",
                    r.tool_name.as_deref().map_or(Out::Null, Out::Text),
                ),
                ("tokens", Out::Count(r.tokens)),
                ("text", Out::Text(&r.text)),
            ])
        });
        let arguments = clearing
            .argument_messages
            .iter()
            .map(|&i| Out::Count(i as u64));
        let after = clearing.estimate_after.saturating_sub(facts.summary);
        let mut fields = vec![
            ("kind", Out::Text(CLEAR)),
            ("firstKeptIndex", Out::Count(0)),
            ("firstKeptPart", Out::Count(0)),
            ("firstKeptId", Out::Null),
            ("turnPrefixStart", Out::Count(0)),
            ("splitTurn", Out::Bool(false)),
            ("estimateAfterWithoutSummary", Out::Count(after)),
            ("messageTokens", Out::Slot(0)),
            ("clearedResults", Out::List(results.collect())),
            ("argumentMessages", Out::List(arguments.collect())),
            ("estimateBefore", Out::Count(clearing.estimate_before)),
            ("estimateAfter", Out::Count(clearing.estimate_after)),
            ("tokensFreed", Out::Count(clearing.tokens_freed())),
        ];
        if with_messages {
            fields.push(("messagesToSummarize", Out::List(Vec::new())));
            fields.push(("turnPrefixMessages", Out::List(Vec::new())));
            fields.push(("messages", Out::Slot(1)));
        }
        Out::Fields(fields)
    }

    /// The results of `found` at `listed` (`crate::clearing::stored_clearable`), as
    /// `[{ index, toolCallId }]`.
    pub fn clearable(found: &'a Found, listed: &[usize]) -> Out<'a> {
        let results = listed.iter().filter_map(|&k| found.results.get(k));
        Out::List(
            results
                .map(|r| {
                    Out::Fields(vec![
                        ("index", Out::Count(r.index as u64)),
                        ("toolCallId", Out::Text(&r.id)),
                    ])
                })
                .collect(),
        )
    }

    /// A manager's event for its listener: `{ type: "compactionStart", reason, estimate,
    /// plan }` (the plan is slot 0) or `{ type: "compactionEnd", reason, record, error? }`
    /// (of a clearing, `cleared`'s record; the error is slot 0).
    pub fn event(event: &Event<'a>, cleared: Option<&Clearing>) -> Out<'a> {
        match event {
            Event::Start {
                reason, estimate, ..
            } => Out::Fields(vec![
                ("type", Out::Text("compactionStart")),
                ("reason", Out::Text(reason.as_str())),
                ("estimate", Out::Count(*estimate)),
                ("plan", Out::Slot(0)),
            ]),
            Event::End {
                reason,
                record,
                error,
            } => {
                let mut fields = vec![
                    ("type", Out::Text("compactionEnd")),
                    ("reason", Out::Text(reason.as_str())),
                    ("record", Out::any_record(*record, cleared)),
                ];
                if error.is_some() {
                    fields.push(("error", Out::Slot(0)));
                }
                Out::Fields(fields)
            }
        }
    }

    /// What maintenance did: `{ state, compacted, reason, record, error? }` (the state is
    /// slot 0, the error slot 1).
    pub fn maintained<S>(done: &'a Maintained<S>) -> Out<'a> {
        let record = done.record.as_ref();
        let mut fields = vec![
            ("state", Out::Slot(0)),
            ("compacted", Out::Bool(record.is_some())),
            ("reason", Out::Text(done.outcome.as_str())),
            ("record", Out::any_record(record, done.cleared.as_ref())),
        ];
        if done.error.is_some() {
            fields.push(("error", Out::Slot(1)));
        }
        Out::Fields(fields)
    }

    /// Records, in order.
    pub fn records(records: &'a [Record]) -> Out<'a> {
        Out::List(records.iter().map(Out::record).collect())
    }
}

/// The `kind` of a clear plan and of its record.
pub const CLEAR: &str = "clear";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::Report;
    use crate::clearing::ClearedResult;
    use crate::facts::MessageFacts;
    use crate::report::Calibration;

    /// The keys of an object, in order.
    fn keys(out: &Out<'_>) -> Vec<&'static str> {
        match out {
            Out::Fields(fields) => fields.iter().map(|(k, _)| *k).collect(),
            other => panic!("not an object: {other:?}"),
        }
    }

    fn get<'a, 'b>(out: &'a Out<'b>, key: &str) -> &'a Out<'b> {
        match out {
            Out::Fields(fields) => &fields.iter().find(|(k, _)| *k == key).unwrap().1,
            other => panic!("not an object: {other:?}"),
        }
    }

    const RECORD: Record = Record {
        summary: String::new(),
        first_kept_index: 3,
        estimate_before: 900,
        estimate_after: 200,
        usage: None,
        trimmed: false,
    };

    #[test]
    fn a_record_says_its_kind_and_what_it_freed_only_for_a_trim() {
        let plain_record = RECORD;
        let plain = Out::record(&plain_record);
        let summary = [
            "summary",
            "firstKeptIndex",
            "estimateBefore",
            "estimateAfter",
        ];
        assert_eq!(keys(&plain), summary);
        let trim_record = Record {
            trimmed: true,
            ..RECORD
        };
        let trim = Out::record(&trim_record);
        assert_eq!(get(&trim, "kind"), &Out::Text("trim"));
        assert_eq!(get(&trim, "tokensFreed"), &Out::Count(700));
        let usage = Usage {
            input: 1,
            output: 2,
            cache_read: 0,
            cache_write: 0,
            total_tokens: 3,
        };
        let used_record = Record {
            usage: Some(usage),
            ..RECORD
        };
        let used = Out::record(&used_record);
        assert_eq!(get(get(&used, "usage"), "totalTokens"), &Out::Count(3));
    }

    fn clearing() -> Clearing {
        Clearing {
            results: vec![ClearedResult {
                index: 2,
                tool_call_id: "c1".to_owned(),
                tool_name: None,
                tokens: 500,
                text: "[cleared]".to_owned(),
            }],
            argument_messages: vec![1],
            estimate_before: 900,
            estimate_after: 400,
        }
    }

    #[test]
    fn a_clearing_is_a_plan_that_summarizes_nothing_and_its_record_counts_results() {
        let facts = RequestFacts {
            summary: 50,
            ..RequestFacts::default()
        };
        let cleared = clearing();
        let plan = Out::clear_plan(&facts, &cleared, true);
        assert_eq!(get(&plan, "kind"), &Out::Text(CLEAR));
        assert_eq!(get(&plan, "estimateAfterWithoutSummary"), &Out::Count(350));
        assert_eq!(get(&plan, "tokensFreed"), &Out::Count(500));
        assert_eq!(get(&plan, "messages"), &Out::Slot(1));
        let result = match get(&plan, "clearedResults") {
            Out::List(results) => results[0].clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(get(&result, "toolName"), &Out::Null);
        // A plan of a body has no message arrays.
        let of_body = Out::clear_plan(&facts, &cleared, false);
        assert!(!keys(&of_body).contains(&"messages"));
        let record = Out::clear_record("S", &clearing());
        assert_eq!(get(&record, "clearedResults"), &Out::Count(1));
        let record = RECORD;
        let any = Out::any_record(Some(&record), Some(&cleared));
        assert_eq!(any, Out::clear_record("", &clearing()));
        assert_eq!(Out::any_record(None, None), Out::Null);
    }

    #[test]
    fn a_summary_plan_keeps_its_keys_in_order() {
        let plan = Plan {
            first_kept_index: 4,
            first_kept_part: 0,
            messages_to_summarize: 0..2,
            turn_prefix_messages: 2..4,
            split_turn: true,
            estimate_before: 10,
            estimate_after_without_summary: 5,
            message_tokens: Vec::new(),
        };
        let objects = [
            "firstKeptIndex",
            "firstKeptPart",
            "firstKeptId",
            "messagesToSummarize",
            "turnPrefixMessages",
            "turnPrefixStart",
            "splitTurn",
            "estimateBefore",
            "estimateAfterWithoutSummary",
            "messageTokens",
        ];
        assert_eq!(keys(&Out::plan(&plan, true)), objects);
        let body = Out::plan(&plan, false);
        assert_eq!(keys(&body).last(), Some(&"messageSpans"));
        assert_eq!(get(&body, "turnPrefixStart"), &Out::Count(2));
    }

    #[test]
    fn an_estimate_shows_the_anchor_only_when_calibrated() {
        let mut facts = RequestFacts {
            messages: vec![MessageFacts::default(); 2],
            ..RequestFacts::default()
        };
        assert_eq!(keys(&Out::estimate(&facts)).len(), 5);
        facts.calibration = Calibration {
            ratio_ppm: 1_500_000,
            adjustment: 0,
            anchor: Some(Report {
                messages: 2,
                tokens: 30,
                fixed: None,
            }),
        };
        let estimate = Out::estimate(&facts);
        assert_eq!(get(&estimate, "ratio"), &Out::Number(1.5));
        assert_eq!(get(get(&estimate, "anchor"), "tokens"), &Out::Count(30));
    }
}

//! A request's fields besides its messages, and its estimator.

use super::V;
use crate::error::{Error, Result};
use crate::formats::Format;
use crate::options::{EstimatorOptions, NATIVE_MARKER, estimator, request};
use crate::window::ProviderCompaction;

type Read = Result<crate::options::HostRequest<(), crate::token::Heuristic>>;

fn read(value: &V) -> Read {
    request(
        value,
        (),
        |_, _| Ok(Vec::new()),
        |_| Ok(crate::token::Heuristic::new()),
    )
}

fn message(read: Read) -> String {
    match read {
        Err(Error::InvalidRequest { message, .. }) => message,
        Err(other) => panic!("not a request error: {other}"),
        Ok(_) => panic!("read"),
    }
}

#[test]
fn a_request_takes_its_defaults() {
    let read = read(&V::Obj(vec![])).unwrap();
    assert_eq!(read.format, Format::Canonical);
    assert!(read.tools.is_empty() && read.reported.is_empty());
    assert_eq!(read.input_token_budget, None);
    assert!(!read.require_reduction);
    assert_eq!(
        (read.system_prompt.as_str(), read.summary.as_str()),
        ("", "")
    );
    assert_eq!(read.focus, None);
    assert_eq!(read.provider_compaction, ProviderCompaction::default());
}

#[test]
fn a_request_reads_its_fields() {
    let block = V::Obj(vec![("type", V::Str("text")), ("text", V::Str("be kind"))]);
    let given = V::Obj(vec![
        ("format", V::Str("anthropic")),
        ("inputTokenBudget", V::Num(900.0)),
        ("requireReduction", V::Bool(true)),
        ("systemPrompt", V::Arr(vec![block])),
        ("summary", V::Str("so far")),
        ("focus", V::Str("the bug")),
        (
            "reportedUsage",
            V::Obj(vec![
                ("messages", V::Num(2.0)),
                ("inputTokens", V::Num(50.0)),
            ]),
        ),
    ]);
    let read = read(&given).unwrap();
    assert_eq!(read.format, Format::Anthropic);
    assert_eq!(read.input_token_budget, Some(900));
    assert!(read.require_reduction);
    assert_eq!(read.system_prompt, "be kind");
    assert_eq!(read.summary, "so far");
    assert_eq!(read.focus.as_deref(), Some("the bug"));
    assert_eq!(
        (read.reported[0].messages, read.reported[0].tokens),
        (2, 50)
    );
}

#[test]
fn the_host_reads_pinned_then_the_estimator_in_order() {
    let mut seen = Vec::new();
    let given = V::Obj(vec![("pinned", V::Num(1.0)), ("estimator", V::Num(2.0))]);
    let pinned = |v: &V, _: &()| {
        seen.push(format!("{v:?}"));
        Ok(vec![1])
    };
    let read = request(&given, (), pinned, |_| {
        Err::<crate::token::Heuristic, _>(Error::invalid_request("estimator bad"))
    });
    assert_eq!(message(read), "estimator bad");
    assert_eq!(seen, ["Num(1.0)"]);
}

#[test]
fn request_errors_name_the_place() {
    let with = |key, value| V::Obj(vec![(key, value)]);
    let cases = [
        (V::Num(1.0), "request: expected an object"),
        (with("format", V::Num(1.0)), "format: expected a string"),
        (with("summary", V::Bool(true)), "summary: expected a string"),
        (with("focus", V::Num(1.0)), "focus: expected a string"),
        (
            with("requireReduction", V::Num(1.0)),
            "request.requireReduction: expected a boolean",
        ),
        (
            with("reportedUsage", V::Arr(vec![V::Num(1.0)])),
            "reportedUsage[0]: expected { messages, inputTokens }",
        ),
        (
            with("reportedUsage", V::Obj(vec![("messages", V::Num(1.0))])),
            "reportedUsage.inputTokens: missing",
        ),
        (
            with("reportedUsage", V::Obj(vec![("inputTokens", V::Num(1.0))])),
            "reportedUsage.messages: missing",
        ),
        (
            with(
                "reportedUsage",
                V::Obj(vec![("messages", V::Num(1.0)), ("usage", V::Num(3.0))]),
            ),
            "reportedUsage.usage: not a usage object of a known shape",
        ),
    ];
    for (given, expected) in cases {
        assert_eq!(message(read(&given)), expected);
    }
}

#[test]
fn an_estimator_is_the_heuristic_or_the_hosts() {
    let native = |v: &V| matches!(estimator(v), Ok(EstimatorOptions::Native(_)));
    assert!(native(&V::Null));
    let marked = V::Obj(vec![(NATIVE_MARKER, V::Num(7.0))]);
    assert!(matches!(
        estimator(&marked),
        Ok(EstimatorOptions::Native(h)) if h.image_tokens == 7
    ));
    let host = V::Obj(vec![("countTokens", V::Func)]);
    assert!(matches!(
        estimator(&host),
        Ok(EstimatorOptions::Host {
            image_tokens: 1200,
            ..
        })
    ));
    let error = |v: &V| {
        estimator(v)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(error(&V::Num(1.0)).contains("estimator: expected an object with countTokens(text)"));
    assert!(error(&V::Obj(vec![])).contains("estimator.countTokens: expected a function"));
}

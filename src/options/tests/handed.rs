//! Handed-back objects read again: plans, clear plans, drafts, cuts, usages.

use super::V;
use crate::error::Error;
use crate::options::{clear_plan, cut, draft, plan, usage};

fn message<T: std::fmt::Debug>(read: crate::Result<T>) -> String {
    match read {
        Err(Error::InvalidRequest { message, .. }) => message,
        other => panic!("not a request error: {other:?}"),
    }
}

#[test]
fn a_plan_is_read_back_from_its_fields() {
    assert!(plan(&V::Null).unwrap().is_none());
    assert_eq!(
        message(plan(&V::Num(1.0))),
        "plan: expected an object or null"
    );
    let given = V::Obj(vec![
        ("firstKeptIndex", V::Num(2.0)),
        ("turnPrefixStart", V::Num(2.0)),
    ]);
    let read = plan(&given).unwrap().unwrap();
    assert_eq!(read.first_kept_index, 2);
    let far = V::Obj(vec![("firstKeptIndex", V::Num(4_294_967_295.0))]);
    assert_eq!(
        message(plan(&far)),
        "plan.firstKeptIndex: 4294967295 is out of range (an array has at most 2^32-1 messages)"
    );
    let unlisted = V::Obj(vec![("firstKeptIndex", V::Num(2.0))]);
    assert_eq!(
        message(plan(&unlisted)),
        "plan.messagesToSummarize: expected an array"
    );
}

#[test]
fn a_clear_plan_is_told_apart_and_read() {
    assert!(clear_plan(&V::Obj(vec![])).unwrap().is_none());
    assert!(clear_plan(&V::Str("clear")).unwrap().is_none());
    let result = V::Obj(vec![
        ("index", V::Num(3.0)),
        ("toolCallId", V::Str("c1")),
        ("text", V::Str("[cleared]")),
    ]);
    let given = |arguments: V| {
        V::Obj(vec![
            ("kind", V::Str("clear")),
            ("clearedResults", V::Arr(vec![result.clone()])),
            ("argumentMessages", arguments),
        ])
    };
    let (results, arguments) = clear_plan(&given(V::Arr(vec![V::Num(1.0)])))
        .unwrap()
        .unwrap();
    assert_eq!(
        (results[0].index, results[0].tool_call_id.as_str()),
        (3, "c1")
    );
    assert_eq!(arguments, [1]);
    assert_eq!(
        message(clear_plan(&given(V::Arr(vec![V::Num(1.5)])))),
        "plan.argumentMessages: expected an array of message indices"
    );
    assert_eq!(
        message(clear_plan(&given(V::Null))),
        "plan.argumentMessages: expected an array"
    );
    let untexted = V::Obj(vec![
        ("kind", V::Str("clear")),
        ("clearedResults", V::Arr(vec![V::Obj(vec![])])),
    ]);
    assert_eq!(
        message(clear_plan(&untexted)),
        "plan.clearedResults[0].toolCallId: expected a string"
    );
}

#[test]
fn a_draft_is_read_back_and_checked() {
    let digest = V::Str("00112233445566ff");
    let given = |summary: V, digest: V| {
        V::Obj(vec![
            ("summary", summary),
            ("firstKeptIndex", V::Num(4.0)),
            ("digest", digest.clone()),
            ("previousDigest", digest),
            ("usage", V::Obj(vec![("input", V::Num(3.0))])),
        ])
    };
    // Read as written: commit trims it (`tests/draft.rs`).
    let read = draft(&given(V::Str("  s  "), digest.clone())).unwrap();
    assert_eq!((read.summary.as_str(), read.first_kept_index), ("  s  ", 4));
    assert_eq!(read.digest.to_hex(), "00112233445566ff");
    assert_eq!(read.usage.map(|u| u.total_tokens), Some(3));
    assert_eq!(message(draft(&V::Null)), "draft: expected an object");
    assert_eq!(
        message(draft(&given(V::Null, digest))),
        "draft.summary: expected a string"
    );
    assert_eq!(
        message(draft(&given(V::Str("s"), V::Str("xyz")))),
        "draft.digest: expected the 16 hexadecimal digits of a draft's digest"
    );
}

#[test]
fn a_cut_and_a_usage_take_their_defaults() {
    let given = V::Obj(vec![("firstKeptIndex", V::Num(5.0))]);
    assert_eq!(cut(&given).unwrap(), (5, 0));
    assert_eq!(
        message(cut(&V::Num(1.0))),
        "cut: expected { firstKeptIndex, firstKeptPart }"
    );
    assert_eq!(usage(&V::Str("x")), Ok(None));
    let read = usage(&V::Obj(vec![
        ("input", V::Num(2.0)),
        ("output", V::Num(3.0)),
    ]));
    let read = read.unwrap().unwrap();
    assert_eq!((read.cache_read, read.total_tokens), (0, 5));
    assert_eq!(
        usage(&V::Obj(vec![("input", V::Str("2"))])),
        Err("usage.input must be a number".to_owned())
    );
}

#[test]
fn an_answer_is_a_string_or_text_and_usage() {
    use crate::options::answer;
    assert_eq!(answer(&V::Str("s"), "who").unwrap().text, "s");
    let given = V::Obj(vec![
        ("text", V::Str("t")),
        ("usage", V::Obj(vec![("input", V::Num(4.0))])),
    ]);
    let read = answer(&given, "who").unwrap();
    assert_eq!(
        (read.text.as_str(), read.usage.map(|u| u.input)),
        ("t", Some(4))
    );
    let thrown = V::Obj(vec![("text", V::Str("t")), ("usage", V::Throws)]);
    assert!(answer(&thrown, "who").unwrap().usage.is_none());
    assert_eq!(
        answer(&V::Num(1.0), "summarizer.generate").err().as_deref(),
        Some("summarizer.generate must return a string or { text, usage }, got number")
    );
}

#[test]
fn a_verdict_keeps_replaces_or_declines() {
    use crate::draft::Verdict;
    use crate::options::verdict;
    assert_eq!(verdict(&V::Null).unwrap(), Verdict::Keep);
    assert_eq!(verdict(&V::Bool(true)).unwrap(), Verdict::Keep);
    assert_eq!(verdict(&V::Bool(false)).unwrap(), Verdict::Decline);
    assert_eq!(
        verdict(&V::Str("new")).unwrap(),
        Verdict::Replace("new".into())
    );
    let error = verdict(&V::Num(1.0)).unwrap_err().to_string();
    assert!(error.contains("beforeCommit must return a string, false or nothing, got number"));
}

//! Thrown values read without throwing again.

use super::V;
use crate::options::{describe, thrown};

#[test]
fn a_thrown_value_is_described() {
    assert_eq!(describe(&V::Str("boom")), "boom");
    assert_eq!(describe(&V::Obj(vec![("message", V::Str("m"))])), "m");
    assert_eq!(
        describe(&V::Obj(vec![("message", V::Throws)])),
        "a non-Error object was thrown"
    );
    assert_eq!(describe(&V::Num(1.0)), "a thrown number");
}

#[test]
fn a_thrown_value_says_its_fields() {
    let body = V::Obj(vec![
        ("code", V::Str("context_length_exceeded")),
        ("message", V::Str("too long")),
    ]);
    let value = V::Obj(vec![
        ("name", V::Str("APICallError")),
        ("message", V::Str("bad")),
        ("statusCode", V::Num(400.0)),
        ("isRetryable", V::Bool(false)),
        ("error", body),
        ("status", V::Throws),
    ]);
    let read = thrown(&value);
    assert!(read.object);
    assert_eq!(read.name.as_deref(), Some("APICallError"));
    assert_eq!(read.retryable, Some(false));
    assert_eq!(read.status, Some(400.0));
    assert_eq!(read.code.as_deref(), Some("context_length_exceeded"));
    assert_eq!(read.messages, ["bad", "too long", "too long"]);
    let plain = thrown(&V::Str("x"));
    assert!(!plain.object && plain.status.is_none());
    assert_eq!(plain.messages, ["x", "a thrown object", ""]);
}

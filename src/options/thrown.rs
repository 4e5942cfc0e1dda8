//! What a host's thrown value says, read once: its description (for error messages) and its
//! fields for the core's rules ([`Thrown`]). Nothing read here may throw again: a getter that
//! throws reads as absent ([`Host::peek`]).

use super::{Got, Host};
use crate::thrown::Thrown;

/// A short description of a thrown value: its `message`, or the string itself.
pub fn describe<M, H: Host<M>>(value: &H) -> String {
    if let Some(text) = value.string() {
        return text;
    }
    match value.got() {
        Got::Object => value
            .peek("message")
            .string()
            .unwrap_or_else(|| "a non-Error object was thrown".to_owned()),
        _ => text!("a thrown ", value.type_of()),
    }
}

/// What a thrown value says about itself, for the core's rules.
pub fn thrown<M, H: Host<M>>(value: &H) -> Thrown {
    let body = value.peek("error");
    let statuses = [
        value.peek("status"),
        value.peek("statusCode"),
        value.peek("response").peek("status"),
    ];
    let number = |v: &H| match v.got() {
        Got::Number(n) => Some(n),
        _ => None,
    };
    let flag = |key: &str| match value.peek(key).got() {
        Got::Bool(b) => Some(b),
        _ => None,
    };
    Thrown {
        object: value.got() == Got::Object,
        name: value.peek("name").string(),
        retryable: flag("retryable").or_else(|| flag("isRetryable")),
        status: statuses.iter().find_map(number),
        code: value
            .peek("code")
            .string()
            .or_else(|| body.peek("code").string()),
        messages: vec![
            describe(value),
            describe(&body),
            body.peek("message").string().unwrap_or_default(),
        ],
    }
}

//! The options of a manager's calls and of a `HeuristicEstimator`.

use super::V;
use crate::error::Error;
use crate::options::{heuristic, maintain_call, run_call};
use crate::token::DEFAULT_IMAGE_TOKENS;

fn request_error<T>(read: crate::Result<T>) -> String {
    match read {
        Err(Error::InvalidRequest { message, .. }) => message,
        Err(other) => panic!("not a request error: {other}"),
        Ok(_) => panic!("read"),
    }
}

#[test]
fn a_maintenance_call_takes_its_defaults_and_its_pending_draft() {
    let none = maintain_call(&V::Null).unwrap();
    let options = none.options();
    assert_eq!((options.max_output_tokens, options.skill_tokens), (0, 0));
    assert!(options.focus.is_none() && options.pending.is_none());
    let digest = V::Str("00112233445566ff");
    let pending = V::Obj(vec![
        ("summary", V::Str("s")),
        ("firstKeptIndex", V::Num(2.0)),
        ("digest", digest.clone()),
        ("previousDigest", digest),
    ]);
    let given = V::Obj(vec![
        ("maxOutputTokens", V::Num(4000.0)),
        ("skillTokens", V::Num(50.0)),
        ("focus", V::Str("  ")),
        ("pending", pending),
    ]);
    let call = maintain_call(&given).unwrap();
    let options = call.options();
    assert_eq!(
        (options.max_output_tokens, options.skill_tokens),
        (4000, 50)
    );
    assert_eq!(options.focus, None, "a blank focus is none");
    assert_eq!(options.pending.map(|d| d.first_kept_index), Some(2));
    // The caller's own object is kept, to be handed back.
    assert!(matches!(&call.pending, Some((_, V::Obj(fields))) if fields.len() == 4));
}

#[test]
fn a_maintenance_call_names_the_option_it_refuses() {
    let with = |key, value| maintain_call(&V::Obj(vec![(key, value)]));
    let error = request_error(with("maxOutputTokens", V::Num(1.5)));
    assert!(
        error.starts_with("options.maxOutputTokens must be a whole number"),
        "{error}"
    );
    let error = request_error(with("skillTokens", V::Str("9")));
    assert_eq!(error, "options.skillTokens must be a number");
    let error = request_error(with("pending", V::Num(1.0)));
    assert_eq!(error, "draft: expected an object");
    let error = request_error(with("focus", V::Throws));
    assert_eq!(error, "options.focus: reading it threw: boom");
}

#[test]
fn a_run_needs_functions() {
    let options = V::Obj(vec![("focus", V::Str("tests"))]);
    let call = run_call(&V::Func, &options).unwrap();
    assert!(call.is_overflow.is_none());
    assert_eq!(call.focus.as_deref(), Some("tests"));
    let error = request_error(run_call(&V::Obj(vec![]), &options));
    assert_eq!(error, "send: expected a function");
    let custom = V::Obj(vec![("isContextOverflow", V::Func)]);
    assert!(run_call(&V::Func, &custom).unwrap().is_overflow.is_some());
    let wrong = V::Obj(vec![("isContextOverflow", V::Bool(true))]);
    let error = request_error(run_call(&V::Func, &wrong));
    assert_eq!(error, "options.isContextOverflow: expected a function");
}

#[test]
fn a_heuristic_takes_its_image_tokens_as_a_config() {
    assert_eq!(
        heuristic(&V::Null).unwrap().image_tokens,
        DEFAULT_IMAGE_TOKENS
    );
    let given = V::Obj(vec![("imageTokens", V::Num(85.0))]);
    assert_eq!(heuristic(&given).unwrap().image_tokens, 85);
    let wrong = V::Obj(vec![("imageTokens", V::Num(-1.0))]);
    match heuristic(&wrong) {
        Err(Error::InvalidConfig { message, .. }) => {
            assert!(message.starts_with("options.imageTokens must be a whole number"))
        }
        other => panic!("not a config error: {other:?}"),
    }
}

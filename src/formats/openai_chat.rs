//! OpenAI Chat Completions messages: `system`/`developer`, `user`, `assistant` (content,
//! `tool_calls`, `refusal`, legacy `function_call`), `tool` and legacy `function`. The
//! participant `name` of a system, developer, user or assistant message is counted (the model
//! reads it) and not summarized.

use std::borrow::Cow;

use context_compaction_scan::{Kind, Val};

use super::object::Obj;
use super::sink::{Args, Joined, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

const ATTACHMENTS: [&str; 3] = ["image_url", "input_audio", "file"];

/// The top-level keys `read` looks at.
pub(super) const KEYS: &[&str] = &[
    "role",
    "content",
    "refusal",
    "tool_calls",
    "function_call",
    "tool_call_id",
    "name",
    "parts",
];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    match r.required_str("role")?.as_ref() {
        "system" | "developer" => {
            let mut joined = Joined::default();
            r.content("content", &["text"], &[], &mut joined)?;
            if let Some(name) = participant(r) {
                Sink::text(&mut joined, Text::Str(name));
            }
            sink.system(joined.text());
        }
        "user" => {
            sink.unit(Unit::User);
            r.content("content", &["text"], &ATTACHMENTS, sink)?;
            if let Some(name) = participant(r) {
                sink.opaque(Text::Str(name));
            }
        }
        "assistant" => assistant(r, sink)?,
        "tool" => {
            let id = r.required_str("tool_call_id")?;
            sink.unit(Unit::ToolResult {
                id,
                name: None,
                is_error: false,
            });
            sink.spot(Spot::new(r, "content", Shape::Text));
            r.content("content", &["text"], &[], sink)?;
        }
        "function" => {
            let name = r.required_str("name")?;
            let id = legacy_id(&name);
            sink.unit(Unit::ToolResult {
                id,
                name: Some(name),
                is_error: false,
            });
            sink.spot(Spot::new(r, "content", Shape::Text));
            r.content("content", &["text"], &[], sink)?;
        }
        other => {
            return Err(r.error(
                "role",
                &text!(
                    "unknown role \"",
                    other,
                    "\" (expected system, developer, user, assistant, tool or function)"
                ),
            ));
        }
    }
    Ok(())
}

fn assistant<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    sink.unit(Unit::Assistant(None));
    if let Some(usage) = super::usage::field(r) {
        sink.usage(usage);
    }
    if let Some(name) = participant(r) {
        sink.opaque(Text::Str(name));
    }
    r.content("content", &["text", "refusal"], &[], sink)?;
    if let Some(refusal) = r.string("refusal")? {
        sink.text(Text::Str(refusal));
    }
    for (i, value) in r.array("tool_calls")?.enumerate() {
        let call = r.item(value, "tool_calls", i)?;
        let function = call
            .get("function")
            .ok_or_else(|| call.error("function", "missing"))?;
        let function = call.child(function, "function")?;
        let id = call.required_str("id")?;
        let name = function.required("name")?;
        let arguments = function.string("arguments")?;
        sink.call(id, Text::Str(name), Args::Held(arguments));
        sink.spot(Spot::new(&function, "arguments", Shape::Arguments));
    }
    if let Some(value) = r.get("function_call") {
        let function = r.child(value, "function_call")?;
        let name = function.required_str("name")?;
        let arguments = function.string("arguments")?;
        let id = legacy_id(&name);
        sink.call(id, Text::Made(name), Args::Held(arguments));
    }
    Ok(())
}

/// The participant `name` a message may carry ("to differentiate between participants of the
/// same role"); anything but a string is ignored, as before it was read.
fn participant<'a>(r: &Obj<'a, '_>) -> Option<Val<'a>> {
    r.get("name").filter(|name| name.kind() == Kind::String)
}

/// Legacy function calls have no id: a call and its `function` result pair by name.
fn legacy_id(name: &str) -> Cow<'static, str> {
    Cow::Owned(text!("function_call:", name))
}
#[cfg(test)]
mod tests {
    use super::super::Format;
    use crate::error::BoxError;
    use crate::token::{Estimator, Heuristic};

    /// Counts characters: a facts path that reads the units rather than the heuristic's.
    struct Chars;
    impl Estimator for Chars {
        fn count_tokens(&self, text: &str) -> Result<u64, BoxError> {
            Ok(text.chars().count() as u64)
        }
    }

    fn tokens(text: &str, estimator: &dyn Estimator) -> u64 {
        Format::OpenAIChat
            .facts_json(text, "m", estimator)
            .unwrap()
            .tokens
    }

    #[test]
    fn a_participant_name_is_counted_and_not_summarized() {
        let cases = [
            (
                r#"{"role":"user","content":"hello"}"#,
                r#"{"role":"user","content":"hello","name":"alice_w"}"#,
            ),
            (
                r#"{"role":"assistant","content":"hi"}"#,
                r#"{"role":"assistant","content":"hi","name":"helper_bot"}"#,
            ),
            (
                r#"{"role":"system","content":"be brief"}"#,
                r#"{"role":"system","content":"be brief","name":"policy"}"#,
            ),
        ];
        for (plain, named) in cases {
            let heuristic = Heuristic::default();
            assert!(
                tokens(named, &heuristic) > tokens(plain, &heuristic),
                "{named}"
            );
            assert!(tokens(named, &Chars) > tokens(plain, &Chars), "{named}");
            let records = |text| Format::OpenAIChat.records_json([text]).unwrap();
            assert_eq!(records(named), records(plain), "{named}");
        }
    }

    #[test]
    fn a_name_that_is_not_a_string_is_ignored_as_before() {
        for name in ["null", "7", "{}"] {
            let text = format!(r#"{{"role":"user","content":"hello","name":{name}}}"#);
            let plain = r#"{"role":"user","content":"hello"}"#;
            assert_eq!(
                tokens(&text, &Heuristic::default()),
                tokens(plain, &Heuristic::default())
            );
            assert_eq!(tokens(&text, &Chars), tokens(plain, &Chars));
        }
    }
}

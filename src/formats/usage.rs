//! The usage an assistant message carries: what the provider counted for the request that
//! produced it. One reader for the shapes providers and SDKs report, whatever the message
//! format (`docs/formats.md`, "Usage").

use context_compaction_scan::{Kind, Val};

use super::object::Path;
use super::sink::{Args, Sink, Text, Unit};
use super::{Format, Obj};
use crate::error::Result;
use crate::message::StopReason;
pub use crate::report::MessageUsage;

/// The input keys of each usage shape (added up) and its output key, tried in order by their
/// first key: the canonical shape, Anthropic and OpenAI Responses, OpenAI Chat Completions,
/// the AI SDK, and a bare `{ totalTokens }` (an AI SDK message's metadata, as its documentation
/// shows it: the request and the answer together, read as the prompt with no output).
const SHAPES: [(&[&str], &str); 5] = [
    (&["input", "cacheRead", "cacheWrite"], "output"),
    (
        &[
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ],
        "output_tokens",
    ),
    (&["prompt_tokens"], "completion_tokens"),
    (&["inputTokens"], "outputTokens"),
    (&["totalTokens"], ""),
];

/// The top-level key of a message of `format` that holds its usage: `metadata` for a UIMessage,
/// `usage` otherwise. It is not among the format's keys: the walker of the cold path does not
/// lay it out, so reading facts never pays for it; the few messages whose usage counts are
/// walked again with it.
fn key(format: Format) -> &'static str {
    match format {
        Format::AiSdkUi => "metadata",
        _ => "usage",
    }
}

/// The `usage` of an assistant message `r`.
pub(super) fn field<'a>(r: &Obj<'a, '_>) -> Option<Val<'a>> {
    r.value.field("usage")
}

/// The usage `value` reports, when it is a usage object of a known shape whose counts are
/// whole numbers (missing ones count 0); `None` otherwise (such usage is ignored, never an
/// error).
pub fn read_usage(value: Val) -> Option<MessageUsage> {
    if value.kind() != Kind::Object {
        return None;
    }
    let (inputs, output) = SHAPES
        .iter()
        .find(|(inputs, _)| inputs.first().is_some_and(|k| value.field(k).is_some()))?;
    let mut input = 0;
    for key in *inputs {
        input += count(value.field(key))?;
    }
    let output = count(value.field(output).filter(|_| !output.is_empty()))?;
    Some(MessageUsage {
        input,
        // Hidden reasoning is counted in the output but never sent again.
        output: output.saturating_sub(reasoning(value)?),
    })
}

/// The reasoning tokens a usage counts in its output: OpenAI's `*_tokens_details`, the AI
/// SDK's `reasoningTokens` (5) or `outputTokenDetails.reasoningTokens` (6).
fn reasoning(value: Val) -> Option<u64> {
    let nested = |outer: &str, inner: &str| value.field(outer).and_then(|v| v.field(inner));
    let found = [
        nested("output_tokens_details", "reasoning_tokens"),
        nested("completion_tokens_details", "reasoning_tokens"),
        value.field("reasoningTokens"),
        nested("outputTokenDetails", "reasoningTokens"),
    ];
    count(found.into_iter().flatten().next())
}

/// A count: a whole number ≥ 0, or missing (0).
fn count(value: Option<Val>) -> Option<u64> {
    let Some(value) = value else {
        return Some(0);
    };
    if value.kind() != Kind::Number {
        return None;
    }
    // Whole numbers only, as digits (what JavaScript writes for counts), read by hand: a
    // library parse would add kilobytes to the module.
    let raw = value.raw();
    if raw.is_empty() || raw.len() > 15 {
        return None;
    }
    raw.bytes().try_fold(0u64, |n, b| {
        b.is_ascii_digit().then(|| n * 10 + u64::from(b - b'0'))
    })
}

impl Format {
    /// The top-level key of this format's messages that holds their usage (see [`key`]).
    pub(crate) fn usage_key(self) -> &'static str {
        key(self)
    }

    /// The usage one host message, given as its whole JSON text, carries, when it is an
    /// assistant message with a usable one: not zero, and not on a failed or aborted attempt
    /// (whose count describes no answer).
    pub fn usage_json(self, text: &str, path: &str) -> Result<Option<MessageUsage>> {
        let mut nodes = Vec::new();
        let tape = super::scan(text, path, &mut nodes)?;
        let message = tape.root();
        self.usage_of(message, Path::root(path))
    }

    /// [`Format::usage_json`] of a message already on a tape, named `path` in errors.
    pub(crate) fn usage_of(self, message: Val, path: Path) -> Result<Option<MessageUsage>> {
        let mut sink = Reported::default();
        self.read_into(message, path, &mut sink)?;
        Ok(sink.usage.filter(|u| u.input > 0 && !sink.failed))
    }
}

/// Keeps the usage of an assistant message and whether the attempt failed.
#[derive(Default)]
struct Reported {
    usage: Option<MessageUsage>,
    failed: bool,
}

impl<'a> Sink<'a> for Reported {
    fn unit(&mut self, unit: Unit<'a>) {
        if let Unit::Assistant(Some(StopReason::Error | StopReason::Aborted)) = unit {
            self.failed = true;
        }
    }
    fn text(&mut self, _: Text<'a>) {}
    fn image(&mut self) {}
    fn thinking(&mut self, _: Text<'a>) {}
    fn opaque(&mut self, _: Text<'a>) {}
    fn call(&mut self, _: std::borrow::Cow<'a, str>, _: Text<'a>, _: Args<'a>) {}
    fn system(&mut self, _: String) {}
    fn usage(&mut self, usage: Val<'a>) {
        self.usage = read_usage(usage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(text: &str) -> Option<MessageUsage> {
        let mut nodes = Vec::new();
        let tape = super::super::scan(text, "usage", &mut nodes).ok()?;
        let value = tape.root();
        read_usage(value)
    }

    #[test]
    fn every_shape_adds_up_its_prompt() {
        let cases = [
            (
                r#"{"input":10,"output":5,"cacheRead":100,"cacheWrite":7}"#,
                117,
                5,
            ),
            (
                r#"{"input_tokens":3,"cache_read_input_tokens":50,"cache_creation_input_tokens":4,"output_tokens":9}"#,
                57,
                9,
            ),
            (
                r#"{"input_tokens":80,"output_tokens":9,"input_tokens_details":{"cached_tokens":70}}"#,
                80,
                9,
            ),
            (
                r#"{"prompt_tokens":42,"completion_tokens":8,"total_tokens":50}"#,
                42,
                8,
            ),
            (
                r#"{"inputTokens":42,"outputTokens":8,"totalTokens":50}"#,
                42,
                8,
            ),
            (r#"{"totalTokens":50,"createdAt":1}"#, 50, 0),
            (
                r#"{"input_tokens":80,"output_tokens":900,"output_tokens_details":{"reasoning_tokens":860}}"#,
                80,
                40,
            ),
            (
                r#"{"prompt_tokens":8,"completion_tokens":90,"completion_tokens_details":{"reasoning_tokens":64}}"#,
                8,
                26,
            ),
            (
                r#"{"inputTokens":8,"outputTokens":90,"reasoningTokens":64}"#,
                8,
                26,
            ),
        ];
        for (text, input, output) in cases {
            assert_eq!(usage(text), Some(MessageUsage { input, output }), "{text}");
        }
    }

    #[test]
    fn unknown_or_broken_usage_is_ignored() {
        for text in [
            r#"{"tokens":5}"#,
            r#"{"input":-1}"#,
            r#"{"input":1.5}"#,
            r#"{"input":"12"}"#,
            r#"[1]"#,
            "3",
        ] {
            assert_eq!(usage(text), None, "{text}");
        }
    }
}

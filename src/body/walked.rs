//! Facts of messages that the package's JavaScript walker (`pkg-template/walk.js`) has laid out
//! for the cold objects path (canonical ones, or those of another format as the canonical units
//! its adapter makes of them): it copies each text-bearing string once into wasm memory and
//! describes the message around it in a few `u32` ops, so no JSON is built or parsed on the way.
//! The walker only lays out what it is sure of; anything else it marks [`op::OTHER`], and that
//! message is read the general way (for the same facts or error).

use crate::facts::MessageFacts;
use crate::formats::count::{
    PAIR, PUNCTUATION, arguments_text_score, json_score, number_score, quoted_score,
};
use crate::message::Role;
use crate::token::{Estimator, Heuristic, rounded, score};

// Values nested deeper than this are not from the walker (it stops at 64).
const MAX_DEPTH: usize = 128;

/// The ops of the walker's layout (keep in step with `pkg-template/walk.js`).
pub mod op {
    /// Starts a user message.
    pub const USER: u32 = 1;
    /// Starts an assistant message.
    pub const ASSISTANT: u32 = 2;
    /// Starts a tool-result message; its `RESULT_ID` follows.
    pub const TOOL_RESULT: u32 = 3;
    /// A text (`len` bytes follow in the byte buffer).
    pub const TEXT: u32 = 4;
    /// An image block.
    pub const IMAGE: u32 = 5;
    /// A tool call: the id's and the name's lengths, then its arguments as a value.
    pub const CALL: u32 = 6;
    /// The id of the tool call a tool result answers (`len` bytes).
    pub const RESULT_ID: u32 = 7;
    /// A message the walker left to the general reader.
    pub const OTHER: u32 = 8;
    /// A string value (`len` bytes).
    pub const V_STRING: u32 = 9;
    /// A number value as JavaScript writes it (`len` bytes).
    pub const V_NUMBER: u32 = 10;
    /// `null` (also what JSON has for a non-finite number).
    pub const V_NULL: u32 = 11;
    /// `true`.
    pub const V_TRUE: u32 = 12;
    /// `false`.
    pub const V_FALSE: u32 = 13;
    /// An array: its length, then its items.
    pub const V_ARRAY: u32 = 14;
    /// An object: its number of entries, then each key's length and value.
    pub const V_OBJECT: u32 = 15;
    /// A value as `JSON.stringify` wrote it (`len` bytes of JSON text).
    pub const V_JSON: u32 = 16;
    /// Tool-call arguments that are not there.
    pub const V_MISSING: u32 = 17;
    /// Tool-call arguments given as JSON text (`len` bytes), as OpenAI sends them: the value it
    /// holds, or the text as a string when it is not JSON.
    pub const V_JSON_TEXT: u32 = 18;
    /// Another unit of the same host message (an Anthropic user message's tool results, an
    /// AI SDK tool message's results): one more message framing.
    pub const UNIT: u32 = 19;
    /// A text written from a value as compact JSON (a tool output that is not a string, an
    /// OpenAI Responses item of a type the adapter does not know): the value follows.
    pub const TEXT_VALUE: u32 = 20;
}

/// The facts of the `count` messages laid out in `ops` and `bytes`, each `None` when it is to
/// be read the general way; `None` as a whole when the layout is not well formed.
pub fn facts(
    ops: &[u32],
    bytes: &[u8],
    count: usize,
    heuristic: Heuristic,
) -> Option<Vec<Option<MessageFacts>>> {
    let mut reader = Layout {
        ops,
        bytes,
        op: 0,
        byte: 0,
        heuristic,
        unsure: false,
    };
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(reader.message()?);
    }
    Some(out)
}

struct Layout<'a> {
    ops: &'a [u32],
    bytes: &'a [u8],
    op: usize,
    byte: usize,
    heuristic: Heuristic,
    /// Set when the message being read is to be read the general way after all.
    unsure: bool,
}

impl<'a> Layout<'a> {
    fn next(&mut self) -> Option<u32> {
        let value = *self.ops.get(self.op)?;
        self.op += 1;
        Some(value)
    }

    /// The next `len` bytes of the byte buffer.
    fn take(&mut self, len: u32) -> Option<&'a [u8]> {
        let end = self.byte.checked_add(len as usize)?;
        let slice = self.bytes.get(self.byte..end)?;
        self.byte = end;
        Some(slice)
    }

    /// The next `len` bytes as text (the walker writes UTF-8 only).
    // One copy of the UTF-8 check for its callers keeps the package smaller.
    #[inline(never)]
    fn str(&mut self, len: u32) -> Option<&'a str> {
        std::str::from_utf8(self.take(len)?).ok()
    }

    fn string(&mut self, len: u32) -> Option<String> {
        Some(self.str(len)?.to_owned())
    }

    /// The text tokens of the next `len` bytes, as `Heuristic::count` counts them.
    fn text(&mut self, len: u32) -> Option<u64> {
        let text = self.take(len)?;
        Some(if text.is_empty() {
            0
        } else {
            rounded(score(text))
        })
    }

    /// One message: `Some(None)` when it is left to the general reader.
    fn message(&mut self) -> Option<Option<MessageFacts>> {
        let heuristic = self.heuristic;
        self.unsure = false;
        let (role, starts_turn) = match self.next()? {
            op::USER => (Role::User, true),
            op::ASSISTANT => (Role::Assistant, false),
            op::TOOL_RESULT => (Role::ToolResult, false),
            op::OTHER => return Some(None),
            _ => return None,
        };
        let mut facts = MessageFacts {
            tokens: heuristic.framing_tokens(),
            role,
            starts_turn,
            tool_call_ids: Vec::new(),
            tool_result_ids: Vec::new(),
        };
        // The message's parts run until the next message starts (or the ops end).
        while let Some(&part) = self.ops.get(self.op) {
            match part {
                op::TEXT => {
                    self.op += 1;
                    let len = self.next()?;
                    facts.tokens += self.text(len)?;
                }
                op::IMAGE => {
                    self.op += 1;
                    facts.tokens += heuristic.image_tokens;
                }
                op::UNIT => {
                    self.op += 1;
                    facts.tokens += heuristic.framing_tokens();
                }
                op::TEXT_VALUE => {
                    self.op += 1;
                    facts.tokens += rounded(self.value(0)?);
                }
                op::RESULT_ID => {
                    self.op += 1;
                    let len = self.next()?;
                    let id = self.string(len)?;
                    facts.tool_result_ids.push(id);
                }
                op::CALL => {
                    self.op += 1;
                    let (id, name) = (self.next()?, self.next()?);
                    let id = self.string(id)?;
                    let name = self.text(name)?;
                    let arguments = match self.ops.get(self.op) {
                        // A missing value is written as `null`: one word.
                        Some(&op::V_MISSING) => {
                            self.op += 1;
                            1
                        }
                        _ => rounded(self.value(0)?),
                    };
                    facts.tokens += heuristic.framing_tokens() + name + arguments;
                    facts.tool_call_ids.push(id);
                }
                _ => break,
            }
        }
        Some((!self.unsure).then_some(facts))
    }

    /// The heuristic score of the next value written as compact JSON, as the general reader
    /// scores the value it parses from `JSON.stringify`'s text. When that is not known here,
    /// the value is still read through and `unsure` is set.
    fn value(&mut self, depth: usize) -> Option<u64> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match self.next()? {
            op::V_STRING => {
                let len = self.next()?;
                let text = self.take(len)?;
                quoted_score(text)
            }
            op::V_NUMBER => {
                let len = self.next()?;
                let raw = self.str(len)?;
                self.known(number_score(raw))
            }
            op::V_NULL => score(b"null"),
            op::V_TRUE => score(b"true"),
            op::V_FALSE => score(b"false"),
            op::V_ARRAY => {
                let len = self.next()?;
                let mut total = PAIR + PUNCTUATION * u64::from(len.saturating_sub(1));
                for _ in 0..len {
                    total += self.value(depth + 1)?;
                }
                total
            }
            op::V_OBJECT => {
                let len = self.next()?;
                // A colon per entry and a comma between entries.
                let mut total = PAIR + PUNCTUATION * u64::from((2 * len).saturating_sub(1));
                for _ in 0..len {
                    let key = self.next()?;
                    let key = self.take(key)?;
                    total += quoted_score(key);
                    total += self.value(depth + 1)?;
                }
                total
            }
            op::V_JSON => {
                let len = self.next()?;
                let text = self.str(len)?;
                self.known(json_score(text))
            }
            op::V_JSON_TEXT => {
                let len = self.next()?;
                let text = self.str(len)?;
                arguments_text_score(text)
            }
            _ => return None,
        })
    }

    /// `score`, or 0 with the message marked unsure.
    fn known(&mut self, score: Option<u64>) -> u64 {
        self.unsure |= score.is_none();
        score.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;
    use crate::message::Message;
    use crate::parse;

    /// A layout built as the walker builds it: ops, with strings' bytes appended in order.
    #[derive(Default)]
    struct Laid {
        ops: Vec<u32>,
        bytes: Vec<u8>,
    }

    impl Laid {
        fn op(mut self, op: u32) -> Self {
            self.ops.push(op);
            self
        }
        fn string(mut self, text: &str) -> Self {
            self.bytes.extend_from_slice(text.as_bytes());
            self.ops.push(text.len() as u32);
            self
        }
    }

    fn general(json: &str) -> MessageFacts {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let message: Message = parse::message(&value, "m").unwrap();
        MessageFacts::of(&message, &Heuristic::new()).unwrap()
    }

    #[test]
    fn a_laid_out_message_has_the_facts_of_the_general_reader() {
        let laid = Laid::default()
            .op(op::USER)
            .op(op::TEXT)
            .string("look at this")
            .op(op::IMAGE)
            .op(op::ASSISTANT)
            .op(op::TEXT)
            .string("")
            .op(op::CALL)
            .string("call_1")
            .string("read")
            .op(op::V_OBJECT)
            .op(4)
            .string("path")
            .op(op::V_STRING)
            .string("src/\"main\".rs\n")
            .string("n")
            .op(op::V_NUMBER)
            .string("1e+21")
            .string("deep")
            .op(op::V_ARRAY)
            .op(3)
            .op(op::V_OBJECT)
            .op(1)
            .string("a")
            .op(op::V_NULL)
            .op(op::V_TRUE)
            .op(op::V_JSON)
            .string(r#"{"when":"2024-01-01","x":[1.50,false]}"#)
            .string("")
            .op(op::V_ARRAY)
            .op(0)
            .op(op::CALL)
            .string("call_2")
            .string("")
            .op(op::V_MISSING)
            .op(op::TOOL_RESULT)
            .op(op::RESULT_ID)
            .string("call_1")
            .op(op::TEXT)
            .string("ok")
            .op(op::OTHER);
        let read = facts(&laid.ops, &laid.bytes, 4, Heuristic::new()).unwrap();
        let user = r#"{"role":"user","content":[{"type":"text","text":"look at this"},{"type":"image","data":"x","mimeType":"image/png"}]}"#;
        let args = r#"{"path":"src/\"main\".rs\n","n":1e21,"deep":[{"a":null},true,{"when":"2024-01-01","x":[1.5,false]}],"":[]}"#;
        let assistant = format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":""}},{{"type":"toolCall","id":"call_1","name":"read","arguments":{args}}},{{"type":"toolCall","id":"call_2","name":""}}]}}"#
        );
        let result = r#"{"role":"toolResult","toolCallId":"call_1","content":"ok"}"#;
        assert_eq!(read[0], Some(general(user)));
        assert_eq!(read[1], Some(general(&assistant)));
        assert_eq!(read[2], Some(general(result)));
        assert_eq!(read[3], None);
    }

    fn host(format: Format, json: &str) -> MessageFacts {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        let host = format.read(&value, "m").unwrap();
        MessageFacts::of_host(&host, &Heuristic::new()).unwrap()
    }

    #[test]
    fn units_and_texts_written_from_values_count_as_the_adapter_reads_them() {
        let laid = Laid::default()
            .op(op::USER)
            .op(op::TEXT)
            .string("see")
            .op(op::UNIT)
            .op(op::RESULT_ID)
            .string("t1")
            .op(op::TEXT)
            .string("done")
            .op(op::UNIT)
            .op(op::IMAGE)
            .op(op::ASSISTANT)
            .op(op::TEXT)
            .string("searching")
            .op(op::UNIT)
            .op(op::RESULT_ID)
            .string("s1")
            .op(op::TEXT_VALUE)
            .op(op::V_ARRAY)
            .op(1)
            .op(op::V_OBJECT)
            .op(1)
            .string("url")
            .op(op::V_STRING)
            .string("https://example.com/a?b=1");
        let read = facts(&laid.ops, &laid.bytes, 2, Heuristic::new()).unwrap();
        // Three units: the text, the tool result, the image after it.
        let user = r#"{"role":"user","content":[{"type":"text","text":"see"},{"type":"tool_result","tool_use_id":"t1","content":"done"},{"type":"image","source":{}}]}"#;
        // A server tool's result in the assistant message: its content as compact JSON.
        let assistant = r#"{"role":"assistant","content":[{"type":"text","text":"searching"},{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"url":"https://example.com/a?b=1"}]}]}"#;
        assert_eq!(read[0], Some(host(Format::Anthropic, user)));
        assert_eq!(read[1], Some(host(Format::Anthropic, assistant)));
    }

    #[test]
    fn a_value_that_cannot_be_scored_leaves_the_message_to_the_general_reader() {
        let laid = Laid::default()
            .op(op::ASSISTANT)
            .op(op::CALL)
            .string("c")
            .string("f")
            .op(op::V_ARRAY)
            .op(2)
            .op(op::V_JSON)
            .string("{not json")
            .op(op::V_STRING)
            .string("still read through")
            .op(op::USER)
            .op(op::TEXT)
            .string("next");
        let read = facts(&laid.ops, &laid.bytes, 2, Heuristic::new()).unwrap();
        assert_eq!(read[0], None);
        assert_eq!(
            read[1],
            Some(general(r#"{"role":"user","content":"next"}"#))
        );
    }

    #[test]
    fn arguments_as_json_text_count_as_the_value_or_else_the_text() {
        let call = |arguments: &str| {
            let laid = Laid::default()
                .op(op::ASSISTANT)
                .op(op::CALL)
                .string("c")
                .string("f")
                .op(op::V_JSON_TEXT)
                .string(arguments);
            facts(&laid.ops, &laid.bytes, 1, Heuristic::new()).unwrap()[0].clone()
        };
        let canonical = |arguments: &str| {
            general(&format!(
                r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c","name":"f","arguments":{arguments}}}]}}"#
            ))
        };
        assert_eq!(
            call(" {\"n\": 1.50, \"s\": \"\\u00e9\"}\n"),
            Some(canonical(r#"{"n":1.5,"s":"é"}"#))
        );
        assert_eq!(call("{broken"), Some(canonical(r#""{broken""#)));
        assert_eq!(call(""), Some(canonical(r#""""#)));
    }

    #[test]
    fn a_layout_that_runs_out_is_refused() {
        assert_eq!(
            facts(&[op::USER, op::TEXT, 5], b"abc", 1, Heuristic::new()),
            None
        );
        assert_eq!(facts(&[op::USER], b"", 2, Heuristic::new()), None);
        assert_eq!(facts(&[99], b"", 1, Heuristic::new()), None);
        let call = [op::ASSISTANT, op::CALL, 0, 0, op::V_ARRAY, 3, op::V_NULL];
        assert_eq!(facts(&call, b"", 1, Heuristic::new()), None);
    }
}

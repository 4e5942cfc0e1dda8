//! The inputs of `tests/differential.rs` made from the real session: its 914 messages with the
//! provider's usage as it was recorded, and long histories of it (three rounds, 2,742 canonical
//! messages, past `tail::FROM`) whose answers carry usage that is fresh, stale, only on the
//! latest answer, or only on old ones. Each is written to the expected file as a recipe the
//! JavaScript side follows with `bench/workloads.mjs`: the history's length, whether the
//! canonical messages keep their recorded usage (without its cost) or lose it, its format, and
//! the usage to set on some of its messages (`[index, key, value]`), with a digest of the
//! messages' JSON that both sides must reach.
// Shared by two tests, each of which uses part of it.
#![allow(dead_code)]

use context_compaction::formats::Format;
use context_compaction::{Heuristic, Role};
use serde_json::{Value, json};

#[path = "workloads.rs"]
mod workloads;

/// The real session's length, and the long histories'.
pub const SESSION: usize = 914;
pub const LONG: usize = 3 * SESSION;

/// What usage the answers of a history carry.
#[derive(Debug, Clone, Copy)]
pub enum Usage {
    /// As the provider reported it on the session (repeated with it in a long history: stale
    /// in its later rounds).
    Recorded,
    /// On every answer, `scale` times our estimate of the request it answered.
    Scaled(f64),
    /// Fresh, on the latest answer only.
    LatestOnly,
    /// Fresh, on the answers before the last `n` messages only.
    OldOnly(usize),
    /// Fresh, on the answers among the last `n` messages only.
    RecentOnly(usize),
    /// None at all.
    Missing,
}

impl Usage {
    pub fn name(self) -> String {
        match self {
            Usage::Recorded => "recorded usage".to_owned(),
            Usage::Scaled(scale) => format!("usage {scale}x our estimate"),
            Usage::LatestOnly => "usage on the latest answer only".to_owned(),
            Usage::OldOnly(n) => format!("usage before the last {n} messages only"),
            Usage::RecentOnly(n) => format!("usage in the last {n} messages only"),
            Usage::Missing => "no usage".to_owned(),
        }
    }
}

/// One input made from the session: its messages, and the recipe the JavaScript side follows.
pub struct Made {
    pub messages: Vec<Value>,
    pub recipe: Value,
}

/// The session's first `length` canonical messages (repeated) in `format`, with `usage`.
pub fn made(format: Format, length: usize, usage: Usage) -> Made {
    let mut canonical = workloads::history(length);
    // The recorded usage is left on canonical messages only where it is asked for, and without
    // its cost in dollars (floats `serde_json` reads and writes otherwise than JavaScript: no
    // reader reads them).
    let recorded = matches!(usage, Usage::Recorded);
    for m in &mut canonical {
        let m = m.as_object_mut().unwrap();
        match (recorded, m.get_mut("usage")) {
            (true, Some(Value::Object(usage))) => {
                usage.shift_remove("cost");
            }
            (false, Some(_)) => {
                m.shift_remove("usage");
            }
            _ => {}
        }
    }
    let hosts = workloads::convert(format, &canonical);
    let mut messages: Vec<Value> = hosts.iter().map(|(m, _)| m.clone()).collect();
    let patches = patches(format, &canonical, &hosts, usage);
    for patch in &patches {
        apply(&mut messages, patch);
    }
    let recipe = json!({ "length": length, "recordedUsage": recorded, "patches": patches });
    Made { messages, recipe }
}

/// A long chat of UIMessages made up deterministically, `turns` questions each answered by
/// an assistant UIMessage of one to four steps, all but the last reading a file (the session
/// is too short for a tail as UIMessages: a turn is one UIMessage), with `usage` in its
/// answers' `metadata` as the AI SDK keeps it. The recipe names it by its turns
/// (`tests/js/differential.test.mjs` makes the same chat).
pub fn made_ui_chat(turns: usize, usage: Usage) -> Made {
    let mut messages = ui_chat(turns);
    let hosts: Vec<(Value, Option<usize>)> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| (m.clone(), (m["role"] == "assistant").then_some(i)))
        .collect();
    let patches = patches(Format::AiSdkUi, &[], &hosts, usage);
    for patch in &patches {
        apply(&mut messages, patch);
    }
    let recipe = json!({ "uiChat": turns, "patches": patches });
    Made { messages, recipe }
}

/// The UIMessages of [`made_ui_chat`], without usage.
fn ui_chat(turns: usize) -> Vec<Value> {
    let mut rng = Rng(0x9e37_79b9);
    let mut out = Vec::with_capacity(2 * turns);
    for t in 0..turns {
        let words = 5 + rng.below(20);
        let question = rng.text(words);
        out.push(json!({ "id": format!("u{t}"), "role": "user",
            "parts": [{ "type": "text", "text": question }] }));
        let steps = 1 + rng.below(4);
        let mut parts = Vec::new();
        for s in 0..steps {
            parts.push(json!({ "type": "step-start" }));
            if s + 1 < steps {
                let file = rng.below(50);
                let words = 10 + rng.below(80);
                let output = rng.text(words);
                parts.push(
                    json!({ "type": "tool-read", "toolCallId": format!("call{t}-{s}"),
                    "state": "output-available", "input": { "path": format!("src/f{file}.rs") },
                    "output": output }),
                );
            } else {
                let words = 5 + rng.below(40);
                let answer = rng.text(words);
                parts.push(json!({ "type": "text", "text": answer, "state": "done" }));
            }
        }
        out.push(json!({ "id": format!("a{t}"), "role": "assistant", "parts": parts }));
    }
    out
}

/// A 32-bit xorshift generator (the JavaScript side's is the same).
struct Rng(u32);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0 % n
    }

    /// `n` words of a small vocabulary, joined by spaces.
    fn text(&mut self, n: u32) -> String {
        const WORDS: [&str; 16] = [
            "the",
            "test",
            "fails",
            "because",
            "add",
            "subtracts",
            "we",
            "read",
            "src/lib.rs",
            "and",
            "fix",
            "it",
            "then",
            "run",
            "cargo",
            "again",
        ];
        let words: Vec<&str> = (0..n).map(|_| WORDS[self.below(16) as usize]).collect();
        words.join(" ")
    }
}

/// The turns of the long UIMessage chat: 2,200 UIMessages, past `tail::FROM`.
pub const UI_TURNS: usize = 1_100;

/// The long UIMessage chats: usage fresh (planned from the tail), stale, and missing (both read
/// whole). (Each case costs the JavaScript side a second or so: the other mixes are tried on
/// canonical histories.)
pub fn ui_chat_inputs() -> Vec<(Usage, Tried)> {
    vec![
        (Usage::Scaled(1.22), Tried::Tail),
        (Usage::Scaled(5.0), Tried::Decision),
        (Usage::Missing, Tried::Decision),
    ]
}

/// Sets `[index, key, value]` on `messages`.
fn apply(messages: &mut [Value], patch: &Value) {
    let (i, key) = (
        patch[0].as_u64().unwrap() as usize,
        patch[1].as_str().unwrap(),
    );
    messages[i][key] = patch[2].clone();
}

/// The patches that put `usage` on the messages `hosts` made from `canonical`.
fn patches(
    format: Format,
    canonical: &[Value],
    hosts: &[(Value, Option<usize>)],
    usage: Usage,
) -> Vec<Value> {
    let key = if format == Format::AiSdkUi {
        "metadata"
    } else {
        "usage"
    };
    let estimator = Heuristic::new();
    let facts: Vec<_> = hosts
        .iter()
        .enumerate()
        .map(|(i, (m, _))| {
            format
                .facts_json(&m.to_string(), &format!("messages[{i}]"), &estimator)
                .unwrap()
        })
        .collect();
    // The last host message made from each canonical answer carries its usage.
    let carriers: Vec<usize> = (0..hosts.len())
        .filter(|&i| {
            hosts[i].1.is_some() && hosts.get(i + 1).is_none_or(|next| next.1 != hosts[i].1)
        })
        .filter(|&i| facts[i].role == Role::Assistant)
        .collect();
    let last = carriers.last().copied();
    let mut out = Vec::new();
    let (mut sum, mut at) = (0u64, 0usize);
    for &i in &carriers {
        while at < i {
            sum += if facts[at].failed() {
                0
            } else {
                facts[at].tokens
            };
            at += 1;
        }
        let fresh = |scale: f64| (sum as f64 * scale).round() as u64;
        let input = match usage {
            Usage::Recorded => {
                // Canonical messages carry it already; other formats get it in their shape.
                if format == Format::Canonical {
                    continue;
                }
                let recorded = &canonical[hosts[i].1.unwrap()]["usage"];
                let tokens = ["input", "cacheRead", "cacheWrite"]
                    .iter()
                    .map(|k| recorded[k].as_u64().unwrap_or(0))
                    .sum();
                Some(tokens)
            }
            Usage::Scaled(scale) => Some(fresh(scale)),
            Usage::LatestOnly => (Some(i) == last).then(|| fresh(1.22)),
            Usage::OldOnly(n) => (i + n < hosts.len()).then(|| fresh(1.22)),
            Usage::RecentOnly(n) => (i + n >= hosts.len()).then(|| fresh(1.22)),
            Usage::Missing => None,
        };
        if let Some(tokens) = input {
            out.push(json!([i, key, shaped(format, tokens)]));
        }
    }
    out
}

/// Usage of `input` tokens (and 50 out) in the shape messages of `format` carry it in.
fn shaped(format: Format, input: u64) -> Value {
    match format {
        Format::Canonical => {
            json!({ "input": input, "output": 50, "cacheRead": 0, "cacheWrite": 0 })
        }
        Format::OpenAIChat => json!({ "prompt_tokens": input, "completion_tokens": 50 }),
        Format::OpenAIResponses | Format::Anthropic => {
            json!({ "input_tokens": input, "output_tokens": 50 })
        }
        Format::AiSdk => json!({ "inputTokens": input, "outputTokens": 50 }),
        Format::AiSdkUi => json!({ "usage": { "inputTokens": input, "outputTokens": 50 } }),
    }
}

/// How much of a history made from the session its cases try.
#[derive(Clone, Copy, PartialEq)]
pub enum Tried {
    /// A long history planned from its tail: with clearing off, a keep the first look holds,
    /// under the trigger, over it and with a required reduction, and a keep the tail grows
    /// for; with clearing on, over the trigger.
    Tail,
    /// A history read whole: the same but the required reduction.
    Whole,
    /// A long history whose usage decides whether it is planned from its tail: over the
    /// trigger, with either keep.
    Decision,
}

/// The histories made from the session in `format`: the session with its recorded usage;
/// long histories with usage fresh (on every answer, or the latest only), stale (more than
/// twice or more than four times our estimate), missing on the latest answers, missing, and
/// recorded (fresh in the first round, stale after): fresh in every format, the others in the
/// canonical one.
pub fn session_inputs(format: Format) -> Vec<(usize, Usage, Tried)> {
    let mut made = vec![
        (SESSION, Usage::Recorded, Tried::Whole),
        (LONG, Usage::Scaled(1.22), Tried::Tail),
    ];
    if format == Format::Canonical {
        made.extend(
            [
                Usage::LatestOnly,
                Usage::Scaled(2.6),
                Usage::Scaled(5.0),
                Usage::OldOnly(400),
                Usage::RecentOnly(60),
                Usage::Recorded,
                Usage::Missing,
            ]
            .map(|usage| (LONG, usage, Tried::Decision)),
        );
    }
    made
}

/// Numbers as the expected file keeps them: as they are, or for a `long` input, their sum
/// and the digest of their decimal text joined by commas.
pub fn numbers(values: &[f64], long: bool) -> Value {
    if !long {
        return json!(values);
    }
    let text: Vec<String> = values.iter().map(f64::to_string).collect();
    json!({ "sum": values.iter().sum::<f64>(), "digest": digest(&text.join(",")) })
}

/// A value as the expected file keeps it: as it is, or for a `long` input, how many items it
/// has and the digest of its JSON.
pub fn kept(value: Value, long: bool) -> Value {
    match (long, &value) {
        (true, Value::Array(items)) => {
            json!({ "length": items.len(), "digest": digest(&value.to_string()) })
        }
        _ => value,
    }
}

/// The 32-bit FNV-1a hash of `text`'s UTF-16 code units, in hex (the JavaScript side computes
/// it too).
pub fn digest(text: &str) -> String {
    let units = text.encode_utf16();
    let hash = units.fold(0x811c_9dc5_u32, |h, u| {
        (h ^ u32::from(u)).wrapping_mul(0x0100_0193)
    });
    format!("{hash:08x}")
}

//! Helpers shared by the integration tests: message builders, a fake clock, scripted model
//! calls and summarizers, and a counting estimator.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::Duration;

use context_compaction::*;
use serde_json::json;

/// Runs a local future to completion.
pub fn run<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

/// A user message.
pub fn user(text: &str) -> Message {
    Message::user(text)
}

/// An assistant text message.
pub fn say(text: &str) -> Message {
    Message::assistant(text)
}

/// An assistant message calling `name` once with `id`.
pub fn call(id: &str, name: &str) -> Message {
    Message::tool_calls(vec![ToolCall::new(
        id,
        name,
        j(json!({"path": format!("{id}.rs")})),
    )])
}

/// An assistant message making several calls at once.
pub fn calls(ids: &[&str]) -> Message {
    Message::tool_calls(
        ids.iter()
            .map(|id| ToolCall::new(id, "bash", j(json!({"command": "ls"}))))
            .collect(),
    )
}

/// A tool result for `id`.
pub fn result(id: &str) -> Message {
    Message::tool_result(id, "bash", "ok")
}

/// Counts every text as one token per character, with no framing, so tests can reason in
/// exact numbers; also counts its calls.
#[derive(Default)]
pub struct CharEstimator {
    pub calls: Cell<usize>,
}

impl Estimator for CharEstimator {
    fn count_tokens(&self, text: &str) -> Result<u64, BoxError> {
        self.calls.set(self.calls.get() + 1);
        Ok(text.chars().count() as u64)
    }
    fn framing_tokens(&self) -> u64 {
        0
    }
}

/// An estimator that always fails.
pub struct BrokenEstimator;

impl Estimator for BrokenEstimator {
    fn count_tokens(&self, _: &str) -> Result<u64, BoxError> {
        Err("tokenizer offline".into())
    }
}

/// A sleeper on a fake clock: it records each wait and returns at once, or reports a
/// cancellation when the context says so.
#[derive(Default, Debug)]
pub struct FakeClock {
    pub waits: RefCell<Vec<Duration>>,
}

/// The per-call context of the fakes: a cancellation flag.
#[derive(Default, Debug)]
pub struct Signal {
    pub cancelled: Cell<bool>,
}

impl Sleeper for FakeClock {
    type Context = Signal;
    fn sleep<'a>(
        &'a self,
        delay: Duration,
        context: &'a Signal,
    ) -> LocalFuture<'a, Result<(), GenerateError>> {
        self.waits.borrow_mut().push(delay);
        let cancelled = context.cancelled.get();
        Box::pin(async move {
            if cancelled {
                return Err(GenerateError::new(
                    FailureKind::Cancelled,
                    "aborted during wait",
                ));
            }
            Ok(())
        })
    }
}

/// One scripted answer of [`Script`].
#[derive(Debug)]
pub enum Answer {
    Text(&'static str),
    WithUsage(&'static str, Usage),
    Fail(FailureKind),
    /// Fails, and cancels the signal, as a host does when its caller aborts mid-call.
    CancelDuringCall,
}

/// A model call that answers from a script and keeps every request it saw.
#[derive(Default, Debug)]
pub struct Script {
    pub answers: RefCell<VecDeque<Answer>>,
    pub requests: RefCell<Vec<GenerateRequest>>,
}

impl Script {
    pub fn new(answers: Vec<Answer>) -> Self {
        Script {
            answers: RefCell::new(answers.into()),
            requests: RefCell::default(),
        }
    }
}

/// A tuple-struct error standing for a host's own error object.
#[derive(Debug, PartialEq)]
pub struct HostError(pub u16);

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "host error {}", self.0)
    }
}

impl std::error::Error for HostError {}

impl Generator for &Script {
    type Context = Signal;
    fn generate<'a>(
        &'a self,
        request: &'a GenerateRequest,
        context: &'a Signal,
    ) -> LocalFuture<'a, Result<Generated, GenerateError>> {
        self.requests.borrow_mut().push(request.clone());
        let answer = self.answers.borrow_mut().pop_front();
        Box::pin(async move {
            match answer {
                Some(Answer::Text(text)) => Ok(Generated {
                    text: text.to_owned(),
                    usage: None,
                }),
                Some(Answer::WithUsage(text, usage)) => Ok(Generated {
                    text: text.to_owned(),
                    usage: Some(usage),
                }),
                Some(Answer::Fail(kind)) => Err(GenerateError {
                    kind,
                    message: format!("{kind:?}"),
                    source: Some(Box::new(HostError(match kind {
                        FailureKind::Http(status) => status,
                        _ => 0,
                    }))),
                }),
                Some(Answer::CancelDuringCall) => {
                    context.cancelled.set(true);
                    Err(GenerateError::new(FailureKind::Cancelled, "aborted"))
                }
                None => panic!("the script ran out of answers"),
            }
        })
    }
}

/// A generator summarizer over `script` with the default retry delays on a fake clock.
pub fn generator<'s>(
    script: &'s Script,
    clock: &'s FakeClock,
) -> GeneratorSummarizer<&'s Script, &'s FakeClock> {
    GeneratorSummarizer::new(script, clock, "summary-model")
}

impl Sleeper for &FakeClock {
    type Context = Signal;
    fn sleep<'a>(
        &'a self,
        delay: Duration,
        context: &'a Signal,
    ) -> LocalFuture<'a, Result<(), GenerateError>> {
        (**self).sleep(delay, context)
    }
}

/// An application summarizer that returns fixed text and remembers what it was given.
#[derive(Default, Debug)]
pub struct Fixed {
    pub text: String,
    pub usage: Option<Usage>,
    pub seen: RefCell<Vec<(String, usize, usize)>>,
    /// The focus of each call, in order.
    pub foci: RefCell<Vec<Option<String>>>,
    pub fail: bool,
    pub panic: bool,
}

impl Fixed {
    pub fn new(text: &str) -> Self {
        Fixed {
            text: text.to_owned(),
            ..Fixed::default()
        }
    }
}

impl Summarizer for Fixed {
    type Context = ();
    fn summarize<'a>(
        &'a self,
        request: SummarizeRequest<'a>,
        _: &'a (),
    ) -> LocalFuture<'a, Result<SummaryText>> {
        self.seen.borrow_mut().push((
            request.previous_summary.to_owned(),
            request.messages.len(),
            request.turn_prefix_messages.len(),
        ));
        self.foci
            .borrow_mut()
            .push(request.focus.map(str::to_owned));
        Box::pin(async move {
            if self.panic {
                panic!("summarizer bug");
            }
            if self.fail {
                return Err(Error::Summarization {
                    message: "host failed".to_owned(),
                    source: Some(Box::new(HostError(7))),
                });
            }
            Ok(SummaryText {
                text: self.text.clone(),
                usage: self.usage,
            })
        })
    }
}

/// A compactor with an application summarizer, keeping `keep` tokens (a whole number).
pub fn compactor(keep: f64, summarizer: Fixed) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep as u64,
        ..CompactorConfig::new(summarizer)
    })
    .unwrap()
}

/// The same conversation in each format (`tests/fixtures/formats/`).
pub const FIXTURES: [(formats::Format, &str); 6] = [
    (
        formats::Format::Canonical,
        include_str!("../fixtures/formats/canonical.json"),
    ),
    (
        formats::Format::OpenAIChat,
        include_str!("../fixtures/formats/openai-chat.json"),
    ),
    (
        formats::Format::OpenAIResponses,
        include_str!("../fixtures/formats/openai-responses.json"),
    ),
    (
        formats::Format::Anthropic,
        include_str!("../fixtures/formats/anthropic.json"),
    ),
    (
        formats::Format::AiSdk,
        include_str!("../fixtures/formats/ai-sdk.json"),
    ),
    (
        formats::Format::AiSdkUi,
        include_str!("../fixtures/formats/ai-sdk-ui.json"),
    ),
];

/// Reads each of `messages` as a host message of `format`, named `messages[i]` in errors.
pub fn read_hosts(
    format: context_compaction::formats::Format,
    messages: &[serde_json::Value],
) -> Vec<HostMessage> {
    let read = |(i, m): (usize, &serde_json::Value)| {
        format.read_json(&m.to_string(), &format!("messages[{i}]"))
    };
    messages
        .iter()
        .enumerate()
        .map(read)
        .collect::<Result<_>>()
        .unwrap()
}

/// Tool-call arguments from a `serde_json` value.
pub fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}

//! # context-compaction
//!
//! Keeps an LLM conversation inside its context window. [`Compactor::plan`] decides, purely
//! and cheaply, where to cut a long history so that no tool call is separated from its result;
//! [`Compactor::apply`] summarizes the older part through a [`Summarizer`] the host provides and
//! returns the new summary, the retained messages and a [`Record`]. The summary re-enters the
//! conversation as one user message ([`project_summary`]).
//!
//! The core has no async runtime and no platform dependencies: summarizers, model calls and
//! waits are small traits returning local futures, which the wasm layer drives on JavaScript
//! promises and timers.
//!
//! ```
//! use context_compaction::*;
//!
//! // An application summarizer: any async function from messages to text.
//! struct Echo;
//! impl Summarizer for Echo {
//!     type Context = ();
//!     fn summarize<'a>(&'a self, request: SummarizeRequest<'a>, _: &'a ()) -> LocalFuture<'a, Result<SummaryText>> {
//!         let text = format!("{} earlier messages", request.messages.len());
//!         Box::pin(async move { Ok(SummaryText { text, usage: None }) })
//!     }
//! }
//!
//! let compactor = Compactor::new(CompactorConfig {
//!     keep_recent_tokens: 10,
//!     trigger_ratio: 0.8,
//!     ..CompactorConfig::new(Echo)
//! })?;
//! let messages = vec![
//!     Message::user("write a parser"),
//!     Message::assistant("here is a parser ..."),
//!     Message::user("now add tests"),
//!     Message::assistant("done"),
//! ];
//! let request = Request { input_token_budget: Some(20), ..Request::new(&messages) };
//! // About 28 estimated tokens against 0.8 × 20: plan a cut keeping at least 10 tokens.
//! let plan = compactor.plan(&request)?.expect("over the threshold");
//! assert_eq!(plan.first_kept_index, 2);
//! assert_eq!(plan.messages_to_summarize, 0..2);
//!
//! let outcome = pollster::block_on(compactor.apply(&request, Some(&plan), &()))?;
//! assert_eq!(outcome.summary, "2 earlier messages");
//! assert_eq!(outcome.messages, &messages[2..]);
//! # Ok::<(), Error>(())
//! ```

#![warn(missing_docs, unreachable_pub)]
// `format!` and `write!` (clippy.toml) are refused where they would reach the wasm module:
// allowed in native builds and tests (Cargo.toml's `[lints]`), refused in the wasm32 lint run.
#![cfg_attr(target_arch = "wasm32", warn(clippy::disallowed_macros))]

// First: the modules below use its `text!` macro.
#[macro_use]
mod text;
pub mod anchor;
mod apply;
pub mod body;
pub mod chunks;
pub mod clearing;
mod compactor;
pub mod crossing;
mod draft;
mod error;
mod facts;
// Only the bindings' cache keeps facts as text.
#[cfg(any(target_arch = "wasm32", test))]
mod facts_text;
pub mod formats;
mod generator;
mod handed;
mod hash;
pub mod history;
mod ids;
mod json;
mod ledger;
pub mod manager;
mod message;
pub mod options;
pub mod out;
mod overflow;
pub mod oversized;
pub mod parse;
pub mod pending;
pub mod pinned;
mod plan;
mod prompt;
mod provider_compaction;
mod record;
pub mod records;
mod report;
pub mod reported;
mod request;
mod retry;
mod search;
mod steps;
pub mod summarized;
mod summarizer;
mod summary;
pub mod tail;
mod thrown;
pub mod token;
mod usage;
#[cfg(target_arch = "wasm32")]
mod wasm;
pub mod window;

pub use anchor::{Calibration, Report};
pub use apply::{Applied, ApplyInput, CommitInput, Compaction, Receipt, Record};
pub use compactor::{
    Compactor, CompactorConfig, DEFAULT_KEEP_RECENT_TOKENS, HistoryDecision, LedgerDecision,
    Planned,
};
pub use draft::{Digest, Draft, Verdict};
pub use error::{BoxError, Error, Result, whole_number};
pub use facts::{MessageFacts, MessageFlags, RequestFacts, Step, Steps};
pub use generator::{
    Chunk, DEFAULT_QUOTE_TURN_PREFIX_TOKENS, GenerateRequest, Generated, Generator,
    GeneratorSummarizer, Purpose, SUMMARY_SO_FAR_PLACEHOLDER, ToolChoice,
};
pub use handed::{PlanFields, holds_pinned, unpinned};
pub use history::History;
pub use ids::Ids;
pub use json::{Json, JsonError};
pub use ledger::Ledger;
pub use message::{
    AssistantBlock, AssistantMessage, ContentBlock, HostMessage, Message, Role, StepStart,
    StopReason, ToolCall, ToolDefinition, ToolResultMessage, UserMessage,
};
pub use overflow::is_context_overflow;
pub use plan::Plan;
pub use prompt::{DEFAULT_SYSTEM_PROMPT, NO_HISTORY_PLACEHOLDER};
pub use request::{PlanOptions, Request};
pub use retry::{DEFAULT_DELAYS, FailureKind, GenerateError, MAX_DELAY_MS, RetryPolicy, Sleeper};
pub use summarizer::{LocalFuture, SummarizeRequest, Summarizer, SummaryText, Usage};
pub use summary::{
    FileLists, FileTracking, TURN_CONTEXT_HEADING, clean as clean_summary,
    project as project_summary,
};
pub use thrown::{Callback, Thrown};
pub use token::{Estimator, Heuristic};

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

mod apply;
mod compactor;
mod error;
mod facts;
mod generator;
mod message;
pub mod parse;
mod plan;
mod prompt;
pub mod records;
mod request;
mod retry;
mod summarizer;
mod summary;
pub mod token;

pub use apply::{Compaction, Record};
pub use compactor::{Compactor, CompactorConfig, DEFAULT_KEEP_RECENT_TOKENS};
pub use error::{BoxError, Error, Result, whole_number};
pub use facts::{MessageFacts, RequestFacts, Role};
pub use generator::{
    GenerateRequest, Generated, Generator, GeneratorSummarizer, Purpose, ToolChoice,
};
pub use message::{
    AssistantBlock, AssistantMessage, ContentBlock, Message, StopReason, ToolCall, ToolDefinition,
    ToolResultMessage, UserMessage,
};
pub use plan::Plan;
pub use prompt::{DEFAULT_SYSTEM_PROMPT, NO_HISTORY_PLACEHOLDER};
pub use request::{PlanOptions, Request};
pub use retry::{DEFAULT_DELAYS, FailureKind, GenerateError, RetryPolicy, Sleeper};
pub use summarizer::{LocalFuture, SummarizeRequest, Summarizer, SummaryText, Usage};
pub use summary::{
    FileLists, TURN_CONTEXT_HEADING, clean as clean_summary, project as project_summary,
};
pub use token::{Estimator, Heuristic};

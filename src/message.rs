//! The canonical message model (`docs/formats.md`): user, assistant and tool-result messages,
//! and host messages (of any format) as the units they hold.
//!
//! Only what compaction needs is kept: visible text, thinking, tool calls with their arguments,
//! tool results with their status, and the presence of images (never their payload).

use crate::json::Json;

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A message from the person (or the application speaking for them). Starts a turn.
    User(UserMessage),
    /// A model response: text, thinking and tool calls.
    Assistant(AssistantMessage),
    /// The result of one tool call.
    ToolResult(ToolResultMessage),
}

/// A user message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserMessage {
    /// Text and images, in order.
    pub content: Vec<ContentBlock>,
}

/// An assistant message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantMessage {
    /// Text, thinking and tool calls, in order.
    pub content: Vec<AssistantBlock>,
    /// Why generation stopped; `Error` and `Aborted` mark failed attempts.
    pub stop_reason: Option<StopReason>,
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResultMessage {
    /// The id of the tool call this answers.
    pub tool_call_id: String,
    /// The tool's name, when the host recorded it.
    pub tool_name: Option<String>,
    /// Text and images the tool returned.
    pub content: Vec<ContentBlock>,
    /// Whether the tool reported a failure.
    pub is_error: bool,
}

/// A block of user or tool-result content.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// Plain text.
    Text(String),
    /// An image; only its presence matters (it counts a fixed number of tokens).
    Image,
    /// Content the model is sent but a summary has no use for (a part of a kind the reader
    /// does not know): counted in the estimate, left out of the records.
    Opaque(String),
}

/// A block of assistant content.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantBlock {
    /// Visible text.
    Text(String),
    /// Reasoning text (its provider signature is not kept).
    Thinking(String),
    /// A request to run a tool.
    ToolCall(ToolCall),
    /// Content the model is sent but a summary has no use for (encrypted reasoning, unknown
    /// provider items): counted in the estimate, left out of the records.
    Opaque(String),
    /// A summary the provider made and sealed (an OpenAI Responses `compaction` item): its
    /// `encrypted_content` is `chars` characters long. It is not prose: it counts
    /// [`sealed_tokens`] of it, whatever the estimator, and is left out of the records.
    Sealed {
        /// The length of the encrypted text, in characters.
        chars: usize,
    },
}

/// The tokens a sealed provider summary of `chars` encrypted characters counts: the text it
/// decrypts to, about three quarters of its base64 length in bytes, at four bytes a token
/// (`docs/behaviour.md`). 4,006 characters count 752 tokens, not the 1,024 of prose.
pub(crate) fn sealed_tokens(chars: usize) -> u64 {
    (chars as u64 * 3).div_ceil(16)
}

/// A tool call inside an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The id its result refers to.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON.
    pub arguments: Json,
}

/// Why an assistant message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// A natural end.
    Stop,
    /// The output token limit was reached.
    Length,
    /// The model asked for tools.
    ToolUse,
    /// The attempt failed.
    Error,
    /// The attempt was cancelled.
    Aborted,
}

/// A tool definition, counted in the request estimate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The JSON schema of its arguments.
    pub parameters: Json,
}

impl Message {
    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User(UserMessage {
            content: vec![ContentBlock::Text(text.into())],
        })
    }

    /// An assistant message with one text block that stopped normally.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant(AssistantMessage {
            content: vec![AssistantBlock::Text(text.into())],
            stop_reason: Some(StopReason::Stop),
        })
    }

    /// An assistant message that asks for the given tool calls.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Message::Assistant(AssistantMessage {
            content: calls.into_iter().map(AssistantBlock::ToolCall).collect(),
            stop_reason: Some(StopReason::ToolUse),
        })
    }

    /// A successful tool result with one text block.
    pub fn tool_result(call_id: &str, tool_name: &str, text: impl Into<String>) -> Self {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: call_id.to_owned(),
            tool_name: Some(tool_name.to_owned()),
            content: vec![ContentBlock::Text(text.into())],
            is_error: false,
        })
    }

    /// Whether this is an assistant attempt that failed or was aborted.
    pub fn is_failed_attempt(&self) -> bool {
        matches!(
            self,
            Message::Assistant(AssistantMessage {
                stop_reason: Some(StopReason::Error | StopReason::Aborted),
                ..
            })
        )
    }

    /// Whether it holds a summary the provider sealed ([`AssistantBlock::Sealed`]).
    pub fn is_provider_summary(&self) -> bool {
        match self {
            Message::Assistant(a) => a
                .content
                .iter()
                .any(|b| matches!(b, AssistantBlock::Sealed { .. })),
            _ => false,
        }
    }

    /// The tool calls this message makes (none unless it is an assistant message).
    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        let blocks: &[AssistantBlock] = match self {
            Message::Assistant(a) => &a.content,
            _ => &[],
        };
        blocks.iter().filter_map(|b| match b {
            AssistantBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }
}

impl ToolCall {
    /// A tool call with the given id, name and arguments.
    pub fn new(id: &str, name: &str, arguments: impl Into<Json>) -> Self {
        ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: arguments.into(),
        }
    }
}

/// What a message is, as far as cuts and turns are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool result (or a host message of only tool results).
    ToolResult,
    /// A system or developer message inside the history: counted, never cut (it stays in
    /// front of the kept messages).
    System,
}

/// What reading one message found of its pins: whether the host pinned it (its format's
/// marker; read from facts, the request's indices too) and whether it is a system message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    /// The host pinned it.
    pub pinned: bool,
    /// It is a system message (never cut: it counts as system prompt).
    pub system: bool,
}

impl Found {
    /// What a message read into units says (its format's marker, its role).
    pub fn of_host(message: &HostMessage) -> Found {
        Found {
            pinned: message.pinned,
            system: message.role == Role::System,
        }
    }

    /// Whether the message is pinned: never cut, summarized or cleared, kept after the summary.
    pub fn is_pinned(self) -> bool {
        self.pinned || self.system
    }
}

/// One host message as the planner and the summarizer see it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostMessage {
    /// What it is for cuts: `System` messages are never cut (they count as system prompt).
    pub role: Role,
    /// Whether a turn starts here: a user message with more than tool results.
    pub starts_turn: bool,
    /// Its canonical units, in order (none for a system message).
    pub units: Vec<Message>,
    /// The text of a system or developer message.
    pub system: Option<String>,
    /// Where later steps start inside the message (an AI SDK UIMessage's step boundaries): a
    /// cut may fall there as well as before the message. Empty for most formats.
    pub steps: Vec<StepStart>,
    /// Whether the host pinned it (never summarized or cleared; see [`MessageFacts::pinned`]).
    ///
    /// [`MessageFacts::pinned`]: crate::MessageFacts::pinned
    pub pinned: bool,
    /// Whether it holds a summary the provider made (see
    /// [`MessageFacts::provider_summary`]).
    ///
    /// [`MessageFacts::provider_summary`]: crate::MessageFacts::provider_summary
    pub provider_summary: bool,
}

/// A step boundary inside one host message: the part a step starts at and its first unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepStart {
    /// The index of the part (in the host message's own parts) where the step starts.
    pub part: usize,
    /// The index of the step's first unit in [`HostMessage::units`].
    pub unit: usize,
}

impl HostMessage {
    /// A canonical message as a host message of one unit.
    pub fn of(message: Message) -> HostMessage {
        let (role, starts_turn) = match &message {
            Message::User(_) => (Role::User, true),
            Message::Assistant(_) => (Role::Assistant, false),
            Message::ToolResult(_) => (Role::ToolResult, false),
        };
        HostMessage {
            role,
            starts_turn,
            units: vec![message],
            system: None,
            steps: Vec::new(),
            pinned: false,
            provider_summary: false,
        }
    }

    /// A system or developer message.
    pub fn system(text: String) -> HostMessage {
        HostMessage {
            role: Role::System,
            starts_turn: false,
            units: Vec::new(),
            system: Some(text),
            steps: Vec::new(),
            pinned: false,
            provider_summary: false,
        }
    }

    /// Units read from one host message: a user message of only tool results does not start
    /// a turn; one with assistant content is an assistant message.
    pub fn of_units(units: Vec<Message>) -> HostMessage {
        let assistant = units.iter().any(|u| matches!(u, Message::Assistant(_)));
        let user = units.iter().any(|u| matches!(u, Message::User(_)));
        let role = if assistant {
            Role::Assistant
        } else if user || units.is_empty() {
            Role::User
        } else {
            Role::ToolResult
        };
        HostMessage {
            role,
            starts_turn: user && !assistant,
            units,
            system: None,
            steps: Vec::new(),
            pinned: false,
            provider_summary: false,
        }
    }
}

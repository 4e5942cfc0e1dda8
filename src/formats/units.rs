//! The sink that builds a host message's canonical units (what records and summaries are made
//! of).

use std::borrow::Cow;

use super::json::value_json;
use super::sink::{Args, Sink, Text, Unit};
use crate::message::{
    AssistantBlock, AssistantMessage, ContentBlock, HostMessage, Message, StepStart, ToolCall,
    ToolResultMessage, UserMessage,
};

/// Builds the units of one host message.
#[derive(Default)]
pub(crate) struct Units {
    units: Vec<Message>,
    system: Option<String>,
    steps: Vec<StepStart>,
    pinned: bool,
    provider_summary: bool,
}

impl Units {
    /// The host message read.
    pub(crate) fn finish(self) -> HostMessage {
        let message = match self.system {
            Some(text) => HostMessage::system(text),
            None => HostMessage {
                steps: self.steps,
                ..HostMessage::of_units(self.units)
            },
        };
        HostMessage {
            pinned: self.pinned,
            provider_summary: self.provider_summary,
            ..message
        }
    }

    /// `text` as a block of the unit that started last, of the kind that unit holds.
    fn content(
        &mut self,
        text: String,
        block: fn(String) -> ContentBlock,
        assistant: fn(String) -> AssistantBlock,
    ) {
        match self.units.last_mut() {
            Some(Message::User(UserMessage { content }))
            | Some(Message::ToolResult(ToolResultMessage { content, .. })) => {
                content.push(block(text))
            }
            Some(Message::Assistant(unit)) => unit.content.push(assistant(text)),
            None => {}
        }
    }

    fn assistant(&mut self, block: AssistantBlock) {
        if let Some(Message::Assistant(unit)) = self.units.last_mut() {
            unit.content.push(block);
        }
    }
}

impl<'a> Sink<'a> for Units {
    fn pin(&mut self) {
        self.pinned = true;
    }

    fn provider_summary(&mut self) {
        self.provider_summary = true;
    }

    fn unit(&mut self, unit: Unit<'a>) {
        self.units.push(match unit {
            Unit::User => Message::User(UserMessage::default()),
            Unit::Assistant(stop_reason) => Message::Assistant(AssistantMessage {
                content: Vec::new(),
                stop_reason,
            }),
            Unit::ToolResult { id, name, is_error } => Message::ToolResult(ToolResultMessage {
                tool_call_id: id.into_owned(),
                tool_name: name.map(Cow::into_owned),
                content: Vec::new(),
                is_error,
            }),
        });
    }

    fn text(&mut self, text: Text<'a>) {
        self.content(text.into_string(), ContentBlock::Text, AssistantBlock::Text);
    }

    fn image(&mut self) {
        match self.units.last_mut() {
            Some(Message::User(UserMessage { content }))
            | Some(Message::ToolResult(ToolResultMessage { content, .. })) => {
                content.push(ContentBlock::Image)
            }
            _ => {}
        }
    }

    fn thinking(&mut self, text: Text<'a>) {
        self.assistant(AssistantBlock::Thinking(text.into_string()));
    }

    fn opaque(&mut self, text: Text<'a>) {
        self.content(
            text.into_string(),
            ContentBlock::Opaque,
            AssistantBlock::Opaque,
        );
    }

    fn sealed(&mut self, chars: usize) {
        self.assistant(AssistantBlock::Sealed { chars });
    }

    fn call(&mut self, id: Cow<'a, str>, name: Text<'a>, arguments: Args<'a>) {
        let arguments = match arguments {
            Args::Value(value) => value_json(value),
            #[cfg(any(feature = "openai-chat", feature = "openai-responses"))]
            Args::Held(value) => super::json::text_json(&super::sink::held_text(value)),
        };
        self.assistant(AssistantBlock::ToolCall(ToolCall {
            id: id.into_owned(),
            name: name.into_string(),
            arguments,
        }));
    }

    fn system(&mut self, text: String) {
        self.system = Some(text);
    }

    fn step(&mut self, part: usize) {
        let unit = self.units.len();
        self.steps.push(StepStart { part, unit });
    }
}

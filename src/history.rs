//! The seam an anchored plan reads a history through ([`History`]): the planner
//! (`crate::tail`, `crate::reported`) decides which messages to read, and how; a history only
//! answers. The package implements it over JavaScript objects; [`Texts`] over host messages
//! held as JSON text, sized as the package sizes its objects.

use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::formats::{Format, MessageUsage};
use crate::message::ToolDefinition;
use crate::token::Estimator;

/// A history of messages with the request around it, read piece by piece: each read is a cost
/// (a long host history is read through a bridge), so the planner asks only for what it needs.
pub trait History {
    /// How many messages the history holds.
    fn len(&self) -> usize;

    /// Whether the history holds no message.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The request around the messages: system prompt, summary, tools, estimator, and the
    /// usage its host reported explicitly.
    fn parts(&self) -> Parts<'_>;

    /// The raw facts of messages `indices` (in order), in their order.
    fn facts(&self, indices: &[u32]) -> Result<Vec<MessageFacts>>;

    /// The raw facts of messages `0..end`, in order (what is left to read after a plan from
    /// the tail read the latest messages and gave up, which are appended to them: an
    /// implementation may leave room for them).
    fn facts_before(&self, end: usize) -> Result<Vec<MessageFacts>> {
        let indices: Vec<u32> = (0..end as u32).collect();
        self.facts(&indices)
    }

    /// The raw facts of every message.
    fn all_facts(&self) -> Result<Vec<MessageFacts>> {
        let all: Vec<u32> = (0..self.len() as u32).collect();
        self.facts(&all)
    }

    /// The usage the provider reported on each of messages `indices` (in order), if any.
    fn usages(&self, indices: &[u32]) -> Result<Vec<Option<MessageUsage>>>;

    /// The sizes of every message (`only`: of messages `only`, in their order; then the indices
    /// of [`Sizes`] are positions in `only`). A message that cannot be read is an error naming
    /// it; or, with `skip_unreadable`, has a NaN size.
    fn sizes(&self, only: Option<&[u32]>, skip_unreadable: bool) -> Result<Sizes>;

    /// The indices of the system messages (in order), found without reading anything else.
    fn system_messages(&self) -> Result<Vec<u32>>;
}

/// Host messages of one format held as their JSON texts, with the request around them: a
/// history a Rust caller holds in memory. Each message is read when the planner asks for it,
/// and sized by [`crate::tail::size`], the size the package's sizer gives the same messages as
/// objects.
#[derive(Clone, Copy)]
pub struct Texts<'a, T> {
    /// The format of the messages.
    pub format: Format,
    /// Each message's JSON text.
    pub messages: &'a [T],
    /// Everything of the request but its messages.
    pub parts: Parts<'a>,
}

impl<T: AsRef<str>> Texts<'_, T> {
    fn text(&self, i: u32) -> (&str, String) {
        let text = self.messages.get(i as usize).map_or("", AsRef::as_ref);
        (text, text!("messages[", i, "]"))
    }
}

impl<T: AsRef<str>> History for Texts<'_, T> {
    fn len(&self) -> usize {
        self.messages.len()
    }

    fn parts(&self) -> Parts<'_> {
        self.parts
    }

    fn facts(&self, indices: &[u32]) -> Result<Vec<MessageFacts>> {
        let estimator = self.parts.estimator;
        let read = |&i: &u32| {
            let (text, path) = self.text(i);
            self.format.facts_json(text, &path, estimator)
        };
        let mut facts = indices.iter().map(read).collect::<Result<Vec<_>>>()?;
        crate::pinned::mark(self.parts.pinned, indices, &mut facts);
        Ok(facts)
    }

    fn usages(&self, indices: &[u32]) -> Result<Vec<Option<MessageUsage>>> {
        let read = |&i: &u32| {
            let (text, path) = self.text(i);
            self.format.usage_json(text, &path)
        };
        indices.iter().map(read).collect()
    }

    fn sizes(&self, only: Option<&[u32]>, skip_unreadable: bool) -> Result<Sizes> {
        let sizes = crate::tail::size::of_texts(self.format, self.messages, only, skip_unreadable)?;
        let system = crate::pinned::with_system(sizes.system, self.parts.pinned, only);
        Ok(Sizes { system, ..sizes })
    }

    fn system_messages(&self) -> Result<Vec<u32>> {
        let sizes = self.sizes(None, true)?;
        Ok(sizes.system)
    }
}

/// What a pass over the sizes of messages found: the size of each ([`crate::tail::size`]; the
/// planner only uses its ratio to tokens), and the indices of the system messages and of the
/// failed attempts, each in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sizes {
    /// The size of each message sized.
    pub sizes: Vec<f64>,
    /// The system messages among them.
    pub system: Vec<u32>,
    /// The failed attempts among them.
    pub failed: Vec<u32>,
}

/// Everything of a request but its messages.
#[derive(Clone, Copy)]
pub struct Parts<'a> {
    /// The system prompt.
    pub system_prompt: &'a str,
    /// The current summary.
    pub summary: &'a str,
    /// The tool definitions.
    pub tools: &'a [ToolDefinition],
    /// Drives every estimate.
    pub estimator: &'a dyn Estimator,
    /// What the host said the provider counted for earlier requests.
    pub reported: &'a [Explicit],
    /// Whether the messages before the newest provider summary count ([`crate::window`]).
    pub provider_compaction: crate::window::ProviderCompaction,
    /// The indices of the messages the host pinned by the request, besides those its format's
    /// marker pins: sorted, no repeats ([`crate::pinned::checked`]; a body's are checked once
    /// it is read).
    pub pinned: &'a [u32],
}

impl Parts<'_> {
    /// The raw facts of everything but the messages (which are left empty).
    pub fn fixed_facts(&self) -> Result<RequestFacts> {
        let facts =
            RequestFacts::fixed(self.system_prompt, self.summary, self.tools, self.estimator)?;
        Ok(RequestFacts {
            provider_compaction: self.provider_compaction,
            ..facts
        })
    }
}

/// One usage report a host states explicitly: "the request made of the first `messages`
/// messages (with this system prompt, summary and tools, by default the request's own) was
/// billed `tokens` input tokens".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Explicit {
    /// How many of the request's first messages the reported request held.
    pub messages: usize,
    /// The input tokens billed.
    pub tokens: u64,
    /// Its system prompt, when not the request's.
    pub system_prompt: Option<String>,
    /// Its summary, when stated (another summary than the request's: the report is stale).
    pub summary: Option<String>,
    /// Its tools, when not the request's.
    pub tools: Option<Vec<ToolDefinition>>,
}

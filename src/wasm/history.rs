//! A request's host messages as a [`History`] the core plans from (`crate::tail`): facts
//! through the facts cache or the walker (`super::cache`), usage through the walker, sizes and
//! system messages through the package's sizer (`super::sizer`). It only answers what the
//! planner asks.

use super::convert::JsRequest;
use super::{cache, sizer, walk};
use crate::error::Result;
use crate::facts::MessageFacts;
use crate::formats::MessageUsage;
use crate::history::{History, Parts, Sizes};

/// The messages of `request`, their facts from the cache when `cache` is on.
pub(super) struct JsHistory<'a> {
    pub(super) request: &'a JsRequest,
    pub(super) cache: bool,
}

impl History for JsHistory<'_> {
    fn len(&self) -> usize {
        self.request.messages.length() as usize
    }

    fn parts(&self) -> Parts<'_> {
        self.request.parts()
    }

    fn facts(&self, indices: &[u32]) -> Result<Vec<MessageFacts>> {
        let mut facts = cache::messages_facts(self.request, indices, self.cache)?;
        crate::pinned::mark(&self.request.pinned, indices, &mut facts);
        Ok(facts)
    }

    fn facts_before(&self, end: usize) -> Result<Vec<MessageFacts>> {
        let end = end.min(self.len()) as u32;
        let mut facts = cache::messages_facts_before(self.request, end, self.cache)?;
        crate::pinned::mark_first(&self.request.pinned, &mut facts);
        Ok(facts)
    }

    fn all_facts(&self) -> Result<Vec<MessageFacts>> {
        let mut facts = cache::all_messages_facts(self.request, self.cache)?;
        crate::pinned::mark_first(&self.request.pinned, &mut facts);
        Ok(facts)
    }

    fn usages(&self, indices: &[u32]) -> Result<Vec<Option<MessageUsage>>> {
        walk::usages(&self.request.messages, indices, 0, self.request.format)
    }

    fn sizes(&self, only: Option<&[u32]>, skip_unreadable: bool) -> Result<Sizes> {
        sizer::sizes(self.request, only, skip_unreadable)
    }

    fn system_messages(&self) -> Result<Vec<u32>> {
        sizer::system_messages(self.request)
    }
}

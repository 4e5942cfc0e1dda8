//! The content of a message as readers find it: a string, or an array of typed blocks, read
//! into a [`Sink`]. Apart from `super::object` (which the sink's spots name) so that neither
//! module needs the other.

use std::borrow::Cow;

use context_compaction_scan::Kind;

use super::object::Obj;
use super::sink::{Sink, Text};
use crate::error::Result;

impl<'a> Obj<'a, '_> {
    /// A content at `key` given as a string (one text) or as an array of typed blocks, each
    /// read by `block` with its type.
    pub(crate) fn blocks(
        &self,
        key: &str,
        sink: &mut dyn Sink<'a>,
        block: &mut dyn FnMut(&Obj<'a, '_>, &str, &mut dyn Sink<'a>) -> Result<()>,
    ) -> Result<()> {
        // One lookup of `key` serves both shapes.
        let content = self.get(key);
        if let Some(text) = content.filter(|v| v.kind() == Kind::String) {
            sink.text(Text::Str(text));
            return Ok(());
        }
        for (i, value) in self.items(key, content)?.enumerate() {
            let item = self.item(value, key, i)?;
            let kind = item.kind()?;
            block(&item, &kind, sink)?;
        }
        Ok(())
    }

    /// A content at `key`: a string, or an array of text parts (`texts`: their `text`, else
    /// their `refusal`) and attachments (`attachments`, counted as images), into `sink`.
    pub(crate) fn content(
        &self,
        key: &str,
        texts: &[&str],
        attachments: &[&str],
        sink: &mut dyn Sink<'a>,
    ) -> Result<()> {
        self.blocks(key, sink, &mut |part, kind, sink| {
            if texts.contains(&kind) {
                let (text, refusal) = (part.string("text")?, part.string("refusal")?);
                sink.text(match text.or(refusal) {
                    Some(text) => Text::Str(text),
                    None => Text::Made(Cow::Borrowed("")),
                });
            } else if attachments.contains(&kind) {
                sink.image();
            } else {
                let expected: Vec<String> = texts
                    .iter()
                    .chain(attachments)
                    .map(|t| text!("\"", t, "\""))
                    .collect();
                return Err(part.unknown(kind, &expected.join(", ")));
            }
            Ok(())
        })
    }
}

//! A small reader over one JSON object with errors that name the place, shared by the adapters.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::message::ContentBlock;
use crate::parse::kind;

/// One JSON object and its path.
pub(crate) struct Reader<'a> {
    pub object: &'a Map<String, Value>,
    pub path: String,
}

impl<'a> Reader<'a> {
    pub fn new(value: &'a Value, path: &str) -> Result<Reader<'a>> {
        let object = value
            .as_object()
            .ok_or_else(|| invalid(path, &format!("expected an object, got {}", kind(value))))?;
        Ok(Reader {
            object,
            path: path.to_owned(),
        })
    }

    /// The object at `key`, or at index `i` of an array field.
    pub fn child(&self, value: &'a Value, key: &str) -> Result<Reader<'a>> {
        Reader::new(value, &format!("{}.{key}", self.path))
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.object.get(key).filter(|v| !v.is_null())
    }

    pub fn str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.error(key, &format!("expected a string, got {}", kind(other)))),
        }
    }

    pub fn required_str(&self, key: &str) -> Result<&'a str> {
        self.str(key)?
            .ok_or_else(|| self.error(key, "missing (expected a string)"))
    }

    pub fn bool(&self, key: &str) -> Result<bool> {
        match self.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.error(key, "expected a boolean")),
        }
    }

    /// The elements of an array field (missing is empty), each with its path.
    pub fn array(&self, key: &str) -> Result<Vec<(String, &'a Value)>> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("{}.{key}[{i}]", self.path), v))
                .collect()),
            Some(other) => Err(self.error(key, &format!("expected an array, got {}", kind(other)))),
        }
    }

    /// A `type` field.
    pub fn kind(&self) -> Result<&'a str> {
        self.required_str("type")
    }

    pub fn error(&self, key: &str, what: &str) -> Error {
        invalid(&format!("{}.{key}", self.path), what)
    }

    pub fn unknown(&self, found: &str, expected: &str) -> Error {
        self.error(
            "type",
            &format!("unknown block type \"{found}\" (expected {expected})"),
        )
    }

    /// A string content, or an array of text parts (`text_types`) and attachments
    /// (`attachment_types`, counted as images).
    pub fn content(
        &self,
        key: &str,
        text_types: &[&str],
        attachment_types: &[&str],
    ) -> Result<Vec<ContentBlock>> {
        if let Some(Value::String(text)) = self.get(key) {
            return Ok(vec![ContentBlock::Text(text.clone())]);
        }
        let mut blocks = Vec::new();
        for (path, value) in self.array(key)? {
            let part = Reader::new(value, &path)?;
            let kind = part.kind()?;
            if text_types.contains(&kind) {
                let text = part
                    .str("text")?
                    .or(part.str("refusal")?)
                    .unwrap_or_default();
                blocks.push(ContentBlock::Text(text.to_owned()));
            } else if attachment_types.contains(&kind) {
                blocks.push(ContentBlock::Image);
            } else {
                let expected: Vec<String> = text_types
                    .iter()
                    .chain(attachment_types)
                    .map(|t| format!("\"{t}\""))
                    .collect();
                return Err(part.unknown(kind, &expected.join(", ")));
            }
        }
        Ok(blocks)
    }
}

fn invalid(path: &str, what: &str) -> Error {
    Error::invalid_request(format!("{path}: {what}"))
}

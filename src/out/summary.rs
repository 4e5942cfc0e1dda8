//! The summary requests: what a generator summarizer's `generate` is called with, and the
//! prompts `summarizerInput` shows. A prompt's text (megabytes of records) is a slot: the
//! binding decodes it its own way.

use super::Sink;
use crate::generator::{Chunk, GenerateRequest, Purpose};

/// The slots of [`generate_request`].
pub mod generate_slot {
    /// The prompt.
    pub const PROMPT: usize = 0;
    /// A value the binding leaves `undefined` (a missing `maxOutputTokens` or `chunk`: the key
    /// is there).
    pub const UNSET: usize = 1;
}

/// `{ model, systemPrompt, messages: [{ role: "user", content }], maxOutputTokens, tools: [],
/// toolChoice: "none", purpose, chunk }`, the content being slot
/// [`generate_slot::PROMPT`].
pub fn generate_request<W: Sink>(w: &mut W, request: &GenerateRequest) {
    w.open("", false);
    w.text("model", &request.model);
    w.text("systemPrompt", &request.system_prompt);
    w.open("messages", true);
    w.open("", false);
    w.text("role", "user");
    w.slot("content", generate_slot::PROMPT);
    w.close();
    w.close();
    match request.max_output_tokens {
        Some(n) => w.count("maxOutputTokens", n),
        None => w.slot("maxOutputTokens", generate_slot::UNSET),
    }
    w.open("tools", true);
    w.close();
    w.text("toolChoice", "none");
    w.text("purpose", request.purpose.as_str());
    match request.chunk {
        Some(place) => chunk(w, "chunk", place),
        None => w.slot("chunk", generate_slot::UNSET),
    }
    w.close();
}

/// A chunk's place, `{ index, count }`.
pub fn chunk<W: Sink>(w: &mut W, key: &'static str, chunk: Chunk) {
    w.open(key, false);
    w.count("index", chunk.index as u64);
    w.count("count", chunk.count as u64);
    w.close();
}

/// `[{ purpose, systemPrompt, prompt, chunk? }]` for prompts of `purposes`, in order: the
/// system instruction is slot 0 (one for every request), prompt `k` slot `1 + k`. `chunk` is
/// on the prompts of a part sent in more than one call only, numbered within the part.
pub fn prompts<W: Sink>(w: &mut W, purposes: &[Purpose]) {
    let part = |purpose: Purpose| match purpose {
        Purpose::History => 0,
        Purpose::TurnPrefix => 1,
    };
    let mut counts = [0, 0];
    for &purpose in purposes {
        counts[part(purpose)] += 1;
    }
    let mut seen = [0, 0];
    w.open("", true);
    for (k, &purpose) in purposes.iter().enumerate() {
        let (index, count) = (seen[part(purpose)], counts[part(purpose)]);
        seen[part(purpose)] += 1;
        w.open("", false);
        w.text("purpose", purpose.as_str());
        w.slot("systemPrompt", 0);
        w.slot("prompt", 1 + k);
        // Only a chunked part's prompts have the key.
        if count > 1 {
            chunk(w, "chunk", Chunk { index, count });
        }
        w.close();
    }
    w.close();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::ToolChoice;

    /// A [`Sink`] writing a compact text of the output.
    #[derive(Default)]
    struct Text(String);

    impl Text {
        fn put(&mut self, key: &str, value: &str) {
            if !self.0.is_empty() && !self.0.ends_with(['{', '[']) {
                self.0.push(',');
            }
            if !key.is_empty() {
                self.0.push_str(key);
                self.0.push(':');
            }
            self.0.push_str(value);
        }
    }

    impl Sink for Text {
        fn null(&mut self, key: &'static str) {
            self.put(key, "null");
        }
        fn bool(&mut self, key: &'static str, value: bool) {
            self.put(key, &value.to_string());
        }
        fn number(&mut self, key: &'static str, value: f64) {
            self.put(key, &value.to_string());
        }
        fn text(&mut self, key: &'static str, value: &str) {
            self.put(key, &format!("{value:?}"));
        }
        fn slot(&mut self, key: &'static str, k: usize) {
            self.put(key, &format!("${k}"));
        }
        fn open(&mut self, key: &'static str, list: bool) {
            self.put(key, if list { "[" } else { "{" });
        }
        fn close(&mut self) {
            // The innermost unclosed bracket decides the closing one.
            let mut depth = Vec::new();
            for c in self.0.chars() {
                match c {
                    '{' | '[' => depth.push(c),
                    '}' | ']' => {
                        depth.pop();
                    }
                    _ => {}
                }
            }
            self.0
                .push(if depth.last() == Some(&'[') { ']' } else { '}' });
        }
    }

    fn written(write: impl FnOnce(&mut Text)) -> String {
        let mut text = Text::default();
        write(&mut text);
        text.0
    }

    #[test]
    fn a_generate_request_holds_every_key() {
        let mut request = GenerateRequest {
            model: "m".into(),
            system_prompt: "s".into(),
            prompt: "p".into(),
            max_output_tokens: None,
            tools: Vec::new(),
            tool_choice: ToolChoice::None,
            purpose: Purpose::History,
            chunk: None,
        };
        assert_eq!(
            written(|w| generate_request(w, &request)),
            "{model:\"m\",systemPrompt:\"s\",messages:[{role:\"user\",content:$0}],\
             maxOutputTokens:$1,tools:[],toolChoice:\"none\",purpose:\"history\",chunk:$1}"
        );
        request.max_output_tokens = Some(9);
        request.chunk = Some(Chunk { index: 1, count: 2 });
        let text = written(|w| generate_request(w, &request));
        assert!(text.contains("maxOutputTokens:9,"), "{text}");
        assert!(text.ends_with("chunk:{index:1,count:2}}"), "{text}");
    }

    #[test]
    fn prompts_are_numbered_within_a_chunked_part() {
        let purposes = [Purpose::History, Purpose::History, Purpose::TurnPrefix];
        assert_eq!(
            written(|w| prompts(w, &purposes)),
            "[{purpose:\"history\",systemPrompt:$0,prompt:$1,chunk:{index:0,count:2}},\
             {purpose:\"history\",systemPrompt:$0,prompt:$2,chunk:{index:1,count:2}},\
             {purpose:\"turnPrefix\",systemPrompt:$0,prompt:$3}]"
        );
    }
}

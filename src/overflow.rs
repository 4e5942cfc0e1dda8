//! Recognising a provider's "the request exceeds the context window" rejection.

use crate::search::find;

/// Whether an error with this message (and optional HTTP status or error code) says that the
/// request was larger than the model's context window. HTTP 413 always does; 429 (rate limits,
/// including "tokens per minute") never does.
pub fn is_context_overflow(message: &str, status: Option<u16>, code: Option<&str>) -> bool {
    if status == Some(429) {
        return false;
    }
    if status == Some(413) || code == Some("context_length_exceeded") {
        return true;
    }
    let text = message.to_ascii_lowercase();
    let has = |needle: &str| find(&text, needle).is_some();
    let has_in_order = |first: &str, then: &str| {
        find(&text, first).is_some_and(|at| find(&text[at + first.len()..], then).is_some())
    };
    has("prompt is too long") // Anthropic
        || has("exceeds the context window") // OpenAI
        || has("context_length_exceeded") // OpenAI error code inside a message
        || has_in_order("input token count", "exceeds the maximum") // Google
        || has("maximum prompt length is") // xAI
        || has("reduce the length of the messages") // Groq
        || has_in_order("maximum context length is", "tokens") // OpenRouter
        || has_in_order("too large for model with", "maximum context length") // Mistral
        || has("input is too long for requested model") // Amazon Bedrock
        || has("exceeds the available context size") // llama.cpp
        || has("greater than the context length") // LM Studio
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_documented_messages() {
        let overflows = [
            "prompt is too long: 213462 tokens > 200000 maximum",
            "Your input exceeds the context window of this model. Please adjust your input and try again.",
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens (context_length_exceeded)",
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
            "Please reduce the length of the messages or completion.",
            "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens",
            "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
            "Input is too long for requested model.",
            "the request exceeds the available context size, try increasing it",
            "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of 4096. The number of tokens to keep is greater than the context length.",
        ];
        for message in overflows {
            assert!(is_context_overflow(message, None, None), "{message}");
        }
        assert!(is_context_overflow(
            "Request Entity Too Large",
            Some(413),
            None
        ));
        assert!(is_context_overflow(
            "bad request",
            Some(400),
            Some("context_length_exceeded")
        ));
    }

    #[test]
    fn other_errors_are_not_overflow() {
        for message in [
            "rate limit exceeded",
            "invalid api key",
            "internal server error",
            "maximum context length",
        ] {
            assert!(!is_context_overflow(message, Some(400), None), "{message}");
        }
        assert!(!is_context_overflow("prompt is too long", Some(429), None));
        assert!(!is_context_overflow(
            "Rate limit reached for tokens per min",
            Some(429),
            None
        ));
    }
}

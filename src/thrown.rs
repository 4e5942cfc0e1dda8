//! What a host's thrown value (or rejection) says about itself, and the rules read from it:
//! how a failed model call is classified for retries ([`Thrown::failure_kind`]) and whether a
//! provider error says the request overflowed the context window
//! ([`Thrown::is_context_overflow`]). A binding fills in the fields; it decides nothing.

use crate::error::{BoxError, Error};
use crate::overflow::is_context_overflow;
use crate::retry::FailureKind;

/// The fields of a thrown value, as read (a getter that throws reads as absent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thrown {
    /// Whether it is an object (a thrown string or number has no fields).
    pub object: bool,
    /// Its `name` (`"AbortError"`, `"TypeError"`, …).
    pub name: Option<String>,
    /// Its `retryable`, else its `isRetryable` (the AI SDK's `APICallError` says true for a
    /// request that never got an answer, which has no status to go by).
    pub retryable: Option<bool>,
    /// The first of its `status`, `statusCode` and `response.status` that is a number.
    pub status: Option<f64>,
    /// Its `code`, else its provider body's (`error.code`).
    pub code: Option<String>,
    /// What it says: its message (or the text thrown), its provider body's (`error`), and
    /// that body's `message`.
    pub messages: Vec<String>,
}

impl Thrown {
    /// The HTTP status it carries: a whole number from 100 to 999.
    pub fn http_status(&self) -> Option<u16> {
        self.status
            .filter(|s| s.fract() == 0.0 && (100.0..1000.0).contains(s))
            .map(|s| s as u16)
    }

    /// How a model call that threw this failed, for the retry rules (`crate::retry`);
    /// `aborted` when the caller's signal has fired.
    pub fn failure_kind(&self, aborted: bool) -> FailureKind {
        if aborted {
            return FailureKind::Cancelled;
        }
        if !self.object {
            return FailureKind::Unknown;
        }
        let name = self.name.as_deref().unwrap_or_default();
        match name {
            "AbortError" => return FailureKind::Cancelled,
            "TimeoutError" => return FailureKind::Deadline,
            _ => {}
        }
        match self.retryable {
            Some(true) => return FailureKind::Stream,
            Some(false) => return FailureKind::Unknown,
            None => {}
        }
        if let Some(status) = self.http_status() {
            return FailureKind::Http(status);
        }
        match name {
            "StreamError" => FailureKind::Stream,
            // What `fetch` rejects with when the request never got an answer.
            "TypeError" => FailureKind::Transport,
            _ => FailureKind::Unknown,
        }
    }

    /// Whether it says the request exceeded the context window ([`is_context_overflow`] over
    /// its messages, status and code).
    pub fn is_context_overflow(&self) -> bool {
        let message = self.messages.join("\n");
        is_context_overflow(&message, self.http_status(), self.code.as_deref())
    }
}

/// A host callback whose throw (or rejection) fails the compaction it was called for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callback {
    /// The application summarizer's `summarize`.
    Summarize,
    /// `beforeCommit`.
    BeforeCommit,
}

impl Callback {
    /// The error a throw of this callback (classified `kind`, described as `message`, the
    /// thrown value in `source`) fails the compaction with: `aborted` when it was cancelled,
    /// else a failed summary, or a declined commit.
    pub fn failed(self, kind: FailureKind, message: String, source: BoxError) -> Error {
        let source = Some(source);
        match (self, kind == FailureKind::Cancelled) {
            (Callback::Summarize, true) => Error::Cancelled {
                message: text!("the summarizer was cancelled: ", message),
                source,
            },
            (Callback::Summarize, false) => Error::Summarization {
                message: text!("the summarizer failed: ", message),
                source,
            },
            (Callback::BeforeCommit, true) => Error::Cancelled {
                message: text!("beforeCommit was cancelled: ", message),
                source,
            },
            (Callback::BeforeCommit, false) => Error::Declined {
                message: text!("beforeCommit threw: ", message),
                source,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callback_that_throws_fails_by_what_it_is_and_whether_it_was_cancelled() {
        let failed = |callback: Callback, kind| {
            let source: BoxError = "thrown".into();
            let error = callback.failed(kind, "boom".to_owned(), source);
            (error.code(), error.to_string())
        };
        let (code, text) = failed(Callback::Summarize, FailureKind::Transport);
        assert_eq!(code, "summarization");
        assert!(text.ends_with("the summarizer failed: boom"), "{text}");
        let (code, text) = failed(Callback::Summarize, FailureKind::Cancelled);
        assert_eq!(code, "aborted");
        assert!(
            text.ends_with("the summarizer was cancelled: boom"),
            "{text}"
        );
        let (code, text) = failed(Callback::BeforeCommit, FailureKind::Http(400));
        assert_eq!(code, "declined");
        assert!(text.ends_with("beforeCommit threw: boom"), "{text}");
        let (code, text) = failed(Callback::BeforeCommit, FailureKind::Cancelled);
        assert_eq!(code, "aborted");
        assert!(text.ends_with("beforeCommit was cancelled: boom"), "{text}");
        let error = Callback::Summarize.failed(FailureKind::Transport, String::new(), "x".into());
        assert!(std::error::Error::source(&error).is_some());
    }

    fn object(name: &str) -> Thrown {
        Thrown {
            object: true,
            name: Some(name.to_owned()),
            ..Thrown::default()
        }
    }

    #[test]
    fn a_status_is_a_whole_number_from_100_to_999() {
        let with = |status| Thrown {
            status: Some(status),
            ..object("Error")
        };
        assert_eq!(with(503.0).http_status(), Some(503));
        for bad in [99.0, 1000.0, 500.5, f64::NAN, -1.0] {
            assert_eq!(with(bad).http_status(), None, "{bad}");
        }
    }

    #[test]
    fn classifies_by_signal_then_name_then_retryable_then_status() {
        assert_eq!(object("Error").failure_kind(true), FailureKind::Cancelled);
        assert_eq!(Thrown::default().failure_kind(false), FailureKind::Unknown);
        assert_eq!(
            object("AbortError").failure_kind(false),
            FailureKind::Cancelled
        );
        assert_eq!(
            object("TimeoutError").failure_kind(false),
            FailureKind::Deadline
        );
        let status = |retryable| Thrown {
            retryable,
            status: Some(500.0),
            ..object("TypeError")
        };
        assert_eq!(status(Some(true)).failure_kind(false), FailureKind::Stream);
        assert_eq!(
            status(Some(false)).failure_kind(false),
            FailureKind::Unknown
        );
        assert_eq!(status(None).failure_kind(false), FailureKind::Http(500));
        assert_eq!(
            object("StreamError").failure_kind(false),
            FailureKind::Stream
        );
        assert_eq!(
            object("TypeError").failure_kind(false),
            FailureKind::Transport
        );
        assert_eq!(object("Error").failure_kind(false), FailureKind::Unknown);
    }

    #[test]
    fn overflow_reads_every_message_the_status_and_the_code() {
        let said = |messages: &[&str]| Thrown {
            messages: messages.iter().map(|m| (*m).to_owned()).collect(),
            ..object("Error")
        };
        assert!(said(&["Bad Request", "prompt is too long: 9 tokens"]).is_context_overflow());
        assert!(!said(&["Bad Request", "invalid tool"]).is_context_overflow());
        let too_large = Thrown {
            status: Some(413.0),
            ..said(&["Request Entity Too Large"])
        };
        assert!(too_large.is_context_overflow());
        let coded = Thrown {
            code: Some("context_length_exceeded".to_owned()),
            ..said(&[""])
        };
        assert!(coded.is_context_overflow());
        // A rate limit never is, whatever it says.
        let limited = Thrown {
            status: Some(429.0),
            ..said(&["prompt is too long"])
        };
        assert!(!limited.is_context_overflow());
    }
}

//! Retrying model calls: which failures are worth another attempt, and the wait between them.

use std::time::Duration;

use crate::error::BoxError;
use crate::summarizer::LocalFuture;

/// The default waits before the first and second retry.
pub const DEFAULT_DELAYS: [Duration; 2] = [Duration::from_secs(2), Duration::from_secs(4)];

/// What kind of failure a model call ended in; decides whether it is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The request never got an answer (connection refused, reset, DNS). Retried.
    Transport,
    /// A streamed response broke off. Retried.
    Stream,
    /// The provider answered with this HTTP status. 408, 409, 429 and 5xx are retried.
    Http(u16),
    /// The caller cancelled. Not retried; apply reports [`crate::Error::Cancelled`].
    Cancelled,
    /// A deadline passed. Not retried.
    Deadline,
    /// The provider rejected the request as larger than its context window. Not retried.
    ContextWindow,
    /// The provider filtered the content. Not retried.
    ContentFiltered,
    /// The request was invalid. Not retried.
    InvalidRequest,
    /// The response could not be understood. Not retried.
    InvalidResponse,
    /// The provider broke its protocol. Not retried.
    Protocol,
    /// Anything else. Not retried.
    Unknown,
}

impl FailureKind {
    /// Whether another attempt may succeed.
    pub fn is_retryable(self) -> bool {
        match self {
            FailureKind::Transport | FailureKind::Stream => true,
            FailureKind::Http(status) => matches!(status, 408 | 409 | 429 | 500..=599),
            _ => false,
        }
    }
}

/// A failed model call.
#[cfg_attr(not(target_arch = "wasm32"), derive(Debug))]
pub struct GenerateError {
    /// How it failed.
    pub kind: FailureKind,
    /// A description for people.
    pub message: String,
    /// The host's own error.
    pub source: Option<BoxError>,
}

// Its words are its message, in `Display` and in the crate's messages (`crate::text`), where
// `core::fmt` stays out of the wasm module.
impl std::fmt::Display for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl crate::text::Piece for GenerateError {
    fn push_to(&self, text: &mut String) {
        text.push_str(&self.message);
    }
}

impl std::error::Error for GenerateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref()
    }
}

// In the wasm module, `Debug` (which a `dyn Error` keeps) shows the message as it is: nothing
// there prints it, and a derived one escapes the message (`{:?}` of a `String`), which brought
// char escaping and its Unicode tables (3.4 KB gzip with `src/wasm/error.rs`'s `Failure`) and
// the struct and enum formatters into the module.
#[cfg(target_arch = "wasm32")]
impl std::fmt::Debug for GenerateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GenerateError(")?;
        f.write_str(&self.message)?;
        f.write_str(")")
    }
}

impl GenerateError {
    /// A failure of `kind` without a host error behind it.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        GenerateError {
            kind,
            message: message.into(),
            source: None,
        }
    }
}

/// Waits between attempts. `Context` carries the caller's cancellation (the wasm layer's
/// `AbortSignal`); a cancelled wait ends at once with the cancellation's error.
pub trait Sleeper {
    /// The per-call context.
    type Context: ?Sized;

    /// Waits `delay`, or fails as soon as the context is cancelled.
    fn sleep<'a>(
        &'a self,
        delay: Duration,
        context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<(), GenerateError>>;
}

/// How many times a summary call is retried and how long to wait before each retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// One wait per retry: `[2 s, 4 s]` makes up to three attempts.
    pub delays: Vec<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            delays: DEFAULT_DELAYS.to_vec(),
        }
    }
}

/// The longest wait before a retry, in milliseconds: timers clamp longer delays (2^31 ms and
/// more fire after 1 ms in Node).
pub const MAX_DELAY_MS: u64 = (1 << 31) - 1;

impl RetryPolicy {
    /// One configured wait (at `path`), in milliseconds: a whole number up to
    /// [`MAX_DELAY_MS`].
    pub fn delay(ms: f64, path: &str) -> std::result::Result<Duration, String> {
        let ms = crate::error::whole_number(ms, path)?;
        if ms > MAX_DELAY_MS {
            return Err(text!(
                path,
                " must be at most ",
                MAX_DELAY_MS,
                " (2^31-1 ms, the longest timer), got ",
                ms
            ));
        }
        Ok(Duration::from_millis(ms))
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries are used up. Returns the
    /// last error and the number of attempts made.
    pub async fn run<T, S, F>(
        &self,
        sleeper: &S,
        context: &S::Context,
        mut attempt: F,
    ) -> Result<T, (GenerateError, usize)>
    where
        S: Sleeper + ?Sized,
        F: AsyncFnMut() -> Result<T, GenerateError>,
    {
        let mut attempts = 0;
        let mut delays = self.delays.iter();
        loop {
            attempts += 1;
            let error = match attempt().await {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            if !error.kind.is_retryable() {
                return Err((error, attempts));
            }
            let Some(delay) = delays.next() else {
                return Err((error, attempts));
            };
            sleeper
                .sleep(*delay, context)
                .await
                .map_err(|cancelled| (cancelled, attempts))?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_delay_is_whole_milliseconds_up_to_the_longest_timer() {
        assert_eq!(
            RetryPolicy::delay(250.0, "d"),
            Ok(Duration::from_millis(250))
        );
        assert_eq!(
            RetryPolicy::delay(MAX_DELAY_MS as f64, "d").map(|d| d.as_millis()),
            Ok(MAX_DELAY_MS as u128)
        );
        let over = RetryPolicy::delay(MAX_DELAY_MS as f64 + 1.0, "d").unwrap_err();
        assert!(over.starts_with("d must be at most 2147483647"), "{over}");
        for bad in [-1.0, 1.5, f64::NAN] {
            assert!(RetryPolicy::delay(bad, "d").is_err(), "{bad}");
        }
    }

    #[test]
    fn retryable_kinds() {
        for kind in [
            FailureKind::Transport,
            FailureKind::Stream,
            FailureKind::Http(408),
            FailureKind::Http(409),
            FailureKind::Http(429),
            FailureKind::Http(500),
            FailureKind::Http(503),
            FailureKind::Http(599),
        ] {
            assert!(kind.is_retryable(), "{kind:?}");
        }
        for kind in [
            FailureKind::Http(400),
            FailureKind::Http(401),
            FailureKind::Http(404),
            FailureKind::Http(413),
            FailureKind::Http(600),
            FailureKind::Cancelled,
            FailureKind::Deadline,
            FailureKind::ContextWindow,
            FailureKind::ContentFiltered,
            FailureKind::InvalidRequest,
            FailureKind::InvalidResponse,
            FailureKind::Protocol,
            FailureKind::Unknown,
        ] {
            assert!(!kind.is_retryable(), "{kind:?}");
        }
    }
}

//! The one error type of the crate, with a stable machine code per variant.

use std::error::Error as StdError;

/// A boxed error from a host callback (summarizer, generator, estimator), kept so that the
/// caller can reach the original value through [`std::error::Error::source`].
pub type BoxError = Box<dyn StdError + 'static>;

/// Everything that can go wrong while configuring, planning or applying a compaction.
///
/// A failed operation never returns replacement state: on `Err` the caller's conversation is
/// exactly as it was.
#[derive(Debug)]
pub enum Error {
    /// [`crate::Compactor::new`] rejected the configuration.
    InvalidConfig {
        /// What is wrong and where.
        message: String,
        /// The host error behind it, when reading the config threw.
        source: Option<BoxError>,
    },
    /// The request, one of its messages, or the plan given to apply was invalid. The message names
    /// the place, e.g. `messages[12].content[3].type: unknown block type "foo"`.
    InvalidRequest {
        /// What is wrong and where.
        message: String,
        /// The host error behind it, when an estimator callback failed.
        source: Option<BoxError>,
    },
    /// A summarizer failed (or panicked); `source` is its own error.
    Summarization {
        /// A description of the failure.
        message: String,
        /// The summarizer's or generator's own error.
        source: Option<BoxError>,
    },
    /// The summary was empty after trimming and file-list removal.
    EmptySummary,
    /// No removable prefix exists, or the required strict reduction did not happen.
    NoReduction(String),
    /// What no summary can remove (the messages kept after the cut, the system prompt and
    /// tools) is above the budget by itself: a summary would cost a model call and still not
    /// fit. The message names the largest kept message, its tokens and the budget.
    TooLarge(String),
    /// A draft was committed onto a request it does not cover: the summary it replaced is not
    /// the request's, or a message it summarizes changed (see [`crate::Draft::check_covers`]).
    Stale(String),
    /// The host's review (`beforeCommit`) declined the summary, or failed: nothing was applied.
    Declined {
        /// Why: declined, or what the review threw.
        message: String,
        /// What the review threw, when it threw.
        source: Option<BoxError>,
    },
    /// The operation was cancelled by the caller (an aborted signal).
    Cancelled {
        /// Where the cancellation was noticed.
        message: String,
        /// The host's own abort reason, when there is one.
        source: Option<BoxError>,
    },
}

impl Error {
    /// The stable machine code the JavaScript layer exposes as `CompactionError.code`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidConfig { .. } => "invalid_config",
            Error::InvalidRequest { .. } => "invalid_request",
            Error::Summarization { .. } => "summarization",
            Error::EmptySummary => "empty_summary",
            Error::NoReduction(_) => "no_reduction",
            Error::TooLarge(_) => "too_large",
            Error::Stale(_) => "stale",
            Error::Declined { .. } => "declined",
            Error::Cancelled { .. } => "aborted",
        }
    }

    /// An [`Error::InvalidConfig`] without a host error behind it.
    pub fn invalid_config(message: impl Into<String>) -> Self {
        Error::InvalidConfig {
            message: message.into(),
            source: None,
        }
    }

    /// The same error as [`Error::InvalidConfig`] (a request error met while reading a config).
    pub fn into_config(self) -> Self {
        match self {
            Error::InvalidRequest { message, source } => Error::InvalidConfig { message, source },
            other => other,
        }
    }

    /// An [`Error::InvalidRequest`] without a host error behind it.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Error::InvalidRequest {
            message: message.into(),
            source: None,
        }
    }
}

impl Error {
    /// The words of [`Display`](std::fmt::Display) before the message: the kind of error.
    fn words(&self) -> (&'static str, &str) {
        match self {
            Error::InvalidConfig { message, .. } => ("invalid config: ", message),
            Error::InvalidRequest { message, .. } => ("invalid request: ", message),
            Error::Summarization { message, .. } => ("summarization failed: ", message),
            Error::EmptySummary => (
                "the summary was empty after trimming and removing file lists",
                "",
            ),
            Error::NoReduction(message) => ("no reduction: ", message),
            Error::TooLarge(message) => ("too large: ", message),
            Error::Stale(message) => ("stale draft: ", message),
            Error::Declined { message, .. } => ("declined: ", message),
            Error::Cancelled { message, .. } => ("cancelled: ", message),
        }
    }
}

// The one wording of an error: `Display` and the messages the wasm module builds (which leave
// `core::fmt` out, `crate::text`) both come from here.
impl crate::text::Piece for Error {
    fn push_to(&self, text: &mut String) {
        let (kind, message) = self.words();
        text.push_str(kind);
        text.push_str(message);
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&text!(self))
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Error::InvalidConfig { source, .. }
            | Error::InvalidRequest { source, .. }
            | Error::Summarization { source, .. }
            | Error::Declined { source, .. }
            | Error::Cancelled { source, .. } => source.as_deref(),
            Error::EmptySummary | Error::NoReduction(_) | Error::TooLarge(_) | Error::Stale(_) => {
                None
            }
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Checks that a number coming from JavaScript is a whole, non-negative, safe integer, so that
/// `-1`, `NaN`, `1.5` and `1e300` are rejected with a message naming `field`.
pub fn whole_number(value: f64, field: &str) -> std::result::Result<u64, String> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    if !value.is_finite() || value < 0.0 || value.fract() != 0.0 || value > MAX_SAFE {
        return Err(text!(
            field,
            " must be a whole number between 0 and 2^53-1, got ",
            show_number(value)
        ));
    }
    Ok(value as u64)
}

/// A number as an error message shows it: whole numbers exactly, others to nine decimals.
/// (Written out so that float formatting, about 15 KB of wasm, stays out of the build.)
pub(crate) fn show_number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    let sign = if value < 0.0 { "-" } else { "" };
    let abs = value.abs();
    if abs.is_infinite() {
        return text!(sign, "Infinity");
    }
    if abs >= 1e18 {
        return text!(sign, "10^18 or more");
    }
    let mut whole = abs.trunc() as u64;
    let mut ninths = ((abs - abs.trunc()) * 1e9).round() as u64;
    if ninths >= 1_000_000_000 {
        whole += 1;
        ninths = 0;
    }
    if ninths == 0 {
        return text!(sign, whole);
    }
    // The nine decimals with their leading zeros (what `{:09}` writes: one more digit, left
    // out), less the trailing ones.
    let decimals = text!(ninths + 1_000_000_000);
    let decimals = decimals.get(1..).unwrap_or_default();
    text!(sign, whole, ".", decimals.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable() {
        assert_eq!(
            Error::invalid_config(String::new()).code(),
            "invalid_config"
        );
        assert_eq!(Error::invalid_request("x").code(), "invalid_request");
        let summarization = Error::Summarization {
            message: String::new(),
            source: None,
        };
        assert_eq!(summarization.code(), "summarization");
        assert_eq!(Error::EmptySummary.code(), "empty_summary");
        assert_eq!(Error::NoReduction(String::new()).code(), "no_reduction");
        assert_eq!(Error::Stale(String::new()).code(), "stale");
        let declined = Error::Declined {
            message: String::new(),
            source: None,
        };
        assert_eq!(declined.code(), "declined");
        let cancelled = Error::Cancelled {
            message: String::new(),
            source: None,
        };
        assert_eq!(cancelled.code(), "aborted");
    }

    #[test]
    fn numbers_in_messages() {
        assert_eq!(show_number(2000.0), "2000");
        assert_eq!(show_number(1.5), "1.5");
        assert_eq!(show_number(-0.25), "-0.25");
        assert_eq!(show_number(0.1), "0.1");
        // Decimals keep their leading zeros.
        assert_eq!(show_number(0.05), "0.05");
        assert_eq!(show_number(-1.000000001), "-1.000000001");
        assert_eq!(show_number(2.9999999999), "3");
        assert_eq!(show_number(f64::NAN), "NaN");
        assert_eq!(show_number(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(show_number(1e300), "10^18 or more");
    }

    #[test]
    fn whole_numbers() {
        assert_eq!(whole_number(0.0, "x"), Ok(0));
        assert_eq!(whole_number(2000.0, "x"), Ok(2000));
        for bad in [-1.0, f64::NAN, 1.5, f64::INFINITY, 1e300] {
            let err = whole_number(bad, "keepRecentTokens").unwrap_err();
            assert!(err.starts_with("keepRecentTokens"), "{err}");
        }
    }
}

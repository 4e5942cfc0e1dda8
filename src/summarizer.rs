//! The summarizer seam: what apply asks for and what it gets back.

use std::future::Future;
#[cfg(panic = "unwind")]
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
#[cfg(panic = "unwind")]
use std::task::{Context, Poll};

use crate::draft::{Draft, Verdict};
use crate::error::Result;
use crate::message::Message;
use crate::token::Estimator;

/// A boxed, local (not `Send`) future: the crate has no async runtime and hosts such as a
/// browser drive it on one thread.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

pub use crate::usage::Usage;

/// What a summarizer is asked to summarize.
#[derive(Clone, Copy)]
pub struct SummarizeRequest<'a> {
    /// The summary being replaced ("" when there is none).
    pub previous_summary: &'a str,
    /// The complete history before the cut (or before the split turn's start).
    pub messages: &'a [Message],
    /// The beginning of a split turn (empty when the cut is at a turn start).
    pub turn_prefix_messages: &'a [Message],
    /// The request's estimator: the generator summarizer counts the turn prefix with it, and
    /// quotes a small one instead of summarizing it.
    pub estimator: &'a dyn Estimator,
    /// What the host asked this summary to focus on (`None`: nothing in particular); the
    /// generator summarizer adds it to the history prompt.
    pub focus: Option<&'a str>,
}

impl std::fmt::Debug for SummarizeRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SummarizeRequest")
            .field("previous_summary", &self.previous_summary)
            .field("messages", &self.messages)
            .field("turn_prefix_messages", &self.turn_prefix_messages)
            .field("focus", &self.focus)
            .finish_non_exhaustive()
    }
}

/// A summarizer's answer, before the library's post-processing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SummaryText {
    /// The summary text.
    pub text: String,
    /// Usage of the model calls behind it, if known.
    pub usage: Option<Usage>,
}

/// Turns the selected messages into summary text.
///
/// `Context` is what each call carries to the host (in the wasm layer: the caller's
/// `AbortSignal`). Apply passes it on and does not check cancellation itself.
pub trait Summarizer {
    /// The per-call context handed to the summarizer.
    type Context: ?Sized;

    /// Summarizes `request`. Errors are returned as they are (a host failure should be
    /// [`Error::Summarization`], a cancellation [`Error::Cancelled`]).
    ///
    /// [`Error::Summarization`]: crate::error::Error::Summarization
    /// [`Error::Cancelled`]: crate::error::Error::Cancelled
    fn summarize<'a>(
        &'a self,
        request: SummarizeRequest<'a>,
        context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<SummaryText>>;

    /// Checks the summarizer's own configuration when the compactor is created.
    fn validate(&self) -> std::result::Result<(), String> {
        Ok(())
    }

    /// The host's say before a summary is committed (`beforeCommit` in JavaScript): called
    /// once per summary made, after the summary was post-processed and before it is applied
    /// or handed back as a draft. Keeps it by default.
    fn review<'a>(
        &'a self,
        _draft: &'a Draft,
        _context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<Verdict>> {
        Box::pin(std::future::ready(Ok(Verdict::Keep)))
    }
}

/// Polls `future`, turning a panic inside it into a summarization error. Where a panic aborts
/// (the WebAssembly module: a trap JavaScript sees), there is none to catch, and `future` is
/// polled as it is (one poll function less per kind of summarizer call).
pub(crate) fn catch_panics<'a, T: 'a>(
    future: LocalFuture<'a, Result<T>>,
) -> LocalFuture<'a, Result<T>> {
    #[cfg(panic = "unwind")]
    return Box::pin(CatchPanic { inner: future });
    #[cfg(not(panic = "unwind"))]
    future
}

#[cfg(panic = "unwind")]
struct CatchPanic<'a, T> {
    inner: LocalFuture<'a, Result<T>>,
}

#[cfg(panic = "unwind")]
impl<T> Future for CatchPanic<'_, T> {
    type Output = Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.inner;
        match catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_owned());
                Poll::Ready(Err(crate::error::Error::Summarization {
                    message: text!("the summarizer panicked: ", what),
                    source: None,
                }))
            }
        }
    }
}

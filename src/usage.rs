//! Token usage of the model calls behind a summary, as a summarizer reports it.

/// Token usage a summarizer reports for its model calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from a cache.
    pub cache_read: u64,
    /// Input tokens written to a cache.
    pub cache_write: u64,
    /// All tokens.
    pub total_tokens: u64,
}

impl Usage {
    /// The sum of two usages (a split turn's two summary calls).
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            input: self.input + other.input,
            output: self.output + other.output,
            cache_read: self.cache_read + other.cache_read,
            cache_write: self.cache_write + other.cache_write,
            total_tokens: self.total_tokens + other.total_tokens,
        }
    }

    /// Adds optional usages: present when either is.
    pub fn combine(a: Option<Usage>, b: Option<Usage>) -> Option<Usage> {
        match (a, b) {
            (Some(a), Some(b)) => Some(a.plus(b)),
            (a, b) => a.or(b),
        }
    }
}

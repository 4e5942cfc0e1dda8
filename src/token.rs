//! Token estimation: the [`Estimator`] trait and the default, dependency-free [`Heuristic`].
//!
//! The estimate is a planning aid, not a provider contract: it decides when to compact and
//! where to cut, and the provider still decides whether a request fits.

use crate::error::BoxError;
pub(crate) use context_compaction_scan::score;

/// Tokens an image counts unless configured otherwise.
pub const DEFAULT_IMAGE_TOKENS: u64 = 1_200;

/// Tokens of framing around each message, tool call and tool definition (role markers,
/// separators), on top of the tokens of their text.
pub const DEFAULT_FRAMING_TOKENS: u64 = 4;

/// Counts the tokens of a text. Implement it to plug in a real tokenizer.
pub trait Estimator {
    /// The number of tokens `text` encodes to. A failure makes planning fail with
    /// `invalid_request`, carrying this error as its source.
    fn count_tokens(&self, text: &str) -> Result<u64, BoxError>;

    /// Tokens counted for one image.
    fn image_tokens(&self) -> u64 {
        DEFAULT_IMAGE_TOKENS
    }

    /// Tokens of framing counted once per message, tool call and tool definition.
    fn framing_tokens(&self) -> u64 {
        DEFAULT_FRAMING_TOKENS
    }

    /// The [`Heuristic`] this estimator counts with, if it is one: then facts can be taken
    /// straight from JSON bytes, strings counted in place.
    fn as_heuristic(&self) -> Option<Heuristic> {
        None
    }
}

/// A count a host's tokenizer returned, as the estimate takes it: fractions are rounded up and
/// counts beyond 2^53 (not meaningful) capped; `None` for a count that is not a finite,
/// non-negative number.
pub fn host_count(count: f64) -> Option<u64> {
    (count.is_finite() && count >= 0.0).then(|| count.ceil().min(9_007_199_254_740_991.0) as u64)
}

/// The default estimator: a single pass over the bytes that scores words, mixed case, digit
/// runs, punctuation, line breaks, indentation and characters beyond ASCII (by their UTF-8
/// length). Calibrated against the o200k tokenizer on a real agent session, where plain
/// `chars / 4` undercounts tool-call arguments and shell output, and on multilingual text,
/// emoji, base64 and numbers (see `bench/README.md`; the rules: `docs/behaviour.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heuristic {
    /// Tokens counted for one image.
    pub image_tokens: u64,
}

impl Heuristic {
    /// The heuristic with the default image cost.
    pub const fn new() -> Self {
        Heuristic {
            image_tokens: DEFAULT_IMAGE_TOKENS,
        }
    }

    /// The estimated tokens of `text`; never fails, deterministic.
    pub fn count(&self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        rounded(score(text.as_bytes()))
    }
}

impl Default for Heuristic {
    fn default() -> Self {
        Heuristic::new()
    }
}

impl Estimator for Heuristic {
    fn count_tokens(&self, text: &str) -> Result<u64, BoxError> {
        Ok(self.count(text))
    }

    fn image_tokens(&self) -> u64 {
        self.image_tokens
    }

    fn as_heuristic(&self) -> Option<Heuristic> {
        Some(*self)
    }
}

/// Tokens of a non-empty text from its score: scores are in hundredths of a token so the whole
/// pass is integer arithmetic; any text costs at least one.
pub(crate) fn rounded(score: u64) -> u64 {
    (score + 50).div_euclid(100).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_count_is_rounded_up_and_capped() {
        assert_eq!(host_count(3.0), Some(3));
        assert_eq!(host_count(2.1), Some(3));
        assert_eq!(host_count(0.0), Some(0));
        assert_eq!(host_count(1e300), Some(9_007_199_254_740_991));
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(host_count(bad), None, "{bad}");
        }
    }

    #[test]
    fn empty_text_is_free_and_any_text_costs_at_least_one() {
        let h = Heuristic::new();
        assert_eq!(h.count(""), 0);
        assert_eq!(h.count("a"), 1);
        assert_eq!(h.count(" "), 1);
    }

    #[test]
    fn scores_words_digits_and_symbols() {
        let h = Heuristic::new();
        assert_eq!(h.count("hello world"), 2);
        // camelCase splits: get, Element, By, Id
        assert_eq!(h.count("getElementById"), 4);
        // 1234567 → a digit run (0.61) of three groups (1 each)
        assert_eq!(h.count("1234567"), 4);
        // five symbols (2.0) + a word (1) + a digit run of one group (1.61) = 4.61
        assert_eq!(h.count("{\"a\":1}"), 5);
        assert_eq!(h.count("日本語"), 3);
        assert_eq!(h.count("a\n\n    b"), 5);
    }

    #[test]
    fn characters_beyond_ascii_count_by_their_utf8_length() {
        let h = Heuristic::new();
        // Three-byte characters (CJK, kana, Hangul) 0.86 each: 8 → 6.88, not one each
        // (o200k: 5).
        assert_eq!(h.count("日本語の文章です"), 7);
        assert_eq!(h.count("한국어로 된 문장입니다"), 9);
        // Four-byte characters (emoji) 2.37 each; a skin tone is a character of its own.
        assert_eq!(h.count("🚀"), 2);
        assert_eq!(h.count("👍🏽"), 5);
        // Two-byte characters join their neighbours: 0.26 each (o200k: 2, where it was 6).
        assert_eq!(h.count("Привет"), 2);
    }

    #[test]
    fn digit_runs_count_groups_of_three_and_the_space_before() {
        let h = Heuristic::new();
        // A 13-digit timestamp is five groups and a run (5.61; o200k: 5), not 7.5 as at 1.5 a
        // group.
        assert_eq!(h.count("1733312345678"), 6);
        // A space before a number does not join it (o200k: 6):
        // 1 + 0.63 + 1.61 + 1 + 0.63 + 1.61 = 6.48, where it was 5.
        assert_eq!(h.count("port 8 and 9"), 6);
    }

    #[test]
    fn random_case_counts_more_than_camel_case() {
        let h = Heuristic::new();
        // Four letters going capital, capital, small, capital (or capital, small, capital,
        // capital) add 2.51: two words (2) become 4.51.
        assert_eq!(h.count("ABcD"), 5);
        assert_eq!(h.count("AbCD"), 5);
        // A line of base64 (o200k: 49 tokens): 44, where it was 38.
        let line = "yFZf2eUVpPzZ5c367AWC3P+puH+yLyFbIIAAAggggAACCCCAAAIIIHB8ChDgSuN1J8CVRmwOhcAx";
        assert_eq!(h.count(line), 44);
        // Identifiers with two-letter humps do not go that way.
        assert_eq!(h.count("getElementById"), 4);
        assert_eq!(h.count("onClickIsOk"), 4);
    }

    #[test]
    fn is_deterministic_and_monotone_in_repetition() {
        let h = Heuristic::new();
        let text = "fn main() { println!(\"hi\"); }\n";
        assert_eq!(h.count(text), h.count(text));
        assert!(h.count(&text.repeat(10)) >= 9 * h.count(text));
    }

    #[test]
    fn image_cost_is_configurable() {
        assert_eq!(Heuristic::new().image_tokens(), 1_200);
        assert_eq!(Heuristic { image_tokens: 85 }.image_tokens(), 85);
    }
}

//! Trimming an oversized user message, as an option (`trimOversized`): a message larger than
//! what the window leaves it (a pasted document) would make every request fail with
//! `too_large`. With the option on, the middle of its largest text is cut out instead, as an
//! oversized tool result is trimmed (`crate::clearing::trim`): head and tail kept, a marker
//! saying how much was removed. The caller's objects are never changed: the rewritten message
//! is a copy.

use crate::clearing::MIN_TRIMMED_TOKENS;
use crate::clearing::trim_middle;
use crate::error::Result;
use crate::facts::{RequestFacts, estimator_failed};
use crate::message::{ContentBlock, Message, Role};
use crate::plan::Plan;
use crate::record::Record;
use crate::token::Estimator;

/// The user message to trim and the size to trim it to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversized {
    /// Its index.
    pub index: usize,
    /// Its estimated tokens (calibrated, as the facts are).
    pub tokens: u64,
    /// The tokens it is trimmed to.
    pub target: u64,
}

/// How much of the budget is left for a summary when a message is trimmed so that a
/// compaction fits (one eighth).
const SUMMARY_ROOM_SHARE: u64 = 8;

/// Room for the marker and the estimate's rounding.
const MARGIN: u64 = 64;

/// The user message that makes the request of `facts` not fit, and the size to trim it to:
/// the largest unpinned user message among those `plan` keeps (all of them without a plan),
/// trimmed so that the request comes to the trigger (`budget` × `trigger_ratio`) without a
/// compaction, or, when the rest of it is too large for that, so that what `plan` keeps fits
/// the budget with an eighth of it left for the summary. `None` when the estimate is not
/// above the trigger, or the message would have to go below [`MIN_TRIMMED_TOKENS`].
pub fn oversized(
    facts: &RequestFacts,
    plan: Option<&Plan>,
    budget: u64,
    trigger_ratio: f64,
) -> Option<Oversized> {
    let total = facts.total();
    let threshold = (budget as f64 * trigger_ratio) as u64;
    if total <= threshold {
        return None;
    }
    let from = plan.map_or(0, |p| p.first_kept_index);
    let user = |(_, f): &(usize, &crate::MessageFacts)| f.role == Role::User && !f.pinned();
    let candidates = facts.messages.iter().enumerate().skip(from).filter(user);
    let (index, message) = candidates.max_by_key(|(_, f)| f.tokens)?;
    let tokens = message.tokens;
    // Without a compaction: the rest of the request as it is.
    let alone = threshold.checked_sub(total - tokens);
    // After one: what the plan keeps besides it, and room for the summary.
    let compacted = plan.and_then(|p| {
        let rest = p.estimate_after_without_summary.saturating_sub(tokens);
        budget.checked_sub(rest + budget / SUMMARY_ROOM_SHARE)
    });
    let target = alone.max(compacted)?.saturating_sub(MARGIN);
    (MIN_TRIMMED_TOKENS..tokens)
        .contains(&target)
        .then_some(Oversized {
            index,
            tokens,
            target,
        })
}

/// The record of a trim of `over` in a request with `facts` and `summary`, the trimmed
/// message now estimated at `raw_tokens` (uncalibrated): the summary unchanged, nothing
/// summarized (`first_kept_index` 0), `trimmed`, the receipt naming the message rewritten
/// (in `cleared`, as a trim of a tool result does).
pub fn record(summary: &str, facts: &RequestFacts, over: &Oversized, raw_tokens: u64) -> Record {
    let before = facts.total();
    let now = facts.calibration.scale_message(raw_tokens, false);
    Record {
        summary: summary.to_owned(),
        first_kept_index: 0,
        first_kept_part: 0,
        estimate_before: before,
        estimate_after: before.saturating_sub(over.tokens).saturating_add(now),
        usage: None,
        trimmed: true,
        receipt: crate::record::Receipt {
            cleared: vec![over.index],
            ..crate::record::Receipt::NONE
        },
    }
}

/// How many of `chars` characters a text of about `tokens` tokens keeps to come to `target`.
pub fn kept_chars(chars: usize, tokens: u64, target: u64) -> usize {
    (chars as f64 * target as f64 / tokens.max(1) as f64) as usize
}

/// `text` with its middle cut so that about `keep` characters stay, and the marker
/// (`removed_tokens` said); `None` when it is not longer than that.
pub fn trim_text(text: &str, keep: usize, removed_tokens: u64) -> Option<String> {
    trim_middle(text, keep, removed_tokens, "message")
}

/// The fewest characters a trimmed text keeps: a text that would keep fewer does not hold the
/// message's tokens (a short text of a message whose size is elsewhere), and is left alone.
const MIN_KEPT_CHARS: usize = 256;

/// How many tries [`fit`] makes.
const TRIES: usize = 3;

/// The message `trim(keep)` makes from its largest text (of `chars` characters) when it keeps
/// `keep` of them, with its tokens, fitted to `over.target`: the first try keeps the share of
/// the text the target is of the message, each next one less by what the last went over (the
/// marker counts too, more with some estimators). `None` when there is nothing to trim.
pub fn fit<T>(
    chars: usize,
    over: &Oversized,
    mut trim: impl FnMut(usize, u64) -> Result<Option<(T, u64)>>,
) -> Result<Option<(T, u64)>> {
    let per_token = chars as f64 / over.tokens.max(1) as f64;
    let mut keep = kept_chars(chars, over.tokens, over.target);
    let removed = over.tokens.saturating_sub(over.target);
    let mut last = None;
    for _ in 0..TRIES {
        if keep < MIN_KEPT_CHARS {
            break;
        }
        let Some((made, tokens)) = trim(keep, removed)? else {
            break;
        };
        let over_by = tokens.saturating_sub(over.target);
        last = Some((made, tokens));
        if over_by == 0 {
            break;
        }
        keep = keep.saturating_sub((over_by as f64 * per_token).ceil() as usize + 1);
    }
    Ok(last)
}

/// A canonical user message with its largest text trimmed to about `over.target` tokens by
/// `estimator` (see [`fit`]), and its tokens; `None` when it holds no text long enough.
pub fn trim_message(
    message: &Message,
    over: &Oversized,
    estimator: &dyn Estimator,
) -> Result<Option<(Message, u64)>> {
    let Message::User(user) = message else {
        return Ok(None);
    };
    let texts = user.content.iter().enumerate();
    let largest = texts
        .filter_map(|(k, b)| match b {
            ContentBlock::Text(text) => Some((k, text)),
            _ => None,
        })
        .max_by_key(|(_, text)| text.len());
    let Some((k, text)) = largest else {
        return Ok(None);
    };
    fit(text.chars().count(), over, |keep, removed| {
        let Some(trimmed) = trim_text(text, keep, removed) else {
            return Ok(None);
        };
        let mut user = user.clone();
        if let Some(block) = user.content.get_mut(k) {
            *block = ContentBlock::Text(trimmed);
        }
        let message = Message::User(user);
        let tokens = crate::MessageFacts::of(&message, estimator)
            .map_err(|e| estimator_failed(&text!("messages[", over.index, "]"), e))?
            .tokens;
        Ok(Some((message, tokens)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MessageFacts;

    fn message(tokens: u64, role: Role) -> MessageFacts {
        MessageFacts {
            tokens,
            role,
            flags: crate::facts::MessageFlags::NONE
                .with(crate::facts::MessageFlags::STARTS_TURN, role == Role::User),
            ..MessageFacts::default()
        }
    }

    fn request(messages: Vec<MessageFacts>) -> RequestFacts {
        RequestFacts {
            system_prompt: 10,
            messages,
            ..RequestFacts::default()
        }
    }

    #[test]
    fn the_largest_user_message_is_trimmed_to_what_the_window_leaves_it() {
        // A 200,000-token paste after a short exchange, a 128k budget.
        let facts = request(vec![
            message(5, Role::User),
            message(5, Role::Assistant),
            message(200_000, Role::User),
        ]);
        let over = oversized(&facts, None, 128_000, 1.0).unwrap();
        assert_eq!(over.index, 2);
        assert_eq!(over.target, 128_000 - 20 - MARGIN);
        // Under the trigger, nothing.
        assert_eq!(oversized(&facts, None, 300_000, 1.0), None);
        // The trigger ratio is the line.
        let over = oversized(&facts, None, 128_000, 0.5).unwrap();
        assert_eq!(over.target, 64_000 - 20 - MARGIN);
    }

    #[test]
    fn with_a_long_history_the_paste_is_trimmed_so_that_a_compaction_fits() {
        let mut messages: Vec<_> = (0..100)
            .map(|i| message(1_000, [Role::User, Role::Assistant][i % 2]))
            .collect();
        messages.push(message(200_000, Role::User));
        let facts = request(messages);
        let plan = Plan {
            first_kept_index: 100,
            first_kept_part: 0,
            messages_to_summarize: 0..100,
            turn_prefix_messages: 100..100,
            split_turn: false,
            estimate_before: facts.total(),
            estimate_after_without_summary: 10 + 200_000,
            message_tokens: Vec::new(),
        };
        // Alone, the history leaves it 28k of 128k; after a compaction, all but the summary's
        // eighth.
        let over = oversized(&facts, Some(&plan), 128_000, 1.0).unwrap();
        assert_eq!(over.target, 128_000 - 10 - 16_000 - MARGIN);
        // A pinned paste is never trimmed; a tool result is not a user message.
        let mut pinned = facts.clone();
        pinned.messages[100].set_pinned(true);
        assert_eq!(oversized(&pinned, Some(&plan), 128_000, 1.0), None);
    }

    #[test]
    fn a_message_that_would_go_below_the_floor_is_not_trimmed() {
        let facts = request(vec![
            message(130_000, Role::Assistant),
            message(5_000, Role::User),
        ]);
        assert_eq!(oversized(&facts, None, 128_000, 1.0), None);
    }

    #[test]
    fn a_canonical_user_message_keeps_head_and_tail_and_says_what_went() {
        let text = format!("HEAD {} TAIL", "lorem ipsum ".repeat(10_000));
        let message = Message::User(crate::message::UserMessage {
            content: vec![ContentBlock::Image, ContentBlock::Text(text.clone())],
        });
        let over = Oversized {
            index: 0,
            tokens: 20_000,
            target: 2_000,
        };
        let chars = crate::token::Heuristic::new();
        let Ok(Some((Message::User(trimmed), tokens))) = trim_message(&message, &over, &chars)
        else {
            panic!("trimmed");
        };
        assert!(tokens <= 2_000, "{tokens}");
        let Some(ContentBlock::Text(new)) = trimmed.content.get(1) else {
            panic!("a text");
        };
        assert!(new.starts_with("HEAD lorem"), "{new:.40}");
        assert!(new.ends_with("ipsum  TAIL"), "{}", &new[new.len() - 20..]);
        assert!(new.contains("(about 18,000 tokens) trimmed from the middle of this message"));
        assert!(new.len() < text.len() / 8);
        assert_eq!(trimmed.content.first(), Some(&ContentBlock::Image));
    }
}

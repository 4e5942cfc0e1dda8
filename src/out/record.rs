//! Records and what carries them: a record and its receipt, a clearing's record, an apply's
//! outcome, a draft.

use super::{CLEAR, Sink, usage};
use crate::clearing::Clearing;
use crate::draft::Draft;
use crate::record::{Receipt, Record};

/// A record: `{ summary, firstKeptIndex, firstKeptPart, estimateBefore, estimateAfter, usage?,
/// receipt }`, and of a trim `kind: "trim"` and `tokensFreed`.
pub fn record<W: Sink>(w: &mut W, key: &'static str, record: &Record) {
    w.open(key, false);
    w.text("summary", &record.summary);
    w.count("firstKeptIndex", record.first_kept_index as u64);
    w.count("firstKeptPart", record.first_kept_part as u64);
    w.count("estimateBefore", record.estimate_before);
    w.count("estimateAfter", record.estimate_after);
    if let Some(used) = &record.usage {
        usage(w, "usage", used);
    }
    if record.trimmed {
        w.text("kind", "trim");
        let freed = record.estimate_before.saturating_sub(record.estimate_after);
        w.count("tokensFreed", freed);
    }
    receipt(w, &record.receipt);
    w.close();
}

/// A record's `receipt`: `{ summarizedMessages, summarizedTokens, digest, pinned, cleared }`
/// (`digest` `null` when nothing was summarized; `pinned` and `cleared` message indices).
pub fn receipt<W: Sink>(w: &mut W, receipt: &Receipt) {
    w.open("receipt", false);
    w.count("summarizedMessages", receipt.summarized_messages as u64);
    w.count("summarizedTokens", receipt.summarized_tokens);
    match receipt.digest {
        Some(digest) => w.text("digest", &digest.to_hex()),
        None => w.null("digest"),
    }
    indices(w, "pinned", &receipt.pinned);
    indices(w, "cleared", &receipt.cleared);
    w.close();
}

fn indices<W: Sink>(w: &mut W, key: &'static str, indices: &[usize]) {
    w.open(key, true);
    for &i in indices {
        w.count("", i as u64);
    }
    w.close();
}

/// The record of a clearing that left the summary `summary`: `{ kind: "clear", summary,
/// firstKeptIndex: 0, firstKeptPart: 0, estimateBefore, estimateAfter, tokensFreed,
/// clearedResults, receipt }` (how many results it cleared).
pub fn clear_record<W: Sink>(w: &mut W, key: &'static str, summary: &str, clearing: &Clearing) {
    w.open(key, false);
    w.text("kind", CLEAR);
    w.text("summary", summary);
    w.count("firstKeptIndex", 0);
    w.count("firstKeptPart", 0);
    w.count("estimateBefore", clearing.estimate_before);
    w.count("estimateAfter", clearing.estimate_after);
    w.count("tokensFreed", clearing.tokens_freed());
    w.count("clearedResults", clearing.results.len() as u64);
    let cleared = Receipt {
        cleared: clearing.messages(),
        ..Receipt::NONE
    };
    receipt(w, &cleared);
    w.close();
}

/// A record of either kind: of a clearing, the clear record of `cleared`; none: `null`.
pub fn any_record<W: Sink>(
    w: &mut W,
    key: &'static str,
    record: Option<&Record>,
    cleared: Option<&Clearing>,
) {
    match (record, cleared) {
        (None, _) => w.null(key),
        (Some(record), Some(cleared)) => clear_record(w, key, &record.summary, cleared),
        (Some(record), None) => self::record(w, key, record),
    }
}

/// `{ summary, messages, record }` of an apply: the messages are slot 0, the record is
/// `cleared`'s clear record, else `record`'s, else `null`.
pub fn outcome<W: Sink>(
    w: &mut W,
    summary: &str,
    record: Option<&Record>,
    cleared: Option<&Clearing>,
) {
    w.open("", false);
    w.text("summary", summary);
    w.slot("messages", 0);
    match (record, cleared) {
        (_, Some(cleared)) => clear_record(w, "record", summary, cleared),
        (record, None) => any_record(w, "record", record, None),
    }
    w.close();
}

/// A draft: `{ summary, firstKeptIndex, firstKeptPart, firstKeptId, digest, previousDigest,
/// usage? }`, `firstKeptId` (the id of the message the kept suffix starts in, or `null`) slot 0.
pub fn draft<W: Sink>(w: &mut W, draft: &Draft) {
    w.open("", false);
    w.text("summary", &draft.summary);
    w.count("firstKeptIndex", draft.first_kept_index as u64);
    w.count("firstKeptPart", draft.first_kept_part as u64);
    w.slot("firstKeptId", 0);
    w.text("digest", &draft.digest.to_hex());
    w.text("previousDigest", &draft.previous.to_hex());
    if let Some(used) = &draft.usage {
        usage(w, "usage", used);
    }
    w.close();
}

/// Records, in order.
pub fn records<W: Sink>(w: &mut W, key: &'static str, records: &[Record]) {
    w.open(key, true);
    for r in records {
        record(w, "", r);
    }
    w.close();
}

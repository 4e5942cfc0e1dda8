//! Objects the package handed out and a host hands back (possibly edited): a plan, a clear
//! plan, a draft, a cut, a usage. Each is read into the core's type; errors name the key.

use super::{Got, Host, flag, text, whole};
use crate::clearing::ClearedResult;
use crate::draft::{Digest, Draft, Verdict};
use crate::error::{Error, Result};
use crate::out::CLEAR;
use crate::summarizer::SummaryText;
use crate::{Plan, PlanFields, Usage};

/// Rebuilds a core plan from a plan object `plan()` returned (`None` for `null`).
pub fn plan<M, H: Host<M>>(value: &H) -> Result<Option<Plan>> {
    match value.got() {
        Got::Absent => return Ok(None),
        Got::Object => {}
        _ => return Err(Error::invalid_request("plan: expected an object or null")),
    }
    let index = |key: &str| -> Result<Option<usize>> {
        whole(value, key, "plan")?
            .map(|n| message_index(n, &text!("plan.", key)))
            .transpose()
    };
    let length = |key: &str| -> Result<usize> {
        let path = text!("plan.", key);
        let list = value.field(key, "plan")?.items(&path)?;
        list.map(|list| list.len())
            .ok_or_else(|| Error::invalid_request(text!(path, ": expected an array")))
    };
    let fields = PlanFields {
        first_kept_index: index("firstKeptIndex")?,
        first_kept_part: index("firstKeptPart")?,
        turn_prefix_start: index("turnPrefixStart")?,
    };
    let listed = || {
        Ok((
            length("messagesToSummarize")?,
            length("turnPrefixMessages")?,
        ))
    };
    let split_turn = || flag(value, "splitTurn", "plan");
    Plan::from_fields(fields, listed, split_turn).map(Some)
}

/// A message index: no array holds more than 2^32-1 elements, so a larger one is out of range
/// (rather than truncated to 32 bits).
fn message_index(n: u64, path: &str) -> Result<usize> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n < u32::MAX)
        .map(|n| n as usize)
        .ok_or_else(|| {
            Error::invalid_request(text!(
                path,
                ": ",
                n,
                " is out of range (an array has at most 2^32-1 messages)"
            ))
        })
}

/// What a clear plan object says (of each result its `index`, `toolCallId` and `text`; the
/// `argumentMessages`), or `None` when `value` is not one.
pub fn clear_plan<M, H: Host<M>>(value: &H) -> Result<Option<(Vec<ClearedResult>, Vec<usize>)>> {
    if value.got() != Got::Object
        || text(&value.field("kind", "plan")?, "plan.kind")?.as_deref() != Some(CLEAR)
    {
        return Ok(None);
    }
    let list = |key: &str| -> Result<Vec<H>> {
        let path = text!("plan.", key);
        value
            .field(key, "plan")?
            .items(&path)?
            .ok_or_else(|| Error::invalid_request(text!(path, ": expected an array")))
    };
    let mut results = Vec::new();
    for (i, item) in list("clearedResults")?.iter().enumerate() {
        let path = text!("plan.clearedResults[", i, "]");
        let text = |key: &str| -> Result<String> {
            text(&item.field(key, &path)?, &text!(path, ".", key))?
                .ok_or_else(|| Error::invalid_request(text!(path, ".", key, ": expected a string")))
        };
        results.push(ClearedResult {
            index: whole(item, "index", &path)?.unwrap_or(0) as usize,
            tool_call_id: text("toolCallId")?,
            // Applying needs neither: the estimate after is of the rewritten messages.
            tool_name: None,
            tokens: 0,
            text: text("text")?,
        });
    }
    let index = |n: &H| match n.got() {
        Got::Number(n) if n >= 0.0 && n.fract() == 0.0 => Some(n as usize),
        _ => None,
    };
    let arguments: Option<Vec<usize>> = list("argumentMessages")?.iter().map(index).collect();
    let arguments = arguments.ok_or_else(|| {
        Error::invalid_request("plan.argumentMessages: expected an array of message indices")
    })?;
    Ok(Some((results, arguments)))
}

/// Reads a draft object back (the host may have edited its `summary`: commit stores it
/// trimmed); errors name the key.
pub fn draft<M, H: Host<M>>(value: &H) -> Result<Draft> {
    if value.got() != Got::Object {
        return Err(Error::invalid_request("draft: expected an object"));
    }
    let summary = text(&value.field("summary", "draft")?, "draft.summary")?
        .ok_or_else(|| Error::invalid_request("draft.summary: expected a string"))?;
    let index = |key: &str| position(value, key, "draft");
    let digest = |key: &str| -> Result<Digest> {
        let text = text(&value.field(key, "draft")?, &text!("draft.", key))?;
        text.as_deref().and_then(Digest::from_hex).ok_or_else(|| {
            Error::invalid_request(text!(
                "draft.",
                key,
                ": expected the 16 hexadecimal digits of a draft's digest"
            ))
        })
    };
    let usage = draft_usage(&value.field("usage", "draft")?)?;
    Ok(Draft {
        summary,
        first_kept_index: index("firstKeptIndex")?,
        first_kept_part: index("firstKeptPart")?,
        digest: digest("digest")?,
        previous: digest("previousDigest")?,
        usage,
    })
}

/// A draft's `usage`. ChatPreview plans with a pending draft and checks that it covers the
/// chat, which its usage plays no part in (it is the record's, at commit): ChatPreview hands
/// over no usage, and its module leaves out reading one.
fn draft_usage<M, H: Host<M>>(value: &H) -> Result<Option<Usage>> {
    if !cfg!(feature = "plan-api") {
        return match value.got() {
            Got::Absent => Ok(None),
            _ => Err(super::not_in_build("draft.usage")),
        };
    }
    usage(value).map_err(Error::invalid_request)
}

/// A cut `{ firstKeptIndex, firstKeptPart }` (a record, a plan or a draft): where a digest
/// starts.
pub fn cut<M, H: Host<M>>(value: &H) -> Result<(usize, usize)> {
    if value.got() != Got::Object {
        return Err(Error::invalid_request(
            "cut: expected { firstKeptIndex, firstKeptPart }",
        ));
    }
    let first = position(value, "firstKeptIndex", "cut")?;
    Ok((first, position(value, "firstKeptPart", "cut")?))
}

/// `object[key]` as an index, 0 when missing.
fn position<M, H: Host<M>>(object: &H, key: &str, path: &str) -> Result<usize> {
    let n = whole(object, key, path)?.unwrap_or(0);
    usize::try_from(n).map_err(|_| Error::invalid_request(text!(path, ".", key, ": too large")))
}

/// Reads `{ input, output, cacheRead, cacheWrite, totalTokens }` (missing numbers are 0;
/// `None` when `value` is no object).
pub fn usage<M, H: Host<M>>(value: &H) -> std::result::Result<Option<Usage>, String> {
    if value.got() != Got::Object {
        return Ok(None);
    }
    let whole = |key: &str| {
        whole(value, key, "usage").map_err(|e| match e {
            Error::InvalidRequest { message, .. } => message,
            other => text!(other),
        })
    };
    let get = |key: &str| whole(key).map(|n| n.unwrap_or(0));
    let (input, output) = (get("input")?, get("output")?);
    Ok(Some(Usage {
        input,
        output,
        cache_read: get("cacheRead")?,
        cache_write: get("cacheWrite")?,
        total_tokens: whole("totalTokens")?.unwrap_or(input + output),
    }))
}

/// What a summarizer's `summarize` or `generate` (`who`) returned: a string or `{ text,
/// usage }` (a field that throws reads as absent).
pub fn answer<M, H: Host<M>>(value: &H, who: &str) -> std::result::Result<SummaryText, String> {
    if let Some(text) = value.string() {
        return Ok(SummaryText { text, usage: None });
    }
    let text = value.field("text", who).ok().and_then(|t| t.string());
    let Some(text) = text else {
        return Err(text!(
            who,
            " must return a string or { text, usage }, got ",
            value.type_of()
        ));
    };
    let usage = match value.field("usage", who) {
        Ok(given) => usage(&given)?,
        Err(_) => None,
    };
    Ok(SummaryText { text, usage })
}

/// What `beforeCommit` returned: a string replaces the summary, `false` declines it, nothing
/// (or `true`) keeps it.
pub fn verdict<M, H: Host<M>>(value: &H) -> Result<Verdict> {
    if let Some(text) = value.string() {
        return Ok(Verdict::Replace(text));
    }
    match value.got() {
        Got::Bool(false) => Ok(Verdict::Decline),
        Got::Bool(true) | Got::Absent => Ok(Verdict::Keep),
        _ => Err(Error::Declined {
            message: text!(
                "beforeCommit must return a string, false or nothing, got ",
                value.type_of()
            ),
            source: None,
        }),
    }
}

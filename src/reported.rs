//! Which of what the provider counted a plan reads (see `crate::anchor` for what it does with
//! it): the usage on the latest [`LATEST`] answers, and the reports the host states
//! explicitly, but for those of another summary (the history was compacted since).

use crate::anchor::{self, Report};
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts};
use crate::formats::MessageUsage;
use crate::history::{History, Parts};
use crate::message::Role;

/// How many of the latest assistant messages are read for usage.
pub const LATEST: usize = 16;

/// The latest messages a plan from a tail read before it gave up (nothing was reported, or
/// every report is stale): read once, the caller reads only the messages before them
/// ([`history_facts_after`]).
#[derive(Debug, Clone)]
pub struct Latest {
    /// The raw facts of everything but the messages (left empty).
    pub fixed: RequestFacts,
    /// Where the messages read start.
    pub start: usize,
    /// The raw facts of the messages from `start` on.
    pub read: Vec<MessageFacts>,
    /// The history's reports, when the messages read hold the latest
    /// [`LATEST`] answers (which the reports are read from); `None` otherwise.
    pub reports: Option<Vec<Report>>,
}

impl Latest {
    /// What a tail that gave up read: `facts` of the messages from `start` on (placeholders
    /// before) and the history's `reports`.
    pub(crate) fn of(mut facts: RequestFacts, start: usize, reports: Vec<Report>) -> Latest {
        let read = facts.messages.split_off(start.min(facts.messages.len()));
        // The placeholders go before the full read: it holds every message's facts once.
        facts.messages = Vec::new();
        let answers = read.iter().filter(|f| f.role == Role::Assistant).count();
        Latest {
            fixed: facts,
            start,
            read,
            reports: (answers >= LATEST).then_some(reports),
        }
    }
}

/// The facts of every message of `history`, calibrated and anchored to what the provider
/// reported: on its messages, explicitly, and `learned` otherwise (by a caller that kept what
/// the responses said).
pub fn history_facts<H: History + ?Sized>(history: &H, learned: &[Report]) -> Result<RequestFacts> {
    let mut facts = history.parts().fixed_facts()?;
    facts.messages = history.all_facts()?;
    calibrated(history, facts, None, learned)
}

/// [`history_facts`] after a plan from the tail read the `latest` messages and gave up: only
/// the messages before them are read, and the usage again only when they do not hold the
/// latest [`LATEST`] answers. The same facts as [`history_facts`], each message read once.
pub fn history_facts_after<H: History + ?Sized>(
    history: &H,
    learned: &[Report],
    latest: Latest,
) -> Result<RequestFacts> {
    let Latest {
        fixed: mut facts,
        start,
        read,
        reports,
    } = latest;
    let mut messages = history.facts_before(start)?;
    messages.extend(read);
    facts.messages = messages;
    calibrated(history, facts, reports, learned)
}

/// `facts` of every message of `history` calibrated to its `reports` (read when `None`) and
/// `learned`.
fn calibrated<H: History + ?Sized>(
    history: &H,
    mut facts: RequestFacts,
    reports: Option<Vec<Report>>,
    learned: &[Report],
) -> Result<RequestFacts> {
    let mut reports = match reports {
        Some(reports) => reports,
        None => of_history(history, &facts)?,
    };
    reports.extend_from_slice(learned);
    anchor::calibrate(&mut facts, &reports);
    Ok(facts)
}

/// The reports of `history`, whose raw facts (as far as read) are `facts`.
pub fn of_history<H: History + ?Sized>(history: &H, facts: &RequestFacts) -> Result<Vec<Report>> {
    reports(&history.parts(), facts, |latest| history.usages(latest))
}

/// The reports of a request of `parts` whose raw facts are `facts`: the usage on its latest
/// assistant messages (`usages` reads it on the indices it is given) and its explicit ones.
/// An explicit report for more messages than the request has is an error.
pub fn reports(
    parts: &Parts<'_>,
    facts: &RequestFacts,
    usages: impl FnOnce(&[u32]) -> Result<Vec<Option<MessageUsage>>>,
) -> Result<Vec<Report>> {
    let latest = latest_assistants(&facts.messages);
    let usages = usages(&latest)?;
    with_explicit(parts, facts.messages.len(), carried(&latest, usages))
}

/// The indices of the latest [`LATEST`] assistant messages among `facts`, last first: the
/// answers whose usage is read.
pub fn latest_assistants<'a, I>(facts: I) -> Vec<u32>
where
    I: IntoIterator<Item = &'a MessageFacts>,
    I::IntoIter: DoubleEndedIterator + ExactSizeIterator,
{
    facts
        .into_iter()
        .enumerate()
        .rev()
        .filter(|(_, f)| f.role == Role::Assistant)
        .take(LATEST)
        .map(|(i, _)| i as u32)
        .collect()
}

/// What the latest [`LATEST`] answers of a growing history carry (`None`: no usable usage),
/// oldest first: what a conversation handle keeps as messages are appended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Carried(Vec<Option<Report>>);

impl Carried {
    /// Adds what the answers appended next carry, oldest first; only the latest are kept.
    pub fn extend(&mut self, answers: impl IntoIterator<Item = Option<Report>>) {
        self.0.extend(answers);
        let over = self.0.len().saturating_sub(LATEST);
        self.0.drain(..over);
    }

    /// What the latest answers among `facts` (appended as messages `start..`) carry, oldest
    /// first, for [`Carried::extend`]: `keyed(k)` says whether answer `k` has the format's
    /// usage key at all, and `usages` reads the usage of those that do (most carry none, and
    /// are not read again).
    pub fn appended<'a, I>(
        facts: I,
        start: usize,
        mut keyed: impl FnMut(usize) -> bool,
        usages: impl FnOnce(&[u32]) -> Result<Vec<Option<MessageUsage>>>,
    ) -> Result<Vec<Option<Report>>>
    where
        I: IntoIterator<Item = &'a MessageFacts>,
        I::IntoIter: DoubleEndedIterator + ExactSizeIterator,
    {
        let mut latest = latest_assistants(facts);
        latest.reverse();
        let read: Vec<u32> = latest
            .iter()
            .copied()
            .filter(|&k| keyed(k as usize))
            .collect();
        let mut found = match read.is_empty() {
            true => Vec::new(),
            false => usages(&read)?,
        }
        .into_iter();
        let carried = |k: &u32| {
            let usage = read.contains(k).then(|| found.next().flatten()).flatten();
            Some(Report::carried(start + *k as usize, usage?))
        };
        Ok(latest.iter().map(carried).collect())
    }

    /// The usable reports, oldest first.
    pub fn reports(&self) -> Vec<Report> {
        self.0.iter().flatten().copied().collect()
    }
}

/// The usage carried on assistant messages `latest` (see [`Report::carried`]).
pub(crate) fn carried(latest: &[u32], usages: Vec<Option<MessageUsage>>) -> Vec<Report> {
    latest
        .iter()
        .zip(usages)
        .filter_map(|(&i, usage)| Some(Report::carried(i as usize, usage?)))
        .collect()
}

/// `reports` with the explicit ones of `parts` for a request of `count` messages added, but
/// for those of another summary.
fn with_explicit(parts: &Parts<'_>, count: usize, mut reports: Vec<Report>) -> Result<Vec<Report>> {
    let several = parts.reported.len() > 1;
    for (i, e) in parts.reported.iter().enumerate() {
        if e.messages > count {
            let place = match several {
                true => text!("reportedUsage[", i, "]"),
                false => "reportedUsage".to_owned(),
            };
            return Err(Error::invalid_request(text!(
                place,
                ".messages: ",
                e.messages,
                " is more than the request's ",
                count,
                " messages"
            )));
        }
        if e.summary.as_deref().is_some_and(|s| s != parts.summary) {
            continue;
        }
        let fixed = match (&e.system_prompt, &e.tools) {
            (None, None) => None,
            (system_prompt, tools) => {
                let then = RequestFacts::fixed(
                    system_prompt.as_deref().unwrap_or(parts.system_prompt),
                    parts.summary,
                    tools.as_deref().unwrap_or(parts.tools),
                    parts.estimator,
                )?;
                Some(then.system_prompt + then.summary + then.tools)
            }
        };
        reports.push(Report {
            messages: e.messages,
            tokens: e.tokens,
            fixed,
        });
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growing_history_keeps_what_its_latest_answers_carry() {
        let report = |messages| Report {
            messages,
            tokens: 10,
            fixed: None,
        };
        let mut carried = Carried::default();
        carried.extend([Some(report(1)), None]);
        assert_eq!(carried.reports(), vec![report(1)]);
        carried.extend((2..=LATEST).map(|n| Some(report(n))));
        // The first answer is one too many: forgotten.
        assert_eq!(carried.reports().len(), LATEST - 1);
        assert_eq!(carried.reports().first(), Some(&report(2)));
    }

    #[test]
    fn appended_answers_carry_the_usage_read_on_those_with_the_key_oldest_first() {
        let of = |role| MessageFacts {
            role,
            ..MessageFacts::default()
        };
        let facts = [of(Role::Assistant), of(Role::User), of(Role::Assistant)];
        let usage = |input| MessageUsage { input, output: 5 };
        let mut asked = Vec::new();
        let carried = Carried::appended(
            &facts,
            10,
            |k| k == 2,
            |read: &[u32]| {
                asked.extend_from_slice(read);
                Ok(vec![Some(usage(50))])
            },
        )
        .unwrap();
        // Only the answer with the key is read; the other carries nothing.
        assert_eq!(asked, vec![2]);
        assert_eq!(carried, vec![None, Some(Report::carried(12, usage(50)))]);
        // No answer with the key: nothing is read.
        let none = Carried::appended(&facts, 0, |_| false, |_: &[u32]| unreachable!()).unwrap();
        assert_eq!(none, vec![None, None]);
    }

    #[test]
    fn the_latest_answers_are_read_last_first() {
        let of = |role| MessageFacts {
            role,
            ..MessageFacts::default()
        };
        let mut facts = vec![of(Role::User), of(Role::Assistant), of(Role::ToolResult)];
        assert_eq!(latest_assistants(&facts), vec![1]);
        facts.extend((0..LATEST).map(|_| of(Role::Assistant)));
        let latest = latest_assistants(&facts);
        assert_eq!(latest.len(), LATEST);
        assert_eq!(latest.first(), Some(&(facts.len() as u32 - 1)));
        assert_eq!(latest.last(), Some(&3));
    }
}

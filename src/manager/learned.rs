//! What a manager learns from the responses its sends return: what the latest [`LATEST`]
//! requests cost, each read back as a [`Report`] while the state still extends the request it
//! was learned on (the same summary, the same first and last message where they were). A
//! binding keeps one [`Lessons`] per manager; `M` is how it holds a message (for JavaScript,
//! the message object, compared by identity).

use crate::facts::MessageFacts;
use crate::record::Record;
use crate::report::{Calibration, Report};
use crate::reported::LATEST;

/// What one response said its request cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Learned<M> {
    /// The first and last message the request held.
    first: M,
    last: M,
    messages: usize,
    summary: String,
    /// Our raw estimate of the system prompt, summary and tools sent.
    fixed: u64,
    tokens: u64,
}

/// A request as a learner sees it: how many messages, its summary, and its messages (`at`).
pub struct Sent<'a, M> {
    /// How many messages it holds.
    pub messages: usize,
    /// Its summary.
    pub summary: &'a str,
    /// Its message at an index below `messages`.
    pub at: &'a dyn Fn(usize) -> M,
}

impl<M> Learned<M> {
    /// `report`, about the first messages of `sent`: learned while they stay, with `fixed`
    /// (our estimate of its system prompt, summary and tools, read only when the report does
    /// not carry one). `None` for a zero count, no messages, or more than `sent` holds.
    pub fn of(
        report: Report,
        sent: &Sent<'_, M>,
        fixed: impl FnOnce() -> Option<u64>,
    ) -> Option<Self> {
        let count = report.messages;
        if report.tokens == 0 || count == 0 || count > sent.messages {
            return None;
        }
        Some(Learned {
            first: (sent.at)(0),
            last: (sent.at)(count - 1),
            messages: count,
            summary: sent.summary.to_owned(),
            fixed: report.fixed.or_else(fixed)?,
            tokens: report.tokens,
        })
    }

    /// The report for `sent` when it extends the learned request (`same` compares messages).
    pub fn report(&self, sent: &Sent<'_, M>, same: impl Fn(&M, &M) -> bool) -> Option<Report> {
        let extends = sent.summary == self.summary
            && sent.messages >= self.messages
            && same(&(sent.at)(0), &self.first)
            && same(&(sent.at)(self.messages - 1), &self.last);
        extends.then_some(Report {
            messages: self.messages,
            tokens: self.tokens,
            fixed: Some(self.fixed),
        })
    }
}

/// What a manager learned: the latest [`LATEST`] lessons, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Lessons<M>(Vec<Learned<M>>);

impl<M> Default for Lessons<M> {
    fn default() -> Self {
        Lessons(Vec::new())
    }
}

impl<M> Lessons<M> {
    /// Keeps `learned`, forgetting the oldest lesson beyond [`LATEST`].
    pub fn remember(&mut self, learned: Learned<M>) {
        if self.0.len() >= LATEST {
            self.0.remove(0);
        }
        self.0.push(learned);
    }

    /// The reports of the lessons `sent` extends.
    pub fn reports(&self, sent: &Sent<'_, M>, same: impl Fn(&M, &M) -> bool) -> Vec<Report> {
        self.0
            .iter()
            .filter_map(|l| l.report(sent, &same))
            .collect()
    }
}

/// The report a rewrite inside the anchored messages (a clearing or a trim) leaves: the
/// anchor of `calibration`, for its messages whose raw facts went from `then` to `now`
/// ([`Report::rewritten`]); `None` when the estimate was not anchored.
pub fn rewritten_anchor(
    calibration: &Calibration,
    then: &[MessageFacts],
    now: &[MessageFacts],
) -> Option<Report> {
    let anchor = calibration.anchor?;
    let prefix =
        |f: &[MessageFacts]| -> u64 { f.iter().take(anchor.messages).map(|m| m.tokens).sum() };
    Some(anchor.rewritten(prefix(then), prefix(now), calibration))
}

/// The report a summary compaction leaves for its state of `messages` messages: the usage on
/// the answers it kept describes requests that held what it summarized (a small compaction
/// leaves them close enough to the new estimate to anchor it), so until an answer reports the
/// new request, the whole of it counts what the record's `estimate_after` says.
pub fn compacted_anchor(record: &Record, messages: usize) -> Report {
    Report {
        messages,
        tokens: record.estimate_after,
        fixed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent<'a>(ids: &'a [u32], summary: &'a str, at: &'a dyn Fn(usize) -> u32) -> Sent<'a, u32> {
        Sent {
            messages: ids.len(),
            summary,
            at,
        }
    }

    const REPORT: Report = Report {
        messages: 2,
        tokens: 500,
        fixed: None,
    };

    #[test]
    fn a_lesson_holds_while_the_state_extends_its_request() {
        let ids = [10, 11, 12];
        let at = |i: usize| ids[i];
        let learned = Learned::of(REPORT, &sent(&ids, "s", &at), || Some(40)).unwrap();
        let same = |a: &u32, b: &u32| a == b;
        let expected = Report {
            fixed: Some(40),
            ..REPORT
        };
        let longer = [10, 11, 12, 13];
        let at_longer = |i: usize| longer[i];
        assert_eq!(
            learned.report(&sent(&longer, "s", &at_longer), same),
            Some(expected)
        );
        // Another summary, another first or second message, or fewer messages: no longer.
        assert_eq!(learned.report(&sent(&longer, "t", &at_longer), same), None);
        let moved = [10, 99, 12];
        let at_moved = |i: usize| moved[i];
        assert_eq!(learned.report(&sent(&moved, "s", &at_moved), same), None);
        let short = [10];
        let at_short = |i: usize| short[i];
        assert_eq!(learned.report(&sent(&short, "s", &at_short), same), None);
    }

    #[test]
    fn nothing_is_learned_of_zero_tokens_no_messages_or_too_many() {
        let ids = [1, 2];
        let at = |i: usize| ids[i];
        let of = |report| Learned::of(report, &sent(&ids, "", &at), || Some(0));
        assert!(
            of(Report {
                tokens: 0,
                ..REPORT
            })
            .is_none()
        );
        assert!(
            of(Report {
                messages: 0,
                ..REPORT
            })
            .is_none()
        );
        assert!(
            of(Report {
                messages: 3,
                ..REPORT
            })
            .is_none()
        );
        // A report's own fixed estimate is kept; without one, none can be read: nothing.
        let own = Report {
            fixed: Some(7),
            ..REPORT
        };
        let kept = Learned::of(own, &sent(&ids, "", &at), || None).unwrap();
        assert_eq!(
            kept.report(&sent(&ids, "", &at), |a, b| a == b)
                .unwrap()
                .fixed,
            Some(7)
        );
        assert!(Learned::of(REPORT, &sent(&ids, "", &at), || None).is_none());
    }

    #[test]
    fn the_latest_lessons_are_kept() {
        let ids = [1, 2];
        let at = |i: usize| ids[i];
        let mut lessons = Lessons::default();
        for tokens in 1..=(LATEST as u64 + 3) {
            let report = Report { tokens, ..REPORT };
            lessons.remember(Learned::of(report, &sent(&ids, "", &at), || Some(0)).unwrap());
        }
        let reports = lessons.reports(&sent(&ids, "", &at), |a, b| a == b);
        assert_eq!(reports.len(), LATEST);
        assert_eq!(reports.first().map(|r| r.tokens), Some(4));
    }

    #[test]
    fn a_rewrite_moves_the_anchor_by_what_it_freed_in_its_messages() {
        let facts = |tokens: &[u64]| -> Vec<MessageFacts> {
            tokens
                .iter()
                .map(|&tokens| MessageFacts {
                    tokens,
                    ..MessageFacts::default()
                })
                .collect()
        };
        let calibration = Calibration {
            anchor: Some(REPORT),
            ..Calibration::default()
        };
        // Only the anchored two messages count; the third changed too but is not in it.
        let after = rewritten_anchor(&calibration, &facts(&[100, 50, 9]), &facts(&[40, 50, 1]));
        assert_eq!(after.map(|r| r.tokens), Some(440));
        assert_eq!(rewritten_anchor(&Calibration::default(), &[], &[]), None);
    }
}

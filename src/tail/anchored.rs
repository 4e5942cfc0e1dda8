//! Planning an anchored long history from its tail (see the module above): the latest messages
//! first, to see whether anything was reported at all, and a sample of the sizes of the others
//! (`super::sample`), to see whether a report can describe this history. Then the exact facts
//! of the system messages (found by their role alone) and of a tail, longer until it decides
//! the plan, calibrated by the ratio of what the provider counted between two reports inside
//! the tail over our estimate of the same messages: the messages before the tail are not read
//! at all ([`Unread`]: the caller sizes them when it needs their tokens, [`super::fill_unread`]).
//! When no two reports in the tail give a ratio, or the sample cannot tell whether the latest
//! report is usable, the plan sizes every message instead (one cheap pass) and calibrates over
//! the whole prefix. A failed attempt before the tail is not read: it is marked failed, which
//! is all a calibrated estimate needs of it (it counts 0).

use crate::anchor::{self, Report};
use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::history::{History, Sizes};
use crate::message::Role;
use crate::plan::Plan;
use crate::reported::{self, Latest};
use crate::request::PlanOptions;
use crate::tail::{self, sample::Sample};

/// A plan made from a tail: the facts it was made over (placeholders before the tail but for
/// the system messages), and, when the messages before the tail were not even sized, which
/// they are (their tokens in the facts are 0).
#[derive(Debug, Clone)]
pub struct FromTail {
    /// The facts the plan was made over, calibrated.
    pub facts: RequestFacts,
    /// The plan (`None`: nothing to do).
    pub plan: Option<Plan>,
    /// The messages neither read nor sized, when some are.
    pub unread_before: Option<Unread>,
}

/// The messages a plan from a tail did not read: those before `start` but `read`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// Where the tail starts.
    pub start: usize,
    /// The messages before it that were read (the system messages), in order.
    pub read: Vec<u32>,
}

/// What a plan from a tail came to.
#[derive(Debug, Clone)]
pub enum Tried {
    /// Planned from a tail.
    Planned(FromTail),
    /// Not planned from a tail: the caller reads every message, but those of [`Latest`], when
    /// some were read on the way.
    Not(Option<Latest>),
}

/// What a plan from a tail is asked: the history, the plan's options and the policy.
pub(crate) struct Asked<'a, H: ?Sized> {
    pub history: &'a H,
    pub options: PlanOptions,
    pub keep_recent_tokens: u64,
    pub trigger_ratio: f64,
}

/// How many of the latest messages are read to find what the provider reported, before any
/// other message is looked at.
const FIRST_LOOK: usize = 128;

/// How far beyond [`anchor::MAX_RATIO`] the sample (about a fifth low, or high when it hits
/// one of the few large messages) must put a report to give it up: a usable report should
/// not be lost to the sample's error. Every report that far off: the plan reads every message
/// at once, as without usage.
const STALE_MARGIN: f64 = 2.0;

/// How many assistant messages of a tail are asked for their usage at a time, from its start,
/// to find the earliest report inside it.
const USAGE_BATCH: usize = 8;

// Not derived: a derived `Copy` would ask it of `H`.
impl<H: ?Sized> Clone for Asked<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H: ?Sized> Copy for Asked<'_, H> {}

/// The facts and plan of the history `asked` read from its tail; [`Tried::Not`] when the
/// history is short, when nothing usable was reported, or when no tail short of the whole
/// history decides the plan (the caller then reads every message, as it does without usage).
pub(crate) fn plan<H: History + ?Sized>(asked: Asked<'_, H>) -> Result<Tried> {
    let history = asked.history;
    let count = history.len();
    if count < tail::FROM {
        return Ok(Tried::Not(None));
    }
    let mut facts = history.parts().fixed_facts()?;
    // Built, not cloned from one default: 10,000 clones cost a tenth of a millisecond.
    facts.messages = Vec::with_capacity(count);
    facts.messages.resize_with(count, MessageFacts::default);
    let end = count - FIRST_LOOK;
    read(
        history,
        &mut facts,
        (end..count).map(|i| i as u32).collect(),
    )?;
    let reports = reported::of_history(history, &facts)?;
    if reports.is_empty() {
        return Ok(Tried::Not(Some(Latest::of(facts, end, reports))));
    }
    let Some(sample) = Sample::take(history, &facts, end)? else {
        return sized(asked, facts, end);
    };
    // Stale everywhere: calibration would find no usable report in any tail.
    let stale = |r: &Report| {
        sample
            .ratio(r, &facts)
            .is_none_or(|ratio| !anchor::within(ratio, STALE_MARGIN))
    };
    if reports.iter().all(stale) {
        return Ok(Tried::Not(Some(Latest::of(facts, end, reports))));
    }
    let facts = match latest_plausible(&reports, &sample, &facts) {
        Some(anchor) => match unsized_plan(asked, facts, end, anchor)? {
            Ok(planned) => return Ok(Tried::Planned(planned)),
            Err(facts) => facts,
        },
        None => facts,
    };
    sized(asked, facts, end)
}

/// The latest of `reports` (of two for the same request, the later one) that the sample puts
/// within [`anchor::MAX_RATIO`] of our estimate, passing over those it puts far beyond it;
/// `None` when one in between comes first (only sizing every message can tell).
fn latest_plausible(reports: &[Report], sample: &Sample, facts: &RequestFacts) -> Option<Report> {
    // Latest first, by insertion (a library sort adds kilobytes to the module).
    let mut latest: Vec<Report> = Vec::with_capacity(reports.len());
    for &report in reports {
        // Before the earlier ones for the same request: the later report wins.
        let at = latest.partition_point(|r| r.messages > report.messages);
        latest.insert(at, report);
    }
    for report in latest {
        match sample.ratio(&report, facts) {
            None => continue,
            Some(ratio) if anchor::within(ratio, 1.0) => return Some(report),
            Some(ratio) if !anchor::within(ratio, STALE_MARGIN) => continue,
            Some(_) => return None,
        }
    }
    None
}

/// The plan from a tail whose messages before it are not read at all, calibrated by the
/// ratio between `anchor` and the earliest report inside the tail; when no such ratio is found,
/// `facts` back, raw, with the messages read so far (then the caller sizes every message).
fn unsized_plan<H: History + ?Sized>(
    asked: Asked<'_, H>,
    facts: RequestFacts,
    end: usize,
    anchor: Report,
) -> Result<std::result::Result<FromTail, RequestFacts>> {
    let count = facts.messages.len();
    let latest = facts.messages.get(end..).unwrap_or(&[]);
    // The trigger needs every message after the anchor read.
    let start = tail::first_start_by_tokens(count, latest, asked.keep_recent_tokens)
        .min(end)
        .min(anchor.messages.saturating_sub(1));
    let system = asked.history.system_messages()?;
    let mut calibrate = |facts: &mut RequestFacts, start: usize| {
        // As `anchor::calibrate` does: what the provider does not read counts nothing.
        facts.open_window();
        Ok(
            match span_calibration(asked.history, facts, start, anchor)? {
                Span::Ratio(calibration) => {
                    anchor::apply(facts, calibration);
                    Calibrated::Yes
                }
                Span::Short => Calibrated::Longer,
                Span::None => Calibrated::No,
            },
        )
    };
    let tail = Tail {
        start,
        end,
        exact: &system,
    };
    Ok(
        grow(asked, facts, tail, &mut calibrate)?.map(|Decided { facts, plan, start }| {
            let read = system
                .iter()
                .copied()
                .filter(|&i| (i as usize) < start)
                .collect();
            FromTail {
                facts,
                plan,
                unread_before: (start > 0).then_some(Unread { start, read }),
            }
        }),
    )
}

/// What a tail says of the ratio between the provider's count and ours ([`span_calibration`]).
enum Span {
    /// The calibration by the ratio over the messages between two reports.
    Ratio(anchor::Calibration),
    /// The earliest report in the tail is too close to the anchor (a longer tail may do).
    Short,
    /// No report in the tail gives a ratio.
    None,
}

/// The ratio between `anchor` and the earliest report carried by an assistant message of the
/// tail from `start` (read into `facts`) that gives one ([`anchor::span_ratio`]).
fn span_calibration<H: History + ?Sized>(
    history: &H,
    facts: &RequestFacts,
    start: usize,
    anchor: Report,
) -> Result<Span> {
    let stop = anchor.messages.saturating_sub(1).min(facts.messages.len());
    let assistants: Vec<u32> = (start..stop)
        .filter(|&i| {
            facts
                .messages
                .get(i)
                .is_some_and(|f| f.role == Role::Assistant)
        })
        .map(|i| i as u32)
        .collect();
    let raw_between = |from: usize| -> u64 {
        let between = facts.messages.get(from..anchor.messages).unwrap_or(&[]);
        between
            .iter()
            .filter(|f| !f.failed())
            .map(|f| f.tokens)
            .sum()
    };
    for batch in assistants.chunks(USAGE_BATCH) {
        let usages = history.usages(batch)?;
        for (&i, usage) in batch.iter().zip(usages) {
            let Some(usage) = usage else { continue };
            let earlier = Report::carried(i as usize, usage);
            let raw = raw_between(earlier.messages);
            if raw < anchor::MIN_SPAN {
                // A later report spans less still.
                return Ok(Span::Short);
            }
            if let Some(calibration) = anchor::span_ratio(earlier, anchor, raw) {
                return Ok(Span::Ratio(calibration));
            }
        }
    }
    Ok(Span::None)
}

/// The plan from a tail whose messages before it are sized (one pass over every message), the
/// prefix then estimated by its size for the whole conversation's ratio.
fn sized<H: History + ?Sized>(
    asked: Asked<'_, H>,
    mut facts: RequestFacts,
    end: usize,
) -> Result<Tried> {
    let history = asked.history;
    // `exact`: the system messages, read exactly wherever they are.
    let Sizes {
        sizes,
        system: exact,
        failed,
    } = history.sizes(None, false)?;
    // A failed attempt not read: marked so, its tokens (its size's) then calibrated to 0.
    for &i in failed.iter().filter(|&&i| (i as usize) < end) {
        if let Some(f) = facts.messages.get_mut(i as usize) {
            f.set_failed(true);
        }
    }
    let start = tail::first_start(&sizes, asked.keep_recent_tokens).min(end);
    let mut calibrate = |facts: &mut RequestFacts, start: usize| {
        tail::fill_unread(&mut facts.messages, &sizes, start, &exact);
        let reports = reported::of_history(history, facts)?;
        anchor::calibrate(facts, &reports);
        Ok(match facts.calibration.anchor {
            Some(_) => Calibrated::Yes,
            None => Calibrated::No,
        })
    };
    let tail = Tail {
        start,
        end,
        exact: &exact,
    };
    Ok(match grow(asked, facts, tail, &mut calibrate)? {
        Ok(Decided { facts, plan, .. }) => Tried::Planned(FromTail {
            facts,
            plan,
            unread_before: None,
        }),
        Err(_) => Tried::Not(None),
    })
}

/// Whether the facts of a tail could be calibrated.
enum Calibrated {
    Yes,
    /// Not yet: a longer tail may do.
    Longer,
    No,
}

/// Where a plan from the tail starts reading: the tail from `start`, up to `end` (the messages
/// from `end` on are read already), and the messages `exact` (in order) wherever they are.
struct Tail<'a> {
    start: usize,
    end: usize,
    exact: &'a [u32],
}

/// The tail that decided a plan: its facts, the plan, and where it starts.
struct Decided {
    facts: RequestFacts,
    plan: Option<Plan>,
    start: usize,
}

/// Reads longer and longer tails of the history into `facts` until one decides the plan; each
/// tail's facts are calibrated by `calibrate` (given where the tail starts). `facts` back, raw,
/// when a tail could not be calibrated.
fn grow<H: History + ?Sized>(
    asked: Asked<'_, H>,
    mut facts: RequestFacts,
    Tail {
        mut start,
        mut end,
        exact,
    }: Tail<'_>,
    calibrate: &mut dyn FnMut(&mut RequestFacts, usize) -> Result<Calibrated>,
) -> Result<std::result::Result<Decided, RequestFacts>> {
    let count = facts.messages.len();
    let fixed = without_messages(&mut facts);
    // A flag a message: looked up for every message not read (a search of `exact` for each
    // took 1.5% of a cold plan of 10k messages).
    let mut exact_flags = vec![false; count];
    for &i in exact {
        if let Some(flag) = exact_flags.get_mut(i as usize) {
            *flag = true;
        }
    }
    let is_exact = |i: usize| exact_flags.get(i).copied().unwrap_or(false);
    // Those not read yet are read with the first tail, and never again.
    let unread: Vec<u32> = exact
        .iter()
        .copied()
        .filter(|&i| (i as usize) < end)
        .collect();
    let mut first = Some(unread);
    loop {
        let tail = (start..end).filter(|&i| !is_exact(i)).map(|i| i as u32);
        let once = first.take().unwrap_or_default();
        read(
            asked.history,
            &mut facts,
            once.into_iter().chain(tail).collect(),
        )?;
        end = start;
        // Calibration scales the facts in place: their raw tokens are kept for a longer tail.
        let raw = crate::facts::tokens_each(&facts.messages);
        let calibrated = calibrate(&mut facts, start)?;
        if let Calibrated::Yes = calibrated
            && let Some(plan) = tail::plan_from_tail(
                &facts,
                start,
                asked.options,
                asked.keep_recent_tokens,
                asked.trigger_ratio,
            )?
        {
            return Ok(Ok(Decided { facts, plan, start }));
        }
        for (f, tokens) in facts.messages.iter_mut().zip(raw) {
            f.tokens = tokens;
        }
        let messages = std::mem::take(&mut facts.messages);
        facts = RequestFacts {
            messages,
            ..fixed.clone()
        };
        match calibrated {
            Calibrated::No => return Ok(Err(facts)),
            Calibrated::Longer if start == 0 => return Ok(Err(facts)),
            _ => start = tail::next_start(start, count),
        }
    }
}

/// A copy of `facts` without its messages (cloning them would copy every message's facts).
fn without_messages(facts: &mut RequestFacts) -> RequestFacts {
    let messages = std::mem::take(&mut facts.messages);
    let fixed = facts.clone();
    facts.messages = messages;
    fixed
}

/// Reads the facts of messages `indices` into their places in `facts`.
fn read<H: History + ?Sized>(
    history: &H,
    facts: &mut RequestFacts,
    indices: Vec<u32>,
) -> Result<()> {
    // The indices collected by the caller: one copy of this function, not one an iterator.
    let read = history.facts(&indices)?;
    for (i, f) in indices.into_iter().zip(read) {
        if let Some(place) = facts.messages.get_mut(i as usize) {
            *place = f;
        }
    }
    Ok(())
}

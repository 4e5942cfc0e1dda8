//! Drafts (a summary made, not applied), commits onto a history that extends what the draft
//! covers, receipts, the host's review and focus.

mod common;

use common::*;
use context_compaction::*;

/// A conversation of `turns` user/assistant pairs, each message about 25 tokens.
fn conversation(turns: usize) -> Vec<Message> {
    (0..turns)
        .flat_map(|i| {
            [
                user(&format!("question {i} {}", "word ".repeat(20))),
                say(&format!("answer {i} {}", "word ".repeat(20))),
            ]
        })
        .collect()
}

fn request(messages: &[Message]) -> Request<'_> {
    Request {
        summary: "the old summary",
        input_token_budget: Some(200),
        ..Request::new(messages)
    }
}

/// The plan of `messages` and its draft.
fn drafted(compactor: &Compactor<Fixed>, messages: &[Message]) -> (Plan, Draft) {
    let plan = compactor.plan(&request(messages)).unwrap().unwrap();
    let draft = run(compactor.draft(&request(messages), &plan, &())).unwrap();
    (plan, draft)
}

#[test]
fn a_committed_draft_is_exactly_what_apply_stores() {
    let messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let (plan, draft) = drafted(&compactor, &messages);
    assert_eq!(draft.summary, "what happened");
    assert_eq!(draft.first_kept_index, plan.first_kept_index);
    let committed = compactor.commit(&request(&messages), &draft).unwrap();
    let applied = run(compactor.apply(&request(&messages), Some(&plan), &())).unwrap();
    assert_eq!(committed, applied);
}

#[test]
fn a_draft_commits_onto_a_history_that_grew_and_keeps_the_new_messages() {
    let mut messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let (plan, draft) = drafted(&compactor, &messages);
    messages.extend(conversation(3));
    let committed = compactor.commit(&request(&messages), &draft).unwrap();
    assert_eq!(committed.summary, "what happened");
    assert_eq!(&*committed.messages, &messages[plan.first_kept_index..]);
    let record = committed.record.unwrap();
    assert_eq!(record.first_kept_index, plan.first_kept_index);
    assert!(record.estimate_after < record.estimate_before);
}

#[test]
fn a_draft_does_not_commit_onto_a_history_it_does_not_cover() {
    let messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let (plan, draft) = drafted(&compactor, &messages);
    let stale = |messages: &[Message], summary: &str| {
        let asked = Request {
            summary,
            ..request(messages)
        };
        match compactor.commit(&asked, &draft) {
            Err(error @ Error::Stale(_)) => error.to_string(),
            other => panic!("expected a stale draft, got {other:?}"),
        }
    };
    // A message before the cut edited.
    let mut edited = messages.clone();
    edited[1] = say("a different answer");
    assert!(stale(&edited, "the old summary").contains("changed"));
    // Another summary than the one the draft replaces.
    assert!(stale(&messages, "another summary").contains("summary"));
    // A history shorter than the draft's cut.
    let cut = plan.first_kept_index;
    assert!(stale(&messages[..cut - 1], "the old summary").contains("beyond"));
    // A message after the cut may change: it is kept, not summarized.
    let mut later = messages.clone();
    *later.last_mut().unwrap() = say("edited after the cut");
    assert!(compactor.commit(&request(&later), &draft).is_ok());
}

#[test]
fn an_edited_draft_is_what_is_stored() {
    let messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let plan = compactor.plan(&request(&messages)).unwrap().unwrap();
    let mut draft = run(compactor.draft(&request(&messages), &plan, &())).unwrap();
    draft.summary = "what the user corrected".to_owned();
    let committed = compactor.commit(&request(&messages), &draft).unwrap();
    assert_eq!(committed.summary, "what the user corrected");
    assert_eq!(committed.record.unwrap().summary, "what the user corrected");
    // An edit is stored trimmed, as the review's replacement is (a draft read back from a host
    // keeps what the host wrote until commit).
    draft.summary = "\n  what the user corrected \n".to_owned();
    let committed = compactor.commit(&request(&messages), &draft).unwrap();
    assert_eq!(committed.summary, "what the user corrected");
    assert_eq!(committed.record.unwrap().summary, "what the user corrected");
}

#[test]
fn a_failed_summary_makes_no_draft() {
    let messages = conversation(10);
    let compactor = compactor(
        60.0,
        Fixed {
            fail: true,
            ..Fixed::new("x")
        },
    );
    let plan = compactor.plan(&request(&messages)).unwrap().unwrap();
    let failed = run(compactor.draft(&request(&messages), &plan, &()));
    assert!(matches!(failed, Err(Error::Summarization { .. })));
}

#[test]
fn the_receipt_says_what_was_summarized_and_its_digest_follows_every_message() {
    let messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let receipt_of = |messages: &[Message]| {
        let done = run(compactor.compact(&request(messages), &())).unwrap();
        done.record.unwrap().receipt
    };
    let receipt = receipt_of(&messages);
    let facts = RequestFacts::of(&request(&messages)).unwrap();
    let plan = compactor.plan(&request(&messages)).unwrap().unwrap();
    let cut = plan.first_kept_index;
    assert_eq!(receipt.summarized_messages, cut);
    let tokens: u64 = facts.messages[..cut].iter().map(|f| f.tokens).sum();
    assert_eq!(receipt.summarized_tokens, tokens);
    assert!(receipt.pinned.is_empty() && receipt.cleared.is_empty());
    let digest = receipt.digest.unwrap();
    assert_eq!(Digest::from_hex(&digest.to_hex()), Some(digest));
    // The same content gives the same digest; any change to a summarized message another.
    assert_eq!(receipt_of(&messages).digest, Some(digest));
    for i in 0..cut {
        let mut changed = messages.clone();
        changed[i] = match &changed[i] {
            Message::User(_) => user("changed"),
            _ => say("changed"),
        };
        assert_ne!(receipt_of(&changed).digest, Some(digest), "messages[{i}]");
    }
}

#[test]
fn digests_tell_apart_what_a_concatenation_would_not() {
    let one = Digest::of_summarized(&[&[user("ab"), user("c")]]);
    let two = Digest::of_summarized(&[&[user("a"), user("bc")]]);
    assert_ne!(one, two);
    assert_ne!(
        Digest::of_summarized(&[&[user("a")]]),
        Digest::of_summarized(&[&[say("a")]])
    );
    assert_eq!(Digest::from_hex("xyz"), None);
    let small = Digest(0x0123_4567_89ab_cdef);
    assert_eq!(small.to_hex(), "0123456789abcdef");
    assert_eq!(Digest::from_hex("0123456789ABCDEF"), Some(small));
    assert_eq!(Digest::from_hex("0123456789abcdeg"), None);
}

/// An application summarizer whose review keeps, replaces or declines.
struct Reviewed {
    verdict: Verdict,
}

impl Summarizer for Reviewed {
    type Context = ();
    fn summarize<'a>(
        &'a self,
        request: SummarizeRequest<'a>,
        _: &'a (),
    ) -> LocalFuture<'a, Result<SummaryText>> {
        let text = format!("focus: {}", request.focus.unwrap_or("none"));
        Box::pin(async move { Ok(SummaryText { text, usage: None }) })
    }

    fn review<'a>(&'a self, draft: &'a Draft, _: &'a ()) -> LocalFuture<'a, Result<Verdict>> {
        assert!(
            draft.summary.starts_with("focus:"),
            "reviewed after summarizing"
        );
        let verdict = self.verdict.clone();
        Box::pin(async move { Ok(verdict) })
    }
}

#[test]
fn the_review_keeps_replaces_or_declines_the_summary() {
    let messages = conversation(10);
    let compact = |verdict: Verdict| {
        let compactor = Compactor::new(CompactorConfig {
            keep_recent_tokens: 60,
            ..CompactorConfig::new(Reviewed { verdict })
        })
        .unwrap();
        let asked = Request {
            focus: Some("the parser"),
            ..request(&messages)
        };
        run(compactor.compact(&asked, &())).map(|done| done.summary)
    };
    assert_eq!(compact(Verdict::Keep).unwrap(), "focus: the parser");
    let replaced = compact(Verdict::Replace("  the host's text  ".to_owned()));
    assert_eq!(replaced.unwrap(), "the host's text");
    assert!(matches!(
        compact(Verdict::Decline),
        Err(Error::Declined { .. })
    ));
    let empty = compact(Verdict::Replace(" ".to_owned()));
    assert!(matches!(empty, Err(Error::EmptySummary)));
}

#[test]
fn the_focus_is_in_every_history_prompt_of_the_generator() {
    let messages = conversation(10);
    let script = Script::new(vec![Answer::Text("the summary")]);
    let clock = FakeClock::default();
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 60,
        ..CompactorConfig::new(generator(&script, &clock))
    })
    .unwrap();
    let asked = Request {
        focus: Some("the failing migration"),
        ..request(&messages)
    };
    let signal = Signal::default();
    run(compactor.compact(&asked, &signal)).unwrap();
    let requests = script.requests.borrow();
    assert_eq!(requests.len(), 1);
    assert!(
        requests[0]
            .prompt
            .contains("<focus>\nthe failing migration\n</focus>")
    );
    // Without a focus the prompt is as it always was.
    let script = Script::new(vec![Answer::Text("the summary")]);
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 60,
        ..CompactorConfig::new(generator(&script, &clock))
    })
    .unwrap();
    run(compactor.compact(&request(&messages), &signal)).unwrap();
    assert!(!script.requests.borrow()[0].prompt.contains("<focus>"));
}

#[test]
fn covers_answers_what_commit_would_check_without_committing() {
    let messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let (plan, draft) = drafted(&compactor, &messages);
    let covers = |messages: &[Message], summary: &str| {
        let answer = draft.covers(summary, messages.len(), |range, _| {
            Ok(Digest::of_summarized(&[&messages[range]]))
        });
        let asked = Request {
            summary,
            ..request(messages)
        };
        let committed = compactor.commit(&asked, &draft);
        assert_eq!(
            answer.as_ref().ok(),
            Some(&committed.is_ok()),
            "as commit decides"
        );
        answer.unwrap()
    };
    assert!(covers(&messages, "the old summary"));
    let mut grown = messages.clone();
    grown.extend(conversation(2));
    assert!(covers(&grown, "the old summary"));
    let mut edited = messages.clone();
    edited[0] = user("edited");
    assert!(!covers(&edited, "the old summary"));
    assert!(!covers(&messages, "another summary"));
    assert!(!covers(
        &messages[..plan.first_kept_index - 1],
        "the old summary"
    ));
    // An error reading the messages is an error, not a "no".
    let failed = draft.covers("the old summary", messages.len(), |_, _| {
        Err(Error::invalid_request("unreadable"))
    });
    assert!(matches!(failed, Err(Error::InvalidRequest { .. })));
}

/// A draft carried onto another request holding the same messages otherwise laid out (here:
/// two system-free messages more in front, as a converted history may have): checked against
/// the request it was made of, then cut where the same message starts in the other one, its
/// digest taken there, so that a commit onto the other one checks what it covers there.
#[test]
fn a_rebased_draft_commits_onto_the_other_request_and_never_when_stale() {
    let messages = conversation(10);
    let compactor = compactor(60.0, Fixed::new("what happened"));
    let (plan, draft) = drafted(&compactor, &messages);
    let digest_in = |messages: &[Message]| {
        let messages = messages.to_vec();
        move |range: std::ops::Range<usize>, _part: usize| {
            Ok(Digest::of_summarized(&[messages.get(range).unwrap_or(&[])]))
        }
    };
    let mut other = vec![user("an earlier question"), say("an earlier answer")];
    other.extend(messages.iter().cloned());
    let cut = (plan.first_kept_index + 2, 0);
    let from = ("the old summary", messages.len());
    let rebased = draft
        .rebased(from, digest_in(&messages), cut, digest_in(&other))
        .unwrap();
    assert_eq!((rebased.first_kept_index, rebased.first_kept_part), cut);
    assert_eq!(rebased.summary, draft.summary);
    assert_ne!(rebased.digest, draft.digest, "taken over the other request");
    let committed = compactor.commit(&request(&other), &rebased).unwrap();
    assert_eq!(&*committed.messages, &messages[plan.first_kept_index..]);
    // Stale against the request it was made of: never carried.
    let mut edited = messages.clone();
    edited[1] = say("a different answer");
    let stale = draft.rebased(from, digest_in(&edited), cut, digest_in(&other));
    assert!(matches!(stale, Err(Error::Stale(_))), "{stale:?}");
    let summary = draft.rebased(
        ("another", messages.len()),
        digest_in(&messages),
        cut,
        digest_in(&other),
    );
    assert!(matches!(summary, Err(Error::Stale(_))));
    // The other request changed before the cut since: its commit is refused.
    let mut changed = other.clone();
    changed[0] = user("edited");
    assert!(matches!(
        compactor.commit(&request(&changed), &rebased),
        Err(Error::Stale(_))
    ));
}

//! A pending draft committed and what it left planned again (`context_compaction::pending`):
//! the facts of what is left, the plan of both steps in the request's terms, and one record
//! of both.

mod common;

use common::*;
use context_compaction::pending;
use context_compaction::*;

/// A message of `tokens` tokens with `role`.
fn message(role: Role, tokens: u64) -> MessageFacts {
    let mut facts = MessageFacts {
        tokens,
        role,
        ..MessageFacts::default()
    };
    facts.set_starts_turn(role == Role::User);
    facts
}

/// An assistant message of three steps (parts 0, 2 and 4) of 100 tokens, each with one tool
/// call and its result (ids `{label}0`, `{label}1`, `{label}2`).
fn steps(label: &str) -> MessageFacts {
    let ids: Ids = (0..3).map(|i| format!("{label}{i}")).collect();
    let mut facts = message(Role::Assistant, 300);
    facts.tool_call_ids = ids.clone();
    facts.tool_result_ids = ids;
    for part in [2, 4] {
        facts.steps.push(Step {
            part,
            tokens: 100,
            calls: 1,
            results: 1,
        });
    }
    facts
}

/// Twelve messages of 100 tokens (user, assistant, ...), message 1 pinned, message 5 the
/// three-step answer (300 tokens): 1,400 tokens, and 50 of system prompt.
fn facts() -> RequestFacts {
    let mut messages: Vec<MessageFacts> = (0..12)
        .map(|i| {
            message(
                if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                },
                100,
            )
        })
        .collect();
    messages[1].set_pinned(true);
    messages[5] = steps("c");
    RequestFacts {
        system_prompt: 50,
        messages,
        ..RequestFacts::default()
    }
}

/// A draft that cuts at part `part` of message `first` (its digests are not checked here).
fn draft(first: usize, part: usize) -> Draft {
    Draft {
        summary: "made ahead".to_owned(),
        first_kept_index: first,
        first_kept_part: part,
        digest: Digest::of_text("covered"),
        previous: Digest::of_text(""),
        usage: None,
    }
}

/// The record committing `draft` onto a request with `facts` makes.
fn commit_record(facts: &RequestFacts, draft: &Draft) -> Record {
    let estimator = CharEstimator::default();
    let input = CommitInput {
        facts,
        require_reduction: false,
        estimator: &estimator,
    };
    pending::committed(input, draft).unwrap()
}

#[test]
fn what_a_commit_leaves_is_the_pinned_messages_and_the_cut_message_from_its_cut_on() {
    let facts = facts();
    let record = commit_record(&facts, &draft(5, 2));
    let left = pending::left(&facts, &record);
    // Where each kept message came from: the pinned message, then the cut message from its
    // cut part, then the rest whole.
    let origins = pending::origins(&facts, &record);
    let indices: Vec<usize> = origins.iter().map(|o| o.index).collect();
    assert_eq!(indices, vec![1, 5, 6, 7, 8, 9, 10, 11]);
    let parts: Vec<usize> = origins.iter().map(|o| o.part).collect();
    assert_eq!(parts, vec![0, 2, 0, 0, 0, 0, 0, 0]);
    assert_eq!(left.messages.len(), 8);
    assert_eq!(left.total(), record.estimate_after, "the record's estimate");
    assert!(left.summary > 0 && left.system_prompt == 50);
    // The cut message from its second step on: two steps, the later one at part 2 now.
    let cut = &left.messages[1];
    assert_eq!(cut.tokens, 200);
    assert_eq!(
        cut.steps.iter().map(|s| s.part).collect::<Vec<_>>(),
        vec![2]
    );
    assert_eq!(cut.tool_call_ids, vec!["c1", "c2"]);
    assert_eq!(cut.tool_result_ids, vec!["c1", "c2"]);
    assert!(left.messages[0].pinned());
    // Over the threshold or not: the record's estimate decides.
    let after = record.estimate_after as f64;
    assert!(pending::still_over(&facts, &record, after).is_none());
    assert_eq!(
        pending::still_over(&facts, &record, after - 1.0),
        Some(left)
    );
}

/// The plan of `facts` with pending `draft` against `budget`, what is left planned as the
/// compactor plans it (keeping 200 tokens).
fn planned(facts: &RequestFacts, draft: &Draft, budget: u64) -> Option<Plan> {
    planned_keeping(facts, draft, budget, 200)
}

/// [`planned`] keeping `keep` tokens.
fn planned_keeping(facts: &RequestFacts, draft: &Draft, budget: u64, keep: u64) -> Option<Plan> {
    let estimator = CharEstimator::default();
    let input = CommitInput {
        facts,
        require_reduction: false,
        estimator: &estimator,
    };
    let compactor = compactor(keep as f64, Fixed::new("S"));
    let options = PlanOptions {
        input_token_budget: Some(budget),
        require_reduction: false,
    };
    let decide = |left: &RequestFacts| {
        let plan = compactor.plan_with_facts(left, options)?;
        Ok(plan.map(Planned::Summarize))
    };
    pending::plan(input, draft, budget, 1.0, decide).unwrap()
}

#[test]
fn below_the_threshold_the_draft_is_not_looked_at_and_a_commit_that_is_enough_is_its_cut() {
    let facts = facts();
    let draft = draft(5, 2);
    assert_eq!(planned(&facts, &draft, facts.total()), None);
    let record = commit_record(&facts, &draft);
    // Over the threshold, and what the commit leaves is under it: the draft's cut alone.
    let plan = planned(&facts, &draft, record.estimate_after).unwrap();
    assert_eq!((plan.first_kept_index, plan.first_kept_part), (5, 2));
    assert_eq!(plan, pending::cut_plan(&facts, 5, 2));
    assert_eq!(plan.estimate_before, facts.total());
}

#[test]
fn a_commit_that_leaves_too_much_is_followed_by_the_plan_of_what_is_left_in_the_requests_terms() {
    let facts = facts();
    let draft = draft(3, 0);
    let record = commit_record(&facts, &draft);
    // 100 tokens under what the commit leaves: the compactor keeps the last 200 tokens.
    let budget = record.estimate_after - 100;
    let left = pending::left(&facts, &record);
    let compactor = compactor(200.0, Fixed::new("S"));
    let options = PlanOptions {
        input_token_budget: Some(budget),
        require_reduction: false,
    };
    let further = compactor.plan_with_facts(&left, options).unwrap().unwrap();
    let plan = planned(&facts, &draft, budget).unwrap();
    // Its cut names the request's message: the kept messages are [1, 3, 4, 5, ...].
    let origins = pending::origins(&facts, &record);
    assert_eq!(
        plan.first_kept_index,
        origins[further.first_kept_index].index
    );
    assert!(plan.first_kept_index > 5, "past the draft's cut");
    assert_eq!(plan.estimate_before, facts.total());
    assert_eq!(
        plan.estimate_after_without_summary,
        further.estimate_after_without_summary
    );
    assert_eq!(plan.messages_to_summarize.start, 0);
    assert_eq!(plan.message_tokens.len(), 12);
}

#[test]
fn a_further_cut_inside_the_message_the_draft_cut_inside_counts_its_parts_from_the_message_start() {
    let mut facts = facts();
    facts.messages.truncate(6);
    let draft = draft(5, 2);
    let record = commit_record(&facts, &draft);
    // What is left: the pinned message and the two last steps; keeping 100 tokens, the cut
    // falls between them (part 2 of what is left, part 4 of the message).
    let budget = record.estimate_after - 50;
    let plan = planned_keeping(&facts, &draft, budget, 100).unwrap();
    assert_eq!((plan.first_kept_index, plan.first_kept_part), (5, 4));
    assert!(plan.split_turn);
    // Keeping 200, what is left is kept whole: the draft's cut.
    let whole = planned_keeping(&facts, &draft, budget, 200).unwrap();
    assert_eq!((whole.first_kept_index, whole.first_kept_part), (5, 2));
    // Where the messages a further summary cut there keeps came from: in what the commit
    // kept, the pinned message and part 2 of the rest of message 5; in the request, part 4.
    let left = pending::left(&facts, &record);
    let further = Record {
        first_kept_index: 1,
        first_kept_part: 2,
        ..record.clone()
    };
    let kept = pending::origins(&left, &further);
    let origin = |index, part| pending::Origin { index, part };
    assert_eq!(kept, [origin(0, 0), origin(1, 2)]);
    let committed = pending::origins(&facts, &record);
    assert_eq!(committed, [origin(1, 0), origin(5, 2)]);
    let both = pending::origins_through(&committed, &kept);
    assert_eq!(both, [origin(1, 0), origin(5, 4)]);
    // Rewritten in place after the commit: the commit's origins.
    let in_place = pending::in_place(left.messages.len());
    assert_eq!(pending::origins_through(&committed, &in_place), committed);
}

#[test]
fn one_record_of_a_commit_and_a_further_summary_names_the_requests_messages() {
    let facts = facts();
    let committed = commit_record(&facts, &draft(5, 2));
    // A further summary of what was left, cut at kept message 4 (the request's message 8),
    // the pinned message (kept message 0) kept before it.
    let further = Record {
        summary: "again".to_owned(),
        first_kept_index: 4,
        first_kept_part: 0,
        estimate_before: committed.estimate_after,
        estimate_after: 400,
        usage: None,
        trimmed: false,
        receipt: Receipt {
            summarized_messages: 3,
            summarized_tokens: 400,
            digest: Some(Digest::of_text("further")),
            pinned: vec![0],
            cleared: Vec::new(),
        },
    };
    let merged = pending::merged(&facts, &committed, further.clone());
    assert_eq!((merged.first_kept_index, merged.first_kept_part), (8, 0));
    assert_eq!(merged.receipt.pinned, vec![1]);
    assert_eq!(merged.estimate_before, facts.total());
    assert_eq!(merged.estimate_after, 400);
    assert_eq!(merged.summary, "again");
    assert_eq!(merged.receipt.digest, further.receipt.digest);
    // The draft covered 0, 2, 3, 4 and the first step of 5; the further summary the rest of
    // 5, then 6 and 7: seven messages, 5 counted once.
    assert_eq!(committed.receipt.summarized_messages, 5);
    assert_eq!(merged.receipt.summarized_messages, 7);
    assert_eq!(
        merged.receipt.summarized_tokens,
        committed.receipt.summarized_tokens + 400
    );
}

#[test]
fn a_commit_then_a_clearing_is_the_commits_record_naming_the_cleared_messages_in_the_request() {
    let facts = facts();
    let committed = commit_record(&facts, &draft(5, 2));
    // A clearing of what was left: kept message 1 (the rest of the request's message 5, the
    // draft cut inside it) and 3 (message 7); the pinned message is kept message 0.
    let clearing = Record {
        estimate_before: committed.estimate_after,
        estimate_after: 300,
        receipt: Receipt {
            cleared: vec![1, 3],
            ..Receipt::NONE
        },
        ..committed.clone()
    };
    let record = pending::cleared_after(&facts, committed.clone(), &clearing);
    assert_eq!(record.receipt.cleared, vec![5, 7]);
    assert_eq!(record.estimate_after, 300);
    // The rest is the commit's: its summary, cut, estimate before and what it summarized.
    let cleared = Receipt {
        cleared: vec![5, 7],
        ..committed.receipt.clone()
    };
    let expected = Record {
        estimate_after: 300,
        receipt: cleared,
        ..committed
    };
    assert_eq!(record, expected);
    assert_eq!((record.first_kept_index, record.first_kept_part), (5, 2));
    assert_eq!(record.receipt.pinned, vec![1]);
}

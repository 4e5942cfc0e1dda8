//! A split turn's small prefix is quoted in the summary instead of summarized: one model call.

mod common;

use common::*;
use context_compaction::*;

const QUOTE_LEAD: &str =
    "Quoted from the start of the current turn (the rest of it follows this summary):";

/// 0 user, 1 say, 2 user (turn start), 3..: `prefix`, then the kept answer; keeping one token
/// cuts before the answer, so the turn prefix is message 2 and `prefix`.
fn split_turn(question: &str, prefix: Vec<Message>) -> Vec<Message> {
    let mut messages = vec![user("first"), say("ok"), user(question)];
    messages.extend(prefix);
    messages.push(say("the kept answer"));
    messages
}

fn read_call() -> Vec<Message> {
    vec![call("a", "read"), result("a")]
}

/// Compacts `messages` keeping one token; the summary and the purposes of the calls made.
fn compact(
    summarizer: GeneratorSummarizer<&Script, &FakeClock>,
    messages: &[Message],
) -> (String, Vec<Purpose>) {
    let script = summarizer.generator;
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 1,
        ..CompactorConfig::new(summarizer)
    })
    .unwrap();
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(messages)
    };
    let outcome = run(compactor.compact(&request, &Signal::default())).unwrap();
    let purposes = script.requests.borrow().iter().map(|r| r.purpose).collect();
    (outcome.summary, purposes)
}

fn answers() -> Script {
    Script::new(vec![Answer::Text("HISTORY"), Answer::Text("PREFIX")])
}

/// The local estimate of the turn prefix the compaction of `messages` summarizes.
fn prefix_tokens(messages: &[Message]) -> u64 {
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(messages)
    };
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 1,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap();
    let plan = compactor.plan(&request).unwrap().unwrap();
    assert!(plan.split_turn);
    let facts = RequestFacts::of(&request).unwrap();
    facts.messages[plan.turn_prefix_messages]
        .iter()
        .map(|f| f.tokens)
        .sum()
}

#[test]
fn a_small_prefix_is_quoted_under_the_turn_context_heading_with_one_call() {
    let (script, clock) = (answers(), FakeClock::default());
    let messages = split_turn("second", read_call());
    let (summary, purposes) = compact(generator(&script, &clock), &messages);
    assert_eq!(purposes, vec![Purpose::History]);
    assert_eq!(
        summary,
        format!(
            "HISTORY\n\n{TURN_CONTEXT_HEADING}\n\n{QUOTE_LEAD}\n\n[User]: second\n\n\
             [Tool call] read: {{\"path\":\"a.rs\"}}\n\n[Tool result] bash (ok): ok\n\n\
             <read-files>\na.rs\n</read-files>"
        )
    );
    // The history call still sees only the history.
    let prompt = &script.requests.borrow()[0].prompt;
    assert!(prompt.contains("[User]: first") && !prompt.contains("second"));
}

#[test]
fn the_default_limit_is_a_thousand_tokens_and_the_limit_is_inclusive() {
    assert_eq!(DEFAULT_QUOTE_TURN_PREFIX_TOKENS, 1_000);
    let messages = split_turn("second", read_call());
    let tokens = prefix_tokens(&messages);
    assert!(tokens > 0);
    for (limit, calls) in [(tokens, 1), (tokens - 1, 2)] {
        let (script, clock) = (answers(), FakeClock::default());
        let summarizer = GeneratorSummarizer {
            quote_turn_prefix_tokens: limit,
            ..generator(&script, &clock)
        };
        let (_, purposes) = compact(summarizer, &messages);
        assert_eq!(
            purposes.len(),
            calls,
            "limit {limit} for a prefix of {tokens}"
        );
    }
}

#[test]
fn a_large_prefix_is_summarized_by_a_second_call() {
    let question = "please look at this ".repeat(300);
    let messages = split_turn(&question, read_call());
    assert!(prefix_tokens(&messages) > DEFAULT_QUOTE_TURN_PREFIX_TOKENS);
    let (script, clock) = (answers(), FakeClock::default());
    let (summary, purposes) = compact(generator(&script, &clock), &messages);
    assert_eq!(purposes, vec![Purpose::History, Purpose::TurnPrefix]);
    assert!(summary.starts_with(&format!("HISTORY\n\n{TURN_CONTEXT_HEADING}\n\nPREFIX")));
    assert!(!summary.contains(QUOTE_LEAD));
}

#[test]
fn a_prefix_with_a_long_tool_result_is_not_small_though_its_records_truncate_it() {
    let long = "line of output\n".repeat(2_000);
    let prefix = vec![
        call("a", "read"),
        Message::tool_result("a", "read", long.as_str()),
    ];
    let messages = split_turn("second", prefix);
    assert!(prefix_tokens(&messages) > DEFAULT_QUOTE_TURN_PREFIX_TOKENS);
    let (script, clock) = (answers(), FakeClock::default());
    let (_, purposes) = compact(generator(&script, &clock), &messages);
    assert_eq!(purposes, vec![Purpose::History, Purpose::TurnPrefix]);
    let prefix_prompt = &script.requests.borrow()[1].prompt;
    assert!(
        prefix_prompt.contains("bytes truncated]"),
        "{prefix_prompt}"
    );
}

#[test]
fn a_limit_of_zero_never_quotes() {
    let (script, clock) = (answers(), FakeClock::default());
    let summarizer = GeneratorSummarizer {
        quote_turn_prefix_tokens: 0,
        ..generator(&script, &clock)
    };
    let (summary, purposes) = compact(summarizer, &split_turn("second", read_call()));
    assert_eq!(purposes, vec![Purpose::History, Purpose::TurnPrefix]);
    assert!(summary.contains("PREFIX") && !summary.contains(QUOTE_LEAD));
}

#[test]
fn a_prefix_with_no_history_beside_it_is_summarized_however_small() {
    // One turn from the start: the prefix is all the compaction removes.
    let messages = vec![
        user("only turn"),
        call("a", "read"),
        result("a"),
        say("the kept answer"),
    ];
    let (script, clock) = (
        Script::new(vec![Answer::Text("PREFIX")]),
        FakeClock::default(),
    );
    let (summary, purposes) = compact(generator(&script, &clock), &messages);
    assert_eq!(purposes, vec![Purpose::TurnPrefix]);
    assert!(
        summary.starts_with(&format!(
            "{NO_HISTORY_PLACEHOLDER}\n\n{TURN_CONTEXT_HEADING}\n\nPREFIX"
        )),
        "{summary}"
    );
}

#[test]
fn prompts_leave_out_a_quoted_prefix() {
    let (script, clock) = (answers(), FakeClock::default());
    let history = [user("first"), say("ok")];
    let prefix = [user("second")];
    let request = SummarizeRequest {
        previous_summary: "",
        messages: &history,
        turn_prefix_messages: &prefix,
        estimator: &Heuristic::new(),
        focus: None,
    };
    let tokens = prefix_tokens(&split_turn("second", vec![]));
    let purposes = |limit| {
        let summarizer = GeneratorSummarizer {
            quote_turn_prefix_tokens: limit,
            ..generator(&script, &clock)
        };
        let prompts = summarizer.prompts(&request).unwrap();
        prompts
            .into_iter()
            .map(|(purpose, _)| purpose)
            .collect::<Vec<_>>()
    };
    assert_eq!(purposes(tokens), vec![Purpose::History]);
    assert_eq!(
        purposes(tokens - 1),
        vec![Purpose::History, Purpose::TurnPrefix]
    );
}

#[test]
fn an_estimator_failing_on_the_prefix_fails_the_compaction_naming_it() {
    let (script, clock) = (answers(), FakeClock::default());
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 1,
        ..CompactorConfig::new(generator(&script, &clock))
    })
    .unwrap();
    let messages = split_turn("second", read_call());
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    let plan = compactor.plan(&request).unwrap().unwrap();
    let facts = RequestFacts::of(&request).unwrap();
    let input = ApplyInput {
        facts: &facts,
        summary: "",
        history: &messages[plan.messages_to_summarize.clone()],
        turn_prefix: &messages[plan.turn_prefix_messages.clone()],
        require_reduction: false,
        estimator: &BrokenEstimator,
        focus: None,
    };
    let err = run(compactor.apply_with_facts(input, &plan, &Signal::default())).unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    assert!(
        err.to_string()
            .contains("turnPrefixMessages: the estimator failed: tokenizer offline"),
        "{err}"
    );
    assert!(script.requests.borrow().is_empty(), "no call was made");
}

#[test]
fn the_prompts_of_records_leave_out_a_quoted_prefix_and_read_its_units_only_when_it_may_be() {
    let (script, clock) = (answers(), FakeClock::default());
    let summarizer = generator(&script, &clock);
    let estimator = Heuristic::new();
    let units = vec![user("a small prefix")];
    let purposes = |prompts: Vec<(Purpose, String)>| -> Vec<Purpose> {
        prompts.into_iter().map(|(purpose, _)| purpose).collect()
    };
    // Beside a history, a small prefix is quoted: one request.
    let prompts = summarizer
        .prompts_of(
            "",
            Some("H"),
            Some("P"),
            || Ok(units.clone()),
            &estimator,
            None,
        )
        .unwrap();
    assert_eq!(purposes(prompts), vec![Purpose::History]);
    // Alone it is summarized, and its units are not read.
    let unread = || -> Result<Vec<Message>> { panic!("units read") };
    let prompts = summarizer
        .prompts_of("", None, Some("P"), unread, &estimator, None)
        .unwrap();
    assert_eq!(purposes(prompts), vec![Purpose::TurnPrefix]);
    // Quoting off: both summarized.
    let never = GeneratorSummarizer {
        quote_turn_prefix_tokens: 0,
        ..generator(&script, &clock)
    };
    let prompts = never
        .prompts_of("", Some("H"), Some("P"), unread, &estimator, None)
        .unwrap();
    assert_eq!(
        purposes(prompts),
        vec![Purpose::History, Purpose::TurnPrefix]
    );
    // Every request has the same system instruction: the default unless one is configured.
    assert_eq!(never.system_instruction(), DEFAULT_SYSTEM_PROMPT);
    let custom = GeneratorSummarizer {
        system_prompt: Some("Be brief.".to_owned()),
        ..generator(&script, &clock)
    };
    let request = custom.request(Purpose::History, String::new());
    assert_eq!(request.system_prompt, "Be brief.");
}

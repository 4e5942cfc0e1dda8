//! A history larger than the summary model's window: summarized in chunks, oldest first, each
//! call within the window and updating the summary so far; never refused for size.

mod common;

use common::*;
use context_compaction::*;

/// Ten turns of a user question and an answer of about 300 characters each.
fn long_history() -> Vec<Message> {
    (0..10)
        .flat_map(|i| {
            [
                user(&format!("question {i}: {}", "q".repeat(280))),
                say(&format!("answer {i}: {}", "a".repeat(280))),
            ]
        })
        .collect()
}

/// Compacts every message of `messages` (one token per character) through `summarizer`.
fn compact_all(
    summarizer: GeneratorSummarizer<&Script, &FakeClock>,
    messages: &[Message],
    summary: &str,
) -> Result<(String, Option<Usage>)> {
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 0,
        ..CompactorConfig::new(summarizer)
    })?;
    let estimator = CharEstimator::default();
    let request = Request {
        summary,
        require_reduction: false,
        input_token_budget: Some(0),
        estimator: &estimator,
        ..Request::new(messages)
    };
    run(compactor.compact(&request, &Signal::default()))
        .map(|c| (c.summary, c.record.and_then(|r| r.usage)))
}

fn windowed<'s>(
    script: &'s Script,
    clock: &'s FakeClock,
    window: u64,
    output: u64,
) -> GeneratorSummarizer<&'s Script, &'s FakeClock> {
    GeneratorSummarizer {
        context_window_tokens: Some(window),
        max_output_tokens: Some(output),
        ..generator(script, clock)
    }
}

fn answers(n: usize) -> Vec<Answer> {
    const TEXTS: [&str; 8] = ["S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"];
    TEXTS.iter().take(n).map(|t| Answer::Text(t)).collect()
}

/// Tokens (characters) a request puts in the model's window: its instruction, its prompt and
/// the room left for its answer.
fn window_use(request: &GenerateRequest) -> u64 {
    let prompt = request.system_prompt.chars().count() + request.prompt.chars().count();
    prompt as u64 + request.max_output_tokens.unwrap_or(0)
}

#[test]
fn without_a_window_a_part_is_one_call_however_large() {
    let (script, clock) = (Script::new(answers(1)), FakeClock::default());
    compact_all(generator(&script, &clock), &long_history(), "").unwrap();
    let requests = script.requests.borrow();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].chunk, None);
}

#[test]
fn records_that_fit_the_window_make_the_same_single_call_as_without_one() {
    let history = &long_history()[..2];
    let (script, clock) = (Script::new(answers(2)), FakeClock::default());
    compact_all(generator(&script, &clock), history, "").unwrap();
    compact_all(windowed(&script, &clock, 4_000, 500), history, "").unwrap();
    let requests = script.requests.borrow();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].prompt, requests[1].prompt);
    assert_eq!(requests[1].chunk, None);
}

#[test]
fn a_history_beyond_the_window_is_summarized_in_chunks_each_within_it_oldest_first() {
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    let window = 4_000;
    let done = compact_all(windowed(&script, &clock, window, 500), &long_history(), "").unwrap();
    let requests = script.requests.borrow();
    let count = requests.len();
    assert!(count > 1, "{count} calls");
    for (i, request) in requests.iter().enumerate() {
        assert!(
            window_use(request) <= window,
            "call {i}: {}",
            window_use(request)
        );
        assert_eq!(request.chunk, Some(Chunk { index: i, count }));
        assert_eq!(request.purpose, Purpose::History);
    }
    // Every message is in exactly one chunk, in order.
    let mut next = 0;
    for (i, request) in requests.iter().enumerate() {
        let asked = |n: usize| request.prompt.contains(&format!("question {n}:"));
        while next < 10 && asked(next) {
            next += 1;
        }
        assert!(
            next > 0 && (0..10).filter(|n| asked(*n)).count() > 0,
            "chunk {i} is empty"
        );
    }
    assert_eq!(next, 10, "every turn is summarized once, oldest first");
    // Each call after the first updates the summary the one before wrote.
    assert!(!requests[0].prompt.contains("<previous-summary>"));
    for i in 1..count {
        let previous = format!("<previous-summary>\nS{}\n</previous-summary>", i - 1);
        assert!(requests[i].prompt.contains(&previous), "call {i}");
    }
    assert!(done.0.starts_with(&format!("S{}", count - 1)));
}

#[test]
fn the_first_chunk_updates_the_requests_previous_summary() {
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    compact_all(
        windowed(&script, &clock, 4_000, 500),
        &long_history(),
        "OLD",
    )
    .unwrap();
    let requests = script.requests.borrow();
    assert!(requests.len() > 1);
    assert!(requests[0].prompt.starts_with("<previous-summary>\nOLD\n"));
}

#[test]
fn a_tool_result_stays_in_the_chunk_of_its_call() {
    let mut history = long_history();
    history.splice(6..6, [call("c1", "read"), result("c1"), say("read it")]);
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    compact_all(windowed(&script, &clock, 4_000, 500), &history, "").unwrap();
    let requests = script.requests.borrow();
    let with = |needle: &str| -> Vec<usize> {
        (0..requests.len())
            .filter(|&i| requests[i].prompt.contains(needle))
            .collect()
    };
    let calls = with("[Tool call] read");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(with("[Tool result] bash"), calls);
}

#[test]
fn one_message_larger_than_a_call_is_shortened_in_its_middle_with_a_note() {
    let history = vec![
        user(&format!("BEGIN {} END", "x".repeat(20_000))),
        say("ok"),
    ];
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    let window = 4_000;
    compact_all(windowed(&script, &clock, window, 500), &history, "").unwrap();
    let requests = script.requests.borrow();
    for request in requests.iter() {
        assert!(window_use(request) <= window);
    }
    let first = &requests[0].prompt;
    assert!(
        first.contains("BEGIN") && first.contains("END"),
        "both ends are kept"
    );
    assert!(first.contains("left out here to fit the summary model's window"));
}

#[test]
fn usage_is_added_up_over_the_chunks() {
    let usage = Usage {
        input: 10,
        output: 2,
        cache_read: 0,
        cache_write: 0,
        total_tokens: 12,
    };
    let texts = ["S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"];
    let script = Script::new(texts.iter().map(|t| Answer::WithUsage(t, usage)).collect());
    let clock = FakeClock::default();
    let done = compact_all(windowed(&script, &clock, 4_000, 500), &long_history(), "").unwrap();
    let calls = script.requests.borrow().len() as u64;
    assert!(calls > 1);
    assert_eq!(done.1.map(|u| u.input), Some(10 * calls));
}

#[test]
fn the_preview_of_the_prompts_shows_every_chunk_with_a_placeholder_for_the_summary_so_far() {
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    let summarizer = windowed(&script, &clock, 4_000, 500);
    let estimator = CharEstimator::default();
    let history = long_history();
    let request = SummarizeRequest {
        previous_summary: "",
        messages: &history,
        turn_prefix_messages: &[],
        estimator: &estimator,
        focus: None,
    };
    let prompts = summarizer.prompts(&request).unwrap();
    compact_all(windowed(&script, &clock, 4_000, 500), &history, "").unwrap();
    let sent = script.requests.borrow();
    assert_eq!(prompts.len(), sent.len());
    assert_eq!(prompts[0].1, sent[0].prompt);
    assert!(prompts[1].1.contains(SUMMARY_SO_FAR_PLACEHOLDER));
    let placeholder = prompts[1].1.replace(SUMMARY_SO_FAR_PLACEHOLDER, "S0");
    assert_eq!(placeholder, sent[1].prompt);
}

#[test]
fn a_turn_prefix_beyond_the_window_is_summarized_in_chunks_too() {
    // One turn: its start is summarized (the cut falls inside it), its end is kept.
    let mut turn = vec![user("start the long task")];
    for i in 0..12 {
        let id = format!("c{i}");
        turn.push(call(&id, "read"));
        let text = format!("{i} {}", "r".repeat(400));
        turn.push(Message::tool_result(&id, "read", &text));
    }
    turn.push(say("the kept answer"));
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    let summarizer = GeneratorSummarizer {
        quote_turn_prefix_tokens: 0,
        ..windowed(&script, &clock, 3_500, 400)
    };
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 20,
        ..CompactorConfig::new(summarizer)
    })
    .unwrap();
    let estimator = CharEstimator::default();
    let request = Request {
        require_reduction: false,
        input_token_budget: Some(0),
        estimator: &estimator,
        ..Request::new(&turn)
    };
    run(compactor.compact(&request, &Signal::default())).unwrap();
    let requests = script.requests.borrow();
    assert!(requests.len() > 1, "{} calls", requests.len());
    assert!(requests.iter().all(|r| r.purpose == Purpose::TurnPrefix));
    assert!(requests.iter().all(|r| window_use(r) <= 3_500));
    assert!(
        requests[1]
            .prompt
            .contains("<turn-prefix-summary>\nS0\n</turn-prefix-summary>")
    );
}

#[test]
fn a_window_that_cannot_hold_a_summary_and_its_update_is_refused_at_construction() {
    let (script, clock) = (Script::default(), FakeClock::default());
    let error = Compactor::new(CompactorConfig::new(windowed(&script, &clock, 1_000, 500)))
        .err()
        .unwrap();
    assert_eq!(error.code(), "invalid_config");
    assert!(error.to_string().contains("contextWindowTokens"), "{error}");
}

/// Counts a character a token and each blank line 50 more: records joined into a chunk cost
/// more than their counts added up.
struct BlankLinesCost;

impl Estimator for BlankLinesCost {
    fn count_tokens(&self, text: &str) -> std::result::Result<u64, BoxError> {
        Ok((text.chars().count() + 50 * text.matches("\n\n").count()) as u64)
    }
    fn framing_tokens(&self) -> u64 {
        0
    }
}

#[test]
fn a_chunk_is_counted_as_sent_not_as_the_sum_of_its_records() {
    let (script, clock) = (Script::new(answers(8)), FakeClock::default());
    let window = 6_000;
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 0,
        ..CompactorConfig::new(windowed(&script, &clock, window, 500))
    })
    .unwrap();
    let history = long_history();
    let request = Request {
        require_reduction: false,
        input_token_budget: Some(0),
        estimator: &BlankLinesCost,
        ..Request::new(&history)
    };
    run(compactor.compact(&request, &Signal::default())).unwrap();
    let requests = script.requests.borrow();
    assert!(requests.len() > 1);
    for request in requests.iter() {
        let sent = BlankLinesCost.count_tokens(&request.system_prompt).unwrap()
            + BlankLinesCost.count_tokens(&request.prompt).unwrap()
            + 500;
        assert!(sent <= window, "{sent} tokens");
    }
}

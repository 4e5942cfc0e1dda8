//! Compactor configuration: defaults and every rejected value.

mod common;

use common::*;
use context_compaction::*;

fn config(keep: Option<f64>, ratio: Option<f64>) -> Result<Compactor<Fixed>> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        trigger_ratio: ratio,
        summarizer: Some(Fixed::new("S")),
        file_tracking: None,
    })
}

#[test]
fn defaults_keep_twenty_thousand_tokens_and_trigger_at_the_budget() {
    let compactor = config(None, None).unwrap();
    assert_eq!(compactor.keep_recent_tokens(), 20_000);
    assert_eq!(compactor.trigger_ratio(), 1.0);
}

#[test]
fn keep_recent_tokens_must_be_a_whole_non_negative_number() {
    assert_eq!(config(Some(0.0), None).unwrap().keep_recent_tokens(), 0);
    assert_eq!(
        config(Some(2000.0), None).unwrap().keep_recent_tokens(),
        2000
    );
    for bad in [-1.0, -0.5, f64::NAN, 1.5, f64::INFINITY, 1e300] {
        let err = config(Some(bad), None).unwrap_err();
        assert_eq!(err.code(), "invalid_config", "{bad}");
        assert!(err.to_string().contains("keepRecentTokens"), "{err}");
    }
}

#[test]
fn trigger_ratio_must_be_positive_and_finite_and_may_exceed_one() {
    assert_eq!(config(None, Some(0.8)).unwrap().trigger_ratio(), 0.8);
    assert_eq!(config(None, Some(2.5)).unwrap().trigger_ratio(), 2.5);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = config(None, Some(bad)).unwrap_err();
        assert!(matches!(err, Error::InvalidConfig { .. }), "{bad}");
        assert!(err.to_string().contains("triggerRatio"), "{err}");
    }
}

#[test]
fn a_summarizer_is_required() {
    let err = Compactor::<Fixed>::new(CompactorConfig {
        keep_recent_tokens: None,
        trigger_ratio: None,
        summarizer: None,
        file_tracking: None,
    })
    .unwrap_err();
    assert_eq!(err.code(), "invalid_config");
    assert!(err.to_string().contains("summarizer is required"));
}

#[test]
fn a_generator_summarizers_model_must_be_non_blank() {
    let (script, clock) = (Script::default(), FakeClock::default());
    for model in ["", "   ", "\n\t"] {
        let summarizer = GeneratorSummarizer::new(&script, &clock, model);
        let err = Compactor::new(CompactorConfig::new(summarizer)).unwrap_err();
        assert_eq!(err.code(), "invalid_config");
        assert!(err.to_string().contains("model"), "{err}");
    }
    assert!(
        Compactor::new(CompactorConfig::new(GeneratorSummarizer::new(
            &script, &clock, "m"
        )))
        .is_ok()
    );
}

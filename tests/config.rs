//! Compactor configuration: defaults and every rejected value.

mod common;

use common::*;
use context_compaction::*;

fn config(ratio: f64) -> Result<Compactor<Fixed>> {
    Compactor::new(CompactorConfig {
        trigger_ratio: ratio,
        ..CompactorConfig::new(Fixed::new("S"))
    })
}

#[test]
fn defaults_keep_twenty_thousand_tokens_and_trigger_at_the_budget() {
    let compactor = Compactor::new(CompactorConfig::new(Fixed::new("S"))).unwrap();
    assert_eq!(compactor.keep_recent_tokens(), 20_000);
    assert_eq!(compactor.trigger_ratio(), 1.0);
}

// `keepRecentTokens` that is not a whole number ≥ 0, and a missing summarizer, are the binding
// layer's to reject (tests/js/errors.test.mjs): here the types rule them out.

#[test]
fn trigger_ratio_must_be_positive_and_finite_and_may_exceed_one() {
    assert_eq!(config(0.8).unwrap().trigger_ratio(), 0.8);
    assert_eq!(config(2.5).unwrap().trigger_ratio(), 2.5);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = config(bad).unwrap_err();
        assert!(matches!(err, Error::InvalidConfig { .. }), "{bad}");
        assert!(err.to_string().contains("triggerRatio"), "{err}");
    }
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

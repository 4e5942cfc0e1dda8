//! The heuristic against the o200k tokenizer: on the real calibration session, each category
//! within ±4% and the whole within ±2% (the o200k totals come from `bench/accuracy.mjs`); on
//! held-out text from npm, per kind (`bench/heuristic.mjs`).

#[path = "support/categories.rs"]
mod categories;

use categories::{CATEGORIES, heuristic_totals};

#[test]
fn the_heuristic_tracks_o200k_on_a_real_session() {
    let session = include_str!("fixtures/large-session.jsonl");
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/o200k-categories.json")).unwrap();
    let heuristic = heuristic_totals(session);
    let (mut ours, mut theirs) = (0, 0);
    for (name, estimate) in CATEGORIES.iter().zip(heuristic) {
        let o200k = reference[name].as_u64().unwrap();
        let ratio = estimate as f64 / o200k as f64;
        assert!(
            (0.96..=1.04).contains(&ratio),
            "{name}: {estimate} vs o200k {o200k} ({ratio:.3})"
        );
        ours += estimate;
        theirs += o200k;
    }
    let ratio = ours as f64 / theirs as f64;
    assert!(
        (0.98..=1.02).contains(&ratio),
        "overall {ours} vs o200k {theirs} ({ratio:.3})"
    );
}

/// The heuristic against o200k on a sample of the held-out corpus (texts from npm packages the
/// weights were not fitted on; `bench/heuristic.mjs` writes it): CJK, emoji, base64, digit
/// runs, Cyrillic and accented Latin within ±15%, prose and code within ±10%.
#[test]
fn the_heuristic_tracks_o200k_on_held_out_text() {
    let sample: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/o200k-kinds.json")).unwrap();
    let heuristic = context_compaction::Heuristic::new();
    for (kind, limit) in [
        ("cjk", 0.15),
        ("emoji", 0.15),
        ("base64", 0.15),
        ("digits", 0.15),
        ("cyrillic", 0.15),
        ("latin", 0.15),
        ("prose", 0.1),
        ("code", 0.1),
    ] {
        let (mut ours, mut theirs) = (0, 0);
        for entry in sample[kind].as_array().unwrap() {
            ours += heuristic.count(entry["text"].as_str().unwrap());
            theirs += entry["o200k"].as_u64().unwrap();
        }
        let ratio = ours as f64 / theirs as f64;
        assert!(
            (1.0 - limit..=1.0 + limit).contains(&ratio),
            "{kind}: {ours} vs o200k {theirs} ({ratio:.3})"
        );
    }
}

//! The heuristic against the o200k tokenizer on the real calibration session: each category
//! within ±10%, the whole within ±5%. The o200k totals come from `bench/accuracy.mjs`.

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
            (0.9..=1.1).contains(&ratio),
            "{name}: {estimate} vs o200k {o200k} ({ratio:.3})"
        );
        ours += estimate;
        theirs += o200k;
    }
    let ratio = ours as f64 / theirs as f64;
    assert!(
        (0.95..=1.05).contains(&ratio),
        "overall {ours} vs o200k {theirs} ({ratio:.3})"
    );
}

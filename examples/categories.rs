//! Prints the heuristic's token totals per category for a session log, as JSON, for
//! `bench/accuracy.mjs`: `cargo run --example categories -- tests/fixtures/large-session.jsonl`.

#[path = "../tests/support/categories.rs"]
mod categories;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/fixtures/large-session.jsonl".to_owned());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let totals = categories::heuristic_totals(&text);
    let fields: Vec<String> = categories::CATEGORIES
        .iter()
        .zip(totals)
        .map(|(name, total)| format!("\"{name}\": {total}"))
        .collect();
    println!("{{{}}}", fields.join(", "));
}

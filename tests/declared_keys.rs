//! The published types cannot drift from what the code reads: every key a format reader, the
//! config or the bindings read from a host object, and every option key the JavaScript entries
//! read, is declared in the package's `.d.ts` files (`pkg-template/*.d.ts`, shipped as they
//! are). A key read but not declared fails here with the file that reads it; a key that is
//! read on purpose without a declaration (a protocol of the host, not a field of ours) is in
//! [`UNDECLARED`] with the reason.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Keys the code reads that the `.d.ts` files rightly do not declare, and why.
const UNDECLARED: &[(&str, &str)] = &[
    (
        "then",
        "a thenable is told apart from a value (host protocol)",
    ),
    (
        "addEventListener",
        "an AbortSignal is listened to (host API)",
    ),
    (
        "statusCode",
        "an HTTP error's status decides a retry (host errors)",
    ),
    ("retryable", "a stream error the host marks retryable"),
    (
        "isRetryable",
        "the AI SDK's errors say whether a retry may help",
    ),
    ("path", "a fault the package's own walker returns (host.js)"),
    ("name", "an Error's name (StreamError, AbortError)"),
    ("message", "an Error's message (context-overflow detection)"),
    ("cause", "an Error's cause"),
    (
        "code",
        "a CompactionError's code read back from a host error",
    ),
    (
        "action",
        "a Responses `*_call` item's input (computer calls), typed by its index signature",
    ),
];

/// Functions whose first string argument is a key read from a host object or a message, in
/// Rust (`Obj`'s getters in the readers, `src/options/`'s readers of option objects,
/// `fields.rs` and `Reflect::get` in the bindings).
const RUST_READERS: &[&str] = &[
    "get",
    "string",
    "required",
    "required_str",
    "bool",
    "array",
    "Spot::new",
    "field",
    "read_field",
    "optional_whole",
    "optional_number",
    "optional_bool",
    "nested",
    "whole",
    "number",
    "flag",
    "must_flag",
    "function",
    "method",
    "peek",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn is_key(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first string literal at the top level of the argument list that starts at `args` (just
/// after `(`), when it comes before the list closes (one inside a closure passed is no key).
fn first_string_arg(args: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return None,
            ')' | ']' | '}' => depth -= 1,
            '"' if depth == 0 => {
                let rest = &args[i + 1..];
                return rest.find('"').map(|end| &rest[..end]);
            }
            _ => {}
        }
    }
    None
}

/// The string items of every list of keys, named `KEYS` or `…_KEYS` (`const KEYS: &[&str] =
/// &[...]` in Rust, `const SHARED_KEYS = [...]` in JavaScript), in `source`.
fn keys_lists(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in source.match_indices("KEYS") {
        let after = &source[at..];
        // The name ends here: `KEYS` or `…_KEYS`, not `KEYSTONE`.
        if after[4..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(eq) = after.find('=') else { continue };
        // `KEYS` used, not defined: the list must follow its `=` at once.
        if after[..eq].contains(['\n', '(', ')']) {
            continue;
        }
        let list = &after[eq..];
        let Some(open) = list.find('[') else { continue };
        let Some(close) = list.find(']') else {
            continue;
        };
        if open > close {
            continue;
        }
        for item in list[open + 1..close].split(',') {
            let item = item.trim().trim_matches('"');
            if is_key(item) {
                out.push(item.to_string());
            }
        }
    }
    out
}

/// Every key `source` (Rust) reads, with [`RUST_READERS`] and `KEYS` lists.
fn rust_keys(source: &str) -> Vec<String> {
    let code: String = source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = keys_lists(&code);
    for (at, _) in code.match_indices('(') {
        let before = &code[..at];
        let reads = RUST_READERS.iter().any(|reader| {
            before.ends_with(reader)
                && !before[..before.len() - reader.len()]
                    .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        });
        if !reads {
            continue;
        }
        if let Some(key) = first_string_arg(&code[at + 1..]).filter(|k| is_key(k)) {
            out.push(key.to_string());
        }
    }
    out
}

/// The identifier that ends `text` (empty when it ends otherwise).
fn name_before(text: &str) -> &str {
    let start = text
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &text[start..]
}

/// Every property name declared in a `.d.ts` text: `name:`, `name?:` (quoted or not) and
/// methods, `name(` or `name?(`.
fn declared(dts: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in dts.match_indices([':', '(']) {
        let before = dts[..at].trim_end_matches('?').trim_end_matches('"');
        let name = name_before(before);
        // A part of a longer quoted name (`"tool-call"`) is no name.
        let rest = &before[..before.len() - name.len()];
        if is_key(name) && !rest.ends_with('-') {
            out.insert(name.to_string());
        }
    }
    out
}

/// The keys read and not declared, each with a file that reads it.
fn undeclared(reads: &[(String, PathBuf)], declared: &BTreeSet<String>) -> Vec<String> {
    let allowed: BTreeSet<&str> = UNDECLARED.iter().map(|(k, _)| *k).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (key, file) in reads {
        if declared.contains(key) || allowed.contains(key.as_str()) || !seen.insert(key) {
            continue;
        }
        let file = file.strip_prefix(root()).unwrap_or(file).display();
        out.push(format!("{key} (read in {file})"));
    }
    out
}

/// Sources that read no caller's object: the seam reads the package's own functions.
const OWN_OBJECTS_ONLY: &[&str] = &["src/wasm/seam.rs"];

fn reads() -> Vec<(String, PathBuf)> {
    let mut reads = Vec::new();
    let base = root();
    let sources = files(&base.join("src/formats"), "rs")
        .into_iter()
        .chain(files(&base.join("src/options"), "rs"))
        .chain(files(&base.join("src/wasm"), "rs"))
        .filter(|file| !OWN_OBJECTS_ONLY.iter().any(|own| file.ends_with(own)));
    for file in sources {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        reads.extend(rust_keys(&text).into_iter().map(|k| (k, file.clone())));
    }
    for file in files(&base.join("pkg-template"), "js") {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        reads.extend(keys_lists(&text).into_iter().map(|k| (k, file.clone())));
    }
    reads
}

fn published() -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for file in files(&root().join("pkg-template"), "ts") {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        all.extend(declared(&text));
    }
    all
}

#[test]
fn every_key_read_is_declared() {
    let missing = undeclared(&reads(), &published());
    assert!(
        missing.is_empty(),
        "keys read from host objects but missing from pkg-template/*.d.ts (declare them, or \
         add them to UNDECLARED with the reason): {missing:?}"
    );
}

#[test]
fn the_scan_sees_the_keys_it_must() {
    let reads = reads();
    let read: BTreeSet<&str> = reads.iter().map(|(k, _)| k.as_str()).collect();
    // One of each way of reading: a reader's KEYS, a nested block key, a config field, a
    // number option, an option list of an AI SDK entry, an OpenAI and an Anthropic key.
    for key in [
        "stopReason",
        "arguments",
        "summarizer",
        "keepRecentTokens",
        "contextWindowTokens",
        "convertToModelMessages",
        "tool_calls",
        "tool_use_id",
        "inputTokenBudget",
    ] {
        assert!(read.contains(key), "the scan no longer sees {key:?} read");
    }
    assert!(reads.len() > 100, "only {} reads found", reads.len());
}

#[test]
fn a_key_dropped_from_the_types_fails() {
    let reads = reads();
    let mut types = published();
    types.remove("keepRecentTokens");
    types.remove("toolCallId");
    let missing = undeclared(&reads, &types);
    assert!(missing.iter().any(|m| m.starts_with("keepRecentTokens ")));
    assert!(missing.iter().any(|m| m.starts_with("toolCallId ")));
}

#[test]
fn every_undeclared_key_is_still_read() {
    let reads = reads();
    let read: BTreeSet<&str> = reads.iter().map(|(k, _)| k.as_str()).collect();
    for (key, why) in UNDECLARED {
        assert!(
            read.contains(key),
            "{key:?} ({why}) is no longer read: drop it"
        );
    }
}

#[test]
fn the_parsers_of_this_test() {
    assert_eq!(
        first_string_arg(r#"r, "content", Shape::Blocks)"#),
        Some("content")
    );
    assert_eq!(
        rust_keys(r#"r.get("a"); target("b"); get(x, "c"); X::new("d"); Spot::new(r, "e")"#),
        ["a", "c", "e"]
    );
    assert_eq!(first_string_arg("i).map(|x| \"no\")"), None);
    assert_eq!(first_string_arg("&mut |a| f(\"no\"))"), None);
    assert_eq!(
        keys_lists("const KEYS = [\"a\", \"b\"];\nKEYS.map(read)\nconst CHAT_KEYS = [\"c\"]"),
        ["a", "b", "c"]
    );
    let d =
        declared("interface X { a: number; b?: string; \"c-d\"?: 1; readonly e: T; f?(x: 1): 2 }");
    assert_eq!(d.into_iter().collect::<Vec<_>>(), ["a", "b", "e", "f", "x"]);
}

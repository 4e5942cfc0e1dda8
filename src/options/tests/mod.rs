//! The option rules over a host of plain values: defaults, checks, error texts and places.

use super::*;
use crate::error::Error;

mod call;
mod handed;
mod pinned;
mod request;
mod thrown;

/// A host value: a throwing key is `Throws`.
#[derive(Debug, Clone)]
pub(super) enum V {
    Null,
    Bool(bool),
    Num(f64),
    Str(&'static str),
    Func,
    Obj(Vec<(&'static str, V)>),
    Arr(Vec<V>),
    Throws,
}

impl Host<()> for V {
    fn field(&self, key: &str, path: &str) -> Result<V> {
        let V::Obj(fields) = self else {
            return Ok(V::Null);
        };
        match fields.iter().find(|(k, _)| *k == key) {
            Some((_, V::Throws)) => Err(Error::invalid_request(format!(
                "{path}.{key}: reading it threw: boom"
            ))),
            Some((_, v)) => Ok(v.clone()),
            None => Ok(V::Null),
        }
    }
    fn got(&self) -> Got {
        match self {
            V::Null | V::Throws => Got::Absent,
            V::Bool(b) => Got::Bool(*b),
            V::Num(n) => Got::Number(*n),
            V::Str(_) => Got::Text,
            V::Func => Got::Function,
            V::Obj(_) | V::Arr(_) => Got::Object,
        }
    }
    fn string(&self) -> Option<String> {
        match self {
            V::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }
    fn type_of(&self) -> String {
        match self {
            V::Num(_) => "number",
            V::Bool(_) => "boolean",
            _ => "object",
        }
        .to_owned()
    }
    fn peek(&self, key: &str) -> V {
        self.field(key, "").unwrap_or(V::Null)
    }
    fn list(&self, _path: &str) -> Result<Option<V>> {
        Ok(matches!(self, V::Arr(_)).then(|| self.clone()))
    }
    fn elements(&self) -> Vec<V> {
        match self {
            V::Arr(items) => items.clone(),
            _ => Vec::new(),
        }
    }
    fn json(&self, path: &str) -> Result<String> {
        Ok(match self {
            V::Null | V::Func => "null".to_owned(),
            V::Throws => {
                return Err(Error::invalid_request(format!(
                    "{path}: cannot be read as JSON"
                )));
            }
            V::Bool(b) => b.to_string(),
            V::Num(n) => n.to_string(),
            V::Str(s) => format!("{s:?}"),
            V::Arr(items) => {
                let items: Result<Vec<String>> = items.iter().map(|v| v.json(path)).collect();
                format!("[{}]", items?.join(","))
            }
            V::Obj(fields) => {
                let fields: Result<Vec<String>> = fields
                    .iter()
                    .map(|(k, v)| Ok(format!("{k:?}:{}", v.json(path)?)))
                    .collect();
                format!("{{{}}}", fields?.join(","))
            }
        })
    }
}

fn app(extra: Vec<(&'static str, V)>) -> V {
    let mut fields = vec![("summarizer", V::Obj(vec![("summarize", V::Func)]))];
    fields.extend(extra);
    V::Obj(fields)
}

fn config_error(config: &V) -> String {
    match compactor::<_, _, true>(config) {
        Err(Error::InvalidConfig { message, .. }) => message,
        Err(other) => panic!("not a config error: {other}"),
        Ok(_) => panic!("read"),
    }
}

#[test]
fn a_config_takes_its_defaults() {
    let read = compactor::<_, _, true>(&app(vec![])).unwrap();
    assert!(read.cache_facts);
    assert!(!read.config.trim_oversized);
    assert_eq!(read.config.keep_recent_tokens, 20_000);
    assert_eq!(read.config.trigger_ratio, 1.0);
    assert!(read.config.clearing.is_none());
    assert!(read.before_commit.is_none());
    assert!(matches!(
        read.summarizer,
        Some(SummarizerOptions::Application { .. })
    ));
}

#[test]
fn a_config_reads_every_key() {
    let config = app(vec![
        ("cacheFacts", V::Bool(false)),
        ("trimOversized", V::Bool(true)),
        ("keepRecentTokens", V::Num(5.0)),
        ("triggerRatio", V::Num(0.5)),
        ("beforeCommit", V::Func),
        (
            "fileTracking",
            V::Obj(vec![("readTools", V::Arr(vec![V::Str("cat")]))]),
        ),
        (
            "clearing",
            V::Obj(vec![
                ("protectRecentTokens", V::Num(7.0)),
                ("neverClear", V::Arr(vec![V::Str("keep")])),
                ("clearArguments", V::Bool(true)),
            ]),
        ),
    ]);
    let read = compactor::<_, _, true>(&config).unwrap();
    assert!(!read.cache_facts);
    assert!(read.config.trim_oversized);
    assert_eq!(read.config.keep_recent_tokens, 5);
    assert_eq!(read.config.trigger_ratio, 0.5);
    assert!(read.before_commit.is_some());
    assert_eq!(read.config.file_tracking.read_tools, ["cat"]);
    let clearing = read.config.clearing.unwrap();
    assert_eq!(clearing.protect_recent_tokens, Some(7));
    assert_eq!(clearing.never_clear, ["keep"]);
    assert_eq!(clearing.clear_arguments, Some(true));
    assert_eq!(clearing.file_tracking.read_tools, ["cat"]);
}

#[test]
fn a_module_that_never_summarizes_reads_no_summarizer() {
    let read = compactor::<_, _, false>(&V::Obj(vec![("beforeCommit", V::Num(1.0))])).unwrap();
    assert!(read.summarizer.is_none() && read.before_commit.is_none());
}

#[test]
fn a_generator_reads_its_settings() {
    let summarizer = V::Obj(vec![
        ("generate", V::Func),
        ("model", V::Str("m")),
        ("systemPrompt", V::Str("be brief")),
        ("maxOutputTokens", V::Num(100.0)),
        ("quoteTurnPrefixTokens", V::Num(0.0)),
        (
            "retry",
            V::Obj(vec![("delaysMs", V::Arr(vec![V::Num(5.0)]))]),
        ),
    ]);
    let read = compactor::<_, _, true>(&V::Obj(vec![("summarizer", summarizer)])).unwrap();
    let Some(SummarizerOptions::Generator { settings, .. }) = read.summarizer else {
        panic!("no generator");
    };
    assert_eq!(settings.model, "m");
    assert_eq!(settings.system_prompt.as_deref(), Some("be brief"));
    assert_eq!(settings.max_output_tokens, Some(100));
    assert_eq!(settings.quote_turn_prefix_tokens, 0);
    assert_eq!(settings.context_window_tokens, None);
    assert_eq!(settings.retry.delays, [std::time::Duration::from_millis(5)]);
}

#[test]
fn config_errors_name_the_place() {
    let cases: Vec<(V, &str)> = vec![
        (V::Num(1.0), "config: expected an object"),
        (V::Obj(vec![]), "a summarizer is required"),
        (
            app(vec![("cacheFacts", V::Num(1.0))]),
            "config.cacheFacts must be a boolean",
        ),
        (
            app(vec![("keepRecentTokens", V::Str("x"))]),
            "config.keepRecentTokens must be a number",
        ),
        (
            app(vec![("keepRecentTokens", V::Num(1.5))]),
            "config.keepRecentTokens must be a whole number between 0 and 2^53-1, got 1.5",
        ),
        (
            app(vec![("beforeCommit", V::Num(1.0))]),
            "config.beforeCommit must be a function",
        ),
        (
            app(vec![("keepRecentTokens", V::Throws)]),
            "config.keepRecentTokens: reading it threw: boom",
        ),
        (
            app(vec![("fileTracking", V::Arr(vec![]))]),
            "config.fileTracking must be an object { readTools, modifyTools, pathKeys }",
        ),
        (
            app(vec![(
                "fileTracking",
                V::Obj(vec![("pathKeys", V::Arr(vec![V::Num(1.0)]))]),
            )]),
            "config.fileTracking.pathKeys must be an array of strings",
        ),
        (
            app(vec![("clearing", V::Num(1.0))]),
            "config.clearing must be a boolean or an object { protectRecentTokens, neverClear, clearArguments }",
        ),
        (
            app(vec![(
                "clearing",
                V::Obj(vec![("neverClear", V::Str("x"))]),
            )]),
            "config.clearing.neverClear must be an array of tool names",
        ),
        (
            app(vec![(
                "clearing",
                V::Obj(vec![("clearArguments", V::Num(1.0))]),
            )]),
            "config.clearing.clearArguments: expected a boolean",
        ),
    ];
    for (config, expected) in cases {
        assert_eq!(config_error(&config), expected);
    }
}

#[test]
fn summarizer_errors_name_the_place() {
    let with = |fields: Vec<(&'static str, V)>| V::Obj(vec![("summarizer", V::Obj(fields))]);
    let generate = |extra: Vec<(&'static str, V)>| {
        let mut fields = vec![("generate", V::Func), ("model", V::Str("m"))];
        fields.extend(extra);
        with(fields)
    };
    let cases: Vec<(V, &str)> = vec![
        (
            V::Obj(vec![("summarizer", V::Func)]),
            "config.summarizer: expected an object",
        ),
        (
            with(vec![]),
            "config.summarizer: expected a generate or a summarize function",
        ),
        (
            with(vec![("generate", V::Func), ("summarize", V::Func)]),
            "config.summarizer: give either generate or summarize, not both",
        ),
        (
            with(vec![("generate", V::Func)]),
            "summarizer.model must be a non-blank string",
        ),
        (
            generate(vec![("systemPrompt", V::Num(1.0))]),
            "summarizer.systemPrompt must be a string",
        ),
        (
            generate(vec![("retry", V::Arr(vec![]))]),
            "summarizer.retry must be an object { delaysMs }",
        ),
        (
            generate(vec![("retry", V::Obj(vec![("delaysMs", V::Num(1.0))]))]),
            "summarizer.retry.delaysMs must be an array of milliseconds",
        ),
        (
            generate(vec![(
                "retry",
                V::Obj(vec![("delaysMs", V::Arr(vec![V::Str("1")]))]),
            )]),
            "summarizer.retry.delaysMs[0] must be a number",
        ),
        (
            generate(vec![("maxOutputTokens", V::Num(-1.0))]),
            "summarizer.maxOutputTokens must be a whole number between 0 and 2^53-1, got -1",
        ),
    ];
    for (config, expected) in cases {
        assert_eq!(config_error(&config), expected);
    }
}

#[test]
fn manager_options_take_defaults_and_check_in_order() {
    let none = |_: &V| Ok(());
    let read = manager(&V::Obj(vec![]), none).unwrap();
    let defaults = crate::manager::ManagerConfig::default();
    assert_eq!(read.config.context_window_tokens, 0);
    assert_eq!(read.config.reserve_tokens, defaults.reserve_tokens);
    assert_eq!(read.config.ahead_ratio, defaults.ahead_ratio);
    assert!(read.on_event.is_none());
    let options = V::Obj(vec![
        ("contextWindowTokens", V::Num(1000.0)),
        ("reserveTokens", V::Num(10.0)),
        ("aheadRatio", V::Num(0.5)),
        ("onEvent", V::Func),
    ]);
    let read = manager(&options, none).unwrap();
    assert_eq!(read.config.context_window_tokens, 1000);
    assert_eq!(read.config.reserve_tokens, 10);
    assert_eq!(read.config.ahead_ratio, 0.5);
    assert!(read.on_event.is_some());
    let error = |options: V| match manager(&options, |_| Err(Error::invalid_request("bad"))) {
        Err(Error::InvalidConfig { message, .. }) => message,
        _ => panic!("no config error"),
    };
    // The estimator is checked before `onEvent` is read.
    assert_eq!(error(V::Obj(vec![("onEvent", V::Num(1.0))])), "bad");
    let message = |options: V| match manager(&options, none) {
        Err(Error::InvalidConfig { message, .. }) => message,
        _ => panic!("no config error"),
    };
    assert_eq!(
        message(V::Obj(vec![("onEvent", V::Num(1.0))])),
        "options.onEvent must be a function"
    );
    assert_eq!(
        message(V::Obj(vec![("aheadRatio", V::Num(2.0))])),
        "options.aheadRatio must be a number above 0 and at most 1"
    );
}

#[test]
fn request_readers_word_their_errors() {
    let object = V::Obj(vec![
        ("reserveTokens", V::Str("x")),
        ("requireReduction", V::Num(1.0)),
        ("focus", V::Str("  ")),
        ("onEvent", V::Num(1.0)),
    ]);
    let message = |r: Result<()>| r.unwrap_err().to_string();
    assert!(
        message(number(&object, "reserveTokens", "p").map(drop))
            .ends_with("p.reserveTokens must be a number")
    );
    assert!(
        message(flag(&object, "requireReduction", "p").map(drop))
            .ends_with("p.requireReduction: expected a boolean")
    );
    assert!(message(text(&V::Num(1.0), "p.t").map(drop)).ends_with("p.t: expected a string"));
    let wrong = |place: String| Error::invalid_request(format!("{place}: expected a function"));
    let f = function(&object, "onEvent", "p", wrong).map(drop);
    assert!(message(f).ends_with("p.onEvent: expected a function"));
    assert_eq!(focus(&object, "p").unwrap(), None);
    assert_eq!(whole(&object, "keepRecentTokens", "p").unwrap(), None);
}

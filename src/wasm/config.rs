//! Reading a `Compactor` config object: `{ keepRecentTokens, triggerRatio, summarizer,
//! cacheFacts, fileTracking, clearing, trimOversized }`. Every problem is `invalid_config`.

use js_sys::Array;
#[cfg(feature = "full")]
use js_sys::Function;
use wasm_bindgen::prelude::*;

#[cfg(feature = "full")]
use super::bridge::JsGenerator;
use super::bridge::{Hosted, JsApplication, JsSummarizer};
use super::fields::{field, optional_number, optional_whole};
use super::host;
#[cfg(feature = "full")]
use super::timer::JsSleeper;
use crate::compactor::{Compactor, CompactorConfig};
use crate::error::{Error, Result};
#[cfg(feature = "full")]
use crate::generator::{DEFAULT_QUOTE_TURN_PREFIX_TOKENS, GeneratorSummarizer};
#[cfg(feature = "full")]
use crate::retry::RetryPolicy;
use crate::summary::FileTracking;

/// The core compactor (with its clearing policy) and whether the facts cache is on.
pub(crate) fn read(config: &JsValue) -> Result<(Compactor<Hosted>, bool)> {
    if !config.is_object() {
        return Err(invalid("config: expected an object"));
    }
    let summarizer = read_field(config, "summarizer", "config")?;
    let cache = flag(config, "cacheFacts")?.unwrap_or(true);
    let trim_oversized = flag(config, "trimOversized")?.unwrap_or(false);
    let tracking = file_tracking(&read_field(config, "fileTracking", "config")?)?;
    let clearing = super::clearing::policy(
        &read_field(config, "clearing", "config")?,
        &tracking.clone().unwrap_or_default(),
    )?;
    let summarizer =
        summarizer_of(&summarizer)?.ok_or_else(|| invalid("a summarizer is required"))?;
    let mut core = CompactorConfig::new(Hosted {
        summarizer,
        before_commit: before_commit(config)?,
    });
    if let Some(keep) =
        optional_whole(config, "keepRecentTokens", "config").map_err(Error::into_config)?
    {
        core.keep_recent_tokens = keep;
    }
    if let Some(ratio) =
        optional_number(config, "triggerRatio", "config").map_err(Error::into_config)?
    {
        core.trigger_ratio = ratio;
    }
    core.file_tracking = tracking.unwrap_or_default();
    core.clearing = clearing;
    core.trim_oversized = trim_oversized;
    let compactor = Compactor::new(core)?;
    Ok((compactor, cache))
}

/// The boolean at `key` of `config`, `None` when missing or `null`.
fn flag(config: &JsValue, key: &str) -> Result<Option<bool>> {
    match read_field(config, key, "config")? {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| invalid(format!("config.{key} must be a boolean"))),
    }
}

/// The config's `beforeCommit` hook.
#[cfg(feature = "full")]
fn before_commit(config: &JsValue) -> Result<Option<Function>> {
    match read_field(config, "beforeCommit", "config")? {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => v
            .dyn_into::<Function>()
            .map(Some)
            .map_err(|_| invalid("config.beforeCommit must be a function")),
    }
}

/// The plan-only module commits no summary: the hook is not read.
#[cfg(not(feature = "full"))]
fn before_commit(_config: &JsValue) -> Result<Option<js_sys::Function>> {
    Ok(None)
}

/// The plan-only module never summarizes (its package entry hands it a summarizer of its own
/// that is never called): the summarizer is not read, and the code that reads and checks one
/// (generator options, retries) stays out of the module.
#[cfg(not(feature = "full"))]
fn summarizer_of(_value: &JsValue) -> Result<Option<JsSummarizer>> {
    Ok(Some(JsSummarizer::Application(JsApplication {
        this: JsValue::UNDEFINED,
        summarize: JsValue::UNDEFINED.unchecked_into(),
    })))
}

#[cfg(feature = "full")]
fn summarizer_of(value: &JsValue) -> Result<Option<JsSummarizer>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if !value.is_object() {
        return Err(invalid("config.summarizer: expected an object"));
    }
    let generate = read_field(value, "generate", "summarizer")?
        .dyn_into::<Function>()
        .ok();
    let summarize = read_field(value, "summarize", "summarizer")?
        .dyn_into::<Function>()
        .ok();
    match (generate, summarize) {
        (Some(_), Some(_)) => Err(invalid(
            "config.summarizer: give either generate or summarize, not both",
        )),
        (None, Some(summarize)) => Ok(Some(JsSummarizer::Application(JsApplication {
            this: value.clone(),
            summarize,
        }))),
        (Some(generate), None) => Ok(Some(JsSummarizer::Generator(generator(value, generate)?))),
        (None, None) => Err(invalid(
            "config.summarizer: expected a generate or a summarize function",
        )),
    }
}

#[cfg(feature = "full")]
fn generator(
    value: &JsValue,
    generate: Function,
) -> Result<GeneratorSummarizer<JsGenerator, JsSleeper>> {
    let model = read_field(value, "model", "summarizer")?
        .as_string()
        .ok_or_else(|| invalid("summarizer.model must be a non-blank string"))?;
    let system_prompt = match read_field(value, "systemPrompt", "summarizer")? {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(
            v.as_string()
                .ok_or_else(|| invalid("summarizer.systemPrompt must be a string"))?,
        ),
    };
    Ok(GeneratorSummarizer {
        generator: JsGenerator {
            this: value.clone(),
            generate,
        },
        sleeper: JsSleeper,
        model,
        system_prompt,
        max_output_tokens: optional_whole(value, "maxOutputTokens", "summarizer")
            .map_err(Error::into_config)?,
        retry: retry(&read_field(value, "retry", "summarizer")?)?,
        quote_turn_prefix_tokens: optional_whole(value, "quoteTurnPrefixTokens", "summarizer")
            .map_err(Error::into_config)?
            .unwrap_or(DEFAULT_QUOTE_TURN_PREFIX_TOKENS),
        context_window_tokens: optional_whole(value, "contextWindowTokens", "summarizer")
            .map_err(Error::into_config)?,
    })
}

#[cfg(feature = "full")]
fn retry(value: &JsValue) -> Result<RetryPolicy> {
    if value.is_undefined() || value.is_null() {
        return Ok(RetryPolicy::default());
    }
    object(value, "summarizer.retry", "{ delaysMs }")?;
    let delays = read_field(value, "delaysMs", "summarizer.retry")?;
    if delays.is_undefined() || delays.is_null() {
        return Ok(RetryPolicy::default());
    }
    let delays = list(&delays, "summarizer.retry.delaysMs")?
        .ok_or_else(|| invalid("summarizer.retry.delaysMs must be an array of milliseconds"))?;
    let delays = delays
        .iter()
        .enumerate()
        .map(|(i, ms)| {
            let path = format!("summarizer.retry.delaysMs[{i}]");
            let ms = ms
                .as_f64()
                .ok_or_else(|| invalid(format!("{path} must be a number")))?;
            RetryPolicy::delay(ms, &path).map_err(invalid)
        })
        .collect::<Result<_>>()?;
    Ok(RetryPolicy { delays })
}

/// Checks that an optional config section is an object (not a number, string or array).
fn object(value: &JsValue, path: &str, shape: &str) -> Result<()> {
    if !value.is_object() || list(value, path)?.is_some() {
        return Err(invalid(format!("{path} must be an object {shape}")));
    }
    Ok(())
}

/// A copy of a config array, or `None` when it is not one.
fn list(value: &JsValue, path: &str) -> Result<Option<Array>> {
    host::list(value, path).map_err(Error::into_config)
}

/// `{ readTools, modifyTools, pathKeys }`, each an array of strings; missing ones keep their
/// defaults.
fn file_tracking(value: &JsValue) -> Result<Option<FileTracking>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    object(
        value,
        "config.fileTracking",
        "{ readTools, modifyTools, pathKeys }",
    )?;
    let mut tracking = FileTracking::default();
    for (key, slot) in [
        ("readTools", &mut tracking.read_tools),
        ("modifyTools", &mut tracking.modify_tools),
        ("pathKeys", &mut tracking.path_keys),
    ] {
        let list = read_field(value, key, "config.fileTracking")?;
        if list.is_undefined() || list.is_null() {
            continue;
        }
        let path = format!("config.fileTracking.{key}");
        let names: Option<Vec<String>> =
            self::list(&list, &path)?.and_then(|list| list.iter().map(|v| v.as_string()).collect());
        *slot = names.ok_or_else(|| {
            invalid(format!(
                "config.fileTracking.{key} must be an array of strings"
            ))
        })?;
    }
    Ok(Some(tracking))
}

fn read_field(object: &JsValue, key: &str, path: &str) -> Result<JsValue> {
    field(object, key, path).map_err(Error::into_config)
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_config(message.into())
}

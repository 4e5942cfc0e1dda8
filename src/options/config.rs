//! A `Compactor`'s config `{ keepRecentTokens, triggerRatio, summarizer, cacheFacts,
//! fileTracking, clearing, trimOversized, beforeCommit }` and a `ContextManager`'s options
//! `{ contextWindowTokens, reserveTokens, aheadRatio, estimator, onEvent }`. Every problem is
//! `invalid_config`; keys are read in the order below, so the first problem met is reported.

use super::{Got, Host, function, names, number, section, whole};
use crate::clearing::ClearingPolicy;
use crate::compactor::CompactorConfig;
use crate::error::{Error, Result};
use crate::generator::{DEFAULT_QUOTE_TURN_PREFIX_TOKENS, GeneratorSummarizer};
use crate::manager::{ContextManager, ManagerConfig};
use crate::retry::RetryPolicy;
use crate::summary::FileTracking;

/// A `Compactor`'s config as read: the core config (its summarizer still to be made from
/// [`Settings::summarizer`]), the host's hook and whether the facts cache is on.
pub struct Settings<H> {
    /// Everything but the summarizer.
    pub config: CompactorConfig<()>,
    /// `None` when not read (a module that never summarizes).
    pub summarizer: Option<SummarizerOptions<H>>,
    /// `beforeCommit`, a function.
    pub before_commit: Option<H>,
    /// `cacheFacts` (default on).
    pub cache_facts: bool,
}

/// `config.summarizer`: an application's `summarize` or a model's `generate` with its
/// settings (the generator and sleeper are the host's to give).
pub enum SummarizerOptions<H> {
    /// `{ summarize }`, called on the summarizer object.
    Application {
        /// The summarizer object.
        this: H,
        /// Its `summarize`.
        summarize: H,
    },
    /// `{ generate, model, systemPrompt, maxOutputTokens, retry, quoteTurnPrefixTokens,
    /// contextWindowTokens }`.
    Generator {
        /// The summarizer object.
        this: H,
        /// Its `generate`.
        generate: H,
        /// The rest.
        settings: GeneratorSummarizer<(), ()>,
    },
}

/// Reads a `Compactor`'s config; without `SUMMARIZES` (a module that never summarizes)
/// neither `summarizer` nor `beforeCommit` is read, and the code that reads them is left out.
pub fn compactor<M, H: Host<M>, const SUMMARIZES: bool>(config: &H) -> Result<Settings<H>> {
    read_compactor::<M, H, SUMMARIZES>(config).map_err(Error::into_config)
}

fn read_compactor<M, H: Host<M>, const SUMMARIZES: bool>(config: &H) -> Result<Settings<H>> {
    if config.got() != Got::Object {
        return Err(invalid("config: expected an object"));
    }
    let summarizer = config.field("summarizer", "config")?;
    let cache_facts = cache_facts(config)?;
    let trim_oversized = must_flag(config, "trimOversized")?.unwrap_or(false);
    let tracking = file_tracking(&config.field("fileTracking", "config")?)?;
    let clearing = clearing(
        &config.field("clearing", "config")?,
        &tracking.clone().unwrap_or_default(),
    )?;
    let (summarizer, before_commit) = match SUMMARIZES {
        false => (None, None),
        true => {
            let summarizer =
                summarizer_of(&summarizer)?.ok_or_else(|| invalid("a summarizer is required"))?;
            let must_be = |place: String| invalid(text!(place, " must be a function"));
            (
                Some(summarizer),
                function(config, "beforeCommit", "config", must_be)?,
            )
        }
    };
    let mut core = CompactorConfig::new(());
    if let Some(keep) = whole(config, "keepRecentTokens", "config")? {
        core.keep_recent_tokens = keep;
    }
    if let Some(ratio) = number(config, "triggerRatio", "config")? {
        core.trigger_ratio = ratio;
    }
    core.file_tracking = tracking.unwrap_or_default();
    core.clearing = clearing;
    core.trim_oversized = trim_oversized;
    Ok(Settings {
        config: core,
        summarizer,
        before_commit,
        cache_facts,
    })
}

/// `cacheFacts` (default on). ChatPreview never turns the cache off: its module refuses the
/// option, and leaves out reading messages without the cache.
fn cache_facts<M, H: Host<M>>(config: &H) -> Result<bool> {
    if !cfg!(feature = "plan-api") {
        let value = config.field("cacheFacts", "config")?;
        return super::refused_if_given(&value, "config.cacheFacts").map(|()| true);
    }
    Ok(must_flag(config, "cacheFacts")?.unwrap_or(true))
}

/// The boolean at `key` of the config, `None` when missing or `null`.
fn must_flag<M, H: Host<M>>(config: &H, key: &str) -> Result<Option<bool>> {
    match config.field(key, "config")?.got() {
        Got::Absent => Ok(None),
        Got::Bool(b) => Ok(Some(b)),
        _ => Err(invalid(text!("config.", key, " must be a boolean"))),
    }
}

fn summarizer_of<M, H: Host<M>>(value: &H) -> Result<Option<SummarizerOptions<H>>> {
    match value.got() {
        Got::Absent => return Ok(None),
        Got::Object => {}
        _ => return Err(invalid("config.summarizer: expected an object")),
    }
    let this = value.clone();
    let method = |key: &str| -> Result<Option<H>> {
        let method = value.field(key, "summarizer")?;
        Ok((method.got() == Got::Function).then_some(method))
    };
    let generate = method("generate")?;
    let summarize = method("summarize")?;
    match (generate, summarize) {
        (Some(_), Some(_)) => Err(invalid(
            "config.summarizer: give either generate or summarize, not both",
        )),
        (None, Some(summarize)) => Ok(Some(SummarizerOptions::Application { this, summarize })),
        (Some(generate), None) => Ok(Some(SummarizerOptions::Generator {
            settings: generator(value)?,
            this,
            generate,
        })),
        (None, None) => Err(invalid(
            "config.summarizer: expected a generate or a summarize function",
        )),
    }
}

fn generator<M, H: Host<M>>(value: &H) -> Result<GeneratorSummarizer<(), ()>> {
    let model = value.field("model", "summarizer")?.string();
    let model = model.ok_or_else(|| invalid("summarizer.model must be a non-blank string"))?;
    let prompt = value.field("systemPrompt", "summarizer")?;
    let system_prompt = match prompt.got() {
        Got::Absent => None,
        _ => Some(
            prompt
                .string()
                .ok_or_else(|| invalid("summarizer.systemPrompt must be a string"))?,
        ),
    };
    Ok(GeneratorSummarizer {
        generator: (),
        sleeper: (),
        model,
        system_prompt,
        max_output_tokens: whole(value, "maxOutputTokens", "summarizer")?,
        retry: retry(&value.field("retry", "summarizer")?)?,
        quote_turn_prefix_tokens: whole(value, "quoteTurnPrefixTokens", "summarizer")?
            .unwrap_or(DEFAULT_QUOTE_TURN_PREFIX_TOKENS),
        context_window_tokens: whole(value, "contextWindowTokens", "summarizer")?,
    })
}

/// `summarizer.retry`: `{ delaysMs }`, each delay a timer's whole milliseconds.
fn retry<M, H: Host<M>>(value: &H) -> Result<RetryPolicy> {
    if matches!(value.got(), Got::Absent) {
        return Ok(RetryPolicy::default());
    }
    object(value, "summarizer.retry", "{ delaysMs }")?;
    let delays = value.field("delaysMs", "summarizer.retry")?;
    if matches!(delays.got(), Got::Absent) {
        return Ok(RetryPolicy::default());
    }
    let delays = delays
        .items("summarizer.retry.delaysMs")?
        .ok_or_else(|| invalid("summarizer.retry.delaysMs must be an array of milliseconds"))?;
    let delays = delays
        .iter()
        .enumerate()
        .map(|(i, ms)| {
            let path = text!("summarizer.retry.delaysMs[", i, "]");
            match ms.got() {
                Got::Number(ms) => RetryPolicy::delay(ms, &path).map_err(invalid),
                _ => Err(invalid(text!(path, " must be a number"))),
            }
        })
        .collect::<Result<_>>()?;
    Ok(RetryPolicy { delays })
}

/// Checks that an optional config section is an object (not a number, string or array).
fn object<M, H: Host<M>>(value: &H, path: &str, shape: &str) -> Result<()> {
    match section(value, path)? {
        true => Ok(()),
        false => Err(invalid(text!(path, " must be an object ", shape))),
    }
}

/// `{ readTools, modifyTools, pathKeys }`, each an array of strings; missing ones keep their
/// defaults.
fn file_tracking<M, H: Host<M>>(value: &H) -> Result<Option<FileTracking>> {
    if matches!(value.got(), Got::Absent) {
        return Ok(None);
    }
    let path = "config.fileTracking";
    // Only a summary's file lists and clearing's file reads use it; ChatPreview never passes it,
    // and its module leaves the reading out (the default tracking stays).
    if !cfg!(feature = "plan-api") {
        return Err(super::not_in_build(path));
    }
    object(value, path, "{ readTools, modifyTools, pathKeys }")?;
    let mut tracking = FileTracking::default();
    for (key, slot) in [
        ("readTools", &mut tracking.read_tools),
        ("modifyTools", &mut tracking.modify_tools),
        ("pathKeys", &mut tracking.path_keys),
    ] {
        let list = value.field(key, path)?;
        if matches!(list.got(), Got::Absent) {
            continue;
        }
        let place = text!(path, ".", key);
        *slot = names(&list, &place)?
            .ok_or_else(|| invalid(text!(place, " must be an array of strings")))?;
    }
    Ok(Some(tracking))
}

/// `config.clearing`: `undefined`, `null` or `false` (off, the default), `true` (on with the
/// defaults) or `{ protectRecentTokens, neverClear, clearArguments }`.
fn clearing<M, H: Host<M>>(value: &H, tracking: &FileTracking) -> Result<Option<ClearingPolicy>> {
    let file_tracking = tracking.clone();
    match value.got() {
        Got::Absent | Got::Bool(false) => return Ok(None),
        Got::Bool(true) => {
            return Ok(Some(ClearingPolicy {
                file_tracking,
                ..ClearingPolicy::default()
            }));
        }
        _ => {}
    }
    let path = "config.clearing";
    if !section(value, path)? {
        return Err(invalid(text!(
            path,
            " must be a boolean or an object { protectRecentTokens, neverClear, clearArguments }"
        )));
    }
    let never = value.field("neverClear", path)?;
    let never_clear = match never.got() {
        Got::Absent => Vec::new(),
        _ => names(&never, "config.clearing.neverClear")?
            .ok_or_else(|| invalid("config.clearing.neverClear must be an array of tool names"))?,
    };
    Ok(Some(ClearingPolicy {
        protect_recent_tokens: whole(value, "protectRecentTokens", path)?,
        never_clear,
        clear_arguments: super::flag(value, "clearArguments", path)?,
        file_tracking,
    }))
}

/// A `ContextManager`'s options as read: its core config, its `estimator` (checked by the
/// host's `check`, before `onEvent` is read) and its `onEvent` function.
pub struct ManagerOptions<H> {
    /// The core manager's config.
    pub config: ManagerConfig,
    /// `estimator`, as given.
    pub estimator: H,
    /// `onEvent`, a function.
    pub on_event: Option<H>,
}

/// Reads `{ contextWindowTokens, reserveTokens, aheadRatio, estimator, onEvent }`.
pub fn manager<M, H: Host<M>>(
    options: &H,
    check: impl Fn(&H) -> Result<()>,
) -> Result<ManagerOptions<H>> {
    read_manager(options, check).map_err(Error::into_config)
}

fn read_manager<M, H: Host<M>>(
    options: &H,
    check: impl Fn(&H) -> Result<()>,
) -> Result<ManagerOptions<H>> {
    let window = number(options, "contextWindowTokens", "options")?;
    let mut config = ManagerConfig {
        context_window_tokens: ManagerConfig::context_window(window, "options.contextWindowTokens")
            .map_err(invalid)?,
        ..ManagerConfig::default()
    };
    if let Some(reserve) = whole(options, "reserveTokens", "options")? {
        config.reserve_tokens = reserve;
    }
    let ahead = number(options, "aheadRatio", "options")?;
    config.ahead_ratio =
        ContextManager::ahead_ratio(ahead, "options.aheadRatio").map_err(invalid)?;
    let estimator = options.field("estimator", "options")?;
    check(&estimator)?;
    let must_be = |place: String| invalid(text!(place, " must be a function"));
    let on_event = function(options, "onEvent", "options", must_be)?;
    Ok(ManagerOptions {
        config,
        estimator,
        on_event,
    })
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_config(message.into())
}

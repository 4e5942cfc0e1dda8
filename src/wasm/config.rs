//! A `Compactor` from its config object: the core reads the options
//! ([`crate::options::compactor`]); this makes the summarizer of the host's functions.

use wasm_bindgen::prelude::*;

use super::bridge::{Hosted, JsApplication, JsSummarizer};
use crate::compactor::{Compactor, CompactorConfig};
use crate::error::Result;
use crate::options::SummarizerOptions;

/// The core compactor (with its clearing policy) and whether the facts cache is on. The
/// plan-only module never summarizes (its package entry hands it a summarizer of its own that
/// is never called): neither the summarizer nor `beforeCommit` is read, and the code that
/// reads and checks them stays out of the module.
pub(crate) fn read(config: &JsValue) -> Result<(Compactor<Hosted>, bool)> {
    let read = crate::options::compactor::<_, _, { cfg!(feature = "full") }>(config)?;
    let summarizer = match read.summarizer {
        Some(SummarizerOptions::Application { this, summarize }) => {
            JsSummarizer::Application(JsApplication {
                this,
                summarize: summarize.unchecked_into(),
            })
        }
        #[cfg(feature = "full")]
        Some(SummarizerOptions::Generator {
            this,
            generate,
            settings,
        }) => JsSummarizer::Generator(crate::GeneratorSummarizer {
            generator: super::bridge::JsGenerator {
                this,
                generate: generate.unchecked_into(),
            },
            sleeper: super::timer::JsSleeper,
            model: settings.model,
            system_prompt: settings.system_prompt,
            max_output_tokens: settings.max_output_tokens,
            retry: settings.retry,
            quote_turn_prefix_tokens: settings.quote_turn_prefix_tokens,
            context_window_tokens: settings.context_window_tokens,
        }),
        _ => JsSummarizer::Application(JsApplication {
            this: JsValue::UNDEFINED,
            summarize: JsValue::UNDEFINED.unchecked_into(),
        }),
    };
    let hosted = Hosted {
        summarizer,
        before_commit: read.before_commit.map(JsValue::unchecked_into),
    };
    let config = read.config;
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: config.keep_recent_tokens,
        trigger_ratio: config.trigger_ratio,
        summarizer: hosted,
        file_tracking: config.file_tracking,
        clearing: config.clearing,
        trim_oversized: config.trim_oversized,
    })?;
    Ok((compactor, read.cache_facts))
}

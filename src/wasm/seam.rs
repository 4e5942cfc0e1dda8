//! The one seam between the module and the package's own JavaScript: the functions the
//! bindings call (the error class, the guarded host readers of `pkg-template/host/host.js`, the
//! cold-path walker of `walk.js`, the sizer of `size.js`, the facts cache's lookup and store of
//! `cache.js`), registered together once by every
//! entry (`pkg-template/host/api.js`) and looked up here, with one error for a module used without
//! an entry.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{Error, Result};

/// The package's functions, by the name `__register` receives them under.
pub(crate) struct Package {
    /// `CompactionError` (`lib/error.js`).
    pub error_class: Function,
    /// The guarded readers of `host.js`: a copy of an array, of an object, of a body.
    pub list: Function,
    pub record: Function,
    pub bytes: Function,
    /// The package's own promise of what a caller's function returned (`host.js`).
    pub settle: Function,
    /// The cold-path walker (`walk.js`).
    pub walk: Function,
    /// The sizer's reads (`size.js`); none in the preview module.
    pub sizer: Option<Sizer>,
    /// The facts cache's lookup and store of many messages at once (`cache.js`).
    pub cache_get: Function,
    pub cache_set: Function,
}

/// The sizer's reads (`size.js`): sizes, roles, deferred `messageTokens`. Only planning a whole
/// request sizes messages lazily (feature `plan-api`): the preview module takes none, and its
/// pages do not carry `size.js`.
pub(crate) struct Sizer {
    pub sizes: Function,
    pub roles: Function,
    pub defer_tokens: Function,
}

thread_local! {
    static PACKAGE: RefCell<Option<Rc<Package>>> = const { RefCell::new(None) };
}

/// Registers the package's functions, `{ errorClass, list, record, bytes, settle, walk, sizes,
/// roles, deferTokens, cacheGet, cacheSet }` (the preview module reads no `sizes`, `roles` or
/// `deferTokens`); every entry calls it once after init. Throws (the package's own object only
/// ever comes here) when one is not a function.
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen(js_name = __register)]
pub fn register(functions: Object) -> std::result::Result<(), JsValue> {
    let get = |key: &str| -> std::result::Result<Function, JsValue> {
        Reflect::get(&functions, &key.into())?
            .dyn_into::<Function>()
            .map_err(|_| JsValue::from_str(&text!("__register: ", key, " is not a function")))
    };
    let package = Package {
        error_class: get("errorClass")?,
        list: get("list")?,
        record: get("record")?,
        bytes: get("bytes")?,
        settle: get("settle")?,
        walk: get("walk")?,
        #[cfg(feature = "plan-api")]
        sizer: Some(Sizer {
            sizes: get("sizes")?,
            roles: get("roles")?,
            defer_tokens: get("deferTokens")?,
        }),
        #[cfg(not(feature = "plan-api"))]
        sizer: None,
        cache_get: get("cacheGet")?,
        cache_set: get("cacheSet")?,
    };
    PACKAGE.with(|slot| *slot.borrow_mut() = Some(Rc::new(package)));
    Ok(())
}

/// The registered functions, `None` before registration.
pub(crate) fn registered() -> Option<Rc<Package>> {
    PACKAGE.with(|slot| slot.borrow().clone())
}

/// The registered functions, or the error of a module used without one of the package's
/// entries (each registers them).
pub(crate) fn package() -> Result<Rc<Package>> {
    registered().ok_or_else(|| {
        Error::invalid_config(
            "the package's JavaScript is not registered: import context-compaction through one of its entries",
        )
    })
}

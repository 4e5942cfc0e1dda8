//! The hash maps of the crate. In the wasm module they hash with foldhash, the hasher
//! `serde_json`'s map (without `std`) already brings: `std`'s default hasher, SipHash, was a
//! second hasher there, with its own code and its own copies of the table code per map type
//! (with fewer map types, 1.8 KB gzip: `bench/README.md`). On wasm32 neither is seeded from real
//! randomness (`std` takes its keys from two addresses there, foldhash its global seed from
//! addresses too); natively the maps keep `std`'s hasher and its keys from the OS.

#[cfg(target_arch = "wasm32")]
type State = foldhash::fast::RandomState;
#[cfg(not(target_arch = "wasm32"))]
type State = std::hash::RandomState;

/// A `HashMap` with the crate's hasher (see the module docs).
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, State>;

/// An empty map with room for `capacity` entries.
pub(crate) fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, State::default())
}

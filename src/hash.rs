//! The hash maps of the crate, all hashing with the one hasher the module already carries.
//!
//! `serde_json`'s map (without `std`) hashes with foldhash; `std`'s default hasher, SipHash,
//! was a second hasher in the module, with its own code and its own copies of the table code
//! per map type (with fewer map types, 1.8 KB gzip: `bench/README.md`). Neither is seeded from
//! real randomness on wasm32 (`std` takes its keys from two addresses there, foldhash its
//! global seed from addresses too); the maps hold ids of the caller's own messages.

/// A `HashMap` with foldhash's hasher, seeded per map.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// An empty map with room for `capacity` entries.
pub(crate) fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, Default::default())
}

//! The hash maps of the crate, all hashing with the one hasher the module already carries.
//!
//! `serde_json`'s map (without `std`) hashes with foldhash; `std`'s default hasher, SipHash with
//! keys drawn per thread, would be a second hasher in the module with its own code and its own
//! per-map-type copies of the table (about 1 KB gzip, `bench/README.md`). Foldhash seeds each
//! map from a random global seed too, so a crafted set of keys cannot be aimed at it.

/// A `HashMap` with foldhash's randomly seeded hasher.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// An empty map with room for `capacity` entries.
pub(crate) fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, Default::default())
}

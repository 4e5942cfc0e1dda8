//! The hash maps of the crate. In the wasm module they hash with `Mix`, a few lines of
//! multiply-and-rotate over 8-byte words with a final avalanche: `std`'s default hasher,
//! SipHash, was a second hasher there, with its own code and its own copies of the table code
//! per map type (1.8 KB gzip: `bench/README.md`), and foldhash, which `serde_json`'s map brought,
//! was 1 KB more once `serde_json` left the module. On wasm32 none of them is seeded from real
//! randomness (`std` takes its keys from two addresses there, foldhash its seed from addresses
//! too), so a fixed hasher loses nothing there; natively the maps keep `std`'s hasher and its
//! keys from the OS.

#[cfg(target_arch = "wasm32")]
type State = std::hash::BuildHasherDefault<Mix>;
#[cfg(not(target_arch = "wasm32"))]
type State = std::hash::RandomState;

/// A `HashMap` with the crate's hasher (see the module docs).
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, State>;

/// An empty map with room for `capacity` entries.
pub(crate) fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, State::default())
}

/// The module's hasher: each 8-byte word (the last one padded, with its length) mixed in by a
/// multiplication and a rotation, and the state avalanched at the end (MurmurHash3's finalizer),
/// so that the table's low bits (its buckets) and top bits (its tags) depend on every byte.
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
#[derive(Default)]
pub(crate) struct Mix(u64);

impl Mix {
    fn add(&mut self, word: u64) {
        self.0 = (self.0 ^ word)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

impl std::hash::Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut whole = [0; 8];
            whole.copy_from_slice(word);
            self.add(u64::from_le_bytes(whole));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 60));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        // `str`'s hash ends with `0xff`: one word, not a run of zero padding.
        self.add(u64::from(byte) | 0x100);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::Mix;
    use std::hash::BuildHasher;

    type Fixed = std::hash::BuildHasherDefault<Mix>;

    /// Ids of the shapes providers give (`call_…`, `toolu_…`, counters, ULIDs) spread over a
    /// table's buckets and tags as evenly as random numbers would.
    #[test]
    fn ids_spread_over_buckets_and_tags() {
        let hash = |text: &str| Fixed::default().hash_one(text);
        let ids: Vec<String> = (0..1u32 << 16)
            .flat_map(|i| {
                [
                    format!("call_{i}"),
                    format!("toolu_01{:022x}", u128::from(i) * 0x9E37_79B9),
                    format!("{i:08}"),
                    format!("c{i}"),
                ]
            })
            .collect();
        let hashes: std::collections::HashSet<u64> = ids.iter().map(|id| hash(id)).collect();
        assert_eq!(hashes.len(), ids.len(), "no two ids hash alike");
        for bits in [(0, 12), (57, 7)] {
            let mut counts = vec![0u32; 1 << bits.1];
            for h in &hashes {
                counts[(h >> bits.0) as usize & ((1 << bits.1) - 1)] += 1;
            }
            let mean = ids.len() as f64 / counts.len() as f64;
            let worst = counts
                .iter()
                .map(|&c| (f64::from(c) - mean).abs())
                .fold(0.0, f64::max);
            assert!(
                worst < 8.0 * mean.sqrt(),
                "bits {bits:?}: {worst} off a mean of {mean}"
            );
        }
        assert_ne!(hash("ab"), hash("ab\0"));
        assert_ne!(hash(""), hash("\0"));
    }
}

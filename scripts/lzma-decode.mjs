// An LZMA decoder (the raw stream `xz --format=raw --lzma1=...` writes, of a known size), bundled
// by scripts/inline-wasm.mjs into the preview module's inlined copy (preview-wasm-inline.js):
// LZMA packs that module 14% smaller than zopfli's deflate, and this decoder is about 1 KB gzip
// where fflate's inflater was 3. It follows the reference decoder of the format's author
// (LzmaSpec.cpp in the LZMA SDK): a range decoder over adaptive bit probabilities, literals coded
// by the byte before them, matches by length and distance with four recent distances reused.
// The whole output is the dictionary. Bad input throws; it is only ever run on the bytes the
// build wrote and checked (scripts/inline-wasm.mjs decodes them before writing the module).

/**
 * The `size` bytes that raw LZMA stream `input` (a Uint8Array) holds, coded with literal
 * context bits `lc`, literal position bits `lp` and position bits `pb`.
 */
export function lzmaDecode(input, size, lc, lp, pb) {
  const out = new Uint8Array(size);
  const probs = (n) => new Uint16Array(n).fill(1024);
  let at = 5;
  // The range and the code; the first byte is always 0, the next four start the code.
  const rc = new Uint32Array([0xffffffff, (input[1] << 24) | (input[2] << 16) | (input[3] << 8) | input[4]]);
  if (input[0] !== 0 || input.length < 5) throw new Error("lzma: not an LZMA stream");

  // One bit of probability `p[i]` (11-bit, moved 1/32 of the way toward the bit decoded). The
  // range and the code are kept in a typed array: as numbers beyond 2^30 in variables the
  // closures share, V8 boxed every new value (the decoding took 4 times longer).
  const bit = (p, i) => {
    const v = p[i];
    const range = rc[0];
    const bound = (range >>> 11) * v;
    let b = 0;
    if (rc[1] < bound) {
      rc[0] = bound;
      p[i] = v + ((2048 - v) >> 5);
    } else {
      rc[0] = range - bound;
      rc[1] -= bound;
      p[i] = v - (v >> 5);
      b = 1;
    }
    if (rc[0] < 0x1000000) normalize();
    return b;
  };
  const normalize = () => {
    if (at >= input.length) throw new Error("lzma: the stream ends early");
    rc[0] <<= 8;
    rc[1] = (rc[1] << 8) | input[at++];
  };
  // `n` bits, highest first, from a tree of probabilities at `p[base + 1 …]`.
  const tree = (p, base, n) => {
    let m = 1;
    for (let i = 0; i < n; i++) m = (m << 1) | bit(p, base + m);
    return m - (1 << n);
  };
  // The same, lowest bit first.
  const reverse = (p, base, n) => {
    let m = 1;
    let symbol = 0;
    for (let i = 0; i < n; i++) {
      const b = bit(p, base + m);
      m = (m << 1) | b;
      symbol |= b << i;
    }
    return symbol;
  };
  // `n` bits of equal probability.
  const direct = (n) => {
    let result = 0;
    for (let i = 0; i < n; i++) {
      rc[0] >>>= 1;
      let b = 0;
      if (rc[1] >= rc[0]) {
        rc[1] -= rc[0];
        b = 1;
      }
      result = result * 2 + b;
      if (rc[0] < 0x1000000) normalize();
    }
    return result;
  };
  // A length decoder: 2-9 from `low`, 10-17 from `mid` (per position state), 18-273 from `high`.
  const lengths = () => {
    const p = probs(2 + 16 * 8 * 2 + 256);
    return (posState) => {
      if (bit(p, 0) === 0) return tree(p, 2 + posState * 8, 3);
      if (bit(p, 1) === 0) return 8 + tree(p, 2 + 128 + posState * 8, 3);
      return 16 + tree(p, 2 + 256, 8);
    };
  };

  const literals = probs(0x300 << (lc + lp));
  const isMatch = probs(12 << 4);
  const isRep = probs(12);
  const isRepG0 = probs(12);
  const isRepG1 = probs(12);
  const isRepG2 = probs(12);
  const isRep0Long = probs(12 << 4);
  const slots = probs(4 << 6);
  const distances = probs(115);
  const align = probs(16);
  const matchLength = lengths();
  const repLength = lengths();
  const posMask = (1 << pb) - 1;
  const litMask = (1 << lp) - 1;

  let state = 0;
  let rep0 = 0;
  let rep1 = 0;
  let rep2 = 0;
  let rep3 = 0;
  let pos = 0;
  while (pos < size) {
    const posState = pos & posMask;
    if (bit(isMatch, (state << 4) + posState) === 0) {
      const prev = pos > 0 ? out[pos - 1] : 0;
      const base = 0x300 * (((pos & litMask) << lc) + (prev >> (8 - lc)));
      let symbol = 1;
      if (state >= 7) {
        // After a match, the byte at the match distance steers the first bits.
        let match = out[pos - rep0 - 1];
        while (symbol < 0x100) {
          const matchBit = (match >> 7) & 1;
          match <<= 1;
          const b = bit(literals, base + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit !== b) break;
        }
      }
      while (symbol < 0x100) symbol = (symbol << 1) | bit(literals, base + symbol);
      out[pos++] = symbol - 0x100;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let length;
    if (bit(isRep, state) !== 0) {
      if (pos === 0) throw new Error("lzma: a repeat before any byte");
      if (bit(isRepG0, state) === 0) {
        if (bit(isRep0Long, (state << 4) + posState) === 0) {
          // One byte at the last distance.
          state = state < 7 ? 9 : 11;
          out[pos] = out[pos - rep0 - 1];
          pos++;
          continue;
        }
      } else {
        let distance;
        if (bit(isRepG1, state) === 0) distance = rep1;
        else {
          if (bit(isRepG2, state) === 0) distance = rep2;
          else {
            distance = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = distance;
      }
      length = repLength(posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      length = matchLength(posState);
      state = state < 7 ? 7 : 10;
      // The distance: a 6-bit slot (per length up to 5), then its low bits.
      const slot = tree(slots, (length < 3 ? length : 3) << 6, 6);
      if (slot < 4) rep0 = slot;
      else {
        const n = (slot >> 1) - 1;
        rep0 = ((2 | (slot & 1)) << n) >>> 0;
        if (slot < 14) rep0 += reverse(distances, rep0 - slot, n);
        else rep0 += direct(n - 4) * 16 + reverse(align, 0, 4);
      }
      // The end marker (all ones) may follow the last byte; the size says where that is.
      if (rep0 >= pos) throw new Error("lzma: a match before the start");
    }
    length += 2;
    if (length > size - pos) throw new Error("lzma: a match past the end");
    for (; length > 0; length--, pos++) out[pos] = out[pos - rep0 - 1];
  }
  return out;
}

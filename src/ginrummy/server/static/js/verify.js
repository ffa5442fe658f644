// Deal verification in the browser: SHA-256 commitments and the deal a published seed produces.
//
// The server shuffles each deal with Python's random.Random(seed).shuffle (a Mersenne Twister),
// so the same generator is reproduced here: anyone can check that the revealed seed both
// matches the commitment published before the deal and produces exactly the cards dealt.

/** Hex SHA-256 of the UTF-8 text `text` (the commitment is over the seed's decimal text). */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(String(text));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** True when sha256(seed text) equals `commitment`. */
export async function checkCommitment(seed, commitment) {
  if (seed === null || seed === undefined || !commitment) return false;
  return (await sha256Hex(String(seed))) === String(commitment).toLowerCase();
}

const N = 624;

class MersenneTwister {
  constructor(seedText) {
    this.mt = new Uint32Array(N);
    this.index = N;
    let value = BigInt(seedText);
    if (value < 0n) value = -value;
    const key = [];
    while (value > 0n) {
      key.push(Number(value & 0xffffffffn));
      value >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  initGenrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  initByArray(key) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  nextUint32() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + 397) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Python's Random._randbelow for n < 2**32: rejection sampling on getrandbits(bit_length(n)). */
  below(n) {
    const k = 32 - Math.clz32(n);
    let r = this.nextUint32() >>> (32 - k);
    while (r >= n) r = this.nextUint32() >>> (32 - k);
    return r;
  }
}

/** The deck order (card indices, first dealt first) for a deal seed given as decimal text. */
export function dealOrder(seedText) {
  const deck = Array.from({ length: 52 }, (_, i) => i);
  const rng = new MersenneTwister(seedText);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/**
 * The deal of a seed: ten cards each, one at a time, non-dealer first; then the upcard.
 * Returns { hands: [[index…], [index…]], upcard }.
 */
export function dealFromSeed(seedText, dealer) {
  const deck = dealOrder(seedText);
  const hands = [[], []];
  for (let i = 0; i < 20; i++) hands[i % 2 === 0 ? 1 - dealer : dealer].push(deck[i]);
  return { hands, upcard: deck[20] };
}

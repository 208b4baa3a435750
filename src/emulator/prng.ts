/**
 * Seeded pseudo-random numbers for the emulator's reproducible behaviour (finance data, fault decisions).
 * `Math.random` is never used for anything a test may compare.
 */

/** A generator of floats in [0, 1). */
export type Random = () => number;

/** mulberry32: a small, fast 32-bit PRNG; the same seed always gives the same sequence. */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string to an unsigned 32-bit integer (to derive per-store seeds). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** An integer in [min, max] (both inclusive). */
export function randInt(rnd: Random, min: number, max: number): number {
  return min + Math.floor(rnd() * (max - min + 1));
}

/** One element of a non-empty list. */
export function pick<T>(rnd: Random, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

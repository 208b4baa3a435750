/**
 * The concurrency bound of carte's calls: at most N in flight, started in the order of their stores so
 * that stores finish one after another. The reader (src/state/current.ts) and the executor
 * (src/apply/execute.ts) both use it.
 */

import type { Limit } from "../kinds/resource-kind.js";

/** A {@link Limit} whose bound can be raised while calls wait ({@link storeOrderedLimit}). */
export interface OrderedLimit extends Limit {
  /**
   * Raises the bound to `concurrency` calls in flight (a lower number leaves it as it is) and starts
   * as many waiting calls as the new bound allows.
   * @returns a function that puts the bound back as it was (the calls in flight then run to their end;
   *   no new one starts until fewer are in flight than the bound).
   * @throws TypeError when `concurrency` is not a whole number of at least 1.
   */
  widen(concurrency: number): () => void;
}

function checkedConcurrency(concurrency: number): number {
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new TypeError(`parallelism must be a whole number of at least 1, got ${concurrency}`);
  }
  return concurrency;
}

/**
 * A concurrency bound that starts waiting calls in the order of their stores (a call for no store
 * first, then by the store's place in the requests, then in the order they came), so that the stores
 * finish one after another instead of all at the end.
 * @throws TypeError when `concurrency` is not a whole number of at least 1.
 */
export function storeOrderedLimit(concurrency: number, place: (store: string) => number): OrderedLimit {
  let bound = checkedConcurrency(concurrency);
  interface Waiting {
    rank: number;
    seq: number;
    start: () => void;
  }
  const heap: Waiting[] = [];
  const before = (a: Waiting, b: Waiting) => a.rank < b.rank || (a.rank === b.rank && a.seq < b.seq);
  const push = (w: Waiting) => {
    heap.push(w);
    for (let i = heap.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if (!before(heap[i]!, heap[up]!)) break;
      [heap[i], heap[up]] = [heap[up]!, heap[i]!];
      i = up;
    }
  };
  const pop = (): Waiting | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  };
  let active = 0;
  let seq = 0;
  const next = () => {
    if (active >= bound) return;
    const w = pop();
    if (!w) return;
    active++;
    w.start();
  };
  const limit = <T>(fn: () => Promise<T>, store?: string) =>
    new Promise<T>((resolve, reject) => {
      push({
        rank: store === undefined ? -1 : place(store),
        seq: seq++,
        start: () => {
          let call: Promise<T>;
          try {
            call = fn();
          } catch (err) {
            call = Promise.reject(err);
          }
          // The slot is released as soon as the call settles, before the caller's continuation runs.
          call.then(
            (value) => {
              active--;
              next();
              resolve(value);
            },
            (err: unknown) => {
              active--;
              next();
              reject(err);
            },
          );
        },
      });
      next();
    });
  const widen = (to: number) => {
    const was = bound;
    bound = Math.max(bound, checkedConcurrency(to));
    while (active < bound && heap.length > 0) next();
    return () => {
      bound = was;
    };
  };
  return Object.assign(limit, { widen });
}

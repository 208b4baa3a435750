/**
 * When work that follows an answer may run without holding back the calls started with it (the HTTP
 * client's turns of the event loop).
 */

/**
 * Resolves once the calls started so far have been written to their connections: after two turns of
 * the event loop's check phase. undici writes a request on a kept-alive connection only in the check
 * phase that follows the answer before it (it first looks for bytes the server sent unasked, and waits
 * a turn after a completed answer), so work done as an answer arrives holds back every call started
 * with it: answers that arrive together then go out together again, and each call waits for the work
 * of all the others (8 calls of 20 ms with 2 ms of work after each: 39 ms a call instead of 21).
 * Work awaited behind this runs once those calls are on their way, inside their latency.
 */
export function afterStartedCalls(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** The tasks {@link inTurn} has yet to run, oldest first; `busy` while one is running or scheduled. */
const waiting: (() => void)[] = [];
let busy = false;

function runNext(): void {
  const task = waiting.shift();
  if (task === undefined) {
    busy = false;
    return;
  }
  task();
  // One turn for the answers that came during the task to be read (their next calls are started
  // then), and the turns those calls take to be written, before the next task.
  setImmediate(() => void afterStartedCalls().then(runNext));
}

/**
 * Runs `task` once the calls started so far are written ({@link afterStartedCalls}), and after every
 * task given before it, one at a time with the answers that arrived in between read and their next
 * calls written first: a read that completes many stores at once (one webhook list serves them all)
 * or a batch of stores checked together then holds the calls in flight for one store's work at most,
 * not for all of theirs. Shared by the process, so that two reads at once do not pile up either.
 *
 * @returns what `task` returns; rejects with what it throws.
 */
export function inTurn<T>(task: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    waiting.push(() => {
      try {
        resolve(task());
      } catch (err) {
        reject(err);
      }
    });
    if (!busy) {
      busy = true;
      void afterStartedCalls().then(runNext);
    }
  });
}

/**
 * Feedback on long runs: a progress bar with an ETA on a terminal (cli-progress, on standard error),
 * plain progress lines when not on a terminal or in CI, nothing with `--quiet` or `--json`.
 */

import cliProgress from "cli-progress";
import type { ApplyEvent } from "../apply/execute.js";
import type { RetryInfo } from "../platform/client.js";
import { escapeTerminal } from "../render/escape.js";
import type { CliIo } from "./io.js";

/** Receives progress of reads and calls. */
export interface Progress {
  storeRead(done: number, total: number): void;
  apply(event: ApplyEvent): void;
  /** A call is about to be repeated; of `platform` (carte.yaml `platforms:`) in a run of several. */
  retry(info: RetryInfo, platform?: string): void;
  /** Ends any bar on screen. */
  stop(): void;
}

/** How progress is shown. */
export type ProgressMode = "bar" | "lines" | "none";

/** The mode for this run: none when quiet or JSON, a bar on an interactive terminal, else lines. */
export function progressMode(io: CliIo, opts: { quiet: boolean; json: boolean }): ProgressMode {
  if (opts.quiet || opts.json) return "none";
  if (io.stderrIsTTY && io.errStream && !io.env.CI) return "bar";
  return "lines";
}

/** Plain progress lines come at most every {@link LINE_STEP_PERCENT} % of the work ... */
export const LINE_STEP_PERCENT = 10;
/** ... and at most every this many milliseconds (but the last line): a fast run prints only its end. */
export const LINE_INTERVAL_MS = 5000;

/**
 * A counter for plain-line progress (CI logs): given `done` of `total`, the line to print now, or
 * undefined. A line is due at the end, or when the count has advanced by {@link LINE_STEP_PERCENT} %
 * of the total since the last line and {@link LINE_INTERVAL_MS} have passed since it: at most eleven
 * lines a phase, never more than one every 5 s, and a run of a few seconds prints only its end. The
 * same line is never printed twice (a count that did not move prints nothing).
 *
 * @param now - the clock, in milliseconds.
 */
export function throttledCount(
  now: () => number,
  line: (done: number, total: number) => string,
): (done: number, total: number) => string | undefined {
  let lastDone = 0;
  let lastTotal = -1;
  let lastAt = now();
  let lastLine = "";
  return (done, total) => {
    if (total !== lastTotal) {
      // A new phase (another total): counts start again.
      lastTotal = total;
      lastDone = 0;
    }
    const step = Math.max(1, (total * LINE_STEP_PERCENT) / 100);
    const t = now();
    const due = done >= total || (done - lastDone >= step && t - lastAt >= LINE_INTERVAL_MS);
    const text = line(done, total);
    if (!due || text === lastLine) return undefined;
    lastDone = done;
    lastAt = t;
    lastLine = text;
    return text;
  };
}

/**
 * Creates the progress reporter for a mode.
 *
 * @param now - the clock of plain-line mode, in milliseconds (tests pass their own).
 */
export function createProgress(io: CliIo, mode: ProgressMode, now: () => number = Date.now): Progress {
  if (mode === "none") return { storeRead() {}, apply() {}, retry() {}, stop() {} };
  // Paths and the platform's messages are untrusted: every line is escaped for a terminal.
  const retryLine = (r: RetryInfo, platform?: string) =>
    escapeTerminal(
      `${platform === undefined ? "" : `${platform}: `}retrying ${r.method} ${r.path} (attempt ${r.attempt + 1}) in ${r.delayMs} ms after ${r.reason}`,
    ) + "\n";
  if (mode === "lines") {
    const reads = throttledCount(now, (done, total) => `reading the platform: ${done}/${total} reads`);
    const calls = throttledCount(now, (done, total) => `applying calls: ${done}/${total} made`);
    return {
      storeRead(done, total) {
        const line = reads(done, total);
        if (line) io.err(line + "\n");
      },
      apply(e) {
        if (e.type !== "operation") return;
        const r = e.result;
        // A failed call, or one that says something (a lost answer settled, a secret rotated), is worth
        // its own line (the message escaped); the others only count.
        if (r.status === "failed" || r.message) {
          io.err(
            escapeTerminal(
              `[${e.done}/${e.total}] ${r.method} ${r.path} ${r.status}${r.message ? `: ${r.message}` : ""}`,
            ) + "\n",
          );
        }
        const line = calls(e.done, e.total);
        if (line) io.err(line + "\n");
      },
      retry(r, platform) {
        io.err(retryLine(r, platform));
      },
      stop() {},
    };
  }
  let bar: cliProgress.SingleBar | undefined;
  const start = (label: string, total: number) => {
    bar?.stop();
    bar = new cliProgress.SingleBar(
      {
        stream: io.errStream,
        format: `${label} [{bar}] {value}/{total} | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
  };
  return {
    storeRead(done, total) {
      if (done === 1 || !bar) start("reading the platform", total);
      bar?.update(done);
      if (done === total) {
        bar?.stop();
        bar = undefined;
      }
    },
    apply(e) {
      if (e.type === "start") start("applying calls ", e.total);
      else {
        // Failures are listed in the report at the end; the bar only counts.
        bar?.update(e.done);
        if (e.done === e.total) {
          bar?.stop();
          bar = undefined;
        }
      }
    },
    retry() {
      // The bar's ETA absorbs the delay; retries are listed only in plain-line mode.
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

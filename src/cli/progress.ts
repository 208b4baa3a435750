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
  /** A call is about to be repeated. */
  retry(info: RetryInfo): void;
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

/** Creates the progress reporter for a mode. */
export function createProgress(io: CliIo, mode: ProgressMode): Progress {
  if (mode === "none") return { storeRead() {}, apply() {}, retry() {}, stop() {} };
  // Paths and the platform's messages are untrusted: every line is escaped for a terminal.
  const retryLine = (r: RetryInfo) =>
    escapeTerminal(
      `retrying ${r.method} ${r.path} (attempt ${r.attempt + 1}) in ${r.delayMs} ms after ${r.reason}`,
    ) + "\n";
  if (mode === "lines") {
    let lastReadLine = 0;
    return {
      storeRead(done, total) {
        // At most about ten lines for the reads of a large chain.
        const step = Math.max(1, Math.ceil(total / 10));
        if (done === total || done - lastReadLine >= step) {
          lastReadLine = done;
          io.err(`reading the platform: ${done}/${total} reads\n`);
        }
      },
      apply(e) {
        if (e.type !== "operation") return;
        const r = e.result;
        io.err(
          escapeTerminal(
            `[${e.done}/${e.total}] ${r.method} ${r.path} ${r.status}${r.message ? `: ${r.message}` : ""}`,
          ) + "\n",
        );
      },
      retry(r) {
        io.err(retryLine(r));
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

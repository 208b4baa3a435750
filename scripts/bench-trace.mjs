// Where a benchmark's calls spend their time: preloaded into the children of scripts/bench-plan.mjs
// when CARTE_BENCH_TRACE=DIR is set (docs/performance.md, sixth pass). Each child writes one text file
// into DIR as it exits:
//   carte-PID.txt     per route: calls, how long undici took to write a call once it was made (the
//                     kept-alive connection's check phase), and the time from the written request to
//                     the answer's headers (p50, p90, p99); the event loop's delay (p50, p90, p99, max);
//   emulator-PID.txt  per route: the time from the request's start to the answer's end in the emulator
//                     (its latency included); its event loop's delay; its garbage collections by kind
//                     (count, total, how many over 10 ms, longest).
// Paths are grouped with their numeric segments (ids) replaced by N; nothing else of a request is kept (no header,
// no body). Diagnostics channels of undici and node:http, perf_hooks; no change to what is measured
// beyond their own small cost.
import diagnostics from "node:diagnostics_channel";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

const dir = process.env.CARTE_BENCH_TRACE;
// Made here, not at exit: a child that cannot write its file at exit stops without the answer its
// parent waits for.
mkdirSync(dir, { recursive: true });
const mode = process.argv[process.argv.indexOf("--child") + 1];

/** A route's name: method and path, numeric segments replaced by N, no query. */
const routeOf = (method, url) => `${method} ${url.replace(/\?.*/, "").replace(/\/\d+(?=\/|$)/g, "/N")}`;
const ms = (n) => n.toFixed(2);
/** p50, p90, p99 of a list of milliseconds. */
function percentiles(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
  return `p50 ${ms(at(0.5))} p90 ${ms(at(0.9))} p99 ${ms(at(0.99))}`;
}
function loopDelay(histogram) {
  const p = (q) => ms(histogram.percentile(q) / 1e6);
  return `event-loop delay ms: p50 ${p(50)} p90 ${p(90)} p99 ${p(99)} max ${ms(histogram.max / 1e6)}`;
}
/** Adds `value` to the list of `key` in `by`. */
function add(by, key, value) {
  (by.get(key) ?? by.set(key, []).get(key)).push(value);
}
/** Lines of `by` (route → list of values), the most called first; `describe(list, route)` ends each. */
function routeLines(by, describe) {
  return [...by]
    .sort((a, b) => b[1].length - a[1].length)
    .map(
      ([route, list]) => `${String(list.length).padStart(7)}  ${route.padEnd(70)} ${describe(list, route)}`,
    );
}
function onExit(write) {
  process.on("exit", write);
  // The bench stops the emulator with a signal: leave through exit, so that the file is written.
  for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => process.exit(0));
}

if (dir && mode === "carte") {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const calls = new WeakMap();
  /** Per route: how long each call waited to be written, and then for its answer's headers. */
  const written = new Map();
  const answered = new Map();
  diagnostics.subscribe("undici:request:create", ({ request }) =>
    calls.set(request, { route: routeOf(request.method, request.path), made: performance.now() }),
  );
  diagnostics.subscribe("undici:client:sendHeaders", ({ request }) => {
    const call = calls.get(request);
    if (call) call.sent = performance.now();
  });
  diagnostics.subscribe("undici:request:headers", ({ request }) => {
    const call = calls.get(request);
    if (!call || call.sent === undefined) return;
    add(written, call.route, call.sent - call.made);
    add(answered, call.route, performance.now() - call.sent);
  });
  onExit(() => {
    const mean = (list) => list.reduce((a, b) => a + b, 0) / list.length;
    const lines = [
      loopDelay(delay),
      "calls     route" + " ".repeat(66) + "made → written (mean ms); written → answer headers (ms)",
      ...routeLines(answered, (list, route) => `${ms(mean(written.get(route)))}; ${percentiles(list)}`),
    ];
    writeFileSync(path.join(dir, `carte-${process.pid}.txt`), lines.join("\n") + "\n");
  });
}

if (dir && mode === "emulator") {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const started = new WeakMap();
  const served = new Map();
  diagnostics.subscribe("http.server.request.start", ({ request }) =>
    started.set(request, performance.now()),
  );
  diagnostics.subscribe("http.server.response.finish", ({ request }) => {
    const at = started.get(request);
    if (at === undefined) return;
    const route = routeOf(request.method, request.url);
    add(served, route, performance.now() - at);
  });
  const gc = new Map();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind ?? entry.kind;
      const seen = gc.get(kind) ?? { count: 0, total: 0, over10: 0, longest: 0 };
      seen.count++;
      seen.total += entry.duration;
      if (entry.duration > 10) seen.over10++;
      seen.longest = Math.max(seen.longest, entry.duration);
      gc.set(kind, seen);
    }
  }).observe({ entryTypes: ["gc"] });
  // perf_hooks constants: 1 minor (scavenge), 2 major (mark-compact), 4 incremental marking, 8 weak callbacks.
  const kinds = { 1: "scavenge", 2: "mark-compact", 4: "incremental marking", 8: "weak callbacks" };
  onExit(() => {
    const lines = [
      loopDelay(delay),
      ...[...gc].map(
        ([kind, s]) =>
          `garbage collection, ${kinds[kind] ?? kind}: ${s.count} pauses, ${ms(s.total)} ms, ` +
          `${s.over10} over 10 ms, longest ${ms(s.longest)} ms`,
      ),
      "requests  route" + " ".repeat(66) + "request start → answer end in the emulator (ms)",
      ...routeLines(served, percentiles),
    ];
    writeFileSync(path.join(dir, `emulator-${process.pid}.txt`), lines.join("\n") + "\n");
  });
}

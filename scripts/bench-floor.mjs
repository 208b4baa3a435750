// The floor under the apply's floor: what a bare HTTP client and server pair takes for calls answered
// after the same latency, with nothing else to do (docs/performance.md, eighth pass). undici (carte's
// HTTP client) against a node:http server that answers each request after setTimeout(LATENCY), PARALLEL
// calls at a time, both in this one process, on loopback only; it stops by itself.
//   node scripts/bench-floor.mjs [--calls 4000] [--latency 20] [--parallelism 8]
// Prints the time a call took and the ratio to calls × latency ÷ parallelism, the bound that
// `npm run bench:plan` holds carte's apply from empty to.
import http from "node:http";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "4000" },
    latency: { type: "string", default: "20" },
    parallelism: { type: "string", default: "8" },
  },
});
const calls = Number(values.calls);
const latencyMs = Number(values.latency);
const parallelism = Number(values.parallelism);
for (const [name, n, least] of [
  ["calls", calls, 1],
  ["latency", latencyMs, 0],
  ["parallelism", parallelism, 1],
]) {
  if (!Number.isInteger(n) || n < least)
    throw new Error(`--${name} must be a whole number of at least ${least}`);
}

const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () =>
    setTimeout(() => {
      res.setHeader("content-type", "application/json");
      res.end('{"ok":true}');
    }, latencyMs),
  );
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const agent = new Agent({ connections: parallelism });
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: parallelism }, async () => {
    while (next++ < calls) {
      const answer = await request(url, { method: "POST", body: '{"a":1}', dispatcher: agent });
      await answer.body.text();
    }
  }),
);
const ms = performance.now() - started;
const bound = (calls * latencyMs) / parallelism;
console.log(
  `${calls} calls, ${parallelism} at a time, latency ${latencyMs} ms: ${(ms / 1000).toFixed(2)} s, ` +
    `${((ms * parallelism) / calls).toFixed(2)} ms a call; ${(ms / bound).toFixed(3)}× calls × latency ÷ parallelism`,
);
await agent.close();
server.close();

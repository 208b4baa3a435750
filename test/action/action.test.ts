/**
 * The GitHub Action adapter, run in-process against the emulator (the platform) and a small fake of
 * GitHub's REST API on loopback (the pull-request comment). No mocking library: both are real servers.
 */

import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAction } from "../../src/action/main.js";
import { COMMENT_MARKER } from "../../src/action/comment.js";
import { CLIENT_ID, CLIENT_SECRET, exampleAgainstEmulator } from "../helpers/project.js";

interface Comment {
  id: number;
  body: string;
}

/** A fake of the three GitHub endpoints the Action uses; records every request. */
async function fakeGitHub(): Promise<{
  url: string;
  comments: Comment[];
  calls: string[];
  tokens: string[];
  server: Server;
}> {
  const comments: Comment[] = [];
  const calls: string[] = [];
  const tokens: string[] = [];
  let next = 1;
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      calls.push(`${req.method} ${req.url}`);
      tokens.push(String(req.headers.authorization));
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? "/", "http://x");
      if (req.method === "GET" && /\/issues\/7\/comments$/.test(url.pathname)) return send(200, comments);
      if (req.method === "POST" && /\/issues\/7\/comments$/.test(url.pathname)) {
        const c = { id: next++, body: (JSON.parse(raw) as { body: string }).body };
        comments.push(c);
        return send(201, c);
      }
      const m = /\/issues\/comments\/(\d+)$/.exec(url.pathname);
      if (req.method === "PATCH" && m) {
        const c = comments.find((x) => x.id === Number(m[1]))!;
        c.body = (JSON.parse(raw) as { body: string }).body;
        return send(200, c);
      }
      send(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, comments, calls, tokens, server };
}

const saved = { ...process.env };
// @actions/core remembers the job-summary path of its first write: one path for the whole file.
const summaryFile = path.join(mkdtempSync(path.join(tmpdir(), "carte-summary-")), "summary.md");
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  process.env = { ...saved };
  await cleanup?.();
  cleanup = undefined;
});

async function setup() {
  const fx = await exampleAgainstEmulator([
    "stores/bog-centro.yaml",
    "stores/bog-chapinero.yaml",
    "stores/med-poblado.yaml",
  ]);
  const gh = await fakeGitHub();
  cleanup = async () => {
    gh.server.close();
    await fx.close();
  };
  const dir = mkdtempSync(path.join(tmpdir(), "carte-action-"));
  const event = path.join(dir, "event.json");
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  const files = { summary: summaryFile, output: path.join(dir, "output.txt") };
  writeFileSync(files.summary, "");
  writeFileSync(files.output, "");
  Object.assign(process.env, {
    CARTE_CLIENT_ID: CLIENT_ID,
    CARTE_CLIENT_SECRET: CLIENT_SECRET,
    GITHUB_API_URL: gh.url,
    GITHUB_REPOSITORY: "chain/menus",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: event,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    INPUT_CONFIG: fx.config,
    INPUT_COMMENT: "true",
    "INPUT_GITHUB-TOKEN": "ghs_faketoken123456",
  });
  return { fx, gh, files };
}

describe("GitHub Action", () => {
  it("posts the plan as one pull-request comment, updated in place, with the full plan in the job summary", async () => {
    const { gh, files } = await setup();
    process.env.INPUT_COMMAND = "plan";
    expect(await runAction()).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body.startsWith(COMMENT_MARKER)).toBe(true);
    expect(gh.comments[0]!.body).toContain("to create");
    expect(readFileSync(files.output, "utf8")).toMatch(/has-changes<<.*\ntrue\n/);
    expect(readFileSync(files.summary, "utf8")).toContain("carte will perform the following actions");

    // A second run (a new push) updates the same comment instead of adding one.
    expect(await runAction()).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(gh.calls.filter((c) => c.startsWith("PATCH"))).toHaveLength(1);
    expect(gh.tokens.every((t) => t === "token ghs_faketoken123456")).toBe(true);
    for (const c of gh.comments) expect(c.body).not.toContain(CLIENT_SECRET);
  });

  it("applies on merge and reports no changes afterwards", async () => {
    const { fx, files } = await setup();
    process.env.INPUT_COMMAND = "apply";
    expect(await runAction()).toBe(0);
    // 48: the example's menus, availability, hours, holidays, special days, store availability and
    // webhooks of three stores, and the client-level webhook.
    expect(readFileSync(files.summary, "utf8")).toContain("Applied 48 API calls.");
    fx.emu.clearRequests();
    process.env.INPUT_COMMAND = "plan";
    process.env.INPUT_COMMENT = "false";
    expect(await runAction()).toBe(0);
    expect(readFileSync(files.output, "utf8")).toMatch(/has-changes<<.*\nfalse\n/);
  });
});

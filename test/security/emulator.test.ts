/**
 * The emulator under abuse, and what it keeps at rest.
 *
 * - A body over the size limit gets 413 `{message}` at once, the rest unread.
 * - Recording never fails: after a 100,000-deep body, `/__emulator/requests` still answers.
 * - The control API can be protected with a token (`--control-token`); platform tokens do not open it.
 * - The state file is 0600 in a 0700 folder and holds no client secret (a salted hash); files of
 *   older versions with the secret in clear still load and are rewritten at once.
 * - Credentials of another client against the embedded emulator: a clear error and exit 1 at once
 *   (the built CLI, as a child process, within a few seconds; it used to hang forever).
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { copyExample, repoRoot } from "../helpers/project.js";
import { MENU, SEED, call, login } from "../emulator/helpers.js";

const V2 = "/api/v2/restaurants-integrations-public-api";

let running: RunningEmulator[] = [];
afterEach(async () => {
  for (const e of running) await e.close();
  running = [];
});

async function emulator(opts: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const emu = await startEmulator({ seed: SEED, applyDelayMs: 0, ...opts });
  running.push(emu);
  return emu;
}

/** Streams `total` bytes in chunks without announcing a length; resolves with the answer. */
function streamBody(
  url: string,
  path: string,
  total: number,
): Promise<{ status: number | string; body: string; sent: number }> {
  const u = new URL(url);
  return new Promise((resolve) => {
    let sent = 0;
    const req = request({ host: u.hostname, port: u.port, method: "POST", path }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? "error", body: "", sent }));
    const chunk = Buffer.alloc(64 * 1024, "y");
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

describe("emulator: request bodies", () => {
  it("answers 413 to a body over the limit, announced or streamed, without reading the rest", async () => {
    const emu = await emulator({ maxBodyBytes: 1024 });
    const token = await login(emu);
    const announced = await call(emu, "POST", `${MENU()}/items`, { token, raw: "x".repeat(5000) });
    expect(announced).toMatchObject({
      status: 413,
      body: { message: "Request body too large: the limit is 1024 bytes" },
    });
    // 256 MiB offered without a length: the answer comes long before it could all be sent.
    const started = Date.now();
    const streamed = await streamBody(emu.url, `${MENU()}/items`, 256 * 1024 * 1024);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toEqual({ message: "Request body too large: the limit is 1024 bytes" });
    expect(streamed.sent).toBeLessThan(64 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(5000);
    // The emulator goes on serving, and bodies under the limit are fine.
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).status).toBe(200);
    const recorded = (await call(emu, "GET", "/__emulator/requests")).body as { status: number }[];
    expect(recorded.map((r) => r.status)).toEqual([200, 413, 413, 200]);
  });

  it("records a 100,000-deep body cut at 64 levels and keeps answering /__emulator/requests", async () => {
    const emu = await emulator();
    const token = await login(emu);
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const refused = await call(emu, "POST", `${V2}/webhook`, { token, raw: deep });
    expect(refused.status).toBe(400);
    const deepObject = '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000);
    expect((await call(emu, "POST", `${MENU()}/items`, { token, raw: deepObject })).status).toBe(400);
    const requests = await call(emu, "GET", "/__emulator/requests");
    expect(requests.status).toBe(200);
    const bodies = (requests.body as { body: unknown }[]).map((r) => r.body);
    let depth = 0;
    let v: unknown = bodies[1];
    while (Array.isArray(v)) {
      v = v[0];
      depth++;
    }
    expect(depth).toBe(64);
    expect(v).toBe("[nested deeper than 64 levels: not recorded]");
    // A control request with a deep body is answered too.
    expect((await call(emu, "PUT", "/__emulator/faults", { raw: deepObject })).status).toBe(400);
    expect((await call(emu, "GET", "/__emulator/requests")).status).toBe(200);
  });
});

describe("emulator: control API", () => {
  it("asks for the control token when one is set; platform tokens do not open it", async () => {
    const emu = await emulator({ controlToken: "ctl-0123456789" });
    const token = await login(emu);
    for (const [method, p] of [
      ["GET", "/__emulator/requests"],
      ["POST", "/__emulator/reset"],
      ["PUT", "/__emulator/faults"],
      ["GET", "/__emulator/deliveries"],
    ] as const) {
      const bare = await call(emu, method, p, method === "PUT" ? { body: {} } : {});
      expect(bare, `${method} ${p}`).toMatchObject({
        status: 401,
        body: { message: "Invalid control token" },
      });
      const wrong = await call(emu, method, p, { headers: { "x-emulator-control-token": "ctl-wrong" } });
      expect(wrong.status).toBe(401);
      const platform = await call(emu, method, p, { token });
      expect(platform.status).toBe(401);
    }
    const ok = await call(emu, "GET", "/__emulator/requests", {
      headers: { "x-emulator-control-token": "ctl-0123456789" },
    });
    expect(ok.status).toBe(200);
    // The platform API is unaffected.
    expect((await call(emu, "GET", `${MENU()}/items`, { token })).status).toBe(200);
  });

  it("carte emulator --control-token protects it, and says so when it listens beyond loopback", async () => {
    let err = "";
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const io: CliIo = {
      out: () => undefined,
      err: (s) => void (err += s),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: {},
      untilSignal: () => stopped,
    };
    const done = runCli(
      [
        "emulator",
        "--port",
        "0",
        "--host",
        "0.0.0.0",
        "--control-token",
        "ctl-abc",
        "--max-body-bytes",
        "100",
      ],
      io,
    );
    while (!/listening on/.test(err)) await new Promise((r) => setTimeout(r, 20));
    const port = /:(\d+)\n/.exec(err)![1]!;
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/__emulator/requests`)).status).toBe(401);
    const ok = await fetch(`${base}/__emulator/requests`, {
      headers: { "x-emulator-control-token": "ctl-abc" },
    });
    expect(ok.status).toBe(200);
    const big = await fetch(`${base}/restaurants/auth/v1/token/login/integrations`, {
      method: "POST",
      body: "x".repeat(200),
    });
    expect(big.status).toBe(413);
    expect(err).not.toContain("Warning");
    stop();
    expect(await done).toBe(0);

    // Without a token on 0.0.0.0: a warning; on loopback: none.
    for (const [host, warned] of [
      ["0.0.0.0", true],
      ["127.0.0.1", false],
    ] as const) {
      err = "";
      let stopNext: () => void = () => undefined;
      const stoppedNext = new Promise<void>((resolve) => (stopNext = resolve));
      const run = runCli(["emulator", "--port", "0", "--host", host], {
        ...io,
        untilSignal: () => stoppedNext,
      });
      while (!/listening on/.test(err)) await new Promise((r) => setTimeout(r, 20));
      stopNext();
      expect(await run).toBe(0);
      expect(err.includes("protect it with --control-token"), host).toBe(warned);
    }
  });
});

describe("emulator: state at rest", () => {
  const SECRET = "s3cret-acme";

  it("keeps the client secret as a salted hash, in a 0600 file in a 0700 folder", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-state-"));
    const stateFile = path.join(dir, "nested", "state.json");
    const first = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 0 });
    await first.close();
    const text = readFileSync(stateFile, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("s3cret-other");
    expect(text).not.toContain("client_secret");
    expect(text).toMatch(/"secret_hash":"scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+"/);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(stateFile)).mode & 0o777).toBe(0o700);

    // A restart logs in against the hash; a wrong secret is refused.
    const second = await emulator({ stateFile, seed: undefined });
    await expect(login(second)).resolves.toMatch(/^[\w-]+$/);
    const wrong = await call(second, "POST", "/restaurants/auth/v1/token/login/integrations", {
      body: { client_id: "acme", client_secret: "nope" },
    });
    expect(wrong.status).toBe(401);
  });

  it("seals webhook secrets with the client's secret, and opens them after a restart and a login", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-state-"));
    const stateFile = path.join(dir, "state.json");
    const create = { event: "PING", data: [{ url: "http://127.0.0.1:9/p", stores: ["900123"] }] };
    const first = await startEmulator({ seed: SEED, stateFile, applyDelayMs: 0 });
    const made = await call(first, "POST", `${V2}/webhook`, { token: await login(first), body: create });
    const secret = (made.body as { secret: string }).secret;
    expect(secret).toMatch(/^[0-9a-f]{48}$/);
    await first.close();
    const text = readFileSync(stateFile, "utf8");
    expect(text).not.toContain(secret);
    expect(text).toMatch(/"sealed":"aes-256-gcm\$/);

    // Restarted from the file alone: the secret opens with the client's login, and is the same.
    const second = await emulator({ stateFile, seed: undefined });
    const again = await call(second, "POST", `${V2}/webhook`, { token: await login(second), body: create });
    expect((again.body as { secret: string }).secret).toBe(secret);
    await second.idle();
    expect(readFileSync(stateFile, "utf8")).not.toContain(secret);
  });

  it("loads a state file of an older version with secrets in clear, and rewrites it hashed at once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-state-"));
    const stateFile = path.join(dir, "state.json");
    writeFileSync(
      stateFile,
      JSON.stringify({
        formatVersion: 1,
        nextId: 1,
        clients: [{ client_id: "acme", client_secret: SECRET, stores: ["900123"] }],
        parts: {
          webhooks: {
            events: [
              {
                client_id: "acme",
                event: "PING",
                secret: "0123456789abcdef0123456789abcdef0123456789abcdef",
                stores: [{ store_id: "900123", url: "http://127.0.0.1:9/p", state: "ENABLE" }],
              },
            ],
            clientHooks: [],
          },
        },
        stores: [
          {
            id: "900123",
            integration_id: "bog-centro",
            name: "Centro",
            client_id: "acme",
            items: [],
            categories: [],
            menus: [],
          },
        ],
      }),
      { mode: 0o644 },
    );
    const emu = await emulator({ stateFile, seed: undefined });
    await expect(login(emu)).resolves.toMatch(/^[\w-]+$/);
    await emu.idle();
    const text = readFileSync(stateFile, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).toContain("secret_hash");
    expect(text).not.toContain("0123456789abcdef0123456789abcdef0123456789abcdef");
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    // The webhook secret of the old file is kept (sealed): the same after a restart.
    await emu.close();
    running = running.filter((e) => e !== emu);
    const again = await emulator({ stateFile, seed: undefined });
    const posted = await call(again, "POST", `${V2}/webhook`, {
      token: await login(again),
      body: { event: "PING", data: [{ url: "http://127.0.0.1:9/p", stores: ["900123"] }] },
    });
    expect((posted.body as { secret: string }).secret).toBe(
      "0123456789abcdef0123456789abcdef0123456789abcdef",
    );
  });

  it("refuses a state file that is a link, and never quotes a state file it cannot parse", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "carte-state-"));
    const target = path.join(dir, "environ");
    writeFileSync(target, "CARTE_CLIENT_SECRET=do-not-quote-me\n");
    const link = path.join(dir, "state.json");
    symlinkSync(target, link);
    await expect(startEmulator({ stateFile: link })).rejects.toThrow("is not a regular file");
    const garbage = path.join(dir, "garbage.json");
    writeFileSync(garbage, "CARTE_CLIENT_SECRET=do-not-quote-me\n");
    const err = await startEmulator({ stateFile: garbage }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("is not valid JSON");
    expect((err as Error).message).not.toContain("do-not");
  });
});

/** Runs the built CLI in `cwd`; resolves with its exit code, output and how long it took. */
function runBuilt(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; out: string; err: string; ms: number; timedOut: boolean }> {
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "carte.js"), ...args], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err, ms: Date.now() - started, timedOut });
    });
  });
}

describe("embedded emulator: credentials of another client", () => {
  it("plan and import exit 1 at once with a clear error (the built CLI, in a child process)", async () => {
    const dir = copyExample();
    const first = await runBuilt(["plan", "-q"], dir, {}, 20_000);
    expect(first.code, first.err).toBe(0);
    for (const args of [
      ["plan"],
      ["import", "--store", "bog-centro", "--out", "imported"],
      ["apply", "--auto-approve"],
    ]) {
      const r = await runBuilt(
        args,
        dir,
        { CARTE_CLIENT_ID: "someone-else", CARTE_CLIENT_SECRET: "x-secret" },
        15_000,
      );
      expect(r.timedOut, `${args[0]} hung`).toBe(false);
      expect(r.code, r.err).toBe(1);
      // At once: well before the 15 s the run is given (a hang would wait for --timeout).
      expect(r.ms).toBeLessThan(12_000);
      expect(r.err).toContain("the embedded emulator cannot serve these stores to client someone-else");
      expect(r.err).toContain("already belongs to client carte-local");
      expect(r.err).not.toContain("x-secret");
    }
  }, 60_000);

  it("refuses a .carte folder that is a link out of the project", async () => {
    const dir = copyExample();
    const elsewhere = mkdtempSync(path.join(tmpdir(), "carte-elsewhere-"));
    symlinkSync(elsewhere, path.join(dir, ".carte"));
    const r = await runBuilt(["plan", "-q"], dir, {}, 15_000);
    expect(r.code).toBe(1);
    expect(r.err).toContain("could not keep the embedded emulator's state in .carte/emulator-state.json");
    expect(r.err).toContain(`refusing to write through a symbolic link: .carte is a link to ${elsewhere}`);
    expect(() => statSync(path.join(elsewhere, "emulator-state.json"))).toThrow();
  }, 30_000);
});

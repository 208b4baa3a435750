/**
 * The secrets scan. Every command and output format runs with
 * distinctive credentials (`CARTE_CLIENT_SECRET=scan-client-secret-XYZ…`), against a platform and
 * against the embedded emulator, making and rotating webhook secrets; then every byte carte wrote is
 * searched for the client secret, every webhook secret seen and anything shaped like a token:
 * standard output and error of each run, saved plans, written YAML, finance exports and reports, the
 * embedded emulator's state file, the emulator's `--verbose` log and its control API, and the
 * GitHub Action's job summary, step outputs, pull-request comment and workflow commands.
 *
 * The only places a webhook secret may be: the secrets file, and, in GitHub Actions, the masked step
 * output `webhook_secret_<EVENT>` and its `::add-mask::` command (the runner hides the value).
 */

import { createServer, type Server } from "node:http";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { runAction } from "../../src/action/main.js";
import { runCli } from "../../src/cli/main.js";
import type { CliIo } from "../../src/cli/io.js";
import { startEmulator, type RunningEmulator, type Seed } from "../../src/emulator/index.js";
import { carte, copyExample, edit, seedFor, type CliRun } from "../helpers/project.js";

const CLIENT_ID = "scan-client-id-Q7";
const CLIENT_SECRET = "scan-client-secret-XYZ-4f1d9b2c7e0a";
const CONTROL_TOKEN = "scan-control-token-KQ2";
const CREDS = { CARTE_CLIENT_ID: CLIENT_ID, CARTE_CLIENT_SECRET: CLIENT_SECRET };
const STORE_FILES = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const LAST_HOOK = "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n";
const V2 = "/api/v2/restaurants-integrations-public-api";

/**
 * Platform tokens and webhook secrets are 43 base64url and 48 hex characters (emulator,
 * docs/platform-api.md §2.1).
 */
const TOKEN_SHAPE = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/;
const SECRET_SHAPE = /(?<![0-9a-f])[0-9a-f]{48}(?![0-9a-f])/;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A text without its `::add-mask::` lines: how GitHub Actions hides a secret, the one line that may name it. */
function withoutMasks(text: string): string {
  return text
    .split("\n")
    .filter((l) => !l.startsWith("::add-mask::"))
    .join("\n");
}

/**
 * The step outputs file without its `webhook_secret_<EVENT>` entries, each of which must have been
 * masked (`::add-mask::VALUE` in the log) before it was set: the one step output that may hold a secret.
 */
function withoutMaskedSecretOutputs(outputs: string, log: string): string {
  return outputs.replace(
    /^(webhook_secret_[A-Z_]+)<<(\S+)\n([\s\S]*?)\n\2\n/gm,
    (_all, name: string, _d, value: string) => {
      expect(log, `${name} is masked before it is set`).toContain(`::add-mask::${value}\n`);
      return "";
    },
  );
}

/** What a scan collects: named texts, and the secrets they must not hold. */
class Scan {
  readonly texts = new Map<string, string>();
  readonly webhookSecrets = new Set<string>();
  readonly tokens = new Set<string>();

  keep(name: string, r: CliRun): CliRun {
    this.texts.set(`${name}: stdout`, r.out);
    this.texts.set(`${name}: stderr`, r.err);
    return r;
  }

  /** Every file under `dir`, but the secrets files (`except`). */
  files(dir: string, except: string[]): void {
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = path.join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (!except.includes(p))
          this.texts.set(`file ${path.relative(dir, p)}`, readFileSync(p, "utf8"));
      }
    };
    walk(dir);
  }

  /** The secrets of a secrets file (JSON or YAML): they may be nowhere else. */
  secretsOf(file: string): void {
    const text = readFileSync(file, "utf8");
    const map = (file.endsWith(".json") ? JSON.parse(text) : parse(text)) as Record<string, string>;
    for (const s of Object.values(map)) this.webhookSecrets.add(s);
  }

  check(): void {
    expect(this.texts.size).toBeGreaterThan(10);
    expect(this.webhookSecrets.size).toBeGreaterThan(3);
    for (const [name, raw] of this.texts) {
      const text = withoutMasks(raw);
      expect(text.includes(CLIENT_SECRET), `${name} holds the client secret`).toBe(false);
      expect(text.includes(CONTROL_TOKEN), `${name} holds the control token`).toBe(false);
      for (const s of this.webhookSecrets)
        expect(text.includes(s), `${name} holds a webhook secret`).toBe(false);
      for (const t of this.tokens) expect(text.includes(t), `${name} holds a token`).toBe(false);
      expect(text, `${name}: bearer token`).not.toMatch(/Bearer\s+(?!\[REDACTED\])[A-Za-z0-9]/);
      expect(text, `${name}: secret-shaped word`).not.toMatch(SECRET_SHAPE);
      // The state file holds 43-character hashes, which are no tokens.
      if (!name.endsWith("emulator-state.json")) {
        expect(text, `${name}: token-shaped word`).not.toMatch(TOKEN_SHAPE);
      }
    }
  }
}

/** The example's stores, owned by the scan's client. */
function scanSeed(dir: string): Seed {
  const seed = seedFor(dir, STORE_FILES);
  return { clients: seed.clients.map((c) => ({ ...c, client_id: CLIENT_ID, client_secret: CLIENT_SECRET })) };
}

async function platformProject(): Promise<{ dir: string; config: string; emu: RunningEmulator }> {
  const dir = copyExample();
  const emu = await startEmulator({ seed: scanSeed(dir), applyDelayMs: 10 });
  cleanup.push(() => emu.close());
  const config = path.join(dir, "carte.yaml");
  edit(
    config,
    /^version: 1$/m,
    `version: 1\nsecrets_file: .carte/webhook-secrets.json\nplatform:\n  base_url: ${emu.url}`,
  );
  return { dir, config, emu };
}

/** Runs every command, most in every format, in a project; the scan collects what they print. */
async function everyCommand(scan: Scan, dir: string, config: string, label: string): Promise<void> {
  const c = ["-c", config];
  const run = async (name: string, args: string[], env: NodeJS.ProcessEnv = {}, code = 0) => {
    const r = scan.keep(`${label} ${name}`, await carte(args, { ...CREDS, ...env }));
    expect(r.code, `${label} ${name}: ${r.err}`).toBe(code);
    return r;
  };
  const secrets = path.join(dir, ".carte", "webhook-secrets.json");

  await run("validate", ["validate", ...c]);
  for (const format of ["text", "json", "markdown"])
    await run(`plan ${format}`, ["plan", ...c, "--format", format]);
  await run("plan --out", ["plan", ...c, "--out", path.join(dir, "plan.json")]);
  await run("apply plan file", ["apply", ...c, path.join(dir, "plan.json")]);
  scan.secretsOf(secrets);

  edit(config, LAST_HOOK, `${LAST_HOOK}    PING: https://hooks.example.com/ping\n`);
  await run("plan --detailed-exitcode", ["plan", ...c, "--detailed-exitcode"], {}, 2);
  await run("apply --json", ["apply", ...c, "--auto-approve", "--json"]);
  scan.secretsOf(secrets);
  await run("rotate-secret", ["webhooks", "rotate-secret", "NEW_ORDER", ...c]);
  scan.secretsOf(secrets);
  await run("rotate-secret to YAML", [
    "webhooks",
    "rotate-secret",
    "PING",
    ...c,
    "--secrets-file",
    path.join(dir, "rotated.yaml"),
  ]);
  scan.secretsOf(path.join(dir, "rotated.yaml"));

  // In GitHub Actions: masked, then to the step output.
  const githubOutput = path.join(dir, "github-output");
  writeFileSync(githubOutput, "");
  edit(config, LAST_HOOK, `${LAST_HOOK}    ORDER_EVENT_CANCEL: https://hooks.example.com/cancel\n`);
  await run("apply in GitHub Actions", ["apply", ...c, "--auto-approve", "--secrets-file", ""], {
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: githubOutput,
  });
  const stepOutputs = readFileSync(githubOutput, "utf8");
  for (const m of stepOutputs.matchAll(/^webhook_secret_\w+=([0-9a-f]{48})$/gm))
    scan.webhookSecrets.add(m[1]!);
  expect(stepOutputs.includes(CLIENT_SECRET)).toBe(false);

  await run("import", [
    "import",
    ...c,
    "--store",
    "bog-centro",
    "--store",
    "med-poblado",
    "--out",
    path.join(dir, "imported"),
  ]);
  await run("finance payments", ["finance", "payments", ...c]);
  await run("finance orders csv", ["finance", "orders", ...c, "--out", path.join(dir, "orders.csv")]);
  await run("finance adjustments json", ["finance", "adjustments", ...c, "--format", "json"]);
  await run("finance cancellations ndjson", [
    "finance",
    "cancellations",
    ...c,
    "--format",
    "ndjson",
    "--out",
    path.join(dir, "c.ndjson"),
  ]);
  for (const format of ["markdown", "csv"]) {
    const r = scan.keep(
      `${label} finance reconcile ${format}`,
      await carte(
        ["finance", "reconcile", ...c, "--format", format, "--out", path.join(dir, `reconcile.${format}`)],
        CREDS,
      ),
    );
    expect([0, 2]).toContain(r.code);
  }

  // Errors, with stack traces: a client the platform does not know, a bad file.
  await run("unknown client --debug", ["plan", ...c, "--debug"], { CARTE_CLIENT_ID: "scan-nobody" }, 1);
  writeFileSync(path.join(dir, "stores", "broken.yaml"), "store: { id: 1 }\n");
  await run("bad file --debug", ["validate", ...c, "--debug"], {}, 1);
  await run("bad file plan", ["plan", ...c], {}, 1);
}

describe("secrets scan", () => {
  it("finds no secret in anything carte writes, against a platform", async () => {
    const scan = new Scan();
    const { dir, config, emu } = await platformProject();
    // A failing apply first: the platform refuses the item upserts (500, retried, then reported).
    emu.setFaults({
      routes: [{ prefix: "/restaurants/menu", method: "POST", faultRate: 1, faultKinds: ["500"] }],
    });
    scan.keep("failing apply", await carte(["apply", "-c", config, "--auto-approve"], CREDS));
    emu.setFaults(undefined);
    await everyCommand(scan, dir, config, "platform");
    scan.files(dir, [
      path.join(dir, ".carte", "webhook-secrets.json"),
      path.join(dir, "rotated.yaml"),
      path.join(dir, "github-output"),
    ]);
    scan.check();
    expect(scan.texts.get("file plan.json")).toContain('"formatVersion"');
  }, 120_000);

  it("finds no secret in anything carte writes, against the embedded emulator, its state file included", async () => {
    const scan = new Scan();
    const dir = copyExample();
    const config = path.join(dir, "carte.yaml");
    edit(config, /^version: 1$/m, "version: 1\nsecrets_file: .carte/webhook-secrets.json");
    await everyCommand(scan, dir, config, "embedded");
    const state = path.join(dir, ".carte", "emulator-state.json");
    expect(statSync(state).mode & 0o777).toBe(0o600);
    expect(readFileSync(state, "utf8")).toContain(`"client_id":"${CLIENT_ID}"`);
    scan.files(dir, [
      path.join(dir, ".carte", "webhook-secrets.json"),
      path.join(dir, "rotated.yaml"),
      path.join(dir, "github-output"),
    ]);
    expect(scan.texts.has("file .carte/emulator-state.json")).toBe(true);
    scan.check();
  }, 120_000);

  it("finds no secret in the emulator's --verbose log, its state file or its control API", async () => {
    const scan = new Scan();
    const dir = mkdtempSync(path.join(tmpdir(), "carte-scan-emu-"));
    const seedFile = path.join(dir, "seed.yaml");
    writeFileSync(
      seedFile,
      stringify({
        clients: [
          {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            stores: [{ id: 900101, integration_id: "a", name: "A" }],
          },
        ],
      }),
    );
    let err = "";
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const io: CliIo = {
      out: (s) => void (err += s),
      err: (s) => void (err += s),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: { CARTE_EMULATOR_CONTROL_TOKEN: CONTROL_TOKEN },
      untilSignal: () => stopped,
    };
    const state = path.join(dir, "state", "emulator.json");
    const done = runCli(["emulator", "--port", "0", "--seed", seedFile, "--state", state, "--verbose"], io);
    while (!/listening on/.test(err)) await new Promise((r) => setTimeout(r, 20));
    const url = /listening on (\S+)/.exec(err)![1]!;
    const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${p}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });

    const login = await post("/restaurants/auth/v1/token/login/integrations", {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    scan.tokens.add(token);
    expect(
      (
        await post("/restaurants/auth/v1/token/login/integrations", {
          client_id: CLIENT_ID,
          client_secret: `${CLIENT_SECRET}-wrong`,
        })
      ).status,
    ).toBe(401);
    const hook = await post(
      `${V2}/webhook`,
      { event: "PING", data: [{ url: "http://127.0.0.1:9/p", stores: ["900101"] }] },
      { "x-authorization": `Bearer ${token}` },
    );
    scan.webhookSecrets.add(((await hook.json()) as { secret: string }).secret);
    const reset = await fetch(`${url}${V2}/webhook/PING/reset-secret`, {
      method: "PUT",
      headers: { "x-authorization": `Bearer ${token}` },
    });
    scan.webhookSecrets.add(((await reset.json()) as { secret: string }).secret);
    await fetch(`${url}/__emulator/webhooks/trigger`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-emulator-control-token": CONTROL_TOKEN },
      body: JSON.stringify({ event: "PING", store_id: "900101" }),
    });
    for (const what of ["requests", "deliveries"]) {
      const r = await fetch(`${url}/__emulator/${what}`, {
        headers: { "x-emulator-control-token": CONTROL_TOKEN },
      });
      expect(r.status).toBe(200);
      scan.texts.set(`control API ${what}`, await r.text());
    }
    stop();
    expect(await done).toBe(0);
    scan.texts.set("emulator log", err);
    expect(err).toContain("POST /restaurants/auth/v1/token/login/integrations 401");
    scan.files(dir, [seedFile]);
    expect(scan.texts.has("file state/emulator.json")).toBe(true);
    // Too few texts for the generic floor: check them here.
    for (const [name, text] of scan.texts) {
      expect(text.includes(CLIENT_SECRET), name).toBe(false);
      expect(text.includes(token), name).toBe(false);
      for (const s of scan.webhookSecrets) expect(text.includes(s), name).toBe(false);
    }
  });

  it("finds no secret in the GitHub Action's summary, outputs, comment or log", async () => {
    const scan = new Scan();
    const { dir, config } = await platformProject();
    const comments: string[] = [];
    const gh: Server = createServer((req, res) => {
      let raw = "";
      req.on("data", (d: Buffer) => (raw += d.toString()));
      req.on("end", () => {
        res.writeHead(req.method === "GET" ? 200 : 201, { "content-type": "application/json" });
        if (req.method === "GET") return res.end("[]");
        comments.push((JSON.parse(raw) as { body: string }).body);
        res.end(JSON.stringify({ id: comments.length, body: "" }));
      });
    });
    await new Promise<void>((r) => gh.listen(0, "127.0.0.1", r));
    cleanup.push(() => new Promise<void>((r) => gh.close(() => r())));
    const event = path.join(dir, "event.json");
    writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
    const summary = path.join(dir, "summary.md");
    const outputs = path.join(dir, "outputs.txt");
    writeFileSync(summary, "");
    writeFileSync(outputs, "");
    const saved = { ...process.env };
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    Object.assign(process.env, {
      ...CREDS,
      GITHUB_API_URL: `http://127.0.0.1:${(gh.address() as { port: number }).port}`,
      GITHUB_REPOSITORY: "chain/menus",
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: event,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: outputs,
      INPUT_CONFIG: config,
      INPUT_COMMENT: "true",
      "INPUT_GITHUB-TOKEN": "ghs_scanfaketoken",
    });
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      for (const command of ["plan", "apply", "plan"]) {
        process.env.INPUT_COMMAND = command;
        expect(await runAction()).toBe(0);
      }
      // A failing run: an unknown client.
      process.env.CARTE_CLIENT_ID = "scan-nobody";
      expect(await runAction()).toBe(1);
    } finally {
      process.stdout.write = write;
      process.env = saved;
    }
    scan.texts.set("action log", written.join(""));
    scan.texts.set("action comments", comments.join("\n"));
    scan.texts.set("action summary", readFileSync(summary, "utf8"));
    scan.texts.set(
      "action outputs",
      withoutMaskedSecretOutputs(readFileSync(outputs, "utf8"), written.join("")),
    );
    expect(comments.length).toBeGreaterThan(0);
    expect(readFileSync(summary, "utf8")).toContain("carte plan");
    // The Action masks the client secret first (`::add-mask::`, the one line that may name it).
    expect(scan.texts.get("action log")).toContain(`::add-mask::${CLIENT_SECRET}\n`);
    for (const [name, raw] of scan.texts) {
      const text = withoutMasks(raw);
      expect(text.includes(CLIENT_SECRET), name).toBe(false);
      expect(text, name).not.toMatch(SECRET_SHAPE);
      expect(text, name).not.toMatch(/Bearer\s+(?!\[REDACTED\])[A-Za-z0-9]/);
    }
  }, 60_000);
});

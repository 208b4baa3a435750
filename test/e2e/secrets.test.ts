/**
 * No output of any command contains a webhook secret, the client secret or
 * a token, in every output format. Runs plan (text, json, markdown, and a saved plan file), apply (text
 * and --json), a failing apply and `carte webhooks rotate-secret` through the in-process CLI against the
 * emulator, on the example chain and its webhooks (carte.yaml `defaults: webhooks:`, the bogota group,
 * bog-chapinero), and checks what they printed. The secrets file exists with mode 0600 and holds the
 * secrets.
 */

import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  carte,
  CLIENT_ID,
  CLIENT_SECRET,
  edit,
  exampleAgainstEmulator,
  type CliRun,
} from "../helpers/project.js";

const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const V2 = "/api/v2/restaurants-integrations-public-api";
/** The line of carte.yaml's defaults after which test events are added. */
const LAST_HOOK = "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n";
/** Events the example chain configures. */
const EXAMPLE_EVENTS = ["MENU_APPROVED", "MENU_REJECTED", "NEW_ORDER"];

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function setup() {
  const fx = await exampleAgainstEmulator(storeFiles);
  cleanup = fx.close;
  return fx;
}

/** A token of the emulator, logged in with the e2e credentials: its shape is what no output may show. */
async function someToken(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/restaurants/auth/v1/token/login/integrations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

const readSecrets = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
const addHook = (config: string, line: string) => edit(config, LAST_HOOK, `${LAST_HOOK}    ${line}\n`);

/**
 * Asserts that no text holds a secret or a token: the given values, a `Bearer` followed by anything
 * but the redaction mark, and any word shaped like a token or a webhook secret.
 */
function assertClean(texts: Record<string, string>, secrets: string[], token: string) {
  const tokenShape = new RegExp(`(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{${token.length}}(?![A-Za-z0-9_-])`);
  for (const [name, text] of Object.entries(texts)) {
    for (const s of [...secrets, CLIENT_SECRET, token]) {
      expect(text.includes(s), `${name} contains a secret`).toBe(false);
    }
    expect(text, `${name}: bearer token`).not.toMatch(/Bearer\s+(?!\[REDACTED\])\S/);
    expect(text, `${name}: token-shaped word`).not.toMatch(tokenShape);
    expect(text, `${name}: secret-shaped word`).not.toMatch(/(?<![0-9a-f])[0-9a-f]{48}(?![0-9a-f])/);
  }
}

describe("secrets never in output", () => {
  it("keeps webhook secrets out of every output format and in the 0600 secrets file only", async () => {
    const fx = await setup();
    const token = await someToken(fx.emu.url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const secretsFile = path.join(fx.dir, "webhook-secrets.json");
    const planFile = path.join(fx.dir, "plan.json");
    const texts: Record<string, string> = {};
    const secrets: string[] = [];
    const keep = (name: string, r: CliRun) => {
      texts[`${name} stdout`] = r.out;
      texts[`${name} stderr`] = r.err;
      return r;
    };
    const c = ["-c", fx.config];

    // Create: the catalog and the example's webhooks; their secrets go to the file.
    const created = keep(
      "apply text",
      await carte(["apply", ...c, "--auto-approve", "--secrets-file", secretsFile]),
    );
    expect(created.code, created.err).toBe(0);
    expect(existsSync(secretsFile)).toBe(true);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const first = readSecrets(secretsFile);
    expect(Object.keys(first)).toEqual(EXAMPLE_EVENTS);
    for (const e of EXAMPLE_EVENTS) expect(first[e]).toMatch(/^[0-9a-f]{48}$/);
    secrets.push(...Object.values(first));

    // Plans of a webhook change, in every format and as a file.
    edit(
      fx.config,
      "NEW_ORDER: http://localhost:8080/hooks/new-order",
      'NEW_ORDER: { url: "https://hooks.example.com/orders-v2", enabled: false }',
    );
    for (const format of ["text", "json", "markdown"]) {
      const r = keep(`plan ${format}`, await carte(["plan", ...c, "--format", format]));
      expect(r.code, r.err).toBe(0);
      // The address in the JSON, the files' terms in the text and Markdown.
      expect(r.out).toMatch(format === "json" ? /webhook\[NEW_ORDER\]/ : /webhook NEW_ORDER/);
    }
    expect(keep("plan --out", await carte(["plan", ...c, "--json", "--out", planFile])).code).toBe(0);
    texts["plan file"] = readFileSync(planFile, "utf8");

    // Apply --json of the saved plan, then a new event through CARTE_SECRETS_FILE.
    const applied = keep("apply json", await carte(["apply", ...c, planFile, "--json"]));
    expect(applied.code, applied.err).toBe(0);
    addHook(fx.config, "PING: https://hooks.example.com/ping");
    const viaEnv = keep(
      "apply env",
      await carte(["apply", ...c, "--auto-approve", "--json"], { CARTE_SECRETS_FILE: secretsFile }),
    );
    expect(viaEnv.code, viaEnv.err).toBe(0);
    const ping = readSecrets(secretsFile).PING!;
    expect(ping).toMatch(/^[0-9a-f]{48}$/);
    expect(readSecrets(secretsFile).NEW_ORDER).toBe(first.NEW_ORDER);
    secrets.push(ping);

    // A failing apply: the platform fails the creation of a new event (500, not retried: a POST).
    addHook(fx.config, "ORDER_EVENT_CANCEL: https://hooks.example.com/cancel");
    fx.emu.setFaults({
      routes: [{ prefix: `${V2}/webhook`, method: "POST", faultRate: 1, faultKinds: ["500"] }],
    });
    const failed = keep(
      "failing apply",
      await carte(["apply", ...c, "--auto-approve", "--secrets-file", secretsFile]),
    );
    expect(failed.code).toBe(1);
    expect(failed.out).toContain("Apply incomplete");
    const failedJson = keep("failing apply json", await carte(["apply", ...c, "--auto-approve", "--json"]));
    expect(failedJson.code).toBe(1);
    expect(failedJson.out).toContain('"failed": 1');
    fx.emu.setFaults(undefined);

    // Rotate: only "rotated; the new secret is in FILE" is printed.
    const rotated = keep(
      "rotate-secret",
      await carte(["webhooks", "rotate-secret", "NEW_ORDER", ...c, "--secrets-file", secretsFile]),
    );
    expect(rotated.code, rotated.err).toBe(0);
    expect(rotated.out).toBe(`rotated; the new secret is in ${secretsFile}\n`);
    expect(rotated.err).toBe("");
    const second = readSecrets(secretsFile).NEW_ORDER!;
    expect(second).toMatch(/^[0-9a-f]{48}$/);
    expect(second).not.toBe(first.NEW_ORDER);
    expect(readSecrets(secretsFile).PING).toBe(ping);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    secrets.push(second);

    // Rotation without a sink is refused before any call; a failed rotation names no secret.
    const refused = keep("rotate without sink", await carte(["webhooks", "rotate-secret", "PING", ...c]));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("--secrets-file");
    const unknown = keep(
      "rotate unknown event",
      await carte(["webhooks", "rotate-secret", "STORE_CONNECTIVITY", ...c, "--secrets-file", secretsFile]),
    );
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("404");

    // A secret with nowhere to go is discarded with a warning that names the event, not the secret.
    const discarded = keep("apply discarded", await carte(["apply", ...c, "--auto-approve"]));
    expect(discarded.code, discarded.err).toBe(0);
    expect(discarded.err).toContain("ORDER_EVENT_CANCEL");
    expect(discarded.err).toContain("carte webhooks rotate-secret ORDER_EVENT_CANCEL");
    expect(readSecrets(secretsFile)).not.toHaveProperty("ORDER_EVENT_CANCEL");

    // carte.yaml `secrets_file:` (YAML here) is used when no flag or variable names a file.
    edit(fx.config, /^version: 1$/m, "version: 1\nsecrets_file: project-secrets.yaml");
    const projectFile = path.join(fx.dir, "project-secrets.yaml");
    const viaConfig = keep(
      "rotate via carte.yaml",
      await carte(["webhooks", "rotate-secret", "ORDER_EVENT_CANCEL", ...c]),
    );
    expect(viaConfig.code, viaConfig.err).toBe(0);
    expect(viaConfig.out).toBe(`rotated; the new secret is in ${projectFile}\n`);
    expect(statSync(projectFile).mode & 0o777).toBe(0o600);
    const cancel = (parse(readFileSync(projectFile, "utf8")) as Record<string, string>).ORDER_EVENT_CANCEL!;
    expect(cancel).toMatch(/^[0-9a-f]{48}$/);
    secrets.push(cancel);

    const after = keep("final plan", await carte(["plan", ...c, "--detailed-exitcode"]));
    expect(after.code, after.out).toBe(0);

    assertClean(texts, secrets, token);
  });

  it("in GitHub Actions, masks each secret before printing anything else and writes the step output", async () => {
    const fx = await setup();
    const output = path.join(fx.dir, "github_output");
    writeFileSync(output, "");
    const env = { GITHUB_ACTIONS: "true", GITHUB_OUTPUT: output };
    const r = await carte(["apply", "-c", fx.config, "--auto-approve", "-q"], env);
    expect(r.code, r.err).toBe(0);
    const outputs = [...readFileSync(output, "utf8").matchAll(/^webhook_secret_([A-Z_]+)=([0-9a-f]{48})$/gm)];
    expect(outputs.map((m) => m[1]).sort()).toEqual(EXAMPLE_EVENTS);
    // The only place stdout shows a secret is its mask command, printed before anything else can.
    const lines = r.out.split("\n");
    for (const [, , secret] of outputs) {
      expect(lines.filter((l) => l.includes(secret!))).toEqual([`::add-mask::${secret}`]);
      expect(r.err).not.toContain(secret);
    }

    const rotated = await carte(["webhooks", "rotate-secret", "PING", "-c", fx.config], env);
    expect(rotated.code).toBe(1); // PING is not configured: nothing rotated, nothing masked
    expect(rotated.out).toBe("");
    const again = await carte(["webhooks", "rotate-secret", "NEW_ORDER", "-c", fx.config], env);
    expect(again.code, again.err).toBe(0);
    const next = /webhook_secret_NEW_ORDER=([0-9a-f]{48})\n$/.exec(readFileSync(output, "utf8"))![1]!;
    expect(outputs.map((m) => m[2])).not.toContain(next);
    expect(again.out).toBe(
      `::add-mask::${next}\nrotated; the new secret is in the step output webhook_secret_NEW_ORDER\n`,
    );
  });
});

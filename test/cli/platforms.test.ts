/**
 * A project of two platforms (carte.yaml `platforms:`, one per country) through the CLI: each platform
 * planned in its own section with its own currency format and its own success-rate line; a platform
 * that is down does not hide the other's plan (the exit code says it failed); each platform's
 * credentials come from the variables it names; a saved plan is of one platform.
 */

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { carte, copyExample, edit } from "../helpers/project.js";
import { savedPlan } from "../helpers/plan-file.js";

const FIXTURE = "test/fixtures/two-platforms";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** A copy of the two-platform fixture; removed after the test. */
function project(): { dir: string; config: string } {
  const dir = copyExample(FIXTURE);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, config: path.join(dir, "carte.yaml") };
}

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An emulator serving the Brazilian store to the client `id`/`secret`. */
async function brazilEmulator(id: string, secret: string): Promise<RunningEmulator> {
  const emu = await startEmulator({
    port: 0,
    applyDelayMs: 10,
    seed: {
      clients: [
        {
          client_id: id,
          client_secret: secret,
          stores: [
            { id: "920001", integration_id: "sp-paulista", name: "São Paulo Paulista", country: "BR" },
          ],
        },
      ],
    },
  });
  cleanups.push(() => emu.close());
  return emu;
}

/** The lines of a text between a line starting with `from` and the next line starting with `Platform `. */
function section(text: string, from: string): string {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith(from));
  if (start === -1) return "";
  const end = lines.findIndex((l, i) => i > start && l.startsWith("Platform "));
  return lines.slice(start, end === -1 ? undefined : end).join("\n");
}

describe("a project of two platforms", () => {
  it("plans each platform in its own section, in its currency, with its own success-rate line", async () => {
    const { config } = project();
    const r = await carte(["plan", "-c", config]);
    expect(r.code, r.err).toBe(0);
    const co = section(r.out, "Platform co");
    const br = section(r.out, "Platform br");
    expect(co.split("\n")[0]).toBe(
      "Platform co — Colombia, COP — embedded emulator (state in " +
        path.join(path.dirname(config), ".carte", "platforms", "co").split(path.sep).join("/") +
        ")",
    );
    expect(br.split("\n")[0]).toMatch(
      /^Platform br — Brazil, BRL — embedded emulator \(state in .*\/\.carte\/platforms\/br\)$/,
    );
    // Each platform's prices in its own currency format.
    expect(co).toContain("$24.900");
    expect(co).not.toContain("R$");
    expect(br).toContain("R$ 29,90");
    expect(co).toContain("bog-centro");
    expect(co).not.toContain("sp-paulista");
    expect(br).toContain("sp-paulista");
    expect(r.err).toMatch(/^co: \d+ calls? to the platform, 100\.0 % succeeded\.$/m);
    expect(r.err).toMatch(/^br: \d+ calls? to the platform, 100\.0 % succeeded\.$/m);
  });

  it("still shows one platform's plan when the other's platform is down, and exits non-zero", async () => {
    const { config } = project();
    const port = await closedPort();
    edit(
      config,
      /^ {2}br:\n/m,
      `  br:\n    base_url: http://127.0.0.1:${port}\n    allow_insecure_http: true\n`,
    );
    const r = await carte(["plan", "--timeout", "20s", "-c", config], {
      CARTE_BR_CLIENT_ID: "br-client",
      CARTE_BR_CLIENT_SECRET: "br-secret-never-shown",
    });
    expect(r.code).toBe(1);
    const co = section(r.out, "Platform co");
    expect(co).toContain("$24.900");
    const br = section(r.out, "Platform br");
    expect(br.split("\n")[0]).toBe(`Platform br — Brazil, BRL — platform at 127.0.0.1:${port}`);
    expect(br).toMatch(/Error: /);
    expect(r.err).toContain("platform br failed (its section says why); the other platform ran.");
    // Its retries say whose they are.
    expect(r.err).toMatch(/^br: retrying POST /m);
    expect(r.err).not.toMatch(/^retrying /m);
    expect(r.out + r.err).not.toContain("br-secret-never-shown");
  }, 60_000);

  it("reads a platform's credentials from the variables it names, and names them when missing", async () => {
    const { config } = project();
    const emu = await brazilEmulator("brazil-client", "brazil-secret-never-shown");
    edit(
      config,
      /^ {2}br:\n/m,
      `  br:\n    base_url: ${emu.url}\n    allow_insecure_http: true\n` +
        "    credentials: { client_id: CHAIN_BR_ID, client_secret: CHAIN_BR_SECRET }\n",
    );
    const env = { CHAIN_BR_ID: "brazil-client", CHAIN_BR_SECRET: "brazil-secret-never-shown" };
    const ok = await carte(["plan", "-c", config], env);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(section(ok.out, "Platform br")).toContain("R$ 29,90");

    const missing = await carte(["plan", "-c", config], { CHAIN_BR_ID: "brazil-client" });
    expect(missing.code).toBe(1);
    const br = section(missing.out, "Platform br");
    expect(br).toContain(
      "platform br: a platform address is configured but CHAIN_BR_ID and CHAIN_BR_SECRET are not both set",
    );
    expect(section(missing.out, "Platform co")).toContain("$24.900");
    expect(missing.out + missing.err).not.toContain("brazil-client");
  });

  it("saves a plan of one platform only, and applies it to that platform alone", async () => {
    const { dir, config } = project();
    const out = path.join(dir, "plan.json");
    const both = await carte(["plan", "--out", out, "-c", config]);
    expect(both.code).toBe(1);
    expect(both.err).toContain("--out saves the plan of one platform: name it with --platform NAME");

    const co = await carte(["plan", "--platform", "co", "--out", out, "-c", config]);
    expect(co.code, co.err).toBe(0);
    const saved = await savedPlan(out);
    expect(saved.platform).toBe("co");

    const elsewhere = await carte(["apply", out, "--platform", "br", "-c", config]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.err).toContain('the saved plan is of platform "co"');

    const applied = await carte(["apply", out, "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.err).toMatch(/^co: \d+ calls to the platform/m);
    expect(applied.err).not.toMatch(/^br: /m);
  });

  it("refuses a platform carte.yaml does not name, with the closest name", async () => {
    const { config } = project();
    const r = await carte(["plan", "--platform", "bt", "-c", config]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('--platform "bt": carte.yaml names no such platform (did you mean "br"?)');
  });

  it("apply --json carries each platform's result", async () => {
    const { config } = project();
    const r = await carte(["apply", "--auto-approve", "--json", "-c", config]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as {
      platforms: { platform: string; exitCode: number; summary: unknown }[];
    };
    expect(doc.platforms.map((p) => [p.platform, p.exitCode])).toEqual([
      ["co", 0],
      ["br", 0],
    ]);
    const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(again.code, again.out).toBe(0);
  });

  it("rehearses on the development host of the platforms that have one, with their test stores", async () => {
    const { config } = project();
    const r = await carte(["apply", "--rehearsal", "--auto-approve", "-c", config]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split("\n")[0]).toMatch(
      /^Platform co, rehearsal on its development host — Colombia, COP — embedded emulator \(state in .*\/\.carte\/platforms\/co-development\)$/,
    );
    expect(r.out).toContain("test-bog-centro");
    expect(r.out).not.toContain("Platform br");
    // Production is untouched: its plan still creates everything.
    const production = await carte(["plan", "--platform", "co", "--detailed-exitcode", "-c", config]);
    expect(production.code).toBe(2);
    expect(production.out).toContain("store[bog-centro]");
  });

  it("validates, explains and shows the status of each platform in its own section", async () => {
    const { config } = project();
    const valid = await carte(["validate", "-c", config]);
    expect(valid.code, valid.out + valid.err).toBe(0);
    expect(section(valid.out, "Platform co")).toContain("The configuration is valid: 1 store");
    expect(section(valid.out, "Platform br")).toContain("The configuration is valid: 1 store");

    const explained = await carte(["explain", "store[*].item[BURGER]", "-c", config]);
    expect(explained.code, explained.err).toBe(0);
    expect(section(explained.out, "Platform co")).toContain("$24.900");
    expect(section(explained.out, "Platform br")).toContain("R$ 29,90");

    const status = await carte(["status", "--json", "-c", config]);
    const doc = JSON.parse(status.out) as { platforms: { platform: string }[] };
    expect(doc.platforms.map((p) => p.platform)).toEqual(["co", "br"]);
    expect(status.err).toMatch(/^co: \d+ calls? to the platform/m);
    expect(status.err).toMatch(/^br: \d+ calls? to the platform/m);
  });

  it("plans in Markdown with a heading per platform, and in JSON as one document", async () => {
    const { config } = project();
    const md = await carte(["plan", "--format", "markdown", "-c", config]);
    expect(md.code, md.err).toBe(0);
    expect(md.out).toMatch(/^## Platform co — Colombia, COP — /m);
    expect(md.out).toMatch(/^## Platform br — Brazil, BRL — /m);
    const json = await carte(["plan", "--json", "-c", config]);
    expect(json.code, json.err).toBe(0);
    const doc = JSON.parse(json.out) as {
      platforms: { platform: string; plan: { platform: string; currency: string } }[];
    };
    expect(doc.platforms.map((p) => [p.platform, p.plan.platform, p.plan.currency])).toEqual([
      ["co", "co", "COP"],
      ["br", "br", "BRL"],
    ]);
  });

  it("keeps each platform's webhook secrets in a file of its own beside the secrets file", async () => {
    const { dir, config } = project();
    edit(
      config,
      /^ {2}open: true$/m,
      "  open: true\n  webhooks:\n    NEW_ORDER: http://localhost:8080/hooks/new-order",
    );
    const secrets = path.join(dir, "secrets.json");
    const r = await carte(["apply", "--auto-approve", "--secrets-file", secrets, "-c", config]);
    expect(r.code, r.err).toBe(0);
    const co = JSON.parse(readFileSync(path.join(dir, "secrets.co.json"), "utf8")) as Record<string, string>;
    const br = JSON.parse(readFileSync(path.join(dir, "secrets.br.json"), "utf8")) as Record<string, string>;
    expect(Object.keys(co)).toEqual(["NEW_ORDER"]);
    expect(Object.keys(br)).toEqual(["NEW_ORDER"]);
    // Two platforms, two webhooks, two secrets: neither replaced the other.
    expect(co.NEW_ORDER).not.toBe(br.NEW_ORDER);
    expect(r.out + r.err).not.toContain(co.NEW_ORDER!);
  });

  it("quotes a --platform that holds terminal controls, never printing them", async () => {
    const { config } = project();
    const r = await carte(["plan", "--platform", "\u001b]0;owned\u0007co", "-c", config]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("carte.yaml names no such platform");
    // eslint-disable-next-line no-control-regex -- raw control characters must not be printed
    expect(r.err + r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it("exports finance and previews each platform apart; a finance file is of one platform", async () => {
    const { dir, config } = project();
    const range = ["--from", "2025-01-01", "--to", "2025-01-31"];
    const table = await carte(["finance", "payments", ...range, "-c", config]);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^Platform co — Colombia, COP — /m);
    expect(table.out).toMatch(/^Platform br — Brazil, BRL — /m);
    expect(table.err).toMatch(/^co: \d+ calls? to the platform/m);
    expect(table.err).toMatch(/^br: \d+ calls? to the platform/m);
    const file = await carte([
      "finance",
      "payments",
      ...range,
      "--out",
      path.join(dir, "p.csv"),
      "-c",
      config,
    ]);
    expect(file.code).toBe(1);
    expect(file.err).toContain("a finance file (--out, or a format for machines) is of one platform");
    const one = await carte([
      "finance",
      "payments",
      ...range,
      "--platform",
      "br",
      "--out",
      path.join(dir, "p.csv"),
      "-c",
      config,
    ]);
    expect(one.code, one.err).toBe(0);

    const preview = await carte(["preview", "-c", config]);
    expect(preview.code, preview.err).toBe(0);
    const co = readFileSync(path.join(dir, ".carte", "preview", "co", "index.html"), "utf8");
    const br = readFileSync(path.join(dir, ".carte", "preview", "br", "index.html"), "utf8");
    expect(co).toContain("Bogotá Centro");
    expect(br).toContain("São Paulo Paulista");
    expect(co).not.toContain("São Paulo Paulista");
  });

  it("applies a saved plan of a rehearsal on the development host it was made on", async () => {
    const { dir, config } = project();
    const base = await carte(["plan", "--base", "HEAD", "-c", config]);
    expect(base.code).toBe(1);
    expect(base.err).toContain("--base compares the plan of one platform: name it with --platform NAME");

    const out = path.join(dir, "rehearsal.json");
    const saved = await carte(["plan", "--platform", "co", "--rehearsal", "--out", out, "-c", config]);
    expect(saved.code, saved.err).toBe(0);
    const plan = await savedPlan(out);
    expect([plan.platform, plan.rehearsal]).toEqual(["co", true]);
    const production = await carte(["apply", out, "--platform", "co", "-c", config]);
    expect(production.code).toBe(1);
    expect(production.err).toContain(
      'the saved plan is of platform "co" (its rehearsal on the development host)',
    );
    const applied = await carte(["apply", out, "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toMatch(/^Platform co, rehearsal on its development host — /m);
    expect(applied.out).toContain("test-bog-centro");
  });

  it("refuses a saved plan whose platform is no platform name, before any call", async () => {
    const { dir, config } = project();
    const out = path.join(dir, "plan.json");
    expect((await carte(["plan", "--platform", "co", "--out", out, "-c", config])).code).toBe(0);
    const plan = await savedPlan(out);
    writeFileSync(out, JSON.stringify({ ...plan, platform: "\u001b[2Jco" }));
    const r = await carte(["apply", out, "-c", config]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("platform must be a platform name of carte.yaml platforms:");
    // eslint-disable-next-line no-control-regex -- raw control characters must not be printed
    expect(r.err + r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.err).not.toMatch(/^co: \d+ calls/m);
  });
});

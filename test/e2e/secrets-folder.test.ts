/**
 * With the documented `secrets_file: .carte/webhook-secrets.json`
 * and no `.carte/` folder, the apply creates the folder (0700) and keeps every webhook secret in the
 * file (0600). A secrets file that cannot be written refuses the apply before any write call; a
 * secret whose answer was lost is an error naming the event, the next plan says an apply rotates it,
 * and rotating it clears the marker. Temporary files of a killed run are removed.
 */

import { createServer } from "node:http";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { carte, edit, exampleAgainstEmulator, writes } from "../helpers/project.js";

const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
const V2 = "/api/v2/restaurants-integrations-public-api";
const EXAMPLE_EVENTS = ["MENU_APPROVED", "MENU_REJECTED", "NEW_ORDER"];
const LAST_HOOK = "    MENU_REJECTED: http://localhost:8080/hooks/menu-rejected\n";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function setup(secretsFile = ".carte/webhook-secrets.json") {
  const fx = await exampleAgainstEmulator(storeFiles);
  cleanup = fx.close;
  edit(fx.config, /^version: 1$/m, `version: 1\nsecrets_file: ${secretsFile}`);
  return fx;
}

const readSecrets = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;

describe("the secrets folder", () => {
  it("is created 0700 by the apply, which keeps every webhook secret in a 0600 file", async () => {
    const fx = await setup();
    const folder = path.join(fx.dir, ".carte");
    expect(existsSync(folder)).toBe(false);
    const r = await carte(["apply", "-c", fx.config, "--auto-approve"]);
    expect(r.code, r.err).toBe(0);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const file = path.join(folder, "webhook-secrets.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secrets = readSecrets(file);
    expect(Object.keys(secrets)).toEqual(EXAMPLE_EVENTS);
    for (const e of EXAMPLE_EVENTS) expect(secrets[e]).toMatch(/^[0-9a-f]{48}$/);
    // Nothing else but the verified store pairings (0600 too): no marker of pending secrets, no
    // temporary file; the apply's lock folder holds no lock once the apply is over.
    expect(readdirSync(folder)).toEqual(["locks", "pairings.json", "webhook-secrets.json"]);
    expect(statSync(path.join(folder, "pairings.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.join(folder, "locks"))).toEqual([]);
    expect(r.err).not.toContain("Warning");
  });

  it("refuses the apply before any write call when the secrets file cannot be written", async () => {
    const fx = await setup("not-a-folder/webhook-secrets.json");
    writeFileSync(path.join(fx.dir, "not-a-folder"), "a file where the folder should be\n");
    fx.emu.clearRequests();
    const r = await carte(["apply", "-c", fx.config, "--auto-approve"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("not-a-folder/webhook-secrets.json");
    expect(r.err).toContain("cannot keep the webhook secrets the platform will return for");
    expect(r.err).toContain("Nothing was changed on the platform");
    expect(writes(fx.emu.requests)).toEqual([]);

    // A secrets file that is not a map of secrets is refused the same way, and left as it is.
    edit(fx.config, "secrets_file: not-a-folder/webhook-secrets.json", "secrets_file: secrets.json");
    writeFileSync(path.join(fx.dir, "secrets.json"), "[1, 2, 3]\n");
    const bad = await carte(["apply", "-c", fx.config, "--auto-approve"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("is not a JSON map of event names to secrets");
    expect(writes(fx.emu.requests)).toEqual([]);
    expect(readFileSync(path.join(fx.dir, "secrets.json"), "utf8")).toBe("[1, 2, 3]\n");
  });

  it("removes the temporary files a killed run left behind", async () => {
    const fx = await setup();
    const folder = path.join(fx.dir, ".carte");
    mkdirSync(folder, { mode: 0o700 });
    // Named like carte's own, by a process that no longer runs (pids never go this high).
    const stale = ".webhook-secrets.json.carte-tmp-99999999-0123456789ab";
    writeFileSync(path.join(folder, stale), '{"NEW_ORDER": "half-written');
    const r = await carte(["apply", "-c", fx.config, "--auto-approve"]);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(folder)).toEqual(["locks", "pairings.json", "webhook-secrets.json"]);
    expect(readdirSync(path.join(folder, "locks"))).toEqual([]);
  });

  it("rotates and keeps the secret of a create whose answer was lost", async () => {
    const fx = await setup();
    expect((await carte(["apply", "-c", fx.config, "--auto-approve"])).code).toBe(0);
    const file = path.join(fx.dir, ".carte", "webhook-secrets.json");
    const before = readSecrets(file);

    // The platform makes the PING webhook, but its answer (with the secret) never arrives: a read shows
    // the webhook, so carte does not create it again but rotates its secret and keeps the new one.
    edit(fx.config, LAST_HOOK, `${LAST_HOOK}    PING: https://hooks.example.com/ping\n`);
    const proxy = await answerLosingProxy(
      fx.emu.url,
      (method, url) => method === "POST" && url === `${V2}/webhook`,
    );
    edit(fx.config, `base_url: ${fx.emu.url}`, `base_url: ${proxy.url}`);
    fx.emu.clearRequests();
    const applied = await carte(["apply", "-c", fx.config, "--auto-approve"]);
    await proxy.close();
    edit(fx.config, `base_url: ${proxy.url}`, `base_url: ${fx.emu.url}`);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out + applied.err).toContain("so the secret was rotated (PUT reset-secret)");
    const after = readSecrets(file);
    expect(after.PING).toMatch(/^[0-9a-f]{48}$/);
    expect({ ...after, PING: undefined }).toEqual({ ...before, PING: undefined });
    expect(existsSync(`${file}.pending`)).toBe(false);
    // The create was sent once: the read settled it.
    expect(fx.emu.requests.filter((r) => r.method === "POST" && r.path === `${V2}/webhook`)).toHaveLength(1);
    const plan = await carte(["plan", "-c", fx.config, "--detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.err).not.toContain("PING");
  });

  it("makes a lost secret an error when rotating fails too, the next plan says an apply rotates it, and rotation clears it", async () => {
    const fx = await setup();
    expect((await carte(["apply", "-c", fx.config, "--auto-approve"])).code).toBe(0);
    const file = path.join(fx.dir, ".carte", "webhook-secrets.json");
    const before = readSecrets(file);

    // The platform makes the PING webhook, but its answer (with the secret) never arrives, and neither
    // does the answer of the rotation carte then asks for: a proxy passes both on and drops the
    // connection instead of the answer.
    edit(fx.config, LAST_HOOK, `${LAST_HOOK}    PING: https://hooks.example.com/ping\n`);
    const proxy = await answerLosingProxy(
      fx.emu.url,
      (method, url) =>
        (method === "POST" && url === `${V2}/webhook`) ||
        (method === "PUT" && url.startsWith(`${V2}/webhook/`) && url.endsWith("/reset-secret")),
    );
    edit(fx.config, `base_url: ${fx.emu.url}`, `base_url: ${proxy.url}`);
    const lost = await carte(["apply", "-c", fx.config, "--auto-approve"]);
    await proxy.close();
    edit(fx.config, `base_url: ${proxy.url}`, `base_url: ${fx.emu.url}`);
    expect(lost.code).toBe(1);
    expect(lost.err).toContain("the platform made the secret of the PING webhook but its answer was lost");
    expect(lost.err).toContain("carte webhooks rotate-secret PING");
    expect(readSecrets(file)).toEqual(before);
    const marker = JSON.parse(readFileSync(`${file}.pending`, "utf8")) as Record<string, string>;
    expect(Object.keys(marker)).toEqual(["PING"]);
    expect(JSON.stringify(marker)).not.toMatch(/[0-9a-f]{48}/);

    // The webhook exists: the plan changes nothing, and says that an apply rotates the secret.
    const plan = await carte(["plan", "-c", fx.config, "--detailed-exitcode"]);
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toContain("Note: the secret of the PING webhook, made by a call at");
    expect(plan.out).toContain("an apply rotates it (PUT reset-secret) and saves the new one.");

    const rotated = await carte(["webhooks", "rotate-secret", "PING", "-c", fx.config]);
    expect(rotated.code, rotated.err).toBe(0);
    expect(readSecrets(file).PING).toMatch(/^[0-9a-f]{48}$/);
    expect(existsSync(`${file}.pending`)).toBe(false);
    const clean = await carte(["plan", "-c", fx.config, "--detailed-exitcode"]);
    expect(clean.code).toBe(0);
    expect(clean.out + clean.err).not.toContain("PING");
  });
});

/**
 * A proxy in front of the emulator that passes every request on, and for those `lose` picks, drops the
 * connection instead of giving the answer: the platform made the change, the caller never hears.
 */
async function answerLosingProxy(
  target: string,
  lose: (method: string, url: string) => boolean,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const auth = req.headers["x-authorization"];
      void fetch(`${target}${req.url}`, {
        method: req.method ?? "GET",
        headers: { "content-type": "application/json", ...(auth ? { "x-authorization": String(auth) } : {}) },
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }).then(async (r) => {
        const body = Buffer.from(await r.arrayBuffer());
        if (lose(req.method ?? "GET", req.url ?? "")) {
          req.socket.destroy();
          return;
        }
        res.writeHead(r.status, { "content-type": "application/json" });
        res.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One project across countries, end to end: the two-country example (examples/two-countries) run by
 * the built CLI against four emulators that serve each API group at its own address — Colombia's and
 * Brazil's platforms and the development host of each, every one with a client of its own — plan →
 * apply → plan "No changes" for production and then for the rehearsal on the development hosts.
 *
 * Every address sits behind a relay that notes the token of each call it carries and the tokens
 * its emulator's auth address issues, so that the test counts, per host, the calls of its own group and
 * those of another group (0), and the tokens a host received that its own auth host did not issue (0:
 * no token of one country, or of a development host, reaches another's).
 */

import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import { API_GROUPS, type ApiGroup } from "../../src/platform/routes.js";
import { callsPerHost, copyExample, misroutedCalls, repoRoot, seedFor } from "../helpers/project.js";

/** A platform of the example and one of its two hosts: production, or its development host. */
interface Host {
  /** `co`, `br`, `co-development`, `br-development`. */
  name: string;
  platform: "co" | "br";
  development: boolean;
  country: string;
  clientId: string;
  clientSecret: string;
  /** The credential variables carte.yaml names for it (not the default names: the files' are used). */
  idVar: string;
  secretVar: string;
  emu: RunningEmulator;
  /** The relay in front of each group's address, which carte.yaml gives as that group's address. */
  relays: Record<ApiGroup, string>;
  /** Tokens its auth address issued. */
  issued: Set<string>;
  /** The bearer token of each call its addresses received (undefined: none), by group. */
  received: { group: ApiGroup; token: string | undefined }[];
}

const EXAMPLE = "examples/two-countries";
/** The production stores of each platform, by their store files. */
const STORE_FILES = {
  co: ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"],
  br: ["stores/sp-paulista.yaml", "stores/sp-pinheiros.yaml"],
} as const;

let dir: string;
let config: string;
const hosts: Host[] = [];
const servers: Server[] = [];

/** A relay to `target` that records every call's bearer token and each token a login answers with. */
async function relay(target: string, group: ApiGroup, host: Host): Promise<string> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    // The platform's token header (docs/platform-api.md §4.2: `x-authorization`, not `Authorization`).
    const auth = req.headers["x-authorization"];
    const token = typeof auth === "string" ? /^Bearer\s+(\S+)$/i.exec(auth)?.[1] : undefined;
    host.received.push({ group, token });
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          if (!req.url?.includes("/token/login/") || answer.statusCode !== 200) return;
          const token = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { access_token?: string })
            .access_token;
          if (token !== undefined) host.issued.add(token);
        });
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The test stores of a platform's development host, as the example's carte.yaml maps them. */
function testStores(platform: "co" | "br"): { id: string; integration_id: string; name: string }[] {
  const project = parse(readFileSync(config, "utf8")) as {
    platforms: Record<
      string,
      { development: { stores: Record<string, { id: number; integration_id: string; name: string }> } }
    >;
  };
  return Object.values(project.platforms[platform]!.development.stores).map((s) => ({
    id: String(s.id),
    integration_id: s.integration_id,
    name: s.name,
  }));
}

/** Starts the emulator of one host with its own client, country and stores, and its relays. */
async function startHost(platform: "co" | "br", development: boolean): Promise<Host> {
  const name = development ? `${platform}-development` : platform;
  const upper = platform.toUpperCase();
  const seed = seedFor(dir, [...STORE_FILES[platform]]);
  const client = {
    ...seed.clients![0]!,
    client_id: `e2e-${name}`,
    client_secret: `e2e-${name}-secret-do-not-print-0123456789`,
    country: upper,
    ...(development ? { stores: testStores(platform) } : {}),
  };
  const emu = await startEmulator({
    port: 0,
    seed: { clients: [client] },
    applyDelayMs: 20,
    splitHosts: true,
  });
  const host: Host = {
    name,
    platform,
    development,
    country: upper,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    idVar: `E2E_${upper}${development ? "_DEV" : ""}_ID`,
    secretVar: `E2E_${upper}${development ? "_DEV" : ""}_SECRET`,
    emu,
    relays: {} as Record<ApiGroup, string>,
    issued: new Set(),
    received: [],
  };
  for (const g of API_GROUPS) host.relays[g] = await relay(emu.urls[g], g, host);
  return host;
}

/** carte.yaml of the copy: each platform and its development block at its hosts' relays. */
function pointAtHosts(): void {
  const project = parse(readFileSync(config, "utf8")) as {
    platforms: Record<string, Record<string, unknown> & { development: Record<string, unknown> }>;
  };
  for (const h of hosts) {
    const p = project.platforms[h.platform]!;
    const at = h.development ? p.development : p;
    at.hosts = { ...h.relays };
    at.credentials = { client_id: h.idVar, client_secret: h.secretVar };
  }
  writeFileSync(config, stringify(project));
}

/** The built CLI (bin/carte.js, dist/), run in a process of its own with each host's credentials. */
function carteBin(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NO_COLOR: "1", CI: "true" };
  for (const h of hosts) {
    env[h.idVar] = h.clientId;
    env[h.secretVar] = h.clientSecret;
  }
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "carte.js"), ...args, "-c", config], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err })));
}

/** The calls each host's addresses received since `from` (an index into each emulator's requests). */
function callCount(h: Host, from = 0): number {
  return h.emu.requests.length - from;
}

/** Plan, apply, plan again: "No changes" for every platform of the run. */
async function planApplyPlan(extra: string[]): Promise<string> {
  const plan = await carteBin(["plan", ...extra]);
  expect(plan.code, plan.out + plan.err).toBe(0);
  const applied = await carteBin(["apply", "--auto-approve", ...extra]);
  expect(applied.code, applied.out + applied.err).toBe(0);
  const again = await carteBin(["plan", "--detailed-exitcode", ...extra]);
  expect(again.code, again.out + again.err).toBe(0);
  expect(again.out.match(/No changes/g), again.out).toHaveLength(2);
  return plan.out;
}

beforeAll(async () => {
  dir = copyExample(EXAMPLE);
  config = path.join(dir, "carte.yaml");
  for (const platform of ["co", "br"] as const)
    for (const development of [false, true]) hosts.push(await startHost(platform, development));
  pointAtHosts();
}, 60_000);

afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  for (const h of hosts) await h.emu.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the two-country example against each country's split hosts", () => {
  it("plans, applies and plans no changes in production, each country at its own hosts with its own tokens", async () => {
    const plan = await planApplyPlan([]);
    console.log(`The two-country example's plan (production):\n${plan}`);
    const production = plan.split(/^(?=Platform )/m).filter((s) => s.startsWith("Platform "));
    expect(production.map((s) => s.split("\n")[0]!.replace(/ — Target.*| — platform.*/, ""))).toEqual([
      expect.stringMatching(/^Platform co — Colombia, COP/),
      expect.stringMatching(/^Platform br — Brazil, BRL/),
    ]);
    // Each country's section names its own hosts, never the other's.
    const [co, br] = [hosts.find((h) => h.name === "co")!, hosts.find((h) => h.name === "br")!];
    expect(production[0]).toContain(new URL(co.relays.menu).host);
    expect(production[0]).not.toContain(new URL(br.relays.menu).host);
    expect(production[1]).toContain(new URL(br.relays.menu).host);
    // The other commands across countries: each country's stores, each country's payments.
    const status = await carteBin(["status"]);
    expect(status.code, status.out + status.err).toBe(0);
    const finance = await carteBin(["finance", "payments", "--from", "2025-01-01", "--to", "2025-03-31"]);
    expect(finance.code, finance.out + finance.err).toBe(0);
    expect(finance.out).toMatch(/^Platform co — Colombia, COP/m);
    expect(finance.out).toMatch(/^Platform br — Brazil, BRL/m);
    // The rehearsal's hosts were not called by a production run.
    for (const h of hosts.filter((x) => x.development)) expect([h.name, callCount(h)]).toEqual([h.name, 0]);

    // What each country's platform now shows: its currency and its language.
    const menu = async (h: Host, store: string) => {
      const client = new PlatformClient({
        baseUrl: h.emu.urls,
        clientId: h.clientId,
        clientSecret: h.clientSecret,
      });
      try {
        return JSON.stringify(await client.getStoreMenu(store));
      } finally {
        await client.close();
      }
    };
    const before = hosts.map((h) => h.emu.requests.length);
    const saoPaulo = await menu(br, "910101");
    expect(saoPaulo).toContain("Hambúrguer Clássico");
    expect(saoPaulo).not.toContain("Hamburguesa Clásica");
    expect(saoPaulo).toContain("29.9");
    expect(saoPaulo).not.toContain("BURGER-COSTENA");
    const bogota = await menu(co, "900102");
    expect(bogota).toContain("Hamburguesa Clásica");
    expect(bogota).toContain("24900");
    // Those reads are the test's own, not the run's.
    hosts.forEach((h, i) => h.emu.requests.splice(before[i]!));
  }, 180_000);

  it("rehearses on the development hosts: the test stores only, production untouched", async () => {
    const before = hosts.map((h) => h.emu.requests.length);
    const plan = await planApplyPlan(["--rehearsal"]);
    console.log(`The two-country example's rehearsal plan:\n${plan}`);
    hosts.forEach((h, i) => {
      if (h.development) expect(callCount(h, before[i]), h.name).toBeGreaterThan(0);
      else expect([h.name, callCount(h, before[i])]).toEqual([h.name, 0]);
    });
    expect(plan).toContain("test-bog-centro");
    expect(plan).toContain("test-sp-paulista");
    expect(plan).not.toMatch(/\bbog-chapinero\b|\bsp-pinheiros\b|\bmed-poblado\b/);
  }, 180_000);

  it("sent no call to another group's address and no token across countries or hosts", () => {
    const lines: string[] = [];
    for (const h of hosts) {
      const counts = callsPerHost(h.emu.requests);
      const foreign = h.received.filter((r) => r.token !== undefined && !h.issued.has(r.token));
      const others = hosts.filter((o) => o !== h);
      const crossing = h.received.filter((r) =>
        others.some((o) => r.token !== undefined && o.issued.has(r.token)),
      );
      lines.push(
        `${h.name.padEnd(15)} ` +
          API_GROUPS.map((g) => `${g} ${counts.get(g)!.right}/${counts.get(g)!.wrong}`).join("  ") +
          `  tokens received ${h.received.filter((r) => r.token).length}, not its own ${foreign.length}`,
      );
      for (const g of API_GROUPS) expect([h.name, g, counts.get(g)!.wrong]).toEqual([h.name, g, 0]);
      // Every call but a login carried a token, and the relays saw each one.
      expect(h.issued.size, h.name).toBeGreaterThan(0);
      expect(
        h.received.filter((r) => r.token === undefined).map((r) => r.group),
        h.name,
      ).toEqual(h.received.filter((r) => r.group === "auth").map(() => "auth"));
      expect(h.received.length, h.name).toBe(h.emu.requests.length);
      // The groups the example's files use, and the logins, reached every host; finance, production's.
      for (const g of API_GROUPS.filter((x) => x !== "finance" || !h.development))
        expect(counts.get(g)!.right, `${h.name}: calls at the ${g} address`).toBeGreaterThan(0);
      expect(misroutedCalls(h.emu.requests)).toEqual([]);
      expect(foreign, h.name).toEqual([]);
      expect(crossing, h.name).toEqual([]);
      // Every login at a host is its own client's: no credentials of another country or host.
      const logins = h.emu.requests.filter((r) => r.path.includes("/token/login/"));
      expect(logins.length, h.name).toBeGreaterThan(0);
      for (const l of logins) expect((l.body as { client_id: string }).client_id).toBe(h.clientId);
      expect(h.emu.requests.filter((r) => r.status === 401 || r.status === 404)).toEqual([]);
    }
    console.log(`Calls per host (group right/wrong):\n${lines.join("\n")}`);
  });

  it("would find a token crossing countries: Brazil's host refuses Colombia's token, and the count shows it", async () => {
    const [co, br] = [hosts.find((h) => h.name === "co")!, hosts.find((h) => h.name === "br")!];
    const token = [...co.issued][0]!;
    const res = await fetch(`${br.relays.menu}/restaurants/menu/v1/stores/910101/store-menu`, {
      headers: { "x-authorization": `Bearer ${token}` },
    });
    expect(res.status).toBe(401);
    expect(br.received.filter((r) => r.token !== undefined && !br.issued.has(r.token))).toEqual([
      { group: "menu", token },
    ]);
  });
});

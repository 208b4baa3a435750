/**
 * Hostile platform answers (docs/security.md, "The platform's answers"): a proxy in front of the
 * emulator answers one route 200 with a body carte cannot use (truncated JSON, an HTML page, an empty
 * body, `null`, a string, an array where an object is due and the other way round, a field of the
 * wrong type), for every read `plan` and `import` make and for the token login. Every run must end
 * with exit 1 and one message that names the call and, where the call is for a store, the store by its
 * key and id, with no raw JavaScript error and no quoted secret. And SKUs that are names of
 * `Object.prototype`'s members (`__proto__`, `constructor`, `toString`) on the platform go through
 * plan, `plan --json`, apply and import as data.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { PlatformClient } from "../../src/platform/client.js";
import { routeOfPath, routeSpec, type RouteName } from "../../src/platform/routes.js";
import { carte, CLIENT_ID, CLIENT_SECRET, clientSeed, type CliRun } from "../helpers/project.js";

/** Raw JavaScript errors that must never reach a user. */
const RAW_ERRORS = [
  "TypeError",
  "SyntaxError",
  "Cannot read properties",
  "is not iterable",
  "is not a function",
  "Unexpected end of JSON",
  "Unexpected token",
  "in JSON at position",
  "(run with --debug",
];

/** What the proxy answers instead of the platform: from the platform's own answer, or from nothing. */
interface Forged {
  status?: number;
  contentType?: string;
  body: string;
}

/** A malformed answer, made from the platform's real answer to the call. */
interface Malformed {
  name: string;
  forge(real: string): Forged;
}

const TRUNCATED: Malformed = {
  name: "truncated JSON",
  forge: (real) => ({ body: real.slice(0, Math.max(1, Math.floor(real.length / 2))) }),
};
const HTML: Malformed = {
  name: "an HTML page with 200",
  forge: () => ({
    contentType: "text/html; charset=utf-8",
    body: "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>\u001b[2J</body></html>",
  }),
};
const EMPTY: Malformed = { name: "an empty body", forge: () => ({ body: "" }) };
const NULL: Malformed = { name: "null", forge: () => ({ body: "null" }) };
const STRING: Malformed = { name: "a string", forge: () => ({ body: JSON.stringify("ok") }) };
/** An array where the route answers an object, an object where it answers an array. */
const OTHER_CONTAINER: Malformed = {
  name: "the other container",
  forge: (real) => ({ body: real.trimStart().startsWith("[") ? "{}" : "[]" }),
};
/** The first string of the answer replaced by null (a field of the wrong type), when it has one. */
const WRONG_FIELD: Malformed = {
  name: "a field of the wrong type",
  forge: (real) => ({ body: real.replace(/"[^"]*":"[^"]*"/, (m) => `${m.slice(0, m.indexOf(":"))}:null`) }),
};

const STORE_ID = "900101";
const STORE_KEY = "bog-centro";
const UTILS_STORE_ID = "900102";
const UTILS_STORE_KEY = "bog-utils";

let emu: RunningEmulator;
let proxy: Server;
let proxyUrl: string;
/** The route the proxy forges, and how; undefined: every call passes through. */
let forging: { route: RouteName; malformed: Malformed } | undefined;
/** Routes of the calls that went through the proxy since the last reset. */
const seen = new Set<RouteName>();
const dirs: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    applyDelayMs: 0,
    seed: clientSeed([
      { id: STORE_ID, integration_id: STORE_KEY, name: "Centro" },
      { id: UTILS_STORE_ID, integration_id: UTILS_STORE_KEY, name: "Utils" },
    ]),
  });
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "/";
      const route = routeOfPath(req.method ?? "GET", url);
      if (route) seen.add(route);
      const headers: Record<string, string> = { "content-type": "application/json" };
      const auth = req.headers["x-authorization"];
      if (typeof auth === "string") headers["x-authorization"] = auth;
      void fetch(emu.url + url, {
        method: req.method ?? "GET",
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      }).then(async (up) => {
        const real = await up.text();
        const forged =
          forging && forging.route === route && up.status === 200 ? forging.malformed.forge(real) : undefined;
        res.writeHead(forged?.status ?? up.status, {
          "content-type": forged?.contentType ?? up.headers.get("content-type") ?? "application/json",
        });
        res.end(forged ? forged.body : real);
      });
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await emu.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A project whose two stores manage every kind that reads the platform, pointed at the proxy; `extra`
 * is added to its carte.yaml.
 */
function project(extra = ""): string {
  const dir = mkdtempSync(path.join(tmpdir(), "carte-answers-"));
  dirs.push(dir);
  const files: Record<string, string> = {
    "carte.yaml": `version: 1
platform:
  base_url: ${proxyUrl}
  requests_per_second: 10000
stores: stores/*.yaml
catalogs: catalogs/*.yaml
client:
  webhooks:
    STORE_PROVISIONING_STATUS: https://hooks.example.com/provisioning
${extra}`,
    "catalogs/burgers.yaml": `items:
  - { sku: BURGER, title: Burger, price: 24900, schedules: [{ days: mon-fri, slots: ["11:00-15:00"] }] }
  - { sku: FRIES, title: Fries, price: 8900 }
categories:
  - { sku: MAIN, title: Main, items: [BURGER, FRIES], schedules: [{ days: sat-sun, slots: ["12:00-20:00"] }] }
menus:
  - { type: DEFAULT, categories: [MAIN] }
`,
    [`stores/${STORE_KEY}.yaml`]: `store: { id: ${STORE_ID}, integration_id: ${STORE_KEY}, name: Centro }
catalog: burgers
hours:
  mon-fri: ["11:00-22:00"]
holidays:
  "12-25": ["12:00-20:00"]
special_days:
  - { name: Nochebuena, date: "12-24", slots: ["11:00-18:00"] }
open: true
webhooks:
  NEW_ORDER: https://hooks.example.com/new-order
availability:
  unavailable: [FRIES]
`,
    [`stores/${UTILS_STORE_KEY}.yaml`]: `store: { id: ${UTILS_STORE_ID}, integration_id: ${UTILS_STORE_KEY}, name: Utils }
catalog: burgers
schedules_via: utils
`,
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** The commands under test, in a project folder. */
const COMMANDS = {
  plan: (dir: string) => ["plan", "-c", path.join(dir, "carte.yaml")],
  import: (dir: string) => [
    "import",
    "--store",
    STORE_ID,
    "--store",
    UTILS_STORE_ID,
    "--out",
    path.join(dir, `imported-${Math.random().toString(36).slice(2)}`),
    "-c",
    path.join(dir, "carte.yaml"),
  ],
} as const;

/** Asserts a run failed cleanly on a malformed answer to `route`. */
function expectClean(run: CliRun, route: RouteName): void {
  const output = run.out + run.err;
  expect(run.code, output).toBe(1);
  const method = route.slice(0, route.indexOf(" "));
  expect(run.err, output).toMatch(new RegExp(`^Error: the platform's answer to ${method} /`, "m"));
  expect(run.err).toMatch(/ is not JSON: | does not have the shape of a /);
  for (const raw of RAW_ERRORS) expect(output, `${raw} in: ${output}`).not.toContain(raw);
  // One message, one line, no control character from the answer.
  expect(
    run.err
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("Error:")),
  ).toHaveLength(1);
  // eslint-disable-next-line no-control-regex -- the point is to find control characters
  expect(output).not.toMatch(/\u001b/);
  // A call for a store names it by its key and its id (whichever of the two stores' calls came first).
  if (route.includes("{storeId}")) {
    const named = [
      `for store ${STORE_KEY} (${STORE_ID})`,
      `for store ${UTILS_STORE_KEY} (${UTILS_STORE_ID})`,
    ];
    expect(
      named.some((n) => run.err.includes(n)),
      run.err,
    ).toBe(true);
  }
}

async function runForging(route: RouteName, malformed: Malformed, args: string[]): Promise<CliRun> {
  forging = { route, malformed };
  try {
    return await carte(args);
  } finally {
    forging = undefined;
  }
}

describe("malformed platform answers", () => {
  let dir: string;
  /** The reads of a clean plan and a clean import, by command. */
  const reads: Record<keyof typeof COMMANDS, RouteName[]> = { plan: [], import: [] };

  beforeAll(async () => {
    dir = project();
    // The platform first gets the files' state, so that every per-corridor and per-product read is made.
    const applied = await carte(["apply", "--auto-approve", "-c", path.join(dir, "carte.yaml")]);
    expect(applied.code, applied.err).toBe(0);
    for (const command of ["plan", "import"] as const) {
      seen.clear();
      const run = await carte(COMMANDS[command](dir));
      expect(run.code, run.err + run.out).toBe(0);
      reads[command] = [...seen].filter((r) => !r.includes("/token/login/")).sort();
    }
  });

  it("reads through every kind of read the commands make (the cases below cover each)", () => {
    expect(reads.plan).toEqual(
      expect.arrayContaining([
        "GET /restaurants/menu/v1/stores/{storeId}/store-menu",
        "GET /api/rest-ops-utils/store/schedule/{storeId}",
        "GET /api/rest-ops-utils/store/schedule/{storeId}/holiday",
        "GET /api/rest-ops-utils/store/schedule/{storeId}/special",
        "POST /api/v2/restaurants-integrations-public-api/availability/stores",
        "GET /api/v2/restaurants-integrations-public-api/webhook",
        "GET /api/v2/restaurants-integrations-public-api/clients/{clientId}/webhooks",
        "GET /api/rest-ops-utils/corridor/store/{storeId}",
        "GET /api/rest-ops-utils/corridor/schedule/{corridorId}/store/{storeId}",
        "GET /api/rest-ops-utils/product/corridor/{corridorId}/store/{storeId}",
        "GET /api/rest-ops-utils/product/schedule/{productId}/corridor/{corridorId}/store/{storeId}",
      ]),
    );
    // Every route read answers a body of a shape the route table names.
    for (const r of [...reads.plan, ...reads.import]) expect(routeSpec(r).response, r).toBeDefined();
  });

  const STORE_MENU = "GET /restaurants/menu/v1/stores/{storeId}/store-menu" as const;
  const ALL = [TRUNCATED, HTML, EMPTY, NULL, STRING, OTHER_CONTAINER, WRONG_FIELD];

  // Every malformed answer through plan; import reads the same way, so three of them there.
  for (const [command, cases] of [
    ["plan", ALL],
    ["import", [TRUNCATED, NULL, WRONG_FIELD]],
  ] as const) {
    for (const malformed of cases) {
      it(`${command}: the store menu answered with ${malformed.name}`, async () => {
        const run = await runForging(STORE_MENU, malformed, COMMANDS[command](dir));
        expectClean(run, STORE_MENU);
      });
    }
  }

  // Each other read of each command once, the malformed answers taken in turn (every one of them
  // reaches every read through the same PlatformClient.decode; the store menu above takes them all).
  it("plan and import: every other read answered with a malformed body", async () => {
    const turns = [TRUNCATED, OTHER_CONTAINER, HTML, NULL, EMPTY, STRING];
    let turn = 0;
    for (const command of ["plan", "import"] as const) {
      const others = reads[command].filter((r) => r !== STORE_MENU);
      expect(others.length).toBeGreaterThan(command === "plan" ? 9 : 4);
      for (const route of others) {
        const run = await runForging(route, turns[turn++ % turns.length]!, COMMANDS[command](dir));
        expectClean(run, route);
      }
    }
  });

  it("names the problems of a wrong shape: JSON pointer, what was expected, what came", async () => {
    const run = await runForging(STORE_MENU, WRONG_FIELD, COMMANDS.plan(dir));
    expect(run.err).toMatch(
      /^Error: the platform's answer to GET \/restaurants\/menu\/v1\/stores\/90010[12]\/store-menu for store bog-(centro|utils) \(90010[12]\) does not have the shape of a StoreMenu \(schemas\/platform\/menu\.schema\.json\): \/[a-z_/0-9]+: expected a string, got null$/m,
    );
    const html = await runForging(STORE_MENU, HTML, COMMANDS.plan(dir));
    // The excerpt is short and escaped: the control character is shown, not sent.
    expect(html.err).toContain(
      'is not JSON: its content type is "text/html; charset=utf-8"; it starts "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1>\\u001b[2J</bod"… (69 characters)',
    );
  });

  it("a malformed token answer names the login and quotes nothing of it", async () => {
    const token = "tok-never-shown-8d1f3a";
    const login = "POST /restaurants/auth/v1/token/login/integrations" as const;
    for (const malformed of [
      { name: "truncated", forge: () => ({ body: `{"access_token":"${token}","token_type":"Bea` }) },
      {
        name: "no expires_in",
        forge: () => ({ body: JSON.stringify({ access_token: token, token_type: "Bearer" }) }),
      },
      {
        name: "a number",
        forge: () => ({ body: JSON.stringify({ access_token: token, token_type: 7, expires_in: 60 }) }),
      },
    ]) {
      const run = await runForging(login, malformed, COMMANDS.plan(dir));
      expect(run.code).toBe(1);
      expect(run.err).toMatch(
        /^Error: the platform's answer to POST \/restaurants\/auth\/v1\/token\/login\/integrations (is not JSON|does not have the shape of a TokenResponse)/m,
      );
      expect(run.err + run.out).not.toContain(token);
      expect(run.err + run.out).not.toContain("access_token");
    }
  });
});

describe("a malformed answer to a write", () => {
  it("is settled by a read, like a lost answer: the platform took the call", async () => {
    const dir = project();
    const config = path.join(dir, "carte.yaml");
    const applied = await carte(["apply", "--auto-approve", "-c", config]);
    expect(applied.code, applied.err).toBe(0);
    const catalog = path.join(dir, "catalogs", "burgers.yaml");
    writeFileSync(catalog, readFileSync(catalog, "utf8").replace("price: 8900", "price: 9900"));
    const route = "POST /restaurants/menu/v1/stores/{storeId}/items" as const;
    const run = await runForging(route, HTML, ["apply", "--auto-approve", "--json", "-c", config]);
    expect(run.code, run.err + run.out).toBe(0);
    expect(run.out).toContain("a read shows the change was made");
    const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
    expect(again.code, again.out).toBe(0);
  });
});

describe("SKUs named like members of Object.prototype, from the platform", () => {
  it("plan, plan --json, apply and import treat __proto__, constructor and toString as data", async () => {
    // The platform's extra items are most of the store: deleting them is the point here.
    const dir = project("safety:\n  max_delete_percent: 100\n");
    const config = path.join(dir, "carte.yaml");
    const client = new PlatformClient({ baseUrl: emu.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    const skus = ["__proto__", "constructor", "toString"];
    try {
      // The files' state first, so that the plan below shows only what the platform adds.
      const applied = await carte(["apply", "--auto-approve", "-c", config]);
      expect(applied.code, applied.err).toBe(0);
      const item = (sku: string, extra: object = {}) => ({
        sku,
        item_type: "ITEM",
        title_info: { title: `T ${sku}` },
        price_info: { price: 5 },
        ...extra,
      });
      const params = { storeId: STORE_ID };
      // Someone else's items in the managed store: one switched off, one priced inside another.
      await client.request("POST /restaurants/menu/v1/stores/{storeId}/items", params, [
        item("__proto__", { suspension_info: { is_available: false } }),
        item("CHEESE"),
        item("constructor", { items_info: { items: [{ sku: "toString", index: 0 }] } }),
        {
          ...item("toString", {
            item_type: "MODIFIER_GROUP",
            quantity_info: { min_permitted: 0, max_permitted: 1 },
          }),
          items_info: {
            items: [
              { sku: "__proto__", index: 0 },
              { sku: "CHEESE", index: 1 },
            ],
          },
          price_info: { price: 0 },
        },
      ]);
      await client.request("POST /restaurants/menu/v1/stores/{storeId}/categories", params, [
        { sku: "__proto__", title: "Proto", items: [{ sku: "__proto__", index: 0 }] },
        { sku: "constructor", title: "Ctor", items: [{ sku: "constructor", index: 0 }] },
      ]);
      await emu.idle();

      const plan = await carte(["plan", "-c", config]);
      expect(plan.code, plan.err).toBe(0);
      for (const sku of skus) expect(plan.out).toMatch(new RegExp(`- (item|modifier group|option) ${sku} `));

      const json = await carte(["plan", "--json", "-c", config]);
      expect(json.code, json.err).toBe(0);
      const planned = JSON.parse(json.out) as { changes: { address: string; action: string }[] };
      const deletes = planned.changes
        .filter((c) => c.action === "delete")
        .map((c) => c.address)
        .sort();
      expect(deletes).toEqual(
        [
          `store[${STORE_KEY}].category[__proto__]`,
          `store[${STORE_KEY}].category[constructor]`,
          `store[${STORE_KEY}].item[CHEESE]`,
          `store[${STORE_KEY}].item[__proto__]`,
          `store[${STORE_KEY}].item[constructor]`,
          `store[${STORE_KEY}].modifier_group[toString]`,
        ].sort(),
      );

      // Import before the apply: the SKU the files cannot hold is named, the rest written with --lenient.
      const out = path.join(dir, "imported");
      const refused = await carte(["import", "--store", STORE_ID, "--out", out, "-c", config]);
      expect(refused.code, refused.err).toBe(2);
      expect(refused.err).toContain(
        `store[${STORE_KEY}].item[__proto__]: the SKU "__proto__" cannot be written`,
      );
      for (const raw of RAW_ERRORS) expect(refused.err + refused.out).not.toContain(raw);
      const lenient = await carte(["import", "--store", STORE_ID, "--out", out, "--lenient", "-c", config]);
      // Exit 2: written, with what was left out listed.
      expect(lenient.code, lenient.err).toBe(2);
      expect(lenient.err).toMatch(/^Warning: carte's files cannot express 2 things of the live state:$/m);
      const catalog = readFileSync(
        path.join(out, "catalogs", readdirSync(path.join(out, "catalogs"))[0]!),
        "utf8",
      );
      expect(catalog).toMatch(/sku: constructor/);
      expect(catalog).toMatch(/sku: toString/);
      expect(catalog).not.toContain("__proto__");

      const apply = await carte(["apply", "--auto-approve", "-c", config]);
      expect(apply.code, apply.err + apply.out).toBe(0);
      const again = await carte(["plan", "--detailed-exitcode", "-c", config]);
      expect(again.code, again.out).toBe(0);
      expect(again.out).toContain("No changes");
    } finally {
      await client.close();
    }
  });
});

#!/usr/bin/env node
// Walks the path docs/architecture.md gives for a new resource kind and a new endpoint, in a temporary
// copy of the project, and fails when a step stops working: a throwaway kind (`throwaway_note`, a
// settings section written inline in settings.schema.json) reading and writing through two throwaway
// routes (a new platform schema, a handler in the emulator), then `npm run gen`, `npm run build`, and
// `carte plan --kind throwaway_note` and `carte preview --kind throwaway_note` against the embedded
// emulator: the plan must show the note in the kind's own words (its `view`), not as the attributes of
// an unknown kind, and the store's preview page must draw the kind's own part (its `preview`). Then the
// tests the steps touch, as the doc says to run them: the golden help files written again (`--kind`
// lists every kind), the conformance rows of the two routes (served by the emulator, driven over HTTP,
// judged against the published description) and the route table's test (its table of groups in
// docs/platform-api.md).
//
//   node scripts/check-new-kind.mjs    (npm run check:new-kind; about two minutes: two builds, tests)
//
// It first checks that the doc still names the steps it follows, so that the doc and this walk change
// together. The copy holds what the steps touch (src, schemas, scripts, docs, examples, test,
// package.json, tsconfig*, vitest.config.ts, README.md) with node_modules linked; nothing of the working tree is
// changed.

import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const KIND = "throwaway_note";
const READ = "GET /api/rest-ops-utils/store/{storeId}/throwaway-note";
const WRITE = "PUT /api/rest-ops-utils/store/{storeId}/throwaway-note";

/** Stops with a message naming the step that did not work. */
function fail(step, detail) {
  console.error(`check-new-kind: ${step} failed${detail ? `:\n${detail}` : ""}`);
  process.exit(1);
}

/** Replaces `anchor` in a file of the copy by `text`, failing when the anchor is not there. */
function edit(dir, file, anchor, text) {
  const target = path.join(dir, file);
  const before = readFileSync(target, "utf8");
  if (!before.includes(anchor)) fail(`editing ${file}`, `the anchor ${JSON.stringify(anchor)} is gone`);
  writeFileSync(target, before.replace(anchor, text));
}

/** Runs a command in the copy; fails the step when it exits non-zero. */
function run(dir, step, command, args, ok = [0]) {
  const r = spawnSync(command, args, { cwd: dir, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  if (!ok.includes(r.status ?? 1)) fail(step, `${r.stdout ?? ""}${r.stderr ?? ""}`.slice(-4000));
  return r.stdout ?? "";
}

// ---- the doc still names the steps -----------------------------------------------------------------

const doc = readFileSync(path.join(root, "docs", "architecture.md"), "utf8");
const section = (title) => {
  const start = doc.indexOf(`## ${title}`);
  if (start < 0) fail("reading docs/architecture.md", `no section "${title}"`);
  const end = doc.indexOf("\n## ", start + 3);
  return doc.slice(start, end < 0 ? undefined : end);
};
const kindSteps = section("Adding a resource kind");
const endpointSteps = section("Adding an endpoint");
for (const [text, where] of [
  ["src/kinds/<kind>.ts", kindSteps],
  ["kindState", kindSteps],
  ["`view`", kindSteps],
  ["`preview`", kindSteps],
  ["src/kinds/registry.ts", kindSteps],
  ["schemas/config/settings.schema.json", kindSteps],
  ["npm run gen", kindSteps],
  ["npm run build:action", kindSteps],
  ["test/golden/expected/help/", kindSteps],
  ["npx vitest run test/golden/help.test.ts -u", kindSteps],
  ["src/platform/routes.ts", endpointSteps],
  ["schemas/platform/", endpointSteps],
  ["docs/platform-api.md", endpointSteps],
  ["npm run gen", endpointSteps],
  ["src/emulator/", endpointSteps],
  ["test/conformance/endpoints.ts", endpointSteps],
  ["SPEC_ROWS", endpointSteps],
  ["npx vitest run test/conformance", endpointSteps],
  ["npm run build:action", endpointSteps],
]) {
  if (!where.includes(text)) fail("reading docs/architecture.md", `its steps no longer name ${text}`);
}

// ---- a temporary copy ------------------------------------------------------------------------------

const dir = mkdtempSync(path.join(tmpdir(), "carte-new-kind-"));
try {
  for (const entry of ["src", "schemas", "scripts", "docs", "examples", "bin", "test"])
    cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  for (const file of [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    ".prettierrc.json",
    "vitest.config.ts",
    // The help test holds the README's option table to the commands' help.
    "README.md",
  ])
    cpSync(path.join(root, file), path.join(dir, file));
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  rmSync(path.join(dir, "examples", "chain", ".carte"), { recursive: true, force: true });

  // ---- adding an endpoint: step 1, a route row and its schema ----
  edit(
    dir,
    "src/platform/routes.ts",
    `  "GET /api/rest-ops-utils/store/schedule/{storeId}": {`,
    `  "${READ}": {\n    ...utilsRead,\n    response: "ThrowawayNote",\n  },\n` +
      `  "${WRITE}": {\n    ...utilsChange,\n    request: "ThrowawayNote",\n    response: "ThrowawayNote",\n  },\n` +
      `  "GET /api/rest-ops-utils/store/schedule/{storeId}": {`,
  );
  const utilsSchema = path.join(dir, "schemas", "platform", "utils.schema.json");
  const schema = JSON.parse(readFileSync(utilsSchema, "utf8"));
  schema.definitions.ThrowawayNote = {
    title: "A throwaway note",
    type: "object",
    additionalProperties: false,
    required: ["note"],
    properties: { note: { type: "string", maxLength: 200 } },
  };
  writeFileSync(utilsSchema, JSON.stringify(schema, null, 2));
  const groupRow = (route) => `| utils | utils | \`${route}\` |\n`;
  edit(
    dir,
    "docs/platform-api.md",
    "| utils        | utils        | `GET /api/rest-ops-utils/store/schedule/{storeId}` ",
    groupRow(READ) +
      groupRow(WRITE) +
      "| utils        | utils        | `GET /api/rest-ops-utils/store/schedule/{storeId}` ",
  );

  // ---- adding an endpoint: step 2, the emulator's handlers (every store's note is empty; a write
  // answers the note it was given) ----
  edit(
    dir,
    "src/emulator/hours.ts",
    `    { route: "GET /api/rest-ops-utils/store/schedule/{storeId}", handle: getRegular },`,
    `    { route: "${READ}", handle: () => ({ status: 200, body: { note: "" } }) },\n` +
      `    { route: "${WRITE}", handle: (ctx) => ({ status: 200, body: ctx.body }) },\n` +
      `    { route: "GET /api/rest-ops-utils/store/schedule/{storeId}", handle: getRegular },`,
  );

  // ---- adding an endpoint: step 3, the conformance rows and the spec's rows ----
  edit(
    dir,
    "test/conformance/endpoints.ts",
    "const utils: Row[] = [\n",
    "const utils: Row[] = [\n" +
      `  {\n    route: "${READ}",\n    valid: async () => ({ path: at("${READ}", { storeId: S }) }),\n` +
      `    status: 200,\n    invalid: [once(wrongToken(at("${READ}", { storeId: S }), "integrations"))],\n  },\n` +
      `  {\n    route: "${WRITE}",\n` +
      `    valid: async () => ({ path: at("${WRITE}", { storeId: S }), body: { note: "hello" } }),\n` +
      `    status: 200,\n` +
      `    invalid: [once({ why: "a note too long", req: { path: at("${WRITE}", { storeId: S }), ` +
      `body: { note: "x".repeat(201) } }, status: 400, error: "Message" })],\n  },\n`,
  );
  const specRow = (route) => route.replace(" /api/rest-ops-utils", ' ${P["4.5"]}');
  edit(
    dir,
    "test/conformance/endpoints.ts",
    "  // 4.5 store hours\n",
    `  \`${specRow(READ)}\`,\n  \`${specRow(WRITE)}\`,\n  // 4.5 store hours\n`,
  );

  // ---- adding a kind: step 1, its module ----
  writeFileSync(
    path.join(dir, "src", "kinds", "throwaway-note.ts"),
    `import { kindState } from "../model.js";
import { escapeHtmlText } from "../show/html.js";
import { LAST_ORDER } from "../show/view-model.js";
import type { KindPreview, KindView } from "./show.js";
import { partOf, perStoreRead, type ConfigSection, type EndpointSpec, type ResourceKind } from "./resource-kind.js";

const noteState = kindState<string>("${KIND}");
const read = perStoreRead<{ note: string }>("${KIND}", (client, s) =>
  client.request("${READ}", { storeId: s.storeId }),
);
const put: EndpointSpec = {
  name: "${KIND}.put",
  stage: 40,
  route: "${WRITE}",
  scope: "store",
  body: (elements) => elements[0],
  maxElements: 1,
};
const section: ConfigSection<string> = {
  key: "${KIND}",
  read: (value) => (typeof value === "string" ? value : undefined),
  resolve(merged, into) {
    noteState.set(into, merged);
  },
};

const text = (r: unknown) => (r as { note?: string } | null)?.note ?? "";

/** The plan's views show a change of the note in the kind's own words. */
const view: KindView = {
  change: (ch) => [
    {
      order: LAST_ORDER,
      sort: ch.key,
      view: {
        action: ch.action,
        head: "store note",
        summary: \`\${JSON.stringify(text(ch.before))} becomes \${JSON.stringify(text(ch.after))}\`,
        details: [],
      },
    },
  ],
};

/** A store's preview page shows the note after the plan, marked when the plan changes it (its pieces: one). */
const preview: KindPreview = {
  page(page) {
    const change = page.change("${KIND}", "note");
    const note = change ? text(change.after) : page.state ? (noteState.get(page.state) ?? "") : "";
    const mark = change ? ' data-change="changed"' : "";
    return [
      \`<section class="entry note" id="throwaway-note"\${mark}><h2>Store note</h2><p>\${escapeHtmlText(note)}</p></section>\`,
    ];
  },
};

/** A throwaway kind: one note per store. */
export const throwawayNote: ResourceKind<{ note: string }, "${KIND}"> = {
  name: "${KIND}",
  summary: "a throwaway note of a store",
  nouns: { ${KIND}: ["note", "notes"] },
  view,
  preview,
  reads: [read],
  endpoints: [put],
  state: noteState,
  config: section as ConfigSection<unknown>,
  select(state) {
    const note = noteState.get(state);
    return note === undefined ? undefined : { note: { note } };
  },
  segment: () => "${KIND}",
  read(snapshot, into) {
    noteState.set(into, partOf(snapshot, read)?.note ?? "");
  },
  writes: (_action, _key, _before, after) => (after ? [{ endpoint: "${KIND}.put", element: after }] : []),
};
`,
  );

  // ---- adding a kind: step 2, one registry line ----
  edit(
    dir,
    "src/kinds/registry.ts",
    `import { storeHours } from "./store-hours.js";`,
    `import { storeHours } from "./store-hours.js";\nimport { throwawayNote } from "./throwaway-note.js";`,
  );
  edit(
    dir,
    "src/kinds/registry.ts",
    `  storeAvailability,\n] as const;`,
    `  storeAvailability,\n  throwawayNote,\n] as const;`,
  );

  // ---- adding a kind: step 3, the settings section, written inline ----
  const settingsSchema = path.join(dir, "schemas", "config", "settings.schema.json");
  const settings = JSON.parse(readFileSync(settingsSchema, "utf8"));
  settings.properties[KIND] = { title: "A throwaway note", type: "string", maxLength: 200 };
  writeFileSync(settingsSchema, JSON.stringify(settings, null, 2));

  // ---- npm run gen, then the build the doc asks for ----
  run(dir, "npm run gen", "npm", ["run", "gen"]);
  run(dir, "npm run build", "npm", ["run", "build"]);
  const generated = readFileSync(path.join(dir, "src", "generated", "config.ts"), "utf8");
  if (!generated.includes(`${KIND}?:`)) fail("npm run gen", `src/generated/config.ts has no ${KIND}`);
  const project = readFileSync(path.join(dir, "schemas", "config", "project.schema.json"), "utf8");
  if (!project.includes(`"${KIND}"`)) fail("npm run gen", `the ownership: schema does not list ${KIND}`);

  // ---- a store file writes the new section; plan the kind alone against the emulator ----
  edit(
    dir,
    "examples/chain/stores/bog-centro.yaml",
    "\ncatalog:",
    `\n${KIND}: "Hello from the new kind"\ncatalog:`,
  );
  const carte = path.join(dir, "bin", "carte.js");
  const config = path.join("examples", "chain", "carte.yaml");
  const plan = run(
    dir,
    "carte plan --kind",
    process.execPath,
    [carte, "plan", "--kind", KIND, "-c", config, "--detailed-exitcode"],
    [2],
  );
  for (const expected of [
    `store[bog-centro]`,
    `store note: "" becomes "Hello from the new kind"`,
    "1 to update",
  ]) {
    if (!plan.includes(expected)) fail("carte plan --kind", `the plan does not say ${expected}:\n${plan}`);
  }
  if (plan.includes(`${KIND} note`))
    fail("carte plan --kind", `the plan shows the note as an unknown kind, not in its own words:\n${plan}`);

  // ---- the preview draws the kind's own part of the store's page ----
  const site = path.join(dir, "preview-site");
  run(dir, "carte preview --kind", process.execPath, [
    carte,
    "preview",
    "--kind",
    KIND,
    "-c",
    config,
    "--out",
    site,
  ]);
  const pages = readdirSync(path.join(site, "stores"));
  const page = pages.find((p) => p.startsWith("bog-centro"));
  if (page === undefined) fail("carte preview --kind", `no page of bog-centro among ${pages.join(", ")}`);
  const html = readFileSync(path.join(site, "stores", page), "utf8");
  for (const expected of [
    `<section class="entry note" id="throwaway-note" data-change="changed"><h2>Store note</h2>`,
    "<p>Hello from the new kind</p>",
  ]) {
    if (!html.includes(expected))
      fail("carte preview --kind", `the page of bog-centro does not draw ${expected}:\n${html.slice(-3000)}`);
  }
  if (html.includes("outside the menu"))
    fail("carte preview --kind", "the page counts the note as a change it does not draw");

  // ---- adding a kind: step 5, the golden help files written again; then the tests the steps touch ----
  const vitest = path.join(dir, "node_modules", "vitest", "vitest.mjs");
  run(dir, "npx vitest run test/golden/help.test.ts -u", process.execPath, [
    vitest,
    "run",
    "test/golden/help.test.ts",
    "-u",
  ]);
  const helpOfPlan = readFileSync(path.join(dir, "test", "golden", "expected", "help", "plan.txt"), "utf8");
  if (!helpOfPlan.includes(`"${KIND}"`))
    fail("npx vitest run test/golden/help.test.ts -u", `the help of carte plan does not list ${KIND}`);
  run(dir, "the tests the steps touch", process.execPath, [
    vitest,
    "run",
    "test/golden",
    "test/platform/routes.test.ts",
    "test/conformance",
  ]);
  console.log(
    `check-new-kind: a new kind and two new routes took the documented steps, the kind shows itself, ` +
      `and the tests the steps touch pass; the plan:\n${plan}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

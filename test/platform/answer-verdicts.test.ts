/**
 * The answer verdicts compiled at build time (src/platform/schemas.ts `answerVerdictsModule`, written to
 * dist/platform/validators.cjs by `npm run build`): they accept exactly the answers the validator
 * compiled at run time accepts, and an answer they refuse gets the same located problems.
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InternalError } from "../../src/errors.js";
import type { PlatformSchemaName } from "../../src/generated/platform.js";
import { ROUTES } from "../../src/platform/routes.js";
import {
  answerProblems,
  answerSchemas,
  answerVerdictsModule,
  platformSchemaDigest,
  verdictsOf,
  type AnswerVerdict,
} from "../../src/platform/schemas.js";

const require = createRequire(import.meta.url);

/** The response definitions of the route table, as the build compiles them. */
const RESPONSES = [
  ...new Set(Object.values(ROUTES).flatMap((r) => ("response" in r && r.response ? [r.response] : []))),
].sort() as PlatformSchemaName[];

/** No verdict: every answer goes to the validator compiled at run time (the reference). */
const RUN_TIME = new Map<string, AnswerVerdict>();

let dir: string;
let verdicts: ReadonlyMap<string, AnswerVerdict>;

beforeAll(() => {
  // Inside the repository, where the module finds ajv and ajv-formats as it does in dist/.
  mkdirSync("node_modules/.cache", { recursive: true });
  dir = mkdtempSync(path.resolve("node_modules/.cache/carte-answer-verdicts-"));
  const file = path.join(dir, "validators.cjs");
  writeFileSync(file, answerVerdictsModule(RESPONSES));
  const module = require(file) as Record<string, unknown>;
  expect(module.schemaDigest).toBe(platformSchemaDigest());
  verdicts = verdictsOf(module)!;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OVERRIDE = { override_id: null, override_sku: null, override_type: "STORE", price: 1250 };

function item(id: number, sku: string, blocks: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    sku,
    storeId: 900101,
    last_updated: "2025-01-01T10:00:00.000Z",
    item_type: "ITEM",
    title_info: { title: `Item ${sku}`, overrides: [] },
    description_info: { description: "A description", overrides: [] },
    images_info: { images: [{ id: 7, path: "img/a.jpg", index: 0, host: "" }], overrides: [] },
    items_info: { items: [{ id: 3, sku: "GROUP", index: 0 }], overrides: [] },
    price_info: { price: 1100, overrides: [OVERRIDE] },
    quantity_info: { min_permitted: null, max_permitted: null, modifiers_type: null, overrides: [] },
    suspension_info: { suspend_until: null, suspend_reason: null, is_available: true, overrides: [] },
    schedules_info: {
      schedules: [
        { days_of_week: "mon,tue,hol", time_periods: [{ start_time: "11:00", end_time: "15:30" }] },
      ],
      overrides: [],
    },
    ...blocks,
  };
}

/** A store menu as the platform answers it: a menu, a scheduled category, an item and a modifier group. */
const STORE_MENU = {
  storeId: 900101,
  menus: [
    {
      id: 1,
      storeId: 900101,
      super_store_id: 0,
      menu_type: "DEFAULT",
      categories: [{ id: 2, sku: "CAT", index: 0, is_category_active: true, storeId: 900101 }],
    },
  ],
  categories: [
    {
      id: 2,
      sku: "CAT",
      storeId: 900101,
      title: "Burgers",
      last_updated: "2025-01-01T10:00:00.000Z",
      items: [{ id: 4, sku: "A", index: 0, menuId: 1, menu_type: "DEFAULT", storeId: 900101 }],
      menus: [{ id: 1, menu_type: "DEFAULT", index: 0, is_category_active: true, storeId: 900101 }],
      schedules: [{ days_of_week: "sat,sun", time_periods: [{ start_time: "12:00", end_time: "23:59" }] }],
    },
  ],
  items: [
    item(4, "A"),
    item(3, "GROUP", {
      item_type: "MODIFIER_GROUP",
      quantity_info: { min_permitted: 0, max_permitted: 2, modifiers_type: "inclusive", overrides: [] },
      items_info: { items: [], overrides: [] },
    }),
  ],
};

const PAYMENT = {
  id: 1,
  status: "PAID",
  period_date_start: "2025-01-01T00:00:00Z",
  period_date_end: "2025-01-07T23:59:59Z",
  expected_execution_date: "2025-01-10T00:00:00Z",
  confirmed_payment_date: "2025-01-10T09:30:00Z",
  total_amount: 1520.5,
  payment_reference: "REF-1",
  frequecy_type: "WEEKLY",
  frequecy_type_descripcion: "Weekly",
  balance_request_id: "B-1",
  bank_account: {
    bank_name: "Bank",
    account_number: "1",
    bank_code: "001",
    account_type: "checking",
    ispb: "0",
    document: { identification_type: "CNPJ", identification_number: "1", holder_name: "Chain" },
  },
  consolidated_stores: [900101],
};
const PAYMENT_PAGE = {
  page_number: 1,
  page_size: 10,
  order_by: "id",
  order_type: "asc",
  total_pages: 1,
  total_entries: 1,
  entries: [PAYMENT],
};

const HOURS = {
  storeScheduleDays: [
    { day: "mon", storeSchedules: [{ id: 1, startsTime: "11:00:00", endsTime: "15:00:00" }] },
  ],
};

const VALID: [PlatformSchemaName, unknown][] = [
  ["StoreMenu", STORE_MENU],
  ["PaymentPage", PAYMENT_PAGE],
  ["RegularHours", HOURS],
];

/** `value` with the value at `path` replaced by `by` (`undefined`: the field left out). */
function replaced(value: unknown, path: readonly (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaced(v, rest, by) : v));
  const out = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && by === undefined) delete out[head!];
  else out[head!] = replaced(out[head!], rest, by);
  return out;
}

/** Every place of a JSON value (the value itself included), as paths. */
function places(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const here = [at];
  if (Array.isArray(value)) return here.concat(value.flatMap((v, i) => places(v, [...at, i])));
  if (value !== null && typeof value === "object") {
    return here.concat(Object.entries(value).flatMap(([k, v]) => places(v, [...at, k])));
  }
  return here;
}

describe("answer verdicts compiled at build time", () => {
  it("cover every response of the route table, for the digest of the schemas read", () => {
    expect([...verdicts.keys()].sort()).toEqual(RESPONSES);
    expect(verdictsOf({ ...Object.fromEntries(verdicts), schemaDigest: "0".repeat(64) })).toBeUndefined();
  });

  it("accept the answers the schemas accept, fields they do not name included", () => {
    for (const [name, value] of VALID) {
      expect(answerSchemas().validator(name)(value), name).toBe(true);
      expect(verdicts.get(name)!(value), name).toBe(true);
      expect(answerProblems(name, { ...(value as object), added: "field" }, { verdicts }), name).toEqual([]);
    }
  });

  it("refuse a malformed answer with the problems the validator compiled at run time gives", () => {
    const cases: [PlatformSchemaName, unknown][] = [
      ["StoreMenu", replaced(STORE_MENU, ["items", 1, "sku"], null)],
      ["StoreMenu", replaced(STORE_MENU, ["items", 1, "quantity_info", "modifiers_type"], 5)],
      [
        "StoreMenu",
        replaced(STORE_MENU, ["categories", 0, "schedules", 0, "time_periods", 0, "end_time"], "24:00"),
      ],
      [
        "StoreMenu",
        replaced(STORE_MENU, ["items", 0, "price_info", "overrides", 0, "override_type"], "CITY"),
      ],
      ["StoreMenu", replaced(STORE_MENU, ["items", 0, "suspension_info"], undefined)],
      ["PaymentPage", replaced(PAYMENT_PAGE, ["entries", 0, "period_date_end"], "next tuesday")],
      [
        "RegularHours",
        replaced(HOURS, ["storeScheduleDays", 0, "storeSchedules", 0, "startsTime"], "25:00:00"),
      ],
      ["RegularHours", null],
    ];
    for (const [name, value] of cases) {
      expect(verdicts.get(name)!(value), name).toBe(false);
      const expected = answerProblems(name, value, { verdicts: RUN_TIME });
      expect(expected.length, name).toBeGreaterThan(0);
      expect(answerProblems(name, value, { verdicts }), name).toEqual(expected);
    }
    expect(answerProblems("StoreMenu", cases[0]![1], { verdicts })).toEqual([
      "/items/1/sku: expected a string, got null",
    ]);
  });

  it("give the verdict of the validator compiled at run time on any change of an answer", () => {
    const paths = VALID.flatMap(([name, value]) => places(value).map((p) => [name, value, p] as const));
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
        ([name, value, at], by) => {
          const changed = replaced(value, at, by);
          const runTime = answerSchemas().validator(name)(changed);
          expect(verdicts.get(name)!(changed)).toBe(runTime);
          expect(answerProblems(name, changed, { verdicts })).toEqual(
            answerProblems(name, changed, { verdicts: RUN_TIME }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a verdict that refuses what the schemas accept is a broken build, said as such", () => {
    const broken = new Map<string, AnswerVerdict>([["RegularHours", () => false]]);
    expect(() => answerProblems("RegularHours", HOURS, { verdicts: broken })).toThrow(InternalError);
    expect(() => answerProblems("RegularHours", HOURS, { verdicts: broken })).toThrow(/rebuild carte/);
  });

  it("npm run build writes them for the schemas of this tree, and the built client loads them", async () => {
    const built = path.resolve("dist/platform/validators.cjs");
    expect(existsSync(built), "dist/platform/validators.cjs (npm run build)").toBe(true);
    const module = require(built) as Record<string, unknown>;
    expect(module.schemaDigest).toBe(platformSchemaDigest());
    const dist = (await import(
      path.resolve("dist/platform/schemas.js")
    )) as typeof import("../../src/platform/schemas.js");
    const loaded = dist.buildTimeVerdicts();
    expect([...loaded.keys()].sort()).toEqual(RESPONSES);
    expect(loaded.get("StoreMenu")).toBe(module.StoreMenu);
  });
});

/**
 * The shapes of the resources a plan's changes carry in `before` and `after`, by address segment: what
 * every reader of a plan file reads of them (`carte show`'s views, `carte preview`'s pages, the
 * comparison of `carte apply FILE`), checked before any of them runs (src/plan/file.ts), so that a
 * plan file whose resources have the wrong shapes is one located refusal instead of a crash half-way
 * through a page.
 *
 * Each shape is the kind's normalized resource (src/model.ts, the kinds' modules): the fields it always
 * has, of their types, and the optional ones of their types when present. Fields a later carte may add
 * within format version 1 are not refused. A problem is located by path inside the resource
 * (`images[2].path must be a string`), never by the file's own words.
 */

/** What is wrong with a value at `at` (a path such as `after.images[0]`), or `undefined`. */
export type Check = (value: unknown, at: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const str: Check = (v, at) => (typeof v === "string" ? undefined : `${at} must be a string`);
const bool: Check = (v, at) => (typeof v === "boolean" ? undefined : `${at} must be true or false`);
// JSON numbers past the double range parse as Infinity: refused too.
const num: Check = (v, at) =>
  typeof v === "number" && Number.isFinite(v) ? undefined : `${at} must be a number`;
const numOrNull: Check = (v, at) =>
  v === null || (typeof v === "number" && Number.isFinite(v)) ? undefined : `${at} must be a number or null`;
const strOrNull: Check = (v, at) =>
  v === null || typeof v === "string" ? undefined : `${at} must be a string or null`;

/** A list whose every element passes `each`. */
function list(each: Check): Check {
  return (v, at) => {
    if (!Array.isArray(v)) return `${at} must be a list`;
    for (let i = 0; i < v.length; i++) {
      const problem = each(v[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object with `fields` (each required) and `optional` fields (checked when present). */
function object(fields: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (v, at) => {
    if (!isObject(v)) return `${at} must be an object`;
    for (const [name, check] of Object.entries(fields)) {
      const problem = check(Object.hasOwn(v, name) ? v[name] : undefined, `${at}.${name}`);
      if (problem) return problem;
    }
    for (const [name, check] of Object.entries(optional)) {
      if (!Object.hasOwn(v, name)) continue;
      const problem = check(v[name], `${at}.${name}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object whose every value passes `each` (its keys are data: never named in a problem). */
function record(each: Check, what: string): Check {
  return (v, at) => {
    if (!isObject(v)) return `${at} must be an object`;
    return Object.values(v).every((x) => each(x, at) === undefined) ? undefined : `${at} must map ${what}`;
  };
}

/** One of a few strings. */
function oneOf(values: readonly string[]): Check {
  return (v, at) =>
    typeof v === "string" && values.includes(v) ? undefined : `${at} must be one of ${values.join(", ")}`;
}

const slot = object({ start: str, end: str });
const slots = list(slot);
const schedules = list(object({ days: str, periods: slots }));
const image: Check = (v, at) =>
  typeof v === "string" || (isObject(v) && typeof v.path === "string" && typeof v.host === "string")
    ? undefined
    : `${at} must be a path or {path, host}`;

/** src/model.ts `ItemResource`: an item or a modifier group. */
const item = object(
  {
    sku: str,
    type: oneOf(["ITEM", "MODIFIER_GROUP"]),
    title: str,
    description: str,
    price: numOrNull,
    images: list(image),
    children: list(str),
    min: numOrNull,
    max: numOrNull,
    modifiersType: strOrNull,
  },
  { schedules, priceInParent: record(num, "parent SKUs to prices (numbers)") },
);

/** The shape of a resource by the address segment of its change, with the noun a problem uses. */
const SHAPES: ReadonlyMap<string, { noun: string; check: Check }> = new Map([
  ["item", { noun: "an item", check: item }],
  ["modifier_group", { noun: "a modifier group", check: item }],
  [
    "category",
    { noun: "a category", check: object({ sku: str, title: str, items: list(str) }, { schedules }) },
  ],
  [
    "menu",
    { noun: "a menu", check: object({ type: str, categories: list(object({ sku: str, active: bool })) }) },
  ],
  [
    "availability",
    {
      noun: "an item's availability",
      check: object({ sku: str, available: bool }, { byCarte: bool, until: str }),
    },
  ],
  ["store_hours", { noun: "a day of hours", check: object({ day: str, slots }) }],
  ["holiday", { noun: "a holiday", check: object({ date: str, slots }) }],
  [
    "special_day",
    { noun: "a special day", check: object({ name: str, month: num, day: num, slots }, { year: num }) },
  ],
  ["store_availability", { noun: "a store's availability", check: object({ open: bool }) }],
  ["webhook", { noun: "a webhook", check: object({ url: str, enabled: bool }, { copies: num }) }],
  ["corridor_schedule", { noun: "a category schedule", check: object({ schedules }) }],
  ["product_schedule", { noun: "an item schedule", check: object({ schedules }) }],
  ["client_webhook", { noun: "a client webhook", check: object({ url: str }) }],
]);

/** The address segments whose resources have a shape here: every segment of the registry. */
export const SHAPED_SEGMENTS: readonly string[] = [...SHAPES.keys()];

/**
 * What is wrong with the `before` and `after` of a change read from a plan file, located under `at`
 * (`changes[3]`), or `undefined`: a create has no `before` (`null`) and a resource `after`, a delete the
 * reverse, an update a resource on both sides, each of the shape of its segment (`kind`).
 *
 * @param kind - the change's address segment, already known to be one (src/kinds/registry.ts
 *   `SEGMENT_NAMES`); a segment without a shape here takes any object.
 */
export function resourceProblem(
  kind: string,
  action: "create" | "update" | "delete",
  before: unknown,
  after: unknown,
  at: string,
): string | undefined {
  const shape = SHAPES.get(kind) ?? { noun: "an object", check: object({}) };
  const sides: [string, unknown, boolean][] = [
    ["before", before, action !== "create"],
    ["after", after, action !== "delete"],
  ];
  for (const [side, value, present] of sides) {
    if (!present) {
      if (value !== null && value !== undefined)
        return `${at}.${side} must be null (${action === "create" ? "a create has no before" : "a delete has no after"})`;
      continue;
    }
    if (!isObject(value))
      return `${at}.${side} must be ${shape.noun} (${action === "update" ? "an update changes a resource" : `a ${action} names its resource`})`;
    const problem = shape.check(value, `${at}.${side}`);
    if (problem) return problem;
  }
  return undefined;
}

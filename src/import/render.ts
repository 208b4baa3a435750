/**
 * The YAML text of the files `carte import` writes. Deterministic: the same input gives the same
 * bytes (keys in the schema's order, lists in the order the factoring chose, no timestamps).
 */

import { Document, isMap, isPair, isScalar, isSeq, visit } from "yaml";
import type { CatalogFile, GroupFile, ProjectFile, StoreFile } from "../generated/config.js";
import type { Currency } from "../money.js";

/** Keys under which the files write prices: `price`, and the tables `prices` and `option_prices`. */
const PRICE_KEYS: ReadonlySet<string> = new Set(["price", "prices", "option_prices"]);

/** Keys whose values, or whose entries' values, are written inline: prices per currency, translations. */
const INLINE_UNDER: ReadonlySet<string> = new Set(["price", "option_prices", "translations"]);

/**
 * Strings written in double quotes: a slot (`"11:00-01:00"`), a day of the year (`"12-24"`) and a date
 * (`"2026-12-14"`, which YAML 1.1 tools would read as a timestamp).
 */
const QUOTED = /^(?:[0-9]{1,2}:[0-9]{2}-[0-9]{1,2}:[0-9]{2}|(?:[0-9]{4}-)?[0-9]{2}-[0-9]{2})$/;

/** The widest line a mapping is written on in the short form (`{A: 1, B: 2}`). */
const SHORT_LINE = 100;

/** About how long a value is on one line in flow form (`{A: 1, B: {C: 2}}`), for {@link SHORT_LINE}. */
function flowLength(value: unknown): number {
  if (value === null || typeof value !== "object") return String(value).length + 3;
  const entries = Object.entries(value as Record<string, unknown>);
  return 2 + entries.reduce((n, [k, v]) => n + k.length + 2 + flowLength(v) + 2, 0);
}

/**
 * Whether a mapping of scalars is a price per currency (under `price`, or an option's under
 * `option_prices`) or one language's translation (under `translations`).
 */
function inlineUnder(path: readonly unknown[]): boolean {
  const keyOf = (p: unknown) => (isPair(p) && isScalar(p.key) ? String(p.key.value) : undefined);
  const [outer, inner] = [keyOf(path[path.length - 3]), keyOf(path[path.length - 1])];
  return inner === "price" || (outer !== undefined && outer !== "price" && INLINE_UNDER.has(outer));
}

/**
 * YAML text of a value with a comment on top: short lists and small mappings of lists written inline,
 * and (unless `compact`) a blank line between top-level keys.
 * With a currency, every price (a number under a `price`, `prices` or `option_prices` key) is written
 * with the currency's decimals, as the currency is written: `39.90` and `10.00` in BRL, `24900` in COP.
 * Such a scalar is still a plain YAML number (the loader reads `39.90` as 39.9, and its text has the
 * currency's decimals, see src/money.ts).
 */
export function yamlText(
  value: unknown,
  comment: string,
  currency?: Currency,
  currencies?: ReadonlyMap<string, Currency>,
  compact = false,
): string {
  const doc = new Document(value);
  visit(doc, {
    Scalar(_, node, path) {
      // Slots and days of the year in quotes, as docs/configuration.md asks people to write them.
      if (typeof node.value === "string" && QUOTED.test(node.value)) node.type = "QUOTE_DOUBLE";
      if (typeof node.value !== "number" || !Number.isFinite(node.value)) return;
      const underPrice = path.some(
        (p) => isPair(p) && isScalar(p.key) && PRICE_KEYS.has(String(p.key.value)),
      );
      if (!underPrice) return;
      // A price per currency (`price: {COP: 24900, BRL: 29.90}`): each amount as its currency writes it.
      const pair = path[path.length - 1];
      const keyed = isPair(pair) && isScalar(pair.key) ? currencies?.get(String(pair.key.value)) : undefined;
      const decimals = (keyed ?? currency)?.decimals ?? 0;
      if (decimals > 0) node.minFractionDigits = decimals;
    },
    Seq(_, node) {
      if (node.items.every((i) => isScalar(i))) node.flow = true;
    },
    Map(_, node, path) {
      // Options of a modifier group and categories of a menu written as {sku, ...} inline, as people do.
      const parent = path[path.length - 1];
      const scalars = node.items.every((p) => isPair(p) && isScalar(p.value));
      if (isSeq(parent) && scalars) node.flow = true;
      // A special day on one line when it fits, as people write it: `{name: X, date: "12-24", slots: [...]}`.
      const list = path[path.length - 2];
      if (isSeq(parent) && isPair(list) && isScalar(list.key) && list.key.value === "special_days") {
        const flat = node.items.every(
          (p) =>
            isPair(p) && (isScalar(p.value) || (isSeq(p.value) && p.value.items.every((i) => isScalar(i)))),
        );
        if (flat && 2 * path.length + flowLength(node.toJSON()) <= SHORT_LINE) node.flow = true;
      }
      // A price per currency and a language's translation on one line: `{COP: 24900, BRL: 29.90}`.
      if (currencies && scalars && isPair(parent) && inlineUnder(path)) node.flow = true;
      // An option_prices that fits a line on one line, as people write it: `{CHEESE: 2000, BACON: 3500}`.
      if (isPair(parent) && isScalar(parent.key) && parent.key.value === "option_prices") {
        const indent = 2 * path.filter((p) => isMap(p) || isSeq(p)).length;
        if (indent + "option_prices: ".length + flowLength(node.toJSON()) <= SHORT_LINE) node.flow = true;
      }
    },
  });
  // A blank line between the sections of a long file; a store file, short, is written without.
  if (isMap(doc.contents) && !compact) {
    doc.contents.items.forEach((pair, i) => {
      if (i > 0 && isScalar(pair.key)) pair.key.spaceBefore = true;
    });
  }
  doc.commentBefore = comment
    .split("\n")
    .map((l) => (l ? ` ${l}` : ""))
    .join("\n");
  return doc.toString({ lineWidth: 110, flowCollectionPadding: false });
}

/** Stores a header comment names before it counts the rest. */
const NAMED_STORES = 3;

/**
 * The stores of a file's header comment, on one short line: `store a`, `stores a, b, c`, or the first
 * few and how many more (`stores a, b, c and 87 more`), never a line that lists a chain's every store.
 */
export function storesNamed(stores: readonly string[]): string {
  if (stores.length === 1) return `store ${stores[0]}`;
  if (stores.length <= NAMED_STORES + 1) return `stores ${stores.join(", ")}`;
  return `stores ${stores.slice(0, NAMED_STORES).join(", ")} and ${stores.length - NAMED_STORES} more`;
}

/**
 * The text of an imported catalog (prices with the currency's decimals, when one is given; a price per
 * currency with the decimals of each of `currencies`, the project's).
 */
export function catalogText(
  catalog: CatalogFile,
  stores: readonly string[],
  currency?: Currency,
  currencies?: ReadonlyMap<string, Currency>,
): string {
  const ordered: CatalogFile = {
    ...(catalog.name ? { name: catalog.name } : {}),
    ...(catalog.items ? { items: catalog.items } : {}),
    ...(catalog.modifier_groups ? { modifier_groups: catalog.modifier_groups } : {}),
    ...(catalog.categories ? { categories: catalog.categories } : {}),
    ...(catalog.menus ? { menus: catalog.menus } : {}),
  };
  return yamlText(
    ordered,
    `Imported by carte import: the catalog of ${storesNamed(stores)}.\n` +
      "Each store file names it and says what differs there (prices, what it does not sell).",
    currency,
    currencies,
  );
}

/** The text of an imported group file (prices with the currency's decimals, when one is given). */
export function groupText(group: GroupFile, stores: readonly string[], currency?: Currency): string {
  return yamlText(
    group,
    `Imported by carte import: what ${storesNamed(stores)} share.\n` +
      "Each of them joins it with group: and its file says only what differs there.",
    currency,
  );
}

/**
 * The integration id an import writes for a store it cannot name otherwise: the platform's reads by
 * store id carry no integration id (docs/platform-api.md, "Store identity"), so a store that carte.yaml
 * does not list gets `store-<id>` until a person writes the real one. A store id that two platforms of
 * an import both have (carte.yaml `platforms:`) gets `store-<platform>-<id>` on each.
 */
export function placeholderIntegrationId(storeId: string, platform?: string): string {
  return platform === undefined ? `store-${storeId}` : `store-${platform}-${storeId}`;
}

/** What a person must do about a placeholder integration id, for the file and the import's output. */
export const PLACEHOLDER_NOTE =
  "a placeholder: write the platform's integration id of this store (the one given when it was set up " +
  "on the platform); carte cannot read it, and refuses to switch items on or off until it is right";

/**
 * The text of an imported store file (prices with the currency's decimals, when one is given). A
 * placeholder integration id ({@link placeholderIntegrationId}) is marked as such beside it.
 */
export function storeText(file: StoreFile, currency?: Currency, platform?: string): string {
  const text = yamlText(
    file,
    `Imported by carte import: store ${file.store.integration_id}.`,
    currency,
    undefined,
    true,
  );
  const iid = file.store.integration_id;
  const id = String(file.store.id);
  if (
    iid !== placeholderIntegrationId(id) &&
    (platform === undefined || iid !== placeholderIntegrationId(id, platform))
  )
    return text;
  return text.replace(`\n  integration_id: ${iid}\n`, `\n  integration_id: ${iid} # ${PLACEHOLDER_NOTE}\n`);
}

/** The text of the carte.yaml that an import writes when the folder has none. */
export function projectText(project: ProjectFile): string {
  const countries = Object.hasOwn(project, "platforms");
  return yamlText(
    project,
    countries
      ? "Written by carte import. Each platform's credentials come from the environment variables it\n" +
          "names (CARTE_<NAME>_CLIENT_ID and CARTE_<NAME>_CLIENT_SECRET unless credentials: says otherwise);\n" +
          "a platform without base_url or hosts runs on its own embedded emulator."
      : "Written by carte import. Credentials come from CARTE_CLIENT_ID and CARTE_CLIENT_SECRET.\n" +
          "Without a platform: section, carte runs against its embedded emulator.",
  );
}

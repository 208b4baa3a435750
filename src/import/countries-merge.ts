/**
 * `carte import --merge` into a project of several platforms (carte.yaml `platforms:`): the stores of
 * each platform read added to the project without touching any of its files, as for one platform
 * (src/import/merge.ts, docs/import.md "Into an existing project"), each on its platform:
 *
 * - a store the project's files already manage on that platform (same store id) is left as it is, a
 *   conflict when the platform differs;
 * - a new store names one of the project's catalogs when that catalog, as its platform reads it (prices
 *   in its currency, titles in its language), gives its live state exactly; the others are factored
 *   among themselves into new catalogs written for every country (src/import/countries.ts);
 * - every new store file names its platform (`platform:`), and the project with the new files is loaded,
 *   once per platform, as `carte plan --platform NAME` loads it: a new store it would change is a conflict.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import type { LoadedProject } from "../config/load.js";
import type { StoreState } from "../model.js";
import type { ImportPart } from "../kinds/import-types.js";
import { itemsOf } from "../kinds/catalog.js";
import { byCodePoint } from "../kinds/import-values.js";
import {
  catalogFor,
  countriesCatalogText,
  countriesWriting,
  factorCountries,
  lacksAmounts,
  sanitizeCountries,
  withPlatform,
  type CountryStores,
  type ProjectCountry,
} from "./countries.js";
import { fitsExactly, storeFileFor, type ImportedCatalog } from "./factor.js";
import { catalogFileNames, managedDifferences, verifyMerged, withoutDiffering } from "./merge.js";
import { importParts } from "./parts.js";
import { storeText } from "./render.js";
import type { ImportResult } from "./result.js";
import type { ImportFile } from "./round-trip.js";
import type { ImportNote } from "./sanitize.js";

/** A new store of the merge: its state, its platform, its file and the catalog it names. */
interface NewStore {
  state: StoreState;
  country: CountryStores;
  file: ImportFile;
  catalog: string;
}

/** The stores already managed (conflicts when they differ) and the new ones, platform by platform. */
function splitManaged(
  states: readonly StoreState[],
  platformOf: ReadonlyMap<string, CountryStores>,
  targets: ReadonlyMap<string, LoadedProject>,
  parts: readonly ImportPart[],
): { fresh: StoreState[]; conflicts: ImportNote[] } {
  const conflicts: ImportNote[] = [];
  const keys = new Set([...targets.values()].flatMap((t) => Object.keys(t.desired.stores)));
  const fresh: StoreState[] = [];
  for (const s of states) {
    const target = targets.get(platformOf.get(s.store.key)!.name)!;
    const known = Object.values(target.desired.stores).find((d) => d.store.storeId === s.store.storeId);
    if (known) {
      const differ = managedDifferences(known, s, parts);
      if (differ.length > 0)
        conflicts.push({
          address: `store[${known.store.key}]`,
          reason:
            `the project's files already manage this store and the platform differs in ${differ.join(", ")}; ` +
            "its files are left as they are (carte plan shows the differences)",
        });
    } else if (keys.has(s.store.key)) {
      conflicts.push({
        address: `store[${s.store.key}]`,
        reason: `another store of the project has integration id ${s.store.key}; store ${s.store.storeId} is not written`,
      });
    } else fresh.push(s);
  }
  return { fresh, conflicts };
}

/**
 * Plans the files `carte import --merge` adds to a project of several platforms for the live states of
 * each platform read, and proves that the project, with them, loads and gives the new stores exactly,
 * once per platform. Writes nothing.
 *
 * @param targets - the project merged into, loaded once per platform (each platform read among them).
 * @param all - the project's platforms, in carte.yaml's order.
 */
export async function buildCountriesMerge(
  countries: readonly CountryStores[],
  targets: ReadonlyMap<string, LoadedProject>,
  all: readonly ProjectCountry[],
  parts: readonly ImportPart[] = importParts,
): Promise<ImportResult> {
  const { states, notes, platformOf } = sanitizeCountries(countries, parts);
  const { fresh, conflicts } = splitManaged(states, platformOf, targets, parts);
  const writing = countriesWriting(all);
  const fileOf = (file: Parameters<typeof storeText>[0], country: CountryStores): ImportFile => ({
    path: `stores/${file.store.integration_id}.yaml`,
    text: storeText(withPlatform(file, country.name), country.currency, country.name),
    kind: "store",
  });

  // New stores that a catalog of the project gives exactly, as their platform reads it, name it.
  const stores: NewStore[] = [];
  const reused = new Map<string, string[]>();
  const rest: StoreState[] = [];
  for (const s of fresh) {
    const country = platformOf.get(s.store.key)!;
    const target = targets.get(country.name)!;
    // A catalog without a price in the store's currency for what it sells is none of its.
    const sells = (sku: string) => Object.hasOwn(itemsOf(s), sku);
    const views = [...target.catalogs]
      .filter(([, c]) => !lacksAmounts(c.catalog, country.currency.code, sells))
      .map(
        ([name, c]) =>
          [name, catalogFor(c.catalog, country.currency.code, writing.languageOf(country))] as const,
      );
    const hit = views.find(([name, view]) => fitsExactly(s, storeFileFor(s, view, name, parts), view, parts));
    if (!hit) {
      rest.push(s);
      continue;
    }
    const [name, view] = hit;
    stores.push({
      state: s,
      country,
      catalog: name,
      file: fileOf(storeFileFor(s, view, name, parts), country),
    });
    reused.set(name, [...(reused.get(name) ?? []), s.store.key]);
  }
  const taken = new Set([...targets.values()].flatMap((t) => [...t.catalogs.keys()]));
  const root = [...targets.values()][0]!.root;
  for (const name of await catalogFileNames(root)) taken.add(name);
  const factoring = factorCountries(rest, platformOf, all, parts, taken);
  for (const s of factoring.stores) {
    const country = platformOf.get(s.state.store.key)!;
    stores.push({ state: s.state, country, catalog: s.file.catalog, file: fileOf(s.file, country) });
  }

  // A store file that would overwrite one of the project's is a conflict.
  const written = stores.filter((s) => {
    if (!existsSync(path.join(root, s.file.path))) return true;
    conflicts.push({
      address: `store[${s.state.store.key}]`,
      reason: `${s.file.path} exists in the project; store ${s.state.store.storeId} is not written`,
    });
    return false;
  });

  const filesOf = (catalogs: readonly ImportedCatalog[], list: readonly NewStore[]): ImportFile[] => [
    ...catalogs.map((c) => ({
      path: `catalogs/${c.name}.yaml`,
      text: countriesCatalogText(c, writing),
      kind: "catalog" as const,
    })),
    ...list.map((s) => s.file),
  ];
  // The project with the new files, loaded as carte plan loads it for each platform.
  const files = filesOf(factoring.catalogs, written);
  const problems: string[] = [];
  const differing = new Map<string, string[]>();
  for (const country of countries) {
    const mine = written.filter((s) => s.country === country);
    if (mine.length === 0) continue;
    const checked = await verifyMerged(
      targets.get(country.name)!,
      files,
      new Map(mine.map((s) => [s.state.store.key, s.state])),
      parts,
      country.name,
    );
    problems.push(...checked.problems.map((p) => `platform ${country.name}: ${p}`));
    for (const [key, kinds] of checked.differing) differing.set(key, kinds);
  }
  const kept = withoutDiffering(written, differing, conflicts);
  const keep = (list: readonly string[]) => list.filter((k) => kept.some((s) => s.state.store.key === k));
  const used = new Set(kept.map((s) => s.catalog));
  const keptCatalogs = factoring.catalogs
    .filter((c) => used.has(c.name))
    .map((c) => ({ ...c, stores: keep(c.stores) }));
  conflicts.sort((a, b) => byCodePoint(a.address, b.address));
  return {
    files: filesOf(keptCatalogs, kept),
    catalogs: keptCatalogs,
    reused: [...reused]
      .map(([name, list]) => ({ name, stores: keep(list) }))
      .filter((r) => r.stores.length > 0),
    notes,
    conflicts,
    problems,
  };
}

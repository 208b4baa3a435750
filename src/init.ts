/**
 * `carte init [DIR] [--currency CODE | --countries CO,BR]`: a minimal project that `carte validate`
 * accepts and that a chain can commit as it is — carte.yaml, one catalog, one store (one per country)
 * and a `.gitignore` that keeps what carte writes for this machine only (the embedded emulator's state
 * and locks in `.carte/`, webhook secrets, saved plans) out of git. Existing files are never
 * overwritten. With `--countries`, each country is a platform of carte.yaml `platforms:` with its
 * currency and language, and the catalog's price is written in each currency.
 *
 * Each YAML file starts with a `# yaml-language-server: $schema=…` line, so that editors with the YAML
 * language server validate and complete it as it is typed. The line is a path relative to the file,
 * into the carte package installed in the chain's repository (`node_modules/@carte-oss/carte/schemas/
 * config/`): the same on every clone of the repository, never a path of the machine that ran `init`.
 */

import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import {
  checkWritable,
  SHARED_DIR_MODE,
  SHARED_FILE_MODE,
  writeFailure,
  writeFileSet,
  type WriteTarget,
} from "./atomic.js";
import { defaultCredentialNames } from "./config/platforms.js";
import { carteManifest } from "./config/version.js";
import { COUNTRY_CODES, countryName } from "./countries.js";
import { CommandLineError, UsageError } from "./errors.js";
import { currencyOf, decimalsOf, type Currency } from "./money.js";
import { didYouMean } from "./suggest.js";

/** What {@link initProject} did, paths relative to the project folder. */
export interface InitResult {
  /** The project folder, absolute. */
  dir: string;
  /** Files written. */
  written: string[];
  /** Files that existed already and were left as they were. */
  kept: string[];
  /**
   * The folder whose `node_modules` the schema lines lead into (absolute), when carte is not
   * installed there yet: the files validate in an editor once it is (`npm install --save-dev`).
   */
  installIn?: string;
}

/** Options of {@link initProject}. */
export interface InitOptions {
  /** ISO 4217 code of the project's prices (carte.yaml `currency:`); default `USD`. */
  currency?: string;
  /**
   * ISO 3166-1 alpha-2 codes of the countries the chain sells in (`--countries CO,BR`): carte.yaml then
   * names one platform per country (`platforms:`), each with its currency and language, and a store
   * for each. Not with `currency`.
   */
  countries?: readonly string[];
}

/**
 * Where the schema lines of a project in `root` lead: the folder of carte's configuration schemas
 * as it will be found on every clone of the repository.
 *
 * Going up from `root`, the first folder with a package.json is where npm installs carte (`npm install
 * --save-dev` there puts it in its node_modules); a repository root (`.git`) without one is where the
 * README's install step creates it. Without either, the project folder itself. In carte's own
 * repository (the package.json is carte's), the schemas are its own `schemas/config/`.
 *
 * @returns the schemas folder (absolute) and the folder carte is to be installed in (absent in
 *   carte's own repository).
 */
export async function schemaHome(root: string): Promise<{ schemas: string; installIn?: string }> {
  const { name } = carteManifest();
  const installed = (dir: string) => path.join(dir, "node_modules", ...name.split("/"), "schemas", "config");
  for (let dir = root; ; dir = path.dirname(dir)) {
    const manifest = await readManifestName(path.join(dir, "package.json"));
    if (manifest === name) return { schemas: path.join(dir, "schemas", "config") };
    if (manifest !== undefined) return { schemas: installed(dir), installIn: dir };
    if (await exists(path.join(dir, ".git"))) return { schemas: installed(dir), installIn: dir };
    if (path.dirname(dir) === dir) return { schemas: installed(root), installIn: root };
  }
}

/** The `name` of a package.json, `""` for one without a name, `undefined` when there is none. */
async function readManifestName(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const data = JSON.parse(text) as unknown;
    if (data !== null && typeof data === "object" && Object.hasOwn(data, "name")) {
      const value = (data as Record<string, unknown>).name;
      return typeof value === "string" ? value : "";
    }
  } catch {
    // A package.json that is not JSON still marks where npm installs.
  }
  return "";
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/**
 * The `$schema` reference of a file at `file` (absolute) to `schema` (e.g. `store.schema.json`) in
 * `schemas`: relative to the file's folder, with forward slashes.
 */
export function schemaReference(file: string, schemas: string, schema: string): string {
  return path.relative(path.dirname(file), path.join(schemas, schema)).split(path.sep).join("/");
}

/** A price of 10 and a half in the currency, written as its prices are written (`10.50`, `10500`). */
function samplePrice(currency: Currency): string {
  const decimals = decimalsOf(currency);
  return decimals === 0 ? "10500" : `10.${"5".padEnd(decimals, "0")}`;
}

/**
 * The `.gitignore` of a new project: what carte writes that belongs to one machine, never to the
 * repository. `carte import` writes the same one into a project it creates.
 */
export const GITIGNORE = `# Written by carte: what it keeps on this machine only, out of git.
# The embedded emulator's state and carte's locks (and a secrets file kept there).
.carte/
# Webhook signing secrets (secrets_file: in carte.yaml, --secrets-file, CARTE_SECRETS_FILE).
*secrets.json
*secrets.yaml
# Plans saved with carte plan --out: the platform at one moment, for one review.
plan.json
*.plan.json
node_modules/
`;

/** The files of a new project: relative path, schema file name (YAML files) and content. */
function projectFiles(currency: Currency): { file: string; schema?: string; text: string }[] {
  const price = samplePrice(currency);
  return [
    {
      file: "carte.yaml",
      schema: "project.schema.json",
      text: `# The project file of carte (docs/configuration.md lists every key).
#
# No \`platform:\` section: carte runs its embedded emulator (state in .carte/ next to this file), so
# \`carte plan\` and \`carte apply\` are safe to try. To manage real stores, add
#   platform:
#     base_url: https://<the address your account manager gave you>
# and set CARTE_CLIENT_ID and CARTE_CLIENT_SECRET in the environment (never in this file).
version: 1
# ISO 4217: prices are written as the currency is written (${price} for ${currency.code}).
currency: ${currency.code}
stores: stores/*.yaml
catalogs: catalogs/*.yaml
`,
    },
    {
      file: "catalogs/main.yaml",
      schema: "catalog.schema.json",
      text: `# A catalog: items, modifier groups, categories (ordered items) and menus (ordered categories).
name: main

items:
  - sku: FIRST-ITEM
    title: First item
    price: ${price}

categories:
  - sku: MAIN
    title: Main
    items: [FIRST-ITEM]

menus:
  - type: DEFAULT
    categories: [MAIN]
`,
    },
    {
      file: "stores/first-store.yaml",
      schema: "store.schema.json",
      text: `# A store: who it is on the platform, the catalog it sells, and what differs from that catalog here.
store:
  id: 1
  integration_id: first-store
  name: First store

catalog: main

hours:
  mon-sun: ["09:00-21:00"]
`,
    },
    { file: ".gitignore", text: GITIGNORE },
  ];
}

/** A country of `--countries`: its platform in carte.yaml, its currency and the language of its titles. */
export interface InitCountry {
  /** ISO 3166-1 alpha-2 code, e.g. `BR`. */
  code: string;
  /** The platform's name in carte.yaml `platforms:`: the code in lower case (`br`). */
  platform: string;
  currency: Currency;
  /** The language of its stores' titles, e.g. `pt`. */
  language: string;
}

/** The currency and the language of the stores in each country the platform serves (src/countries.ts). */
const COUNTRY_SETTINGS: ReadonlyMap<string, { currency: string; language: string }> = new Map([
  ["AR", { currency: "ARS", language: "es" }],
  ["BR", { currency: "BRL", language: "pt" }],
  ["CL", { currency: "CLP", language: "es" }],
  ["CO", { currency: "COP", language: "es" }],
  ["EC", { currency: "USD", language: "es" }],
  ["MX", { currency: "MXN", language: "es" }],
  ["PE", { currency: "PEN", language: "es" }],
  ["UY", { currency: "UYU", language: "es" }],
]);

/**
 * The countries of `--countries`: ISO 3166-1 codes of countries the platform serves, in any case,
 * comma-separated or given one by one (`CO,BR`, `co br`), each once; the currency and the language of
 * each follow from its country.
 *
 * @throws {@link CommandLineError} naming the code that is not a country the platform serves (with the
 *   closest one), a code given twice, or an empty list.
 */
export function initCountries(given: readonly string[]): InitCountry[] {
  const codes = given.flatMap((g) => g.split(/[\s,]+/)).filter((c) => c !== "");
  if (codes.length === 0) {
    throw new CommandLineError(
      `--countries takes country codes, such as CO,BR (${COUNTRY_CODES.join(", ")})`,
    );
  }
  const out: InitCountry[] = [];
  for (const written of codes.slice(0, COUNTRY_CODES.length + 1)) {
    const code = written.toUpperCase();
    const settings = COUNTRY_SETTINGS.get(code);
    if (settings === undefined || countryName(code) === undefined) {
      const shown = JSON.stringify(written.slice(0, 20));
      throw new CommandLineError(
        `--countries ${shown} is not a country the platform serves${didYouMean(code, COUNTRY_CODES, (c) => c)}; ` +
          `write ISO 3166-1 codes among ${COUNTRY_CODES.join(", ")}`,
      );
    }
    if (out.some((c) => c.code === code)) throw new CommandLineError(`--countries names ${code} twice`);
    const currency = currencyOf(settings.currency)!;
    out.push({ code, platform: code.toLowerCase(), currency, language: settings.language });
  }
  return out;
}

/** The sample titles of a new project, as written (English) and in each language of the countries. */
const SAMPLE_TITLES: ReadonlyMap<string, { item: string; category: string }> = new Map([
  ["es", { item: "Primer producto", category: "Principal" }],
  ["pt", { item: "Primeiro produto", category: "Principal" }],
]);

/** carte.yaml of a project in several countries: one platform each, on the embedded emulator. */
function countriesProjectFile(countries: readonly InitCountry[]): string {
  const platforms = countries
    .map((c) => {
      const names = defaultCredentialNames(c.platform, false);
      return `  ${c.platform}:
    country: ${c.code} # ${countryName(c.code)}
    # ISO 4217: its prices are written as the currency is written (${samplePrice(c.currency)} for ${c.currency.code}).
    currency: ${c.currency.code}
    # Its titles: the catalog's translations into this language, else the titles as written.
    language: ${c.language}
    # The NAMES of the environment variables holding its credentials, never their values.
    credentials:
      client_id: ${names.clientId}
      client_secret: ${names.clientSecret}
`;
    })
    .join("");
  return `# The project file of carte (docs/configuration.md lists every key).
#
# One platform per country (\`platforms:\`), each with its currency, its language and its credentials;
# a store names its own (\`platform:\` in its file, or \`defaults: platform:\` of its group or of this
# file). No platform names an address: each runs on its own embedded emulator (state in
# .carte/platforms/<name>/), so \`carte plan\` and \`carte apply\` are safe to try. To manage real
# stores, give a platform its addresses, \`base_url: https://…\` or \`hosts:\` with an address per API
# group (docs/configuration.md), and set its credentials in the environment. A \`development:\` block
# under a platform maps production stores to test stores on its development host, for
# \`carte apply --rehearsal\`.
version: 1
stores: stores/*.yaml
catalogs: catalogs/*.yaml

platforms:
${platforms}`;
}

/** The catalog of a project in several countries: its price in each currency, its titles translated. */
function countriesCatalogFile(countries: readonly InitCountry[]): string {
  const currencies = [...new Map(countries.map((c) => [c.currency.code, c.currency])).values()];
  const price = `{ ${currencies.map((c) => `${c.code}: ${samplePrice(c)}`).join(", ")} }`;
  const languages = [...new Set(countries.map((c) => c.language))].filter((l) => SAMPLE_TITLES.has(l));
  const translations = (part: "item" | "category", indent: string) =>
    languages.length === 0
      ? ""
      : `${indent}translations:\n` +
        languages.map((l) => `${indent}  ${l}: { title: ${SAMPLE_TITLES.get(l)![part]} }\n`).join("");
  return `# A catalog: items, modifier groups, categories (ordered items) and menus (ordered categories).
# A price is written in each currency of the stores that sell the item, a title in each language where
# it differs from the title as written.
name: main

items:
  - sku: FIRST-ITEM
    title: First item
    price: ${price}
${translations("item", "    ")}
categories:
  - sku: MAIN
    title: Main
${translations("category", "    ")}    items: [FIRST-ITEM]

menus:
  - type: DEFAULT
    categories: [MAIN]
`;
}

/** The files of a new project in several countries (see {@link projectFiles}). */
function countriesProjectFiles(
  countries: readonly InitCountry[],
): { file: string; schema?: string; text: string }[] {
  const stores = countries.map((c, i) => ({
    file: `stores/first-store-${c.platform}.yaml`,
    schema: "store.schema.json",
    text: `# A store: who it is on the platform, the platform (country) it is on, the catalog it sells, and
# what differs from that catalog here.
store:
  id: ${i + 1}
  integration_id: first-store-${c.platform}
  name: First store in ${countryName(c.code)}

platform: ${c.platform}
catalog: main

hours:
  mon-sun: ["09:00-21:00"]
`,
  }));
  return [
    { file: "carte.yaml", schema: "project.schema.json", text: countriesProjectFile(countries) },
    { file: "catalogs/main.yaml", schema: "catalog.schema.json", text: countriesCatalogFile(countries) },
    ...stores,
    { file: ".gitignore", text: GITIGNORE },
  ];
}

/**
 * The currency of `--currency`: an ISO 4217 code, in any case.
 *
 * @throws {@link CommandLineError} when the code (`--currency`) is not one.
 */
export function initCurrency(code: string): Currency {
  const currency = currencyOf(code.toUpperCase());
  if (!currency) {
    throw new CommandLineError(
      `--currency ${code.slice(0, 20)} is not an ISO 4217 currency code; write the code of the prices ` +
        "the stores show, such as COP, BRL, MXN or USD",
    );
  }
  return currency;
}

/**
 * Writes a minimal project into `dir` (created when missing), keeping any file that exists.
 *
 * @throws {@link UsageError} when `dir` already holds a carte.yaml (a project is there: nothing is
 *   written) or is not a folder, when the currency is not an ISO 4217 code, or a country not one the
 *   platform serves ({@link initCountries}), or both are given.
 * @throws `FileWriteError` (src/errors.ts) when a file or a folder on the way is a link or not what it should
 *   be (nothing is written then), or a file cannot be written (naming it and the cause; the files written
 *   before it are removed again, and carte.yaml, written last, is never left naming a missing file).
 */
export async function initProject(dir: string, options: InitOptions = {}): Promise<InitResult> {
  if (options.countries !== undefined && options.currency !== undefined) {
    throw new CommandLineError(
      "--currency and --countries do not go together: each country's prices are in its own currency",
    );
  }
  const files =
    options.countries === undefined
      ? projectFiles(initCurrency(options.currency ?? "USD"))
      : countriesProjectFiles(initCountries(options.countries));
  const root = path.resolve(dir);
  const target: WriteTarget = { root, purpose: "write the new project's file" };
  const info = await lstat(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw writeFailure(root, { ...target, purpose: "make the project folder" }, err);
  });
  if (info && !info.isDirectory()) throw new UsageError(`${dir} exists and is not a folder`);
  if (info && (await exists(path.join(root, "carte.yaml")))) {
    throw new UsageError(
      `${path.join(dir, "carte.yaml")} exists: a project is there already, and carte init never overwrites a file`,
    );
  }
  const home = await schemaHome(root);
  const result: InitResult = { dir: root, written: [], kept: [] };
  // A link in place of a file or a folder (`catalogs -> /elsewhere`) refuses the whole project before
  // its first file is written.
  for (const f of files) await checkWritable(path.join(root, f.file), target);
  // carte.yaml last, and all or none (a full disk): never a carte.yaml naming files that are not there.
  const ordered = [
    ...files.filter((f) => f.file !== "carte.yaml"),
    ...files.filter((f) => f.file === "carte.yaml"),
  ];
  const written = await writeFileSet(
    ordered.map((f) => {
      const file = path.join(root, f.file);
      return {
        file,
        data: f.schema
          ? `# yaml-language-server: $schema=${schemaReference(file, home.schemas, f.schema)}\n${f.text}`
          : f.text,
        // Never overwritten: a file there (made meanwhile too) is kept as it is; never through a link.
        options: { ...target, overwrite: false, mode: SHARED_FILE_MODE, dirMode: SHARED_DIR_MODE },
      };
    }),
  );
  for (const f of files) (written[ordered.indexOf(f)] ? result.written : result.kept).push(f.file);
  if (home.installIn !== undefined && !(await exists(home.schemas))) result.installIn = home.installIn;
  return result;
}

import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { ConfigError, formatProblem } from "../../src/errors.js";

/** Writes a project in a fresh temporary folder and returns the folder. Keys are relative paths. */
export async function writeProject(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "carte-config-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** A file path as problems show it (relative to the working directory). */
export function shown(dir: string, path: string): string {
  return relative(process.cwd(), join(dir, path));
}

/** Runs a load that must fail and returns its problems formatted `file:line:col: message`. */
export async function problemsOf(load: Promise<unknown>): Promise<string[]> {
  try {
    await load;
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  throw new Error("expected a ConfigError, but the project loaded");
}

/** A minimal valid carte.yaml. */
export const PROJECT = "version: 1\nstores: stores/*.yaml\ncatalogs: catalogs/*.yaml\n";

/** A minimal valid catalog named `burgers`. */
export const CATALOG = `items:
  - { sku: BURGER, title: Burger, price: 24900, modifier_groups: [EXTRAS] }
  - { sku: FRIES, title: Fries, price: 8900 }
modifier_groups:
  - sku: EXTRAS
    title: Extras
    min: 0
    max: 2
    type: inclusive
    options:
      - { sku: CHEESE, title: Cheese, price: 2000 }
      - { sku: BACON, title: Bacon, price: 4500 }
categories:
  - { sku: MAIN, title: Main, items: [BURGER, FRIES] }
menus:
  - { type: DEFAULT, categories: [MAIN] }
`;

/** A store file. */
export function storeYaml(id: number | string, integrationId: string, extra = ""): string {
  return `store:\n  id: ${id}\n  integration_id: ${integrationId}\n  name: Store ${integrationId}\ncatalog: burgers\n${extra}`;
}

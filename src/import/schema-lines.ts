/**
 * The `# yaml-language-server: $schema=…` line carte init writes at the top of each YAML file
 * (src/init.ts), on the files an import writes, so that editors validate and complete them too: a
 * path relative to the file into the carte package the chain's repository installs.
 */

import path from "node:path";
import type { FileKind } from "../config/validate.js";
import { schemaHome, schemaReference } from "../init.js";
import type { ImportFile } from "./round-trip.js";

/** The schema of each kind of file an import writes. */
const SCHEMAS: ReadonlyMap<FileKind, string> = new Map([
  ["project", "project.schema.json"],
  ["catalog", "catalog.schema.json"],
  ["group", "group.schema.json"],
  ["store", "store.schema.json"],
  ["settings", "settings.schema.json"],
]);

/**
 * The files with the `$schema` line carte init writes on top, for files written under `outDir` (the
 * line leads from each file to the schemas as {@link schemaHome} finds them from `outDir`).
 */
export async function withSchemaLines(outDir: string, files: readonly ImportFile[]): Promise<ImportFile[]> {
  const home = await schemaHome(outDir);
  return files.map((f) => {
    const schema = SCHEMAS.get(f.kind);
    if (schema === undefined) return f;
    const ref = schemaReference(path.join(outDir, f.path), home.schemas, schema);
    return { ...f, text: `# yaml-language-server: $schema=${ref}\n${f.text}` };
  });
}

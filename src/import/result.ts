/** What `carte import` (src/import/index.ts) and `carte import --merge` (src/import/merge.ts) give. */

import type { ImportedCatalog } from "./factor.js";
import type { ImportedGroup } from "./groups.js";
import type { ImportNote } from "./sanitize.js";
import type { ImportFile } from "./round-trip.js";

/** What an import writes, before it is written. */
export interface ImportResult {
  /** Catalog files, then store files, paths relative to the output folder. */
  files: ImportFile[];
  catalogs: ImportedCatalog[];
  /** Group files of a fresh import (what sets of stores share beyond the catalog); none for `--merge`. */
  groups?: ImportedGroup[];
  /** What the files cannot express (empty when the import is exact). */
  notes: ImportNote[];
  /**
   * `--merge`: stores left as the project's files have them (already managed there and different on
   * the platform, or whose new files would clash with the project's). Empty for a fresh import.
   */
  conflicts: ImportNote[];
  /** Catalogs of the project that new stores of `--merge` use, as they are. */
  reused?: { name: string; stores: string[] }[];
  /** Problems of the written files; always empty unless carte import has a bug. */
  problems: string[];
}

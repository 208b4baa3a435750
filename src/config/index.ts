/**
 * Configuration of a carte project: carte.yaml, catalog files and store files, loaded into the
 * normalized desired state. See `schemas/config/*.schema.json` for the file formats and
 * `examples/chain/` for a complete project.
 */

export { loadProject, DEFAULT_APPLY_DELAY_MS } from "./load.js";
export type { LoadedProject } from "./load.js";
export { resolveDesired, resolveStore } from "./resolve.js";
export type { ResolvableStore } from "./resolve.js";
export type { CatalogFile, ProjectFile, StoreFile } from "../generated/config.js";

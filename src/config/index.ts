/**
 * Configuration of a carte project: carte.yaml, catalog, group, store and shared settings files, loaded
 * into the normalized desired state. See `schemas/config/*.schema.json` for the file formats,
 * `docs/configuration.md` for the rules, and `examples/chain/` for a complete project.
 */

export { loadProject, DEFAULT_APPLY_DELAY_MS } from "./load.js";
export type { LoadOptions, LoadedProject, ParsedFiles } from "./load.js";
export { openIdentityCache, type IdentityCache } from "./identity-cache.js";
export { openParseCache, type ParseCache } from "./parse-cache.js";
export { stageByStore } from "./rollout.js";
export type { RolloutStage } from "./rollout.js";
export { resolveDesired, resolveStore } from "./resolve.js";
export type { ResolvableStore } from "./resolve.js";
export type { StoreSettings } from "./settings.js";
export { canonicalSchedules, parseDays, parseSlot, splitSlot, toSchedules } from "../time/slots.js";
export type { CatalogFile, GroupFile, ProjectFile, SettingsFile, StoreFile } from "../generated/config.js";

/**
 * Configuration of a carte project: carte.yaml, catalog, group, store and shared settings files, loaded
 * into the normalized desired state. See `schemas/config/*.schema.json` for the file formats,
 * `docs/configuration.md` for the rules, and `examples/chain/` for a complete project.
 */

export { loadProject, DEFAULT_APPLY_DELAY_MS } from "./load.js";
export type { LoadOptions, LoadedProject, ParsedFiles } from "./load.js";
export { openIdentityCache } from "./identity-cache.js";
export { openParseCache } from "./parse-cache.js";
export type { RolloutStage } from "./rollout-stages.js";
export { loadEachPlatform, readPlatformNames } from "./each-platform.js";
export type { EachPlatformOptions } from "./each-platform.js";
export { defaultCredentialNames } from "./platforms.js";
export type { CredentialNames, ProjectPlatform } from "./platforms.js";

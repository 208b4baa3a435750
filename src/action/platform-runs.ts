/**
 * The platforms (countries) an Action run goes through, and the masking of their credentials.
 *
 * A project with carte.yaml `platforms:` has one credential set per platform, and one more per
 * development host, each in the environment variables whose NAMES carte.yaml gives (`platforms: co:
 * credentials:`, default `CARTE_CO_CLIENT_ID` / `CARTE_CO_CLIENT_SECRET`, `CARTE_CO_DEV_…` for the
 * development host; src/config/platforms.ts). The workflow maps repository secrets to them in `env:`.
 * Before anything is logged, the Action masks the value of every such variable (`::add-mask::`), so
 * that the runner hides it in every later line of the log, whichever platform's run prints it.
 *
 * carte.yaml is read here only for the platforms' names, whether each has a development host, and the
 * names of their credential variables: a file that cannot be read or parsed gives no platform, and the
 * run then reports the located error the loader finds.
 */

import { readFileSync, statSync } from "node:fs";
import * as core from "@actions/core";
import { parse } from "yaml";
import { defaultCredentialNames, type CredentialNames } from "../config/platforms.js";
import { UsageError } from "../errors.js";
import { PLATFORM_NAME } from "./inputs.js";

/** A platform of carte.yaml `platforms:` as the Action needs it. */
export interface ActionPlatform {
  /** Its name (`co`). */
  name: string;
  /** Its country (`CO`), when carte.yaml gives one of two capital letters. */
  country?: string | undefined;
  /** Its currency (`COP`), when carte.yaml gives one of three capital letters. */
  currency?: string | undefined;
  /** Whether it has a development host (`development:`), where a rehearsal goes. */
  development: boolean;
  /** The variables of its credentials: production's, then the development host's. */
  credentials: CredentialNames[];
}

/** The most bytes of carte.yaml read for its platforms (a larger file is left to the loader). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** An environment variable's name as carte.yaml may give it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The variables of the credentials carte uses whatever carte.yaml says: the one-platform pair and the
 * default names of any platform's (`CARTE_<NAME>_CLIENT_ID`, `CARTE_<NAME>_DEV_CLIENT_SECRET`…).
 */
const DEFAULT_CREDENTIAL = /^CARTE_(?:[A-Z0-9_]+_)?CLIENT_(?:ID|SECRET)$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A credentials block's names, each the given one when it is a variable's name, else the default. */
function credentialNames(block: unknown, dflt: CredentialNames): CredentialNames {
  const given = isRecord(block) ? block : {};
  const pick = (key: "client_id" | "client_secret", fallback: string) => {
    const v = Object.hasOwn(given, key) ? given[key] : undefined;
    return typeof v === "string" && ENV_NAME.test(v) ? v : fallback;
  };
  return {
    clientId: pick("client_id", dflt.clientId),
    clientSecret: pick("client_secret", dflt.clientSecret),
  };
}

/** One entry of `platforms:`, or `undefined` when its name is not a platform's. */
function platformOf(name: string, spec: unknown): ActionPlatform | undefined {
  if (!PLATFORM_NAME.test(name)) return undefined;
  const s = isRecord(spec) ? spec : {};
  const dev = Object.hasOwn(s, "development") && isRecord(s.development) ? s.development : undefined;
  const credentials = [
    credentialNames(
      Object.hasOwn(s, "credentials") ? s.credentials : undefined,
      defaultCredentialNames(name, false),
    ),
  ];
  if (dev) {
    credentials.push(
      credentialNames(
        Object.hasOwn(dev, "credentials") ? dev.credentials : undefined,
        defaultCredentialNames(name, true),
      ),
    );
  }
  const code = (key: string, pattern: RegExp) => {
    const v = Object.hasOwn(s, key) ? s[key] : undefined;
    return typeof v === "string" && pattern.test(v) ? v : undefined;
  };
  return {
    name,
    country: code("country", /^[A-Z]{2}$/),
    currency: code("currency", /^[A-Z]{3}$/),
    development: dev !== undefined,
    credentials,
  };
}

/**
 * The platforms of carte.yaml `platforms:`, in the order it writes them; `[]` for a project without
 * `platforms:`, and for a file that cannot be read or parsed (the loader then says where it is wrong).
 */
export function readActionPlatforms(configPath: string): ActionPlatform[] {
  let doc: unknown;
  try {
    if (statSync(configPath).size > MAX_CONFIG_BYTES) return [];
    doc = parse(readFileSync(configPath, "utf8"), { maxAliasCount: 100 });
  } catch {
    return [];
  }
  if (!isRecord(doc) || !Object.hasOwn(doc, "platforms") || !isRecord(doc.platforms)) return [];
  return Object.entries(doc.platforms).flatMap(([name, spec]) => {
    const p = platformOf(name, spec);
    return p ? [p] : [];
  });
}

/**
 * Masks the credentials in the environment (`::add-mask::`): the values of the variables every
 * platform of `platforms` names, production's and the development host's, and of every variable of
 * carte's default credential names ({@link DEFAULT_CREDENTIAL}: `CARTE_CLIENT_SECRET`,
 * `CARTE_CO_CLIENT_ID`…). The client ids too: a workflow keeps them in secrets as well. Returns how
 * many values were masked.
 */
export function maskCredentials(env: NodeJS.ProcessEnv, platforms: readonly ActionPlatform[]): number {
  const names = new Set(Object.keys(env).filter((k) => DEFAULT_CREDENTIAL.test(k)));
  for (const p of platforms) {
    for (const c of p.credentials) {
      names.add(c.clientId);
      names.add(c.clientSecret);
    }
  }
  let masked = 0;
  for (const name of names) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (typeof value !== "string" || value.trim() === "") continue;
    core.setSecret(value);
    masked++;
  }
  return masked;
}

/** The platform of carte.yaml named `name` (read by the Action), or one of that name alone. */
export function platformNamed(platforms: readonly ActionPlatform[], name: string): ActionPlatform {
  return platforms.find((p) => p.name === name) ?? { name, development: false, credentials: [] };
}

/**
 * The platforms a run goes through, in order: those the input `platform` names (each must be one of
 * carte.yaml's, and have a development host for a rehearsal), else every platform of carte.yaml (with
 * `rehearsal`, those with a development host); `[undefined]` for a project without `platforms:` (one
 * run, as ever).
 *
 * @throws {@link UsageError} naming carte.yaml's platforms when the input names another, or when there
 *   is nothing to rehearse on.
 */
export function platformsToRun(
  requested: readonly string[],
  rehearsal: boolean,
  platforms: readonly ActionPlatform[],
  config: string,
): (string | undefined)[] {
  const known = platforms.map((p) => p.name);
  const list = known.length > 0 ? known.join(", ") : "none";
  if (platforms.length === 0) {
    if (requested.length > 0)
      throw new UsageError(`input platform: ${config} names no platforms: (its platforms: ${list})`);
    if (rehearsal)
      throw new UsageError(`input rehearsal: ${config} names no platforms: with a development: host`);
    return [undefined];
  }
  const byName = new Map(platforms.map((p) => [p.name, p]));
  for (const name of requested) {
    const p = byName.get(name);
    if (!p)
      throw new UsageError(`input platform: ${config} has no platform ${name} (its platforms: ${list})`);
    if (rehearsal && !p.development)
      throw new UsageError(
        `input rehearsal: platform ${name} of ${config} has no development: host to rehearse on`,
      );
  }
  if (requested.length > 0) return [...requested];
  const chosen = platforms.filter((p) => !rehearsal || p.development).map((p) => p.name);
  if (chosen.length === 0)
    throw new UsageError(
      `input rehearsal: no platform of ${config} has a development: host (its platforms: ${list})`,
    );
  return chosen;
}

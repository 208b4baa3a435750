/**
 * The platforms of a project (carte.yaml `platforms:`): a chain in several countries runs on one
 * platform per country, each with its own hosts, credentials, currency and language, and, for a
 * rehearsal, a development host with test stores of its own (docs/configuration.md "Countries";
 * docs/platform-api.md §4.13: a base address per API group and country).
 */

/** The environment variables that hold a platform's credentials: their NAMES, never their values. */
export interface CredentialNames {
  /** The variable holding the client id, e.g. `CARTE_CO_CLIENT_ID`. */
  clientId: string;
  /** The variable holding the client secret, e.g. `CARTE_CO_CLIENT_SECRET`. */
  clientSecret: string;
}

/**
 * The platform a load is scoped to (`LoadOptions.platform`), as carte.yaml `platforms:` names it:
 * what a run needs besides the hosts and currency, which `LoadedProject.platform` and
 * `LoadedProject.currency` carry as for a project of one platform.
 */
export interface ProjectPlatform {
  /** Its name in carte.yaml (`co`, `br`). */
  name: string;
  /** Its country, ISO 3166-1 alpha-2 (src/countries.ts): whose holiday calendar its stores have. */
  country: string;
  /** The language of its titles (`pt`); absent: the titles as written. */
  language?: string;
  /** Whether this load is the rehearsal on the platform's development host, with its test stores. */
  rehearsal: boolean;
  /** The environment variables holding the credentials of the host this load talks to. */
  credentials: CredentialNames;
}

/**
 * The default names of a platform's credential variables: `CARTE_<NAME>_CLIENT_ID` and
 * `CARTE_<NAME>_CLIENT_SECRET` (`CARTE_<NAME>_DEV_…` for its development host), the name upper-cased
 * with `-` as `_`.
 *
 * @example defaultCredentialNames("co", false) // { clientId: "CARTE_CO_CLIENT_ID", clientSecret: "CARTE_CO_CLIENT_SECRET" }
 */
export function defaultCredentialNames(name: string, development: boolean): CredentialNames {
  const prefix = `CARTE_${name.toUpperCase().replace(/-/g, "_")}_${development ? "DEV_" : ""}`;
  return { clientId: `${prefix}CLIENT_ID`, clientSecret: `${prefix}CLIENT_SECRET` };
}

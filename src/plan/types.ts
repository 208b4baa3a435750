/**
 * The plan: plain, versioned, serializable data. Renderers turn it into text, Markdown or JSON; the
 * executor carries out its operations. Documented for machines in docs/plan-format.md.
 */

import type { KindName, SegmentName } from "../kinds/registry.js";
import type { KindChange } from "../kinds/change.js";
import type { SafetyViolation } from "../safety-policy.js";
import type { EndpointParams } from "../kinds/resource-kind.js";

/** Version of the plan format. Bumped on any incompatible change. */
export const PLAN_FORMAT_VERSION = 1;

/**
 * One resource that the plan creates, updates or deletes: its address, store, key, action, `before`,
 * `after` and `diff`, and for people where it sits, its group, title and label (src/kinds/change.ts
 * `KindChange`, where each field is described).
 */
export interface ResourceChange extends KindChange<SegmentName> {
  /** Address segment of the resource. */
  kind: SegmentName;
}

/** One API call of the plan. */
export interface Operation {
  /** Stable id inside the plan, e.g. `bog-centro:items.upsert` or `availability.toggle#2`. */
  id: string;
  /** Name of the endpoint (src/plan/endpoints.ts), e.g. `items.upsert`. */
  endpoint: string;
  /** Calls of a lower stage run first; see src/plan/endpoints.ts. */
  stage: number;
  /** Store keys the call touches (several for cross-store availability calls). */
  stores: string[];
  method: string;
  /** Path relative to the platform's base address. */
  path: string;
  body: unknown;
  /** Whether the call may be repeated safely after a lost answer (see src/plan/endpoints.ts). */
  idempotent: boolean;
  /** Addresses of the resources this call changes. */
  addresses: string[];
  /**
   * The writes' params (the ids and names in the path: `slotId`, `event`…), when there are any: what a
   * read needs to settle the call when its answer is lost (src/apply/settle.ts).
   */
  params?: EndpointParams;
  /** Client-scoped calls: the element of each store, so that a store can be left out. */
  parts?: { store: string; element: unknown }[];
}

/** Counts of a plan. */
export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  /** Number of API calls the plan makes. */
  operations: number;
  /** Stores with at least one change. */
  stores: number;
}

/** A store in the plan's scope. */
export interface PlanStore {
  key: string;
  storeId: string;
  name: string;
  /** Set when the store writes schedules through the utils group (a setting of the files). */
  schedulesVia?: "menu" | "utils";
  /**
   * The store's IANA time zone (`timezone:` of its files), when they write one: the text and Markdown
   * views show the instants of its changes on its clock (`18:00 GMT-5 (today)`), relative to when they
   * are read. Added after version 1 was published; readers must not require it.
   */
  timeZone?: string;
}

/**
 * Checksums of the states a plan was computed from, for stale-plan checks (`carte apply FILE`) and
 * docs/plan-format.md. Each is `sha256:<hex>` of canonical JSON (src/plan/checksum.ts).
 */
export interface PlanChecksums {
  /** Of the current state of the stores in scope: the checksum of {@link PlanChecksums.stores}. */
  current: string;
  /** Of the desired state in scope: the checksum of its stores' digests (and of its client-level settings). */
  desired: string;
  /**
   * The digest of each store's normalised current state (platform ids included; src/plan/checksum.ts
   * `storeDigest`), by store key, as read for this plan, and under `""` the checksum of the client-level
   * state when the plan read one. Just before a store's first write, the apply reads it again and
   * refuses to write it when the digest differs (src/run/store-guard.ts `storeGuard`). Absent in plans written
   * before it existed.
   */
  stores?: Record<string, string>;
  /**
   * The digest of each store's desired state in scope (src/plan/checksum.ts `storeDigest`), by store
   * key: `carte apply FILE` names the stores whose files changed since the plan was saved. Absent in
   * plans written before it existed (added within version 1; readers must not require it).
   */
  desiredStores?: Record<string, string>;
  /**
   * The SHA-256 (hex) of each file the plan was made from, by its path relative to the project's folder
   * (`/` separators): `carte apply FILE` names the files that changed since the plan was saved. Absent in
   * plans written before it existed and in plans made without files (added within version 1).
   */
  files?: Record<string, string>;
}

/**
 * Something a plan tells people about a store without changing it (src/kinds/resource-kind.ts
 * `ResourceKind.info`): e.g. items staff switched off that the files leave alone. Not a change: an
 * apply does nothing about it.
 */
export interface PlanInfo {
  /** Store key. */
  store: string;
  /** Name of the kind that says it. */
  kind: string;
  /** One sentence, raw text (SKUs from the platform): renderers escape it. */
  message: string;
}

/**
 * A webhook secret an apply gets anew (`PUT /webhook/{event}/reset-secret`) and saves in the secrets
 * file, because an earlier run had the platform make it and never saved it (a kill just after the
 * call, a full disk, a lost answer): the marker beside the secrets file says so (src/run/secrets.ts
 * `findLostSecrets`), and the platform has the webhook. Not a change of the configuration.
 */
export interface SecretRotation {
  /** The webhook event, e.g. `NEW_ORDER`. */
  event: string;
  /** ISO 8601 time at which the earlier call that made the lost secret was about to be made. */
  since: string;
}

/** A complete plan. */
export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  /** Stores in scope, sorted by key. */
  stores: PlanStore[];
  /** Changes, sorted by store, then by the order of the kinds, then by key. */
  changes: ResourceChange[];
  /** API calls in execution order. */
  operations: Operation[];
  summary: PlanSummary;
  /** Checksums of the current state read from the platform and of the desired state, for stale-plan checks. */
  checksums: PlanChecksums;
  /** Present when the plan was limited with `--store`, `--kind` or `--target`. */
  targeting?: Targeting;
  /**
   * Present when the plan was limited to one stage of carte.yaml `rollout:` with `--stage`: the stage's
   * name. `carte apply FILE` then applies that stage alone (src/run/run.ts).
   */
  stage?: string;
  /**
   * Present when the plan is of one platform of carte.yaml `platforms:` (`--platform NAME`): its name.
   * `carte apply FILE` applies it to that platform and refuses it for another. Added within version 1.
   */
  platform?: string;
  /**
   * `true` when the plan is of the rehearsal on the platform's development host (`--rehearsal`), with
   * {@link platform}: `carte apply FILE` applies it there only. Added within version 1.
   */
  rehearsal?: boolean;
  /** The safety guards' verdict; a plan that is not `ok` is applied only with an override. */
  safety: SafetyVerdict;
  /**
   * Saved and printed plans: `sha256:<hex>` of the plan's canonical JSON without this field
   * (src/plan/digest.ts). `carte apply FILE` refuses a plan whose content does not match it.
   */
  digest?: string;
  /**
   * ISO 4217 code of the currency of the prices (carte.yaml `currency:`), when the files declare one:
   * renderers show prices formatted for it (`$24.900`, `R$ 12,50`). Prices in `before`/`after` stay the
   * platform's JSON numbers.
   */
  currency?: string;
  /** Information about the stores that is not a change (see {@link PlanInfo}); absent when none. */
  info?: PlanInfo[];
  /**
   * Webhook secrets an apply rotates and saves because an earlier run never saved them (see
   * {@link SecretRotation}); absent when none. Added after version 1 was published; readers must not
   * require it. `carte apply FILE` finds them afresh, as it plans afresh.
   */
  rotateSecrets?: SecretRotation[];
  /**
   * Set on the fresh plan `carte apply FILE` makes when the platform changed since the saved plan and
   * already shows it (the plan was applied): nothing is left to apply. Never saved in a plan file.
   */
  alreadyApplied?: boolean;
  /**
   * Where the plan was made, in words (src/run/session.ts `describeTarget`): written by `carte plan --out`
   * so that `carte show` names it. Read from a file, it is data: renderers escape it. Added within
   * version 1; absent in plans saved before it.
   */
  target?: string;
}

/**
 * A plan limited to what the files' difference from a base commit can touch (`carte plan --scope
 * changed --base REF`, computed by src/gitops/change-scope.ts): only the stores listed are read and planned,
 * each for the kinds listed only. Plain JSON: it is saved with the plan (docs/plan-format.md), and
 * `carte apply FILE` of a scoped plan reads, checks and applies those stores and kinds alone.
 */
export interface ChangeScope {
  /** The base as named (`--base REF`). */
  base: string;
  /** The commit the base resolved to. */
  sha: string;
  /** How many stores the head's files describe (in the shard, when sharded): the "of N" of the plan. */
  of: number;
  /**
   * The stores whose desired state differs from the base's, sorted by key, each with the kinds
   * (registry names, registry order) that differ there: the kinds read and planned in the store.
   */
  stores: { store: string; kinds: KindName[] }[];
  /** Client-level kinds whose desired state differs (read and planned); empty: none. */
  client: KindName[];
  /**
   * Stores the base's files describe and the head's no longer do (a deleted store file): carte stops
   * managing them and never changes them; the scoped plan reads what the base managed there and shows
   * what the platform keeps (`left`: resources per address segment, filled in by the read).
   */
  removed: {
    store: string;
    storeId: string;
    name: string;
    kinds: KindName[];
    left?: Record<string, number>;
  }[];
  /**
   * The parts of a store's live state read over all the stores above (`StoreRead.name`: `menu`,
   * `hours`, `holidays`…), in registry order: what the plan's first line lists.
   */
  reads: string[];
}

/** A targeting filter. Empty lists mean "everything". */
export interface Targeting {
  stores: string[];
  kinds: SegmentName[];
  targets: string[];
  /** Present when the plan is limited to what changed since a base commit ({@link ChangeScope}). */
  scope?: ChangeScope;
}

/** One tripped guard (src/safety-policy.ts). */
export type { SafetyViolation } from "../safety-policy.js";

/** The guards' verdict, part of the plan. */
export interface SafetyVerdict {
  ok: boolean;
  violations: SafetyViolation[];
  /** Set when the user forced the plan through: who decided and why. */
  override?: { reason: string };
}

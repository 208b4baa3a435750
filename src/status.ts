/**
 * `carte status`: the client's stores on the platform and the file that manages each. The platform has
 * no call that lists a client's stores (docs/platform-api.md §2, §4.2: a client owns a set of
 * stores, given at onboarding), so the stores are gathered from what can be seen:
 *
 * - every store a store file names, asked of the platform (`POST /availability/stores`,
 *   docs/platform-api.md §2.3: it answers for the client's own stores, 400 for another client's, 404 for an
 *   unknown one);
 * - every store the client's webhook configurations name (`GET /webhook`, docs/platform-api.md §2.7): a store
 *   whose file was deleted keeps its webhooks, so it shows up there;
 * - against the embedded emulator, every store its state gives the client (a store provisioned by an
 *   earlier run whose file is gone).
 *
 * A store no file names is listed as unmanaged (carte no longer changes it, nor deletes anything in
 * it); a file whose store the platform does not show is listed as missing.
 */

import type { LoadedProject } from "./config/index.js";
import pLimit from "p-limit";
import { ApiError } from "./errors.js";
import { readPairing } from "./state/pairing.js";
import { storesOpen, MAX_STATUS_STORES } from "./platform/store-availability-calls.js";
import { listWebhooks } from "./platform/webhook-calls.js";
import type { Session } from "./run/session.js";

/** One store of the status. */
export interface StoreStatus {
  /** Platform store id (decimal string). */
  storeId: string;
  /** Integration id, when known (from the file, or from the embedded emulator). */
  integrationId?: string;
  /** The store's name, when known. */
  name?: string;
  /** The store file that manages it, relative to the working directory. */
  file?: string;
  /**
   * `managed`: a file names it and the platform shows it; `unmanaged`: the platform shows it and no
   * file names it; `missing`: a file names it and the platform does not show it for this client.
   */
  state: "managed" | "unmanaged" | "missing";
  /** Whether it takes orders (`POST /availability/stores`), for stores on the platform when asked. */
  open?: boolean;
  /** Where an unmanaged store was seen: `webhooks` or `emulator`. */
  seenIn?: string[];
  /**
   * For a managed store: whether the platform shows its file's integration id to be its own
   * (docs/platform-api.md, "Store identity"): `verified`; `wrong`: it is another store's; `unknown`:
   * the client has no store with it; `unchecked`: neither address shows a category yet.
   */
  pairing?: "verified" | "wrong" | "unknown" | "unchecked";
}

/** The status of a project's stores. */
export interface ProjectStatus {
  /** Stores by state: managed and missing in the order of the files, then unmanaged by store id. */
  stores: StoreStatus[];
}

/** Whether the platform refused a store as not the client's (400) or unknown (404). */
function isNotThere(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 400 || err.status === 404);
}

/**
 * Whether each store takes orders; a store the platform refuses is absent from the map. Asks in batches
 * of {@link MAX_STATUS_STORES}; a batch refused as a whole (one store not there) is asked store by store.
 */
async function openOf(session: Session, ids: readonly string[]): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  for (let i = 0; i < ids.length; i += MAX_STATUS_STORES) {
    const batch = ids.slice(i, i + MAX_STATUS_STORES);
    try {
      for (const [id, open] of await storesOpen(session.client, batch)) out.set(id, open);
    } catch (err) {
      if (!isNotThere(err)) throw err;
      for (const id of batch) {
        try {
          for (const [k, open] of await storesOpen(session.client, [id])) out.set(k, open);
        } catch (e) {
          if (!isNotThere(e)) throw e;
        }
      }
    }
  }
  return out;
}

/**
 * Gathers the status of the project's stores (see the module comment for where stores are found).
 *
 * @param storeFiles - the file of each store, by integration id (relative to the working directory).
 * @throws `ApiError` when a read fails for another reason than a store not being there.
 */
export async function projectStatus(
  project: LoadedProject,
  session: Session,
  storeFiles: ReadonlyMap<string, string>,
): Promise<ProjectStatus> {
  const named = Object.entries(project.desired.stores).map(([key, s]) => ({
    key,
    storeId: s.store.storeId,
    name: s.store.name,
  }));
  const seen = new Map<string, { integrationId?: string; name?: string; seenIn: Set<string> }>();
  const see = (id: string, where: string, integrationId?: string, name?: string) => {
    let s = seen.get(id);
    if (!s) seen.set(id, (s = { seenIn: new Set() }));
    s.seenIn.add(where);
    if (integrationId !== undefined) s.integrationId ??= integrationId;
    if (name !== undefined) s.name ??= name;
  };
  for (const config of await listWebhooks(session.client))
    for (const store of config.stores ?? [])
      if (store.store_id !== undefined) see(String(store.store_id), "webhooks");
  if (session.emulator && session.clientId !== undefined)
    for (const s of session.emulator.clientStores(session.clientId))
      see(String(s.id), "emulator", s.integration_id, s.name);

  const fileIds = new Set(named.map((n) => n.storeId));
  const unmanagedIds = [...seen.keys()].filter((id) => !fileIds.has(id)).sort(byNumber);
  const open = await openOf(session, [...named.map((n) => n.storeId), ...unmanagedIds]);

  const pairings = await pairingsOf(
    session,
    named.filter((n) => open.has(n.storeId)),
  );
  const stores: StoreStatus[] = named.map((n) => ({
    storeId: n.storeId,
    integrationId: n.key,
    name: n.name,
    ...(storeFiles.has(n.key) ? { file: storeFiles.get(n.key)! } : {}),
    state: open.has(n.storeId) ? "managed" : "missing",
    ...(open.has(n.storeId) ? { open: open.get(n.storeId)! } : {}),
    ...(pairings.has(n.key) ? { pairing: pairings.get(n.key)! } : {}),
  }));
  for (const id of unmanagedIds) {
    const s = seen.get(id)!;
    stores.push({
      storeId: id,
      ...(s.integrationId !== undefined ? { integrationId: s.integrationId } : {}),
      ...(s.name !== undefined ? { name: s.name } : {}),
      state: "unmanaged",
      ...(open.has(id) ? { open: open.get(id)! } : {}),
      seenIn: [...s.seenIn].sort(),
    });
  }
  return { stores };
}

/** Reads of pairings at once. */
const PAIRING_READS = 8;

/**
 * The pairing of each managed store ({@link StoreStatus.pairing}): a pairing the record holds without
 * a read, the others by their categories through both addresses (src/state/pairing.ts).
 */
async function pairingsOf(
  session: Session,
  stores: readonly { key: string; storeId: string }[],
): Promise<Map<string, NonNullable<StoreStatus["pairing"]>>> {
  const limit = pLimit(PAIRING_READS);
  const out = new Map<string, NonNullable<StoreStatus["pairing"]>>();
  await Promise.all(
    stores.map((s) =>
      limit(async () => {
        if (session.pairings?.has(s.storeId, s.key)) return void out.set(s.key, "verified");
        const { verdict } = await readPairing(session.client, s.storeId, s.key);
        if (verdict.state === "verified") session.pairings?.add(s.storeId, s.key);
        out.set(
          s.key,
          verdict.state === "mismatch"
            ? "wrong"
            : verdict.state === "unverifiable"
              ? "unchecked"
              : verdict.state,
        );
      }),
    ),
  );
  await session.pairings?.save();
  return out;
}

function byNumber(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The stores the embedded emulator gives the client that no store file of the project names (a store
 * whose file was deleted): what a plan mentions as information, at no cost (no call). Empty against a
 * configured platform, where `carte status` finds them through the webhook configurations.
 */
export function unmanagedEmbeddedStores(
  project: LoadedProject,
  session: Session,
): { storeId: string; integrationId: string; name: string }[] {
  if (!session.emulator || session.clientId === undefined) return [];
  const named = new Set(Object.values(project.desired.stores).map((s) => s.store.storeId));
  return session.emulator
    .clientStores(session.clientId)
    .filter((s) => !named.has(String(s.id)))
    .map((s) => ({ storeId: String(s.id), integrationId: s.integration_id, name: s.name }));
}

/** The note a plan prints about {@link unmanagedEmbeddedStores}, or undefined when there are none. */
export function unmanagedStoresNote(
  stores: readonly { storeId: string; integrationId: string; name: string }[],
): string | undefined {
  if (stores.length === 0) return undefined;
  const shown = stores.slice(0, 5).map((s) => `${s.storeId} (${s.integrationId}, ${s.name})`);
  const more = stores.length > 5 ? ` and ${stores.length - 5} more` : "";
  return (
    `Note: the platform has ${stores.length === 1 ? "a store" : `${stores.length} stores`} that no file manages: ` +
    `${shown.join(", ")}${more}. carte leaves ${stores.length === 1 ? "it" : "them"} as ${stores.length === 1 ? "it is" : "they are"}; ` +
    "carte status lists every store and the file that manages it."
  );
}

import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorOptions, RunningEmulator, Seed } from "../../src/emulator/index.js";

export const STORE = 900123;
export const STORE2 = 900124;
export const FOREIGN_STORE = 800001;

export const SEED: Seed = {
  clients: [
    {
      client_id: "acme",
      client_secret: "s3cret-acme",
      stores: [
        { id: STORE, integration_id: "bog-centro", name: "Bogotá Centro" },
        { id: String(STORE2), integration_id: "bog-norte", name: "Bogotá Norte" },
      ],
    },
    {
      client_id: "other",
      client_secret: "s3cret-other",
      stores: [{ id: FOREIGN_STORE, integration_id: "other-1", name: "Other" }],
    },
  ],
};

export const MENU = (store: number = STORE): string => `/restaurants/menu/v1/stores/${store}`;
export const AV2 = "/api/v2/restaurants-integrations-public-api/availability";

export interface CallResult {
  status: number;
  body: unknown;
  headers: Headers;
}

export async function call(
  emu: RunningEmulator,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
  if (opts.token !== undefined) headers["x-authorization"] = `Bearer ${opts.token}`;
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
  if (payload !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(emu.url + path, { method, headers, body: payload });
  const text = await res.text();
  return {
    status: res.status,
    body: text === "" ? undefined : (JSON.parse(text) as unknown),
    headers: res.headers,
  };
}

export async function login(
  emu: RunningEmulator,
  client = "acme",
  surface: "integrations" | "utils" = "integrations",
): Promise<string> {
  const secret = SEED.clients.find((c) => c.client_id === client)!.client_secret;
  const r = await call(emu, "POST", `/restaurants/auth/v1/token/login/${surface}`, {
    body: { client_id: client, client_secret: secret },
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { access_token: string }).access_token;
}

export async function start(opts: EmulatorOptions = {}): Promise<{ emu: RunningEmulator; token: string }> {
  const emu = await startEmulator({ seed: SEED, applyDelayMs: 40, ...opts });
  const token = await login(emu);
  return { emu, token };
}

/** An ITEM element for POST /items. */
export function item(sku: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sku,
    item_type: "ITEM",
    title_info: { title: `Title ${sku}` },
    price_info: { price: 1000 },
    ...extra,
  };
}

/** A MODIFIER_GROUP element for POST /items with its options by SKU. */
export function group(
  sku: string,
  options: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    sku,
    item_type: "MODIFIER_GROUP",
    title_info: { title: `Group ${sku}` },
    quantity_info: { min_permitted: 0, max_permitted: options.length, modifiers_type: "inclusive" },
    items_info: { items: options.map((s, index) => ({ sku: s, index })) },
    ...extra,
  };
}

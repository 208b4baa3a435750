/**
 * Nested modifier groups in the emulator's store menu API (docs/platform-api.md §4.3: ITEM → MODIFIER_GROUP →
 * ITEM → MODIFIER_GROUP…): accepted up to Limits.modifierGroupDepth levels under an item, refused deeper and
 * in circles with `invalid_item_depth` (docs/platform-api.md, "Nested modifier groups"), the whole call
 * refused.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src/emulator/index.js";
import { Limits } from "../../src/platform/wire.js";
import { call, login, MENU, SEED } from "./helpers.js";
import { startEmulator } from "../../src/emulator/index.js";

let emu: RunningEmulator;
let token: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, seed: SEED, applyDelayMs: 0 });
  token = await login(emu);
});
afterAll(async () => {
  await emu.close();
});

const ref = (skus: string[]) => ({ items: skus.map((sku, index) => ({ sku, index })) });
const item = (sku: string, children: string[] = []) => ({
  sku,
  item_type: "ITEM",
  title_info: { title: sku },
  price_info: { price: 0 },
  items_info: ref(children),
});
const group = (sku: string, options: string[]) => ({
  sku,
  item_type: "MODIFIER_GROUP",
  title_info: { title: sku },
  items_info: ref(options),
  quantity_info: { min_permitted: 0, max_permitted: 1 },
});

/** An item with `levels` levels of groups: TOP → G1 → O1 → G2 → O2 … → G<levels> → O<levels>. */
function chain(prefix: string, levels: number) {
  const out: object[] = [item(`${prefix}TOP`, [`${prefix}G1`])];
  for (let l = 1; l <= levels; l++) {
    out.push(group(`${prefix}G${l}`, [`${prefix}O${l}`]));
    out.push(item(`${prefix}O${l}`, l < levels ? [`${prefix}G${l + 1}`] : []));
  }
  return out;
}

describe("nested modifier groups", () => {
  it(`accepts ${Limits.modifierGroupDepth} levels of groups under an item`, async () => {
    const r = await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: chain("A", Limits.modifierGroupDepth),
    });
    expect(r.status).toBe(200);
    await emu.idle();
    const read = await call(emu, "GET", `${MENU()}/items`, { token });
    const o2 = (read.body as { sku: string; items_info: { items: { sku: string }[] } }[]).find(
      (i) => i.sku === "AO2",
    );
    expect(o2?.items_info.items.map((i) => i.sku)).toEqual(["AG3"]);
  });

  it("refuses one level more, naming the path", async () => {
    const r = await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: chain("B", Limits.modifierGroupDepth + 1),
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      type: "invalid_item_depth",
      message:
        'item "BTOP" nests modifier groups 4 levels deep (BTOP → BG1 → BO1 → BG2 → BO2 → BG3 → BO3 → BG4); ' +
        "the platform accepts at most 3",
    });
  });

  it("refuses an upsert that makes an accepted chain one level deeper", async () => {
    // AO3 (level 3) gets a group of its own: the catalog as it would be is too deep.
    const r = await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [item("AO3", ["XG"]), group("XG", ["XO"]), item("XO")],
    });
    expect(r.status).toBe(400);
    expect((r.body as { type: string }).type).toBe("invalid_item_depth");
  });

  it("refuses groups that lead back to themselves", async () => {
    const r = await call(emu, "POST", `${MENU()}/items`, {
      token,
      body: [group("CG", ["CO"]), item("CO", ["CG"])],
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      type: "invalid_item_depth",
      message: "modifier groups nest in a circle: CG → CG",
    });
  });

  it("refuses a body chaining 20,000 groups with a short message, not a failure of its own", async () => {
    const deep = await call(emu, "POST", `${MENU()}/items`, { token, body: chain("D", 20_000) });
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({
      type: "invalid_item_depth",
      message:
        'item "DTOP" nests modifier groups 20000 levels deep (DTOP → DG1 → DO1 → DG2 → DO2 → DG3 → DO3 → DG4 → DO4 → …); ' +
        "the platform accepts at most 3",
    });

    const circle: object[] = [];
    for (let i = 0; i < 20_000; i++)
      circle.push(group(`EG${i}`, [`EO${i}`]), item(`EO${i}`, [`EG${(i + 1) % 20_000}`]));
    const r = await call(emu, "POST", `${MENU()}/items`, { token, body: circle });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      type: "invalid_item_depth",
      message:
        "modifier groups nest in a circle: EG0 → EG1 → EG2 → EG3 → EG4 → EG5 → … 19989 more … → " +
        "EG19995 → EG19996 → EG19997 → EG19998 → EG19999 → EG0",
    });
  });
});

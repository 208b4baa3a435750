import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/config/index.js";
import type { StoreState } from "../../src/model.js";
import { holidaysState } from "../../src/kinds/store-schedule.js";
import { hoursState } from "../../src/kinds/store-schedule.js";
import { openState } from "../../src/kinds/store-availability.js";
import { specialDaysState } from "../../src/kinds/store-schedule.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";
import { catalogOf } from "../helpers/builders.js";

const CONFIG = resolve("examples/chain/carte.yaml");

function store(stores: Record<string, StoreState>, key: string): StoreState {
  const s = stores[key];
  if (!s) throw new Error(`store ${key} missing`);
  return s;
}

describe("examples/chain", () => {
  it("loads the Carbón Burgers chain", async () => {
    const project = await loadProject(CONFIG);
    expect(project.configFile).toBe(CONFIG);
    expect(project.root).toBe(resolve("examples/chain"));
    expect(project.platform).toBeUndefined();
    expect(project.emulator).toEqual({ applyDelayMs: 50 });
    expect(project.files).toEqual([
      join("examples", "chain", "carte.yaml"),
      join("examples", "chain", "catalogs", "burgers.yaml"),
      join("examples", "chain", "groups", "bogota.yaml"),
      join("examples", "chain", "stores", "bog-centro.yaml"),
      join("examples", "chain", "stores", "bog-chapinero.yaml"),
      join("examples", "chain", "stores", "med-poblado.yaml"),
      join("examples", "chain", "shared", "holidays-colombia.yaml"),
    ]);

    const stores = project.desired.stores;
    expect(Object.keys(stores)).toEqual(["bog-centro", "bog-chapinero", "med-poblado"]);
    const centro = store(stores, "bog-centro");
    expect(centro.store).toEqual({
      key: "bog-centro",
      storeId: "900101",
      integrationId: "bog-centro",
      name: "Bogotá Centro",
    });
    expect(store(stores, "med-poblado").store.storeId).toBe("900201");

    const all = Object.values(catalogOf(centro).items);
    // Items sold as products are the ones in categories (options are ITEMs too, but not listed there).
    const products = new Set(Object.values(catalogOf(centro).categories).flatMap((c) => c.items));
    expect(products.size).toBeGreaterThanOrEqual(40);
    expect(all.filter((i) => i.type === "MODIFIER_GROUP").length).toBeGreaterThanOrEqual(4);
    expect(Object.keys(catalogOf(centro).categories)).toHaveLength(9);
    expect(Object.keys(catalogOf(centro).menus)).toEqual(["DEFAULT", "LATE_NIGHT"]);
    expect(catalogOf(centro).menus.DEFAULT?.categories).toHaveLength(9);
    expect(catalogOf(centro).menus.LATE_NIGHT?.categories).toContainEqual({ sku: "DESSERTS", active: false });
  });

  it("normalizes items, options and modifier groups", async () => {
    const { desired } = await loadProject(CONFIG);
    const centro = store(desired.stores, "bog-centro");
    expect(catalogOf(centro).items["BURGER-VEGGIE"]).toEqual({
      sku: "BURGER-VEGGIE",
      type: "ITEM",
      title: "Veggie de Garbanzo",
      description: "Medallón de garbanzo y quinua, aguacate, tomate y alioli de cilantro.",
      price: 27900,
      images: [],
      children: ["EXTRAS", "SAUCES"],
      min: null,
      max: null,
      modifiersType: null,
    });
    expect(catalogOf(centro).items.DONENESS).toEqual({
      sku: "DONENESS",
      type: "MODIFIER_GROUP",
      title: "Término de la carne",
      description: "",
      price: null,
      images: [],
      children: ["DONE-MEDIUM-RARE", "DONE-MEDIUM", "DONE-WELL"],
      min: 1,
      max: 1,
      modifiersType: "exclusive",
    });
    // An option reused by SKU in another group is one ITEM, child of both groups.
    expect(catalogOf(centro).items["WING-SAUCE"]?.children).toEqual([
      "WING-BUFFALO",
      "WING-PANELA-PICANTE",
      "SAUCE-BBQ",
      "SAUCE-HONEY-MUSTARD",
    ]);
    expect(catalogOf(centro).items["SAUCE-BBQ"]).toMatchObject({
      type: "ITEM",
      price: 0,
      children: [],
      min: null,
    });
  });

  it("applies per-store prices", async () => {
    const { desired } = await loadProject(CONFIG);
    expect(catalogOf(store(desired.stores, "bog-centro")).items["BURGER-CLASSIC"]?.price).toBe(25900);
    expect(catalogOf(store(desired.stores, "bog-chapinero")).items["BURGER-CLASSIC"]?.price).toBe(24900);
    expect(catalogOf(store(desired.stores, "med-poblado")).items["EXTRA-BACON"]?.price).toBe(5000);
    expect(catalogOf(store(desired.stores, "bog-centro")).items["EXTRA-BACON"]?.price).toBe(4500);
  });

  it("removes excluded SKUs and every reference to them", async () => {
    const { desired } = await loadProject(CONFIG);
    const poblado = store(desired.stores, "med-poblado");
    expect(catalogOf(poblado).items["DRINK-BEER-CLUB-COLOMBIA"]).toBeUndefined();
    expect(catalogOf(poblado).categories.DRINKS?.items).not.toContain("DRINK-BEER-CLUB-COLOMBIA");
    expect(catalogOf(poblado).items["EXTRA-JALAPENO"]).toBeUndefined();
    expect(catalogOf(poblado).items.EXTRAS?.children).not.toContain("EXTRA-JALAPENO");
    expect(catalogOf(poblado).items.EXTRAS?.children).toHaveLength(6);
    const centro = store(desired.stores, "bog-centro");
    expect(catalogOf(centro).categories.DRINKS?.items).toContain("DRINK-BEER-CLUB-COLOMBIA");
    expect(catalogOf(centro).items.EXTRAS?.children).toContain("EXTRA-JALAPENO");
    const chapinero = store(desired.stores, "bog-chapinero");
    expect(catalogOf(chapinero).categories.SEASONAL?.items).toEqual(["SEASONAL-BURGER-HOGAO"]);
  });

  it("sorts unavailable SKUs", async () => {
    const { desired } = await loadProject(CONFIG);
    expect(catalogOf(store(desired.stores, "med-poblado")).unavailable).toEqual([
      "DRINK-JUGO-LULO",
      "EXTRA-PATTY",
      "TOP-OREO",
    ]);
  });

  it("inherits hours from carte.yaml and the group, and splits a slot that runs past midnight", async () => {
    const { desired } = await loadProject(CONFIG);
    const slots = (...pairs: string[]) => pairs.map((p) => ({ start: p.slice(0, 5), end: p.slice(6) }));
    // bog-centro: chain mon-thu, its own fri,sat with 18:00-02:00, the group's Sunday.
    expect(hoursState.get(store(desired.stores, "bog-centro"))).toEqual({
      mon: slots("11:00-22:00"),
      tue: slots("11:00-22:00"),
      wed: slots("11:00-22:00"),
      thu: slots("11:00-22:00"),
      fri: slots("11:00-15:00", "18:00-23:59"),
      sat: slots("00:00-02:00", "11:00-15:00", "18:00-23:59"),
      sun: slots("00:00-02:00", "12:00-20:00"),
    });
    // med-poblado has no group: the chain's Sunday, its own weekend.
    expect(hoursState.get(store(desired.stores, "med-poblado"))?.sun).toEqual(slots("08:00-22:00"));
    expect(hoursState.get(store(desired.stores, "bog-chapinero"))?.sun).toEqual(slots("12:00-20:00"));
  });

  it("merges holidays and special days by date, webhooks by event", async () => {
    const { desired } = await loadProject(CONFIG);
    const centro = store(desired.stores, "bog-centro");
    const chapinero = store(desired.stores, "bog-chapinero");
    expect(holidaysState.get(centro)).toEqual({ "01-01": [], "12-25": [] });
    expect(holidaysState.get(chapinero)).toEqual({
      "01-01": [],
      "12-25": [{ start: "12:00", end: "20:00" }],
    });
    expect(specialDaysState.get(chapinero)).toEqual({
      "12-24": { name: "Nochebuena", month: 12, day: 24, slots: [{ start: "11:00", end: "20:00" }] },
      "12-31": { name: "Nochevieja", month: 12, day: 31, slots: [{ start: "11:00", end: "18:00" }] },
    });
    expect(specialDaysState.get(centro)?.["12-24"]?.slots).toEqual([{ start: "11:00", end: "18:00" }]);
    expect(webhooksState.get(chapinero)).toEqual({
      MENU_APPROVED: { url: "https://chapinero.example.com/hooks/menu", enabled: false },
      MENU_REJECTED: { url: "http://localhost:8080/hooks/bogota/menu-rejected", enabled: true },
      NEW_ORDER: { url: "http://localhost:8080/hooks/new-order", enabled: true },
    });
    expect(webhooksState.get(store(desired.stores, "med-poblado"))?.MENU_REJECTED?.url).toBe(
      "http://localhost:8080/hooks/menu-rejected",
    );
    expect(Object.values(desired.stores).map((s) => openState.get(s))).toEqual([true, true, true]);
    expect(centro.schedulesVia).toBeUndefined();
    expect(desired.client).toEqual({
      webhooks: { STORE_PROVISIONING_STATUS: { url: "http://localhost:8080/hooks/provisioning" } },
    });
  });

  it("gives schedules to the breakfast category and option prices inside a combo", async () => {
    const { desired } = await loadProject(CONFIG);
    const centro = store(desired.stores, "bog-centro");
    expect(catalogOf(centro).categories.BREAKFAST?.schedules).toEqual([
      { days: "mon,tue,wed,thu,fri", periods: [{ start: "06:00", end: "11:00" }] },
      { days: "sat,sun,hol", periods: [{ start: "07:00", end: "12:00" }] },
    ]);
    expect(catalogOf(centro).items["BREAKFAST-AREPA-HUEVO"]?.schedules).toEqual([
      { days: "mon,tue,wed,thu,fri,sat,sun", periods: [{ start: "06:00", end: "11:00" }] },
    ]);
    expect(catalogOf(centro).categories.BURGERS?.schedules).toBeUndefined();
    expect(catalogOf(centro).items["EXTRA-CHEESE"]?.priceInParent).toEqual({ "COMBO-CARBON": 0 });
    expect(catalogOf(centro).items["COMBO-SIDE-ONION-RINGS"]?.priceInParent).toEqual({ "COMBO-CARBON": 0 });
    expect(catalogOf(centro).items["EXTRA-BACON"]?.priceInParent).toBeUndefined();
    expect(catalogOf(centro).items["BURGER-CLASSIC"]?.title).toBe("Clásica Centro");
  });

  it("is deterministic", async () => {
    const a = await loadProject(CONFIG);
    const b = await loadProject(CONFIG);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });
});

import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import { renderJson } from "../../src/render/json.js";
import { renderText } from "../../src/render/text.js";
import { current, desired, group, item, store } from "../helpers/builders.js";

/** A plan with every kind of change: create, update (attributes and availability), delete. */
function samplePlan() {
  const base = (key: string, id: string) =>
    store(key, id, (s) => {
      s.store.name = key === "bog-centro" ? "Bogotá Centro" : "Medellín Poblado";
      s.items = {
        "BURGER-CLASSIC": item("BURGER-CLASSIC", 24900, { title: "Classic burger", children: ["DONENESS"] }),
        DONENESS: group("DONENESS", ["MEDIUM", "WELL-DONE"], 1, 1),
        MEDIUM: item("MEDIUM", 0, { title: "Medium" }),
        "WELL-DONE": item("WELL-DONE", 0, { title: "Well done" }),
        FRIES: item("FRIES", 7900, { title: "Fries" }),
        "OLD-SHAKE": item("OLD-SHAKE", 9900, { title: "Old shake" }),
      };
      s.categories = {
        BURGERS: { sku: "BURGERS", title: "Burgers", items: ["BURGER-CLASSIC"] },
        SIDES: { sku: "SIDES", title: "Sides", items: ["FRIES", "OLD-SHAKE"] },
      };
      s.menus = {
        DEFAULT: {
          type: "DEFAULT",
          categories: [
            { sku: "BURGERS", active: true },
            { sku: "SIDES", active: true },
          ],
        },
      };
    });
  const have = [base("bog-centro", "900101"), base("med-poblado", "900201")];
  const want = [base("bog-centro", "900101"), base("med-poblado", "900201")];
  for (const s of want) {
    s.items["BURGER-CLASSIC"]!.price = 25900;
    delete s.items["OLD-SHAKE"];
    s.categories.SIDES!.items = ["FRIES", "ONION-RINGS"];
    s.items["ONION-RINGS"] = item("ONION-RINGS", 8900, {
      title: "Onion rings",
      description: "Beer-battered",
    });
    s.unavailable = ["FRIES"];
  }
  want[1]!.menus.DEFAULT!.categories[1]!.active = false;
  return buildPlan(desired(...want), current(...have));
}

describe("plan renderers", () => {
  it("renders text", async () => {
    await expect(renderText(samplePlan(), { color: false })).toMatchFileSnapshot("expected/plan.txt");
  });

  it("renders text with colour only when asked", () => {
    const coloured = renderText(samplePlan(), { color: true });
    expect(coloured).toContain("\u001b[");
    expect(renderText(samplePlan(), { color: false })).not.toContain("\u001b[");
  });

  it("renders JSON with a summary of creates, updates and deletes", async () => {
    const json = renderJson(samplePlan());
    expect(JSON.parse(json).summary).toEqual({ create: 2, update: 7, delete: 2, operations: 8, stores: 2 });
    await expect(json).toMatchFileSnapshot("expected/plan.json");
  });

  it("renders an empty plan as No changes", () => {
    const s = store("a", "1");
    expect(renderText(buildPlan(desired(s), current(s)), { color: false })).toBe(
      "No changes. The platform matches the configuration.\n",
    );
  });
});

/** "Did you mean": a misspelled SKU, catalog, group, store or address names the closest known one. */

import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadProject } from "../../src/config/index.js";
import { closest, didYouMean } from "../../src/suggest.js";
import { CATALOG, PROJECT, problemsOf, storeYaml, writeProject } from "./helpers.js";

describe("closest", () => {
  it("finds a typo, ignores case, and suggests nothing far away or already known", () => {
    expect(closest("BURGER-CLASIC", ["FRIES", "BURGER-CLASSIC", "BURGER-CHEESE"])).toBe("BURGER-CLASSIC");
    expect(closest("burger-classic", ["BURGER-CLASSIC"])).toBe("BURGER-CLASSIC");
    expect(closest("SHAKE", ["BURGER-CLASSIC", "FRIES"])).toBeUndefined();
    expect(closest("FRIES", ["FRIES", "FRIE"])).toBeUndefined();
    expect(closest("x".repeat(500), ["x".repeat(499)])).toBeUndefined();
  });

  it("quotes the suggestion with the caller's quoting", () => {
    expect(didYouMean("FRIS", ["FRIES"], (s) => JSON.stringify(s))).toBe(' (did you mean "FRIES"?)');
    expect(didYouMean("ZZZ", ["FRIES"], (s) => s)).toBe("");
  });
});

describe("configuration problems suggest the name meant", () => {
  it("for an item of a category, a catalog, a group and an override's SKU", async () => {
    const dir = await writeProject({
      "carte.yaml": PROJECT + "groups: groups/*.yaml\n",
      "catalogs/burgers.yaml": CATALOG.replace("items: [BURGER, FRIES]", "items: [BURGER, FRIS]"),
      "groups/bogota.yaml": "name: bogota\n",
      "stores/a.yaml": storeYaml(1, "a").replace("catalog: burgers", "catalog: burgres") + "group: bogta\n",
      "stores/b.yaml": storeYaml(2, "b", "overrides:\n  prices:\n    BACNO: 100\n"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    const text = problems.join("\n");
    expect(text).toContain('unknown item "FRIS" (did you mean "FRIES"?) in category MAIN');
    expect(text).toContain('unknown catalog "burgres" (did you mean "burgers"?)');
    expect(text).toContain('unknown group "bogta" (did you mean "bogota"?)');
    expect(text).toContain('unknown SKU "BACNO" (did you mean "BACON"?)');
  });
});

describe("schema problems suggest the key or value meant", () => {
  it("for an unknown key, an unknown ownership kind and a value outside a list", async () => {
    const dir = await writeProject({
      "carte.yaml": PROJECT + "ownership:\n  availabilty: full\n",
      "catalogs/burgers.yaml": CATALOG.replace("type: inclusive", "type: inclusiv"),
      "stores/a.yaml": storeYaml(1, "a").replace("catalog: burgers", "catalgo: burgers"),
    });
    const text = (await problemsOf(loadProject(join(dir, "carte.yaml")))).join("\n");
    expect(text).toContain('unknown key "catalgo" (did you mean "catalog"?)');
    expect(text).toContain('unknown key "availabilty" (did you mean "availability"?)');
    expect(text).toMatch(/got "inclusiv" \(did you mean "inclusive"\?\)/);
  });
});

describe("a key written one level too high", () => {
  it("names where it goes: overrides: prices: in a store, defaults: in a group or carte.yaml", async () => {
    const dir = await writeProject({
      "carte.yaml":
        PROJECT + 'groups: groups/*.yaml\nhours:\n  mon: ["11:00-22:00"]\nprices:\n  BURGER: 100\n',
      "catalogs/burgers.yaml": CATALOG,
      "groups/bogota.yaml": "name: bogota\ntitles:\n  BURGER: Hamburguesa\n",
      "stores/a.yaml": storeYaml(
        1,
        "a",
        "prices:\n  BURGER: 26900\noption_prices:\n  BURGER: { BACON: 0 }\nexclude: [FRIES]\n" +
          "unavailable:\n  - FRIES\navailable:\n  - BURGER\n",
      ),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    const at = (file: string, key: string) =>
      problems.find((p) => p.includes(`${file}:`) && p.includes(`unknown key "${key}"`));
    expect(at("stores/a.yaml", "prices")).toMatch(
      /unknown key "prices" \(did you mean overrides: prices:\?\)/,
    );
    expect(at("stores/a.yaml", "option_prices")).toContain("(did you mean overrides: option_prices:?)");
    expect(at("stores/a.yaml", "exclude")).toContain("(did you mean overrides: exclude:?)");
    expect(at("stores/a.yaml", "unavailable")).toContain("(did you mean availability: unavailable:?)");
    // A key that lives in two places names both.
    expect(at("stores/a.yaml", "available")).toContain(
      "(did you mean availability: available: or overrides: available:?)",
    );
    expect(at("groups/bogota.yaml", "titles")).toContain("(did you mean defaults: overrides: titles:?)");
    expect(at("carte.yaml", "hours")).toContain("(did you mean defaults: hours:?)");
    expect(at("carte.yaml", "prices")).toContain("(did you mean defaults: overrides: prices:?)");
  });
});

describe("a key written one level too high, inside defaults:", () => {
  it("names overrides: prices: under the defaults: of carte.yaml and of a group", async () => {
    const dir = await writeProject({
      "carte.yaml": PROJECT + "groups: groups/*.yaml\ndefaults:\n  prices:\n    BURGER: 100\n",
      "catalogs/burgers.yaml": CATALOG,
      "groups/bogota.yaml": "name: bogota\ndefaults:\n  exclude: [FRIES]\n",
      "stores/a.yaml": storeYaml(1, "a", "overrides:\n  hours:\n    mon: []\n"),
    });
    const problems = await problemsOf(loadProject(join(dir, "carte.yaml")));
    const at = (file: string, key: string) =>
      problems.find((p) => p.includes(`${file}:`) && p.includes(`unknown key "${key}"`));
    expect(at("carte.yaml", "prices")).toContain("(did you mean overrides: prices:?) in defaults");
    expect(at("groups/bogota.yaml", "exclude")).toContain("(did you mean overrides: exclude:?) in defaults");
    // Below, no place is made up: hours: is no key of overrides: nor of a mapping under it.
    expect(at("stores/a.yaml", "hours")).not.toContain("did you mean");
  });
});

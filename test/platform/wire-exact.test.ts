/**
 * What carte sends is what the spec allows: an apply of the example chain, then every request body
 * the emulator recorded is walked for nulls. The spec allows null only where it says so ("integer or
 * null", "string or null", "nullable"); a price is "price number" (docs/platform-api.md §4.3 `price_info`).
 */

import { describe, expect, it } from "vitest";
import { applyPlan } from "../../src/run/apply-plan.js";
import { planProject } from "../../src/run/plan-project.js";
import { exampleSession } from "../helpers/session.js";

/**
 * The fields the spec lets be null in a request body, by their last two path segments:
 * docs/platform-api.md §4.3 `quantity_info` "min_permitted integer or null; max_permitted integer or null;
 * modifiers_type string or null", and `suspension_info` "suspend_until, suspend_reason (both nullable)".
 */
const NULLABLE = new Set([
  "quantity_info.min_permitted",
  "quantity_info.max_permitted",
  "quantity_info.modifiers_type",
  "suspension_info.suspend_until",
  "suspension_info.suspend_reason",
]);

/** Paths (`a.b[0].c`) of the nulls in a JSON value. */
function nullsOf(value: unknown, at: string, out: string[] = []): string[] {
  if (value === null) out.push(at);
  else if (Array.isArray(value)) value.forEach((v, i) => nullsOf(v, `${at}[${i}]`, out));
  else if (typeof value === "object")
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      nullsOf(v, at ? `${at}.${k}` : k, out);
  return out;
}

describe("request bodies carte sends", () => {
  it("hold no null where the spec says number or integer (modifier groups sent with price 0)", async () => {
    const ex = await exampleSession();
    try {
      const { plan } = await planProject(ex.project, ex.session);
      const report = await applyPlan(plan, ex.session);
      expect(report.failed).toBe(0);

      const upserts = ex.emu.requests.filter((r) => r.method === "POST" && r.path.endsWith("/items"));
      const sent = upserts.flatMap((r) => r.body as { item_type: string; price_info: { price: unknown } }[]);
      const groups = sent.filter((b) => b.item_type === "MODIFIER_GROUP");
      expect(groups.length).toBeGreaterThan(0);
      // docs/platform-api.md §4.3: "price_info | object | price number".
      for (const b of sent) expect(typeof b.price_info.price).toBe("number");
      expect(new Set(groups.map((g) => g.price_info.price))).toEqual(new Set([0]));

      const forbidden = ex.emu.requests
        .filter((r) => r.body !== undefined)
        .flatMap((r) => nullsOf(r.body, "").map((p) => `${r.method} ${r.path} ${p}`))
        .filter((p) => !NULLABLE.has(p.split(/[.[]/).slice(-2).join(".")));
      expect(forbidden).toEqual([]);

      // A group's 0 reads back as no price: the next plan has nothing to do.
      const again = await planProject(ex.project, ex.session);
      expect(again.plan.changes).toEqual([]);
    } finally {
      await ex.close();
    }
  });
});

/** The pure parts of GitOps: sharding, merging shards' plans, reviewed-plan records, the comment's size. */

import { describe, expect, it } from "vitest";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { mergePlans, parseShard, shardDesired, shardOf } from "../../src/gitops/shard.js";
import {
  MAX_LISTED,
  changeDigest,
  encodeReviewed,
  judgeReviewed,
  readReviewed,
  reviewKey,
  type ReviewBinding,
  type ReviewedRecord,
} from "../../src/gitops/reviewed.js";
import { COMMENT_MARKER } from "../../src/action/comment.js";
import { GITHUB_COMMENT_LIMIT, renderMarkdown, renderPlanComment } from "../../src/render/markdown.js";
import { renderText } from "../../src/render/text.js";
import type { ChangeScope } from "../../src/plan/target.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";

const keys = (n: number, prefix = "store") => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

const KEY = reviewKey("a review key of the tests, 32 characters or more");
const BINDING: ReviewBinding = {
  repository: "chain/menus",
  pullRequest: 7,
  head: "0123456789abcdef0123456789abcdef01234567",
  base: "main",
};

/** The record carte's comment holds, read back as the merge reads it. */
function readBack(line: string): ReviewedRecord | undefined {
  return readReviewed(`${COMMENT_MARKER}\n### carte plan\n\n${line}\n`, COMMENT_MARKER, BINDING, KEY).record;
}

describe("sharding", () => {
  it("puts each store on one shard, evenly, and moves no store when others are added", () => {
    const before = new Map(keys(2000).map((k) => [k, shardOf(k, 4)]));
    const counts = [0, 0, 0, 0];
    for (const s of before.values()) counts[s - 1]!++;
    for (const c of counts) expect(c).toBeGreaterThan(400); // 500 each on average
    // Adding 500 stores moves none of the 2000.
    const after = new Map([...keys(2000), ...keys(500, "new")].map((k) => [k, shardOf(k, 4)]));
    for (const [k, s] of before) expect(after.get(k)).toBe(s);
  });

  it("going from N to N+1 shards moves only the stores the new shard wins", () => {
    let moved = 0;
    for (const k of keys(2000)) {
      const was = shardOf(k, 4);
      const now = shardOf(k, 5);
      if (now !== was) {
        expect(now).toBe(5);
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(300); // about 1/5 of 2000
    expect(moved).toBeLessThan(500);
  });

  it("keeps the client-level settings on shard 1 only", () => {
    const d = { ...desired(store("a", "1"), store("b", "2")), client: { webhooks: { X: { url: "u" } } } };
    expect(shardDesired(d, { index: 1, count: 3 }).client).toEqual(d.client);
    expect(shardDesired(d, { index: 2, count: 3 }).client).toBeUndefined();
    expect(shardDesired(d, { index: 3, count: 3 }).client).toBeUndefined();
  });

  it("parses K/N and refuses anything else, naming the flag", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["0/2", "3/2", "2", "a/b", "1/300", "-1/2"]) {
      expect(() => parseShard(bad, "input shard")).toThrow(/input shard must be K\/N/);
    }
  });

  it("merges the shards' plans into the plan one job makes", () => {
    const stores = keys(12).map((k, i) =>
      store(k, String(100 + i), (s) => {
        catalogOf(s).items = { A: item("A", 100 + i), B: item("B", 200) };
        // Staff switched A off in some stores: the plans say so (information, not a change).
        if (i % 4 === 0) catalogOf(s).unavailable = ["A"];
      }),
    );
    const want = keys(12).map((k, i) =>
      store(k, String(100 + i), (s) => {
        catalogOf(s).items = { A: item("A", 100 + i + (i % 3 === 0 ? 1 : 0)), C: item("C", 5) };
      }),
    );
    const d = {
      ...desired(...want),
      client: { webhooks: { STORE_PROVISIONING_STATUS: { url: "https://x" } } },
      currency: "COP",
    };
    const c = {
      ...current(...stores),
      client: { webhooks: {}, ids: { client_webhook: { clientId: "cid" } } },
    };
    const whole = buildPlan(d, c);
    const parts = [1, 2, 3].map((index) => buildPlan(shardDesired(d, { index, count: 3 }), c));
    expect(parts.every((p) => p.stores.length > 0)).toBe(true);
    const merged = mergePlans(parts);
    expect(merged.stores).toEqual(whole.stores);
    // Every store keeps its digest for the check before its first write, the client's too.
    const digests = whole.checksums.stores!;
    expect(Object.keys(digests)).toHaveLength(13);
    expect(merged.checksums.stores).toEqual(digests);
    expect(merged.changes).toEqual(whole.changes);
    expect({ ...merged.summary, operations: 0 }).toEqual({ ...whole.summary, operations: 0 });
    expect(merged.safety).toEqual(whole.safety);
    expect(whole.info?.map((i) => i.store)).toEqual(["store-0", "store-4", "store-8"]);
    expect(merged.info).toEqual(whole.info);
    // Every shard and the merge show prices in the project's currency, as one job does.
    expect([whole, ...parts, merged].map((p) => p.currency)).toEqual(["COP", "COP", "COP", "COP", "COP"]);
    // The same comment, the footer included.
    const footer = (p: Plan) => encodeReviewed(p, BINDING, KEY);
    expect(renderPlanComment(merged, { footer: footer(merged) })).toBe(
      renderPlanComment(whole, { footer: footer(whole) }),
    );
    expect(() => mergePlans([parts[0]!, parts[0]!])).toThrow(/in two shards' plans/);
  });
});

describe("change-scoped shards", () => {
  it("merges the shards' scopes into one: every shard's stores and reads, one first line", () => {
    const scope = (stores: string[], reads: string[]): ChangeScope => ({
      base: "main",
      sha: "f".repeat(40),
      of: 4,
      stores: stores.map((k) => ({ store: k, kinds: ["item"] })),
      client: [],
      removed: [],
      reads,
    });
    const d = desired(store("a", "1"), store("b", "2"), store("c", "3"), store("d", "4"));
    const plan = (keys: string[], reads: string[]) =>
      buildPlan({ stores: Object.fromEntries(keys.map((k) => [k, d.stores[k]!])) }, current(), {
        targeting: { stores: [], kinds: [], targets: [], scope: scope(keys, reads) },
      });
    const merged = mergePlans([plan(["c"], ["menu"]), plan(["a"], ["menu", "hours"])]);
    expect(merged.targeting?.scope?.stores.map((s) => s.store)).toEqual(["a", "c"]);
    expect(merged.targeting?.scope?.reads).toEqual(["menu", "hours"]);
    expect(renderText(merged, { color: false }).split("\n")[0]).toBe(
      "Plan scoped to the changes since main: 2 of 4 stores read (menu, hours).",
    );
  });
});

describe("reviewed plan records", () => {
  const before = desired(
    store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 100), B: item("B", 200) })),
  );
  const base = current(
    store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 90), B: item("B", 200) })),
  );

  it("round-trips through the comment and judges a fresh plan change by change", () => {
    const reviewed = buildPlan(before, base);
    const line = encodeReviewed(reviewed, BINDING, KEY);
    expect(line).toMatch(
      /^<!-- carte-reviewed v2 pr=7 head=0123456789abcdef0123456789abcdef01234567 n=1 all=\S{43} changes=\S{12} mac=\S{43} -->$/,
    );
    const decoded = readBack(line)!;
    expect(decoded.count).toBe(1);
    expect([...decoded.changes!]).toEqual([changeDigest(reviewed.changes[0]!)]);

    // Later: B drifted on the platform, A is what was reviewed.
    const later = current(
      store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 90), B: item("B", 250) })),
    );
    const fresh = buildPlan(before, later);
    const verdict = judgeReviewed(fresh, decoded);
    expect(verdict.reviewed).toEqual(["store[s].item[A]"]);
    expect(verdict.unreviewed.map((c) => c.address)).toEqual(["store[s].item[B]"]);

    // A resource that moved on the platform since the review is not the reviewed change.
    const moved = current(
      store("s", "1", (s) => (catalogOf(s).items = { A: item("A", 95), B: item("B", 200) })),
    );
    expect(judgeReviewed(buildPlan(before, moved), decoded).reviewed).toEqual([]);
  });

  it("keeps one digest for plans too large to list, and applies them only whole", () => {
    const many = desired(
      store("s", "1", (s) => {
        for (let i = 0; i <= MAX_LISTED; i++) catalogOf(s).items[`I${i}`] = item(`I${i}`, i);
      }),
    );
    const plan = buildPlan(many, current());
    const record = readBack(encodeReviewed(plan, BINDING, KEY))!;
    expect(record.changes).toBeUndefined();
    expect(judgeReviewed(plan, record).unreviewed).toEqual([]);
    const other = buildPlan(
      desired(
        store("s", "1", (s) => {
          for (let i = 0; i <= MAX_LISTED; i++) catalogOf(s).items[`I${i}`] = item(`I${i}`, i + 1);
        }),
      ),
      current(),
    );
    expect(judgeReviewed(other, record).reviewed).toEqual([]);
  });

  it("reads nothing from a malformed or absent record", () => {
    expect(readBack("no record")).toBeUndefined();
    expect(
      readBack(`<!-- carte-reviewed v1 head=abcdef0 n=2 all=${"A".repeat(43)} changes=AAAA -->`),
    ).toBeUndefined();
    const plan = buildPlan(before, base);
    expect(judgeReviewed(plan, undefined).unreviewed).toHaveLength(1);
  });
});

describe("the plan comment", () => {
  it("stays under GitHub's limit with a split and the record, and keeps the record whole", () => {
    // Items of each store's own (nothing is the same in two stores), few enough to be listed one by one.
    const stores = Array.from({ length: 120 }, (_, i) =>
      store(`store-${String(i).padStart(3, "0")}`, String(900_000 + i), (s) => {
        for (let j = 0; j < 15; j++)
          catalogOf(s).items[`S${i}-ITEM-${j}`] = item(`S${i}-ITEM-${j}`, 1000 + j, { title: `Item ${j}` });
      }),
    );
    const plan = buildPlan(desired(...stores), { stores: {} });
    const half = plan.changes.length / 2;
    const split = {
      ref: "main",
      sha: "0123456789abcdef",
      changes: plan.changes.slice(0, half).map((c) => c.address),
      drift: plan.changes.slice(half).map((c) => c.address),
      settled: [],
    };
    const footer = encodeReviewed(plan, BINDING, KEY);
    const md = renderPlanComment(plan, { split, footer, fullPlanAt: "the job summary" });
    expect(md.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(md.endsWith(`${footer}\n`)).toBe(true);
    expect(md).toContain("#### This pull request changes: 900 to create");
    expect(md).toContain("#### Already different on the platform: 900 to create");
    expect(md).toMatch(
      /store sections? not shown to keep this comment short; the full plan is in the job summary/,
    );
    expect(md.split("<details>").length).toBe(md.split("</details>").length);
  });

  it("names the section it leaves out: the changes the same in several stores, then the stores", () => {
    // 25 stores where the same 100 prices change (one shared section, too large to fit), and one of
    // each store's own.
    const chainAt = (shared: number, own: number) =>
      Array.from({ length: 25 }, (_, i) =>
        store(`store-${i}`, String(900_000 + i), (s) => {
          for (let j = 0; j < 100; j++) catalogOf(s).items[`SHARED-${j}`] = item(`SHARED-${j}`, shared + j);
          catalogOf(s).items[`OWN-${i}`] = item(`OWN-${i}`, own + i);
        }),
      );
    const plan = buildPlan(desired(...chainAt(1001, 500)), current(...chainAt(1000, 400)));
    // Every store trips max_update_percent: the comment lists 20 refusals and counts the rest.
    expect(plan.safety.violations).toHaveLength(25);
    const md = renderPlanComment(plan, { maxChars: 6_000, fullPlanAt: "the job summary" });
    expect(md.length).toBeLessThanOrEqual(6_000);
    expect(md).toContain("> - and 5 more refusals\n");
    expect(md).not.toContain("<summary>The same in several stores");
    expect(md).toContain(
      '_The "same in several stores" section and 25 store sections not shown to keep this comment short; the full plan is in the job summary._',
    );
    const cli = renderMarkdown(plan, { maxChars: 6_000 });
    expect(cli).toMatch(
      /_The "same in several stores" section and 25 store sections not shown to keep this comment under 6,000 characters/,
    );
  });

  it("escapes what the files and inputs say", () => {
    const s = store("x", "1", (st) => {
      st.store.name = "<img src=x> @everyone **bold**";
      catalogOf(st).items = { A: item("A", 1) };
    });
    const plan = buildPlan(desired(s), { stores: {} });
    const md = renderPlanComment(plan, {
      split: {
        ref: "<script>",
        sha: "",
        changes: ["store[x].item[A]"],
        drift: [],
        settled: [],
        unavailable: "the base's files do not load (<b>bad</b>)",
      },
    });
    expect(md).not.toContain("<img");
    expect(md).not.toContain("<script>");
    expect(md).not.toContain("<b>");
    expect(md).toContain("<code>&lt;script&gt;</code>");
  });
});

/**
 * Output cannot be forged. A corpus of hostile values (terminal control sequences,
 * NUL, CR, bidirectional overrides, C1 controls, Markdown and HTML that would close a `<details>`, a
 * code fence or a table cell, mentions and issue references) put in every untrusted place of a plan
 * (store name, SKU, item title, webhook address, override reason) and of the messages (platform
 * messages, configuration problems), rendered as text, Markdown, progress lines and error output.
 *
 * Every case is checked against the same rendering of a benign value: the hostile one must add no
 * line, no `<details>`, no fence, no table cell and no raw control character, and must not mention or
 * reference anything.
 */

import { describe, expect, it } from "vitest";
import { createProgress } from "../../src/cli/progress.js";
import { reportError, type CliIo } from "../../src/cli/io.js";
import { ApiError, ConfigError } from "../../src/errors.js";
import { enforceSafety } from "../../src/run/plan-project.js";
import { sealPlan } from "../../src/plan/digest.js";
import { buildPlan } from "../../src/plan/plan.js";
import type { Plan } from "../../src/plan/types.js";
import { codeSpan, escapeHtml, escapeMarkdown, escapeTerminal, jsonSafe } from "../../src/render/escape.js";
import { renderJson } from "../../src/render/json.js";
import { renderMarkdown } from "../../src/render/markdown.js";
import { renderSplitText } from "../../src/render/split.js";
import { renderText } from "../../src/render/text.js";
import { current, desired, item, store, catalogOf } from "../helpers/builders.js";
import { webhooksState } from "../../src/kinds/store-webhooks.js";

/** The hostile values of the corpus, by name. */
export const HOSTILE: Record<string, string> = {
  "ANSI clear screen and a forged verdict": "\u001b[2J\u001b[1;1H\u001b[32mNo changes\u001b[0m",
  "NUL byte": "Bogotá\u0000Centro",
  "carriage return overwriting the line": "real name\rforged name",
  "line feed forging a line": "x\nPlan: 0 to create, 0 to update, 0 to delete",
  "right-to-left override": "invoice\u202egnp.exe",
  "bidirectional isolates": "\u2066admin\u2069\u2067x\u2069",
  "C1 control sequence introducer": "\u009b2J\u009b1;1H",
  "DEL and BEL": "a\u007fb\u0007c",
  "OSC 8 hyperlink": "\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007",
  "line separator": "a\u2028b\u2029c",
  "closing details": "</details></summary><details><summary>forged",
  "code fence": "```\n</details>\n```",
  mention: "@admin please approve",
  "team mention": "@org/owners",
  "issue reference": "fixes #123 and owner/repo#9",
  "HTML image": '<img src=x onerror="alert(1)">',
  "table cell break": "a | b | c",
  "link and emphasis": "[click](https://evil.example) **bold** _it_ ~~gone~~",
  math: "$$\\text{forged}$$",
  "everything at once": "\u001b[2J</details>```@admin #1\u202e|\u0000\r\n",
};

const BENIGN = "benign value";

const RAW_UNSAFE =
  // eslint-disable-next-line no-control-regex -- the characters a terminal acts on
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

type Field = "store name" | "SKU" | "item title" | "webhook address" | "override reason";
const FIELDS: Field[] = ["store name", "SKU", "item title", "webhook address", "override reason"];

/** A plan that carries `value` in `field`: a store with a new item, a deleted item and a webhook. */
function planWith(field: Field, value: string): Plan {
  const build = (withNew: boolean) =>
    store("bog-centro", "900101", (s) => {
      s.store.name = field === "store name" ? value : "Bogotá Centro";
      const sku = field === "SKU" ? value : "OLD";
      catalogOf(s).items = withNew
        ? { NEW: item("NEW", 100, { title: field === "item title" ? value : "New" }) }
        : { [sku]: item(sku, 100, { title: "Old" }) };
      if (withNew) {
        webhooksState.set(s, {
          NEW_ORDER: {
            url: field === "webhook address" ? `https://hooks.example/${value}` : "https://hooks.example/x",
            enabled: true,
          },
        });
      }
    });
  const plan = buildPlan(desired(build(true)), current(build(false)));
  if (field === "override reason") {
    plan.safety = { ...plan.safety, override: { reason: value } };
  }
  return plan;
}

const count = (text: string, what: string | RegExp) =>
  typeof what === "string" ? text.split(what).length - 1 : (text.match(what) ?? []).length;

function expectInertText(hostile: string, benign: string) {
  expect(hostile).not.toMatch(RAW_UNSAFE);
  expect(count(hostile, "\n")).toBe(count(benign, "\n"));
}

/** Coloured text: carte's own colour sequences only, as many as in the benign rendering. */
function expectInertColoured(hostile: string, benign: string) {
  // eslint-disable-next-line no-control-regex -- carte's own SGR sequences
  const sgr = /\u001b\[\d+(;\d+)*m/g;
  // The same colour sequences (their order follows the order of the SKUs).
  expect(hostile.match(sgr)?.sort()).toEqual(benign.match(sgr)?.sort());
  expectInertText(hostile.replace(sgr, ""), benign.replace(sgr, ""));
}

/** The Markdown outside its ```diff blocks, where GitHub shows text as it is. */
const outsideCode = (markdown: string): string => markdown.replace(/^```diff\n[\s\S]*?^```$/gm, "");

/** Text as GitHub shows it: character references decoded (`&#64;` is an @ for the mention filter). */
const decoded = (markdown: string): string =>
  markdown.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

function expectInertMarkdown(hostile: string, benign: string) {
  expectInertText(hostile, benign);
  // The code blocks open and close where carte put them.
  const fences = (t: string) => t.split("\n").filter((l) => /^\s{0,3}(`{3,}|~{3,})/.test(l));
  expect(fences(hostile)).toEqual(fences(benign));
  const raw = outsideCode(hostile);
  for (const marker of ["<details>", "</details>", "<summary>", "</summary>"]) {
    expect(count(raw, marker), marker).toBe(count(outsideCode(benign), marker));
  }
  // No other element, link or math in the Markdown source; no mention or issue reference in the text
  // GitHub shows (a zero-width space follows every @ and #).
  expect(raw).not.toMatch(/<(?!\/?(details|summary|code)>)[a-z/!]/i);
  expect(raw).not.toMatch(/\]\(/);
  expect(raw).not.toMatch(/\$/);
  expect(decoded(raw)).not.toMatch(/@[A-Za-z]/);
  expect(decoded(raw)).not.toMatch(/#\d/);
  // Table rows keep their cells: as many unescaped pipes per line as the benign rendering.
  const pipes = (t: string) => t.split("\n").map((l) => count(l.replace(/\\\|/g, ""), "|"));
  expect(pipes(raw)).toEqual(pipes(outsideCode(benign)));
}

function captureIo(): { io: CliIo; err: () => string } {
  let err = "";
  return {
    io: {
      out: () => undefined,
      err: (s) => void (err += s),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      env: {},
    },
    err: () => err,
  };
}

describe("output corpus: plans", () => {
  for (const field of FIELDS) {
    for (const [name, value] of Object.entries(HOSTILE)) {
      it(`${field} = ${name}: text, Markdown and JSON stay inert`, () => {
        const hostile = planWith(field, value);
        const benign = planWith(field, BENIGN);
        expectInertText(renderText(hostile, { color: false }), renderText(benign, { color: false }));
        expectInertColoured(renderText(hostile, { color: true }), renderText(benign, { color: true }));
        expectInertMarkdown(renderMarkdown(hostile), renderMarkdown(benign));
        // `plan --base`: the split names the addresses, the ref and why the base was not planned.
        const split = (plan: Plan, text: string) =>
          renderSplitText(
            plan,
            {
              ref: text,
              sha: "abc1234",
              changes: plan.changes.map((c) => c.address),
              drift: [],
              settled: plan.changes.map((c) => c.address),
              unavailable: text,
            },
            { color: false },
          );
        expectInertText(split(hostile, value), split(benign, BENIGN));
        // JSON keeps the exact value, with every dangerous character as a \u escape; the JSON view is
        // the plan sealed with its digest, computed over those exact values.
        const json = renderJson(hostile);
        expect(json).not.toMatch(RAW_UNSAFE);
        expect(JSON.stringify(JSON.parse(json))).toBe(JSON.stringify(sealPlan(hostile)));
      });
    }
  }
});

describe("output corpus: messages", () => {
  for (const [name, value] of Object.entries(HOSTILE)) {
    it(`platform message = ${name}: error output and progress lines stay inert`, () => {
      const render = (message: string) => {
        const c = captureIo();
        reportError(
          new ApiError({ method: "POST", path: "/items", status: 400, platformMessage: message }),
          c.io,
          false,
        );
        const progress = createProgress(c.io, "lines");
        progress.apply({
          type: "operation",
          done: 1,
          total: 1,
          result: { id: "x", method: "POST", path: "/items", status: "failed", message, durationMs: 1 },
        });
        progress.retry({
          method: "GET",
          path: "/items",
          attempt: 1,
          delayMs: 10,
          reason: message,
          status: 503,
        });
        return c.err();
      };
      expectInertText(render(value), render(BENIGN));
    });

    it(`configuration problem quoting ${name}: error output stays inert`, () => {
      const render = (v: string) => {
        const c = captureIo();
        const code = reportError(
          new ConfigError([
            {
              file: `stores/${v}.yaml`,
              line: 3,
              col: 9,
              pointer: "/store/name",
              message: `store name "${v}" is used twice`,
            },
            { file: "catalogs/a.yaml", line: 1, col: 1, pointer: "", message: `unknown SKU ${v}` },
          ]),
          c.io,
          false,
        );
        expect(code).toBe(1);
        return c.err();
      };
      expectInertText(render(value), render(BENIGN));
    });

    it(`safety refusal quoting ${name}: error output stays inert`, () => {
      const render = (v: string) => {
        const plan = planWith("store name", BENIGN);
        plan.safety = {
          ok: false,
          violations: [{ guard: "max_delete_percent", message: `store[${v}]: the plan deletes 9 of 10` }],
        } as Plan["safety"];
        const c = captureIo();
        let refusal: unknown;
        try {
          enforceSafety(plan, undefined);
        } catch (err) {
          refusal = err;
        }
        expect(reportError(refusal, c.io, false)).toBe(3);
        return c.err();
      };
      expectInertText(render(value), render(BENIGN));
    });
  }
});

describe("escape helpers", () => {
  it("shows control and bidirectional characters as visible escapes", () => {
    expect(escapeTerminal("\u001b[2J\u0000\r\n\t\u007f\u009b\u202e\u2066\u2028")).toBe(
      "\\x1b[2J\\x00\\r\\n\\t\\x7f\\x9b\\u202e\\u2066\\u2028",
    );
    expect(escapeTerminal("Bogotá Centro — ñandú 🍔")).toBe("Bogotá Centro — ñandú 🍔");
    // Escaping twice changes nothing more: no backslash is doubled.
    const once = escapeTerminal(HOSTILE["everything at once"]!);
    expect(escapeTerminal(once)).toBe(once);
    expect(escapeTerminal("a\nb\rc", { keepNewlines: true })).toBe("a\nb\\rc");
  });

  it("escapes Markdown and HTML, and breaks mentions and references", () => {
    expect(escapeMarkdown("<b>Tom & Jerry's</b>")).toBe("&lt;b&gt;Tom &amp; Jerry's&lt;/b&gt;");
    expect(escapeMarkdown("@admin #12")).toBe("@&#8203;admin #&#8203;12");
    expect(escapeMarkdown("a|b`c*d_e[f]g~h\\i$j")).toBe(
      "a&#124;b&#96;c&#42;d&#95;e&#91;f&#93;g&#126;h&#92;i&#36;j",
    );
    expect(escapeMarkdown("line\nbreak")).toBe("line&#92;nbreak");
    expect(escapeMarkdown("Bogotá Centro (norte)")).toBe("Bogotá Centro (norte)");
  });

  it("shows plain values as code spans and anything else as an escaped <code> element", () => {
    expect(codeSpan("bog-centro")).toBe("`bog-centro`");
    expect(codeSpan("a`b|c@d")).toBe("<code>a&#96;b&#124;c@&#8203;d</code>");
    expect(escapeHtml("</code></pre>&")).toBe("&lt;/code&gt;&lt;/pre&gt;&amp;");
  });

  it("writes JSON with the same value and no raw control or bidirectional character", () => {
    const value = { s: "\u007f\u0085\u202e\u2028 ok", n: 1 };
    const safe = jsonSafe(JSON.stringify(value));
    expect(safe).toBe('{"s":"\\u007f\\u0085\\u202e\\u2028 ok","n":1}');
    expect(JSON.parse(safe)).toEqual(value);
  });
});

/**
 * End to end: hostile names and titles in the files, and hostile messages from the
 * platform, through the real commands. A store named "\e[2J\e[1;1H\e[32mNo changes\e[0m" with a NUL
 * and a bidirectional override, and a title holding `</details>`, a code fence, `@admin` and `#1`, are
 * shown escaped by `plan` (text and Markdown), `apply` (plan, progress lines and report) and in error
 * messages (a configuration problem quoting them, a platform error message).
 */

import { createServer, type Server } from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { carte, copyExample, edit, seedFor } from "../helpers/project.js";

const FORGED_NAME = "\\e[2J\\e[1;1H\\e[32mNo changes\\e[0m\\0\\u202eevil";
const FORGED_TITLE = "</details> ``` @admin #1 \\u202e\\0 | <img src=x>";
const PLATFORM_MESSAGE = "\u001b[2J\u001b[1;1HNo changes\r\n@admin </details>\u202e\u0000";

// eslint-disable-next-line no-control-regex -- what a terminal acts on, a line feed excepted
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A copy of the example chain (embedded emulator) whose first store and a title are hostile. */
function hostileProject(): { dir: string; config: string } {
  const dir = copyExample();
  const store = path.join(dir, "stores", "bog-centro.yaml");
  edit(store, "name: Bogotá Centro", `name: "${FORGED_NAME}"`);
  edit(store, "BURGER-CLASSIC: Clásica Centro", `BURGER-CLASSIC: "${FORGED_TITLE}"`);
  return { dir, config: path.join(dir, "carte.yaml") };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
      cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    }),
  );
}

describe("hostile values through the commands", () => {
  it("plan text, plan Markdown and apply show them escaped", async () => {
    const { config, dir } = hostileProject();
    // From empty stores, the items are counted, not listed: the apply shows the hostile store name.
    const applied = await carte(["apply", "-c", config, "--auto-approve"]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out + applied.err).not.toMatch(RAW_UNSAFE);
    expect(applied.out).toContain("Apply complete");
    expect(applied.out).toContain(
      "store[bog-centro]  \\x1b[2J\\x1b[1;1H\\x1b[32mNo changes\\x1b[0m\\x00\\u202eevil (900101)",
    );

    // A change of the hostile title is shown in full: beside the SKU and as the title's change.
    edit(
      path.join(dir, "stores", "bog-centro.yaml"),
      `BURGER-CLASSIC: "${FORGED_TITLE}"`,
      `BURGER-CLASSIC: "${FORGED_TITLE}2"`,
    );
    const text = await carte(["plan", "-c", config]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).not.toMatch(RAW_UNSAFE);
    expect(text.out).toContain(
      "store[bog-centro]  \\x1b[2J\\x1b[1;1H\\x1b[32mNo changes\\x1b[0m\\x00\\u202eevil (900101)",
    );
    expect(text.out).toMatch(
      /^ {6}title: "<\/details> ``` @admin #1 \\u202e\\u0000 \| <img src=x>" → "<\/details> ``` @admin #1 \\u202e\\u0000 \| <img src=x>2"$/m,
    );
    expect(text.out).toMatch(
      /^ {2}~ item BURGER-CLASSIC \(<\/details> ``` @admin #1 \\u202e\\x00 \| <img src=x>2\)$/m,
    );
    expect(text.out).not.toContain("\nNo changes");

    const md = await carte(["plan", "-c", config, "--format", "markdown"]);
    expect(md.code, md.err).toBe(0);
    expect(md.out).not.toMatch(RAW_UNSAFE);
    // One section (the store), a details element around one diff block.
    const outside = md.out.replace(/^```diff\n[\s\S]*?^```$/gm, "");
    expect(outside.split("<details>")).toHaveLength(2);
    expect(outside.split("</details>")).toHaveLength(2);
    expect(md.out.split("\n").filter((l) => l.startsWith("```"))).toHaveLength(2);
    expect(md.out).toContain(
      "<code>bog-centro</code> &#92;x1b&#91;2J&#92;x1b&#91;1;1H&#92;x1b&#91;32mNo changes&#92;x1b&#91;0m&#92;x00&#92;u202eevil: ",
    );
    // The title is inside the diff block, where GitHub mentions no one; the block is not closed by it.
    expect(md.out).toContain(
      '    title: "</details> `\u200b`\u200b` @admin #1 \\u202e\\u0000 | <img src=x>" → ',
    );
  });

  it("explain shows them escaped, one line per value", async () => {
    const { config } = hostileProject();
    const r = await carte(["explain", "store[bog-centro].item[BURGER-CLASSIC]", "-c", config]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(RAW_UNSAFE);
    expect(r.out).toMatch(/^ {2}title: +"<\/details> ``` @admin #1 \\u202e\\u0000 \| <img src=x>"$/m);
    expect(r.out).toMatch(/^ {6}from \S*stores\/bog-centro\.yaml:\d+:\d+$/m);
  });

  it("a configuration problem quoting a hostile value is escaped", async () => {
    const { config, dir } = hostileProject();
    edit(path.join(dir, "stores", "bog-centro.yaml"), "catalog: burgers", `catalog: "${FORGED_NAME}"`);
    for (const command of [["validate"], ["plan"], ["apply", "--auto-approve"]]) {
      const r = await carte([...command, "-c", config]);
      expect(r.code).toBe(1);
      expect(r.err).not.toMatch(RAW_UNSAFE);
      expect(r.err).toContain(
        // The config layer quotes values JSON-escaped (src/source/quote.ts); the terminal escaping
        // then finds nothing left to escape.
        'unknown catalog "\\u001b[2J\\u001b[1;1H\\u001b[32mNo changes\\u001b[0m\\u0000\\u202eevil"',
      );
    }
  });

  it("a platform message is escaped in the error, the progress lines and the apply report", async () => {
    const dir = copyExample();
    const storeFiles = ["stores/bog-centro.yaml", "stores/bog-chapinero.yaml", "stores/med-poblado.yaml"];
    const emu: RunningEmulator = await startEmulator({ seed: seedFor(dir, storeFiles), applyDelayMs: 10 });
    cleanup.push(() => emu.close());
    // A platform that answers like the emulator, except that it refuses item upserts with a hostile
    // message, and refuses everything once `broken` is set.
    let broken = false;
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const refuse = broken || (req.method === "POST" && /\/stores\/900101\/items$/.test(req.url ?? ""));
        if (refuse) {
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ message: PLATFORM_MESSAGE }));
          return;
        }
        void fetch(`${emu.url}${req.url}`, {
          method: req.method ?? "GET",
          headers: {
            "content-type": "application/json",
            ...(req.headers["x-authorization"]
              ? { "x-authorization": String(req.headers["x-authorization"]) }
              : {}),
          },
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        }).then(async (r) => {
          res.writeHead(r.status, { "content-type": "application/json" });
          res.end(Buffer.from(await r.arrayBuffer()));
        });
      });
    });
    const url = await listen(proxy);
    const config = path.join(dir, "carte.yaml");
    edit(config, /^version: 1$/m, `version: 1\nplatform:\n  base_url: ${url}`);

    const applied = await carte(["apply", "-c", config, "--auto-approve"]);
    expect(applied.code).toBe(1);
    expect(applied.out + applied.err).not.toMatch(RAW_UNSAFE);
    // Progress line and report: one line each, the message escaped.
    const escaped = "\\x1b[2J\\x1b[1;1HNo changes\\r\\n@admin </details>\\u202e\\x00";
    expect(applied.err).toMatch(
      new RegExp(
        `^\\[\\d+/\\d+\\] POST /restaurants/menu/v1/stores/900101/items failed: .*${escape(escaped)}`,
        "m",
      ),
    );
    expect(applied.out).toMatch(
      new RegExp(`^  failed: POST /restaurants/menu/v1/stores/900101/items: .*${escape(escaped)}`, "m"),
    );

    broken = true;
    const plan = await carte(["plan", "-c", config]);
    expect(plan.code).toBe(1);
    expect(plan.err).not.toMatch(RAW_UNSAFE);
    expect(plan.err).toContain(escaped);
    // The message stays on its error line: nothing it holds starts a line of its own.
    expect(plan.err).toMatch(new RegExp(`^Error: .*${escape(escaped)}$`, "m"));
    expect(plan.err).not.toMatch(/^(No changes|@admin)/m);
  });

  it("import prints its messages escaped", async () => {
    const { config, dir } = hostileProject();
    expect((await carte(["apply", "-c", config, "--auto-approve"])).code).toBe(0);
    const out = path.join(dir, "imported");
    const r = await carte(["import", "-c", config, "--store", "bog-centro", "--out", out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out + r.err).not.toMatch(RAW_UNSAFE);
    expect(r.out).toContain("Imported 1 store");
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

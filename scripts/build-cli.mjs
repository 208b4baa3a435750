// Bundles the CLI (dist/cli/main.js and everything it imports, dependencies included) into one file,
// dist/cli/carte.mjs, which bin/carte.js runs: Node.js then reads, resolves and links one module instead
// of several hundred, about a third of a second less CPU at every start of `carte`. The library
// (dist/index.js) stays as tsc wrote it. Run by `npm run build`, after tsc. The bundle lies at the depth
// of every other module of dist/ (dist/cli/), so that the paths the modules find from their own place
// (`../../schemas/…`, `../../package.json`, `../config/validators.cjs`) lead to the same files.
import { readFile } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const resolveFromRoot = createRequire(path.join(root, "package.json")).resolve;

/**
 * `undici` in the bundle is scripts/undici-cli.mjs, the part of it carte uses (what that file says); the
 * paths into undici that file names are resolved in its package as usual.
 */
const undiciPart = {
  name: "undici-part",
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: path.join(root, "scripts", "undici-cli.mjs") }));
    build.onResolve({ filter: /^undici\/lib\// }, (args) => ({ path: resolveFromRoot(args.path) }));
  },
};
/**
 * Node.js's own modules through `require` (the banner's), never through an ES module import: Node.js
 * builds an ES module's view of a built-in module by reading every one of its exports, and some are
 * getters that load more on first read (`http.WebSocket` loads Node.js's internal undici, `fs.ReadStream`
 * the file streams, `crypto.webcrypto` the Web Crypto API): about a tenth of a second of CPU at every
 * start of `carte` for what no command reads. Through `require`, each export is read where the code
 * reads it. Each `node:x` (or bare `x`) becomes a CommonJS module of the bundle that hands over the
 * built-in module itself.
 */
const builtinsByRequire = {
  name: "builtins-by-require",
  setup(build) {
    const builtins = new Set(builtinModules);
    build.onResolve({ filter: /^(node:)?[a-z_/0-9]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, "");
      if (!builtins.has(name) && !args.path.startsWith("node:")) return undefined;
      // The module an import sees re-exports, once for the whole bundle, what `require` gave.
      if (args.namespace === "builtin-import") return { path: `node:${name}`, namespace: "builtin-require" };
      if (args.kind === "import-statement") return { path: `node:${name}`, namespace: "builtin-import" };
      return undefined; // a require() of a built-in already is one
    });
    build.onLoad({ filter: /.*/, namespace: "builtin-import" }, (args) => ({
      contents: `export * from ${JSON.stringify(args.path)};\nexport { default } from ${JSON.stringify(args.path)};`,
      loader: "js",
    }));
    build.onLoad({ filter: /.*/, namespace: "builtin-require" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
  },
};
/**
 * A plugin that replaces one line of a dependency's file (`filter`) in the bundle; the build fails when
 * the file no longer says `line`, so that a new version of the dependency is looked at again.
 */
function lineReplaced(name, filter, line, replacement) {
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes(line)) throw new Error(`${args.path} no longer says: ${line}`);
        return {
          contents: source.replace(line, replacement),
          loader: "js",
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}
/**
 * yargs looks for the package.json of the program it runs in at every start (its default `--version`),
 * from the folder above its own `node_modules`; in the bundle, which lies in no `node_modules`, that
 * search would start in the user's working folder and list every folder up to the root (a tenth of a
 * second in a crowded temporary folder, and a stranger's package.json read). In the bundle it starts
 * at carte's own folder, two above dist/cli/carte.mjs, as it does when carte runs from its modules.
 */
const yargsMain = lineReplaced(
  "yargs-main",
  /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/,
  "const mainFilename = __dirname.substring(0, __dirname.lastIndexOf('node_modules'));",
  'const mainFilename = fileURLToPath(new URL("../../", import.meta.url));',
);
/**
 * undici's client loads its HTTP/2 half (and Node.js's http2 module) at every start, though it is used
 * only on a connection that agreed on HTTP/2 (ALPN `h2`, which carte never offers): in the bundle that
 * half is loaded on its first use instead, about a hundredth of a second less CPU at every start.
 */
const lazyH2 = lineReplaced(
  "undici-lazy-h2",
  /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
  "const connectH2 = require('./client-h2.js')",
  "const connectH2 = (client, socket) => require('./client-h2.js')(client, socket)",
);
/**
 * fdir (the folder walker of tinyglobby) looks for picomatch in node_modules at every start, for its
 * own `glob()`, which tinyglobby never calls (it matches with the picomatch it imports itself): in the
 * bundle, fdir gets that same bundled picomatch instead of resolving, reading and evaluating a second
 * copy from the disk.
 */
const fdirPicomatch = lineReplaced(
  "fdir-picomatch",
  /[\\/]fdir[\\/]dist[\\/]index\.mjs$/,
  '__require.resolve("picomatch");\n\tpm = __require("picomatch");',
  'pm = require("picomatch");',
);
/**
 * ajv is evaluated on first use in the bundle, not at every start of `carte` (src/json-schema/ajv.ts says
 * why; about a hundredth of a second of CPU): dist/json-schema/ajv.js, as tsc wrote it, imports ajv with
 * itself; in the bundle it is this module, whose `require` calls esbuild bundles as modules evaluated
 * when the call runs. The build fails when ajv.js no longer exports `ajvParts` alone, so that this
 * copy is looked at again.
 */
const LAZY_AJV = `
let parts;
const unwrapped = (m) => m.default ?? m;
export function ajvParts() {
  if (parts === undefined) {
    const ajv = require("ajv");
    parts = {
      Ajv: ajv.Ajv,
      _: ajv._,
      standaloneCode: unwrapped(require("ajv/dist/standalone/index.js")),
      addFormats: unwrapped(require("ajv-formats")),
    };
  }
  return parts;
}
`;
/** The names of the parts an `ajvParts` source gives (its `return {…}` or `parts = {…}`), sorted. */
const partNames = (source) =>
  [...(/(?:return|parts =) \{([^{}]*)\}/.exec(source)?.[1] ?? "").matchAll(/^\s*(\w+)\s*[,:]/gm)]
    .map((m) => m[1])
    .sort()
    .join(", ");
const lazyAjv = {
  name: "lazy-ajv",
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]json-schema[\\/]ajv\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const exported = [...source.matchAll(/^export (?:function|const|let|class) (\w+)/gm)].map((m) => m[1]);
      if (exported.join() !== "ajvParts")
        throw new Error(`${args.path} exports ${exported.join(", ")}, not ajvParts alone`);
      // The parts it gives, as this copy gives them: a part added there and not here fails the build.
      const given = partNames(source);
      if (given !== partNames(LAZY_AJV))
        throw new Error(`${args.path} gives the parts ${given}, not those of the bundle's copy`);
      return { contents: LAZY_AJV, loader: "js", resolveDir: path.dirname(args.path) };
    });
  },
};
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["dist/cli/main.js"],
  outfile: "dist/cli/carte.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  // Node.js 22, the oldest carte supports.
  target: "node22",
  // ASCII only (other characters escaped in strings and patterns, comments and whitespace dropped, the
  // licence notices in dist/cli/carte.mjs.LEGAL.txt beside it): Node.js then decodes the source at its
  // fastest and V8 keeps it as one byte a character, where one character beyond ASCII anywhere doubles
  // the whole source; about 0.1 s less CPU at every start. Names stay as written (error messages and
  // profiles keep them).
  charset: "ascii",
  minifyWhitespace: true,
  legalComments: "linked",
  logLevel: "warning",
  plugins: [undiciPart, builtinsByRequire, yargsMain, lazyH2, lazyAjv, fdirPicomatch],
  // Dependencies written as CommonJS call require() for Node's modules: give the ES module one.
  banner: {
    js: [
      "// Generated by scripts/build-cli.mjs from dist/cli/main.js (npm run build); do not edit.",
      'import { createRequire as __carteCreateRequire } from "node:module";',
      "const require = __carteCreateRequire(import.meta.url);",
    ].join("\n"),
  },
});
if (result.errors.length > 0) process.exit(1);
console.log("wrote dist/cli/carte.mjs");

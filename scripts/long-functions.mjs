// `npm run long-functions`: lists the functions of src/ (generated code apart) longer than a bound, the
// longest first, as `lines  file:line  name`. Each function is counted on its own lines, from its first
// line to its last, nested functions included (a function holding a long callback is long to read).
// Exits 1 when one is over the bound, so that it can guard the rule "no function over 120 lines".
//   node scripts/long-functions.mjs [--max N] [--list N]
//     --max N   the bound (default 120): a longer function fails the run
//     --list N  also list functions longer than N lines (default: the bound), without failing on them
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`${name} takes a positive whole number of lines`);
    process.exit(2);
  }
  return n;
};
const max = option("--max", 120);
const list = option("--list", max);

/** Every .ts file under src/, src/generated apart. */
function sources(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(root, full).split(path.sep).join("/");
    if (entry.isDirectory()) {
      if (rel !== "src/generated") out.push(...sources(full));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** The name a reader knows a function by: its own, its variable's, its property's, or `(anonymous)`. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return "(anonymous)";
}

const found = [];
for (const file of sources(path.join(root, "src"))) {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > list)
        found.push({ lines, where: `${path.relative(root, file)}:${first + 1}`, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

found.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where));
for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.where}  ${f.name}`);
const over = found.filter((f) => f.lines > max);
console.log(
  over.length === 0
    ? `no function in src/ is over ${max} lines`
    : `${over.length} function(s) in src/ over ${max} lines`,
);
process.exit(over.length === 0 ? 0 : 1);

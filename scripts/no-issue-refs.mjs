// `npm run check:refs`: fails when a file of the repository cites a tracker issue by number, in a
// comment, a test name, a doc or a workflow ("issue N", "issues N and M", "(#N)"). A reader of the
// repository has no tracker: a comment says what the code does and why in its own words. Commit
// messages may cite issues; files may not. The whole text of each file is searched (comments, strings
// and prose alike), so that a test name is held to the same rule as a comment.
//   node scripts/no-issue-refs.mjs
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Folders never searched: installed, built or generated files, and run state. */
const skipped = new Set([
  ".git",
  "node_modules",
  "dist",
  "dist-action",
  "coverage",
  ".carte",
  "src/generated",
]);
/** Files never searched: generated. */
const skippedFiles = new Set(["package-lock.json"]);
const searched = /\.(ts|mts|js|mjs|cjs|json|md|ya?ml|sh|txt)$|^[^.]+$/;

/** A citation of a tracker issue: "issue N", "Issues N and M", "issue #N", "(#N)", N a number. */
const citations = [/\bissues?\s*#?\d+/i, /\(#\d+\)/];

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(root, full).split(path.sep).join("/");
    if (entry.isDirectory()) {
      if (!skipped.has(entry.name) && !skipped.has(rel)) yield* files(full);
    } else if (entry.isFile() && !skippedFiles.has(rel) && searched.test(entry.name)) yield [full, rel];
  }
}

const found = [];
for (const [full, rel] of files(root)) {
  const text = fs.readFileSync(full, "utf8");
  if (text.includes("\0")) continue;
  text.split("\n").forEach((line, i) => {
    if (citations.some((re) => re.test(line))) found.push(`${rel}:${i + 1}: ${line.trim().slice(0, 160)}`);
  });
}

for (const f of found) console.error(f);
if (found.length > 0) {
  console.error(
    `\n${found.length} line(s) cite a tracker issue by number. Say what the code does and why instead: ` +
      "a reader of the repository has no tracker.",
  );
  process.exit(1);
}
console.log("no file cites a tracker issue by number");

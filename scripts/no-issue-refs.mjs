// `npm run check:refs`: fails when a file of the repository cites what a reader of the repository does
// not have.
// - A tracker issue by number, in a comment, a test name, a doc or a workflow ("issue N", "issues N and
//   M", "(#N)"). A reader of the repository has no tracker: a comment says what the code does and why in
//   its own words. Commit messages may cite issues; files may not.
// - The platform's own interface description and the notes taken from its public documentation (a
//   section of the one, the other by its name, either file by name), in the code, the scripts,
//   the tests and the platform's schemas (whose descriptions become the comments of src/generated/ and
//   the published docs/openapi.yaml), and the design document the project started from. docs/ says what
//   carte relies on in the project's own words; the code cites its pages and sections
//   ("docs/platform-api.md §4.3").
// The whole text of each file is searched (comments, strings and prose alike), so that a test name is
// held to the same rule as a comment.
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

/**
 * A citation of the platform's interface description or of the notes on it: a section of the one, the
 * other by its name (also across a comment's line break), or the description's file by name; or of the
 * design document the project started from, which the repository does not hold either.
 */
const platformCitations = [
  /\bspec(?:'s)?,?\s+\u00a7/i,
  /\bplatform[-\s]+(?:\*\s*|\/\/\s*)?notes\b/i,
  /\bplatform-spec\.md\b/,
  /\bDESIGN(?:\.md)?,?\s+"/,
];
/** Where the platform's documents may not be cited: the code and what becomes or checks it. */
const platformCited = /^(src|scripts|test|schemas\/platform)\//;

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
const uncited = [];
for (const [full, rel] of files(root)) {
  const text = fs.readFileSync(full, "utf8");
  if (text.includes("\0")) continue;
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (citations.some((re) => re.test(line))) found.push(`${rel}:${i + 1}: ${line.trim().slice(0, 160)}`);
    // A line and the next one together, so that a citation broken across a comment's lines is found.
    const pair = `${line}\n${lines[i + 1] ?? ""}`;
    const next = lines[i + 1] ?? "";
    const cites = (re) => re.test(line) || (re.test(pair) && !re.test(next));
    if (platformCited.test(rel) && platformCitations.some(cites)) {
      uncited.push(`${rel}:${i + 1}: ${line.trim().slice(0, 160)}`);
    }
  });
}

for (const f of found) console.error(f);
if (found.length > 0) {
  console.error(
    `\n${found.length} line(s) cite a tracker issue by number. Say what the code does and why instead: ` +
      "a reader of the repository has no tracker.",
  );
}
for (const f of uncited) console.error(f);
if (uncited.length > 0) {
  console.error(
    `\n${uncited.length} line(s) cite the platform's interface description or the notes on it, which a ` +
      "reader of the repository does not have. Cite the section of docs/platform-api.md that says it " +
      "(section 2 for an endpoint, section 4 for a resource, a state, an error or a limit), and write it " +
      "there first if it is missing.",
  );
}
if (found.length > 0 || uncited.length > 0) process.exit(1);
console.log(
  "no file cites a tracker issue by number, nor the platform's documents that a reader does not have",
);

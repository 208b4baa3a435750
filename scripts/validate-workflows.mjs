// `npm run check:workflows`: validates action.yml and every documented workflow with GitHub's own
// parser for workflow and action files (@actions/workflow-parser, from actions/languageservices, the
// parser behind GitHub's VS Code extension; it knows the node24 runtime). The workflows are the files
// of docs/workflows/ and the YAML blocks of docs/github-action.md and README.md that start with a
// `# .github/workflows/` line. Also checks that docs/github-action.md shows every file of
// docs/workflows/ whole, and that every `with:` of a step that uses carte names an input action.yml
// declares, that credentials (env CARTE_…CLIENT_ID/SECRET) come from secrets, and that a rehearsal
// (input rehearsal: true) has a concurrency group apart from production's applies. Exit code 1 with one
// line per problem.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { parse } from "yaml";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dir = mkdtempSync(path.join(tmpdir(), "carte-validate-"));
const bundle = path.join(dir, "validate.mjs");
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["scripts/lib/validate-workflows-entry.mjs"],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: bundle,
  logLevel: "warning",
  banner: {
    js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
  },
});
const { validateAction, validateWorkflow } = await import(pathToFileURL(bundle).href);
rmSync(dir, { recursive: true, force: true });

const problems = [];
const actionText = readFileSync(path.join(root, "action.yml"), "utf8");
for (const p of validateAction("action.yml", actionText)) problems.push(p);
const action = parse(actionText);
const inputs = new Set(Object.keys(action.inputs ?? {}));
if (action.runs?.using !== "node24")
  problems.push(`action.yml: runs.using must be node24, got ${action.runs?.using}`);

/** The workflows to check: [name, text]. */
const workflows = [];
const folder = path.join(root, "docs", "workflows");
for (const f of readdirSync(folder)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()) {
  workflows.push([`docs/workflows/${f}`, readFileSync(path.join(folder, f), "utf8")]);
}
// docs/github-action.md shows each file of docs/workflows/ whole: the two never disagree.
const guide = readFileSync(path.join(root, "docs", "github-action.md"), "utf8");
for (const [name, text] of workflows) {
  if (!guide.includes("```yaml\n" + text + "```")) {
    problems.push(`docs/github-action.md does not show ${name} as it is (a yaml block with the whole file)`);
  }
}
for (const doc of ["docs/github-action.md", "README.md"]) {
  const text = readFileSync(path.join(root, doc), "utf8");
  let n = 0;
  for (const m of text.matchAll(/```ya?ml\n(# \.github\/workflows\/[^\n]*\n[\s\S]*?)```/g)) {
    n++;
    workflows.push([`${doc} (workflow block ${n})`, m[1]]);
  }
  if (n === 0) problems.push(`${doc}: no workflow block (a yaml block starting with "# .github/workflows/")`);
}

for (const [name, text] of workflows) {
  for (const p of await validateWorkflow(name, text)) problems.push(p);
  const doc = parse(text);
  for (const [job, spec] of Object.entries(doc?.jobs ?? {})) {
    for (const step of spec.steps ?? []) {
      if (typeof step.uses !== "string" || !/\/carte@/.test(step.uses)) continue;
      for (const key of Object.keys(step.with ?? {})) {
        if (!inputs.has(key))
          problems.push(`${name}: job ${job} passes "${key}", which action.yml does not declare`);
      }
      // Credentials come from the repository's secrets, never written in the workflow.
      for (const [key, value] of Object.entries(step.env ?? {})) {
        if (/CLIENT_(ID|SECRET)$/.test(key) && !/\$\{\{[^}]*\bsecrets\./.test(String(value)))
          problems.push(`${name}: job ${job} sets ${key} from no secret (secrets.NAME)`);
      }
      // A rehearsal on the development hosts queues apart from production's applies.
      if (step.with?.rehearsal === true || step.with?.rehearsal === "true") {
        const group = String(spec.concurrency?.group ?? doc.concurrency?.group ?? "");
        if (!group || /carte-apply/.test(group))
          problems.push(`${name}: job ${job} rehearses without a concurrency group of its own`);
      }
    }
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`\n✗ ${problems.length} problem(s) in action.yml or the documented workflows.`);
  process.exit(1);
}
console.log(`action.yml and ${workflows.length} documented workflows are valid.`);

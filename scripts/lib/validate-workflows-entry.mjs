// Bundled and run by scripts/validate-workflows.mjs (the parser imports JSON schemas without import
// attributes, which only a bundler resolves). Exports one function: validate(files) → problems.
import { parseAction } from "@actions/workflow-parser/actions/action-parser";
import { NoOperationTraceWriter, convertWorkflowTemplate, parseWorkflow } from "@actions/workflow-parser";

const trace = new NoOperationTraceWriter();

/** Problems of an action.yml, as GitHub's own parser (actions/languageservices) reports them. */
export function validateAction(name, content) {
  const result = parseAction({ name, content }, trace);
  return result.context.errors.getErrors().map((e) => e.message);
}

/** Problems of a workflow file, as GitHub's own parser reports them (parse, then model conversion). */
export async function validateWorkflow(name, content) {
  const parsed = parseWorkflow({ name, content }, trace);
  const problems = parsed.context.errors.getErrors().map((e) => e.message);
  if (problems.length > 0 || !parsed.value) return problems;
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return (template.errors ?? []).map((e) => e.Message);
}

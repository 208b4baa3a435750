/**
 * carte as a library: the public API that package.json's `main`, `types` and `exports` promise
 * (`import { runCarte, renderText } from "@carte-oss/carte"`). The `carte` command and the GitHub Action are thin
 * adapters over the same calls.
 *
 * ```ts
 * import { ExitCode, renderText, runCarte } from "@carte-oss/carte";
 *
 * const result = await runCarte({ command: "plan", config: "carte.yaml", detailedExitCode: true });
 * if (result.error) throw result.error;                // ConfigError, ApiError, UnsafePlanError, …
 * process.stdout.write(renderText(result.plan!, { color: false }));
 * process.exitCode = result.exitCode;                  // ExitCode.ok (0) or ExitCode.changes (2)
 * ```
 *
 * The pipeline, step by step: {@link loadProject} → {@link openSession} → {@link fetchProjectState} →
 * {@link buildPlan} (pure) → {@link enforceSafety} → {@link applyPlan} (calls, then verification); or
 * all of it at once with {@link runCarte}. Everything else in src/ is internal and may change.
 *
 * @packageDocumentation
 */

// ---- the shared plan/apply path -------------------------------------------------------------------

/**
 * {@link runCarte}: load → session → plan (or check a saved plan) → safety → apply with the secrets
 * sink → verify, in one call that never throws and returns `{ plan, report, exitCode, error }`.
 */
export { runCarte } from "./run/run.js";
export type { ApplyRequest, PlanRequest, RunHooks, RunRequest, RunResult } from "./run/request.js";

/**
 * {@link runEachPlatform}: {@link runCarte} for each platform (country) of carte.yaml `platforms:` asked,
 * one after the other; each platform's result apart (a platform down does not stop the others) and the
 * worst exit code.
 */
export { runEachPlatform, worstExitCode } from "./run/each-platform.js";
export type { EachPlatformRequest, EachPlatformResult, PlatformRun, RunPlace } from "./run/each-platform.js";

// ---- loading a project ------------------------------------------------------------------------------

/**
 * {@link loadProject}: reads carte.yaml and every file it names, validates them and resolves the
 * desired state; throws a {@link ConfigError} listing every located problem. Its defaults are the CLI's:
 * the stores of one catalog share the resource objects they resolve alike (`shareResources`, a 1,000-store
 * chain's desired state in the memory of what differs between stores), so the desired state is
 * read-only; `{ shareResources: false }` gives every store copies of its own to change.
 */
export { loadProject } from "./config/index.js";
export type { LoadedProject } from "./config/index.js";
// A project across countries (carte.yaml `platforms:`): each platform's load, and the names of the
// environment variables of its credentials.
export { loadEachPlatform, readPlatformNames, defaultCredentialNames } from "./config/index.js";
export type { EachPlatformOptions, CredentialNames, ProjectPlatform } from "./config/index.js";

// ---- talking to the platform --------------------------------------------------------------------------

/**
 * {@link openSession}: a client for the configured platform (credentials from `CARTE_CLIENT_ID` and
 * `CARTE_CLIENT_SECRET`), or the embedded emulator when carte.yaml names no platform address.
 */
export { openSession, EMBEDDED_CREDENTIALS } from "./run/session.js";
export type { Session, SessionOptions } from "./run/session.js";
export type { PlatformClient, RetryInfo } from "./platform/client.js";

// ---- planning ----------------------------------------------------------------------------------------

/**
 * The steps of planning: {@link fetchProjectState} reads the live state of the project's stores,
 * {@link buildPlan} diffs it against the desired state (pure), {@link planProject} does both store by
 * store ({@link createPlanner}), and {@link enforceSafety} refuses a plan that trips a safety guard.
 * {@link storeDigest} is the digest of one store's state in a plan's `checksums.stores`.
 */
export { checkSavedPlan } from "./run/saved-plan.js";
export { enforceSafety, fetchProjectState, planProject, scopeDesired } from "./run/plan-project.js";
export type { RunOptions } from "./run/options.js";
export { buildPlan, createPlanner, isEmptyPlan, planChecksums } from "./plan/plan.js";
export type { PlanOptions, PlannerOptions, StorePlanner } from "./plan/plan.js";
export { storeDigest } from "./plan/checksum.js";
/**
 * Saved plan files (`carte plan --out`, docs/plan-format.md); {@link readPlanToShow} reads one to show
 * it (`carte show`), telling whether it still matches its digest.
 */
export { readPlanFile, readPlanToShow, writePlanFile } from "./plan/file.js";
/** `carte status`: the client's stores on the platform and the file managing each. */
export { projectStatus } from "./status.js";
export type { ProjectStatus, StoreStatus } from "./status.js";
/** `carte init`: a minimal project whose files point editors at carte's schemas. */
export { initProject } from "./init.js";
export type { InitResult } from "./init.js";
export type { Targeting } from "./plan/target.js";

// ---- applying ----------------------------------------------------------------------------------------

/**
 * {@link applyPlan}: makes the plan's calls in order, hands webhook secrets to the given sink, then
 * waits until the platform shows the changes; returns an {@link ApplyReport}.
 */
export { applyPlan } from "./run/apply-plan.js";
export { isComplete } from "./apply/report.js";
export { storeGuard } from "./run/store-guard.js";
export type { ApplyReport } from "./apply/report.js";
/**
 * {@link applyStages}: the canary rollout of carte.yaml `rollout:`, stage by stage, stopping at the
 * first stage that fails (src/apply/rollout.ts has the stages' helpers).
 */
export { applyStages } from "./run/stages.js";
export type { StagesOptions, StagesResult } from "./run/stages.js";
export type { StageCounts, StageOutcome } from "./apply/rollout.js";
export type { RolloutStage } from "./config/index.js";
export type { ApplyEvent } from "./apply/execute.js";
export type { OperationResult } from "./apply/operation-result.js";
/** Where webhook secrets returned by calls go (src/run/secrets.ts). */
export { discardingSink, secretsFileSink } from "./run/secrets.js";
export type { SecretSink } from "./run/secrets.js";

// ---- rendering ---------------------------------------------------------------------------------------

/** Views of a plan: text (terminal), Markdown (pull-request comment), JSON (docs/plan-format.md). */
export { renderText } from "./render/text.js";
export type { TextOptions } from "./render/text.js";
export { renderMarkdown, GITHUB_COMMENT_LIMIT } from "./render/markdown.js";
export type { MarkdownOptions } from "./render/markdown.js";
export { renderJson } from "./render/json.js";
/** The plan for people: the presentation model the text and Markdown views lay out (src/render/view.ts). */
export { buildView } from "./render/view.js";
export type { ChangeView, Detail, PlanView, SharedChange, StoreView } from "./render/view.js";
/** Where a run goes, in words, for the first line of a plan (`RunResult.target`). */
export { describeTarget } from "./run/session.js";
export type { RunTarget } from "./run/session.js";
/** Views of an apply's outcome (text, Markdown, JSON) and the one wording of errors. */
export { renderReport, renderReportJson, renderReportMarkdown } from "./render/apply-report.js";
export type { ReportMarkdownOptions } from "./render/apply-report.js";
export { renderError } from "./render/error.js";

// ---- the emulator ------------------------------------------------------------------------------------

/**
 * {@link startEmulator}: a stateful local implementation of the platform API (the fake every test
 * uses); {@link loadSeedFile} reads its clients and stores from YAML or JSON.
 */
export { loadSeedFile, startEmulator } from "./emulator/index.js";
export type { EmulatorOptions, RunningEmulator, Seed, SeedClient, SeedStore } from "./emulator/index.js";

// ---- errors and exit codes ---------------------------------------------------------------------------

/**
 * The error types (src/errors.ts), {@link ExitCode} and the one mapping {@link exitCodeFor}; the one
 * shape of errors and warnings for people ({@link Diagnostic}: a project's `warnings`, a configuration
 * error's `diagnostics`) and its one-line form {@link formatDiagnostic}.
 */
export {
  ApiError,
  CommandLineError,
  ConfigError,
  ConvergenceError,
  ExitCode,
  GitError,
  InternalError,
  LockError,
  MoneyError,
  PlanFileError,
  PlanningError,
  StalePlanError,
  StateFileError,
  UnsafePlanError,
  UsageError,
  exitCodeFor,
  formatDiagnostic,
  formatProblem,
} from "./errors.js";
export type { ConfigProblem, Diagnostic, ExitCodeValue, Severity, SourceRange } from "./errors.js";

// ---- the main types ----------------------------------------------------------------------------------

/** The plan's data (docs/plan-format.md). */
export type { Operation, Plan, PlanChecksums, PlanStore, PlanSummary, ResourceChange } from "./plan/types.js";
/** The desired state (from the files) and the current state (from the platform), compared by the planner. */
export type { ClientState, CurrentState, DesiredState, StoreIdentity, StoreState } from "./model.js";
/**
 * A store state's catalog, read through its kinds: the items and modifier groups by SKU, the categories
 * by SKU, the menus by menu type, and which items are switched off. Each kind keeps its state under its
 * own name in `StoreState.kinds`; these read it (an empty value when the store has none).
 */
export { availabilityOf, categoriesOf, itemsOf, menusOf } from "./kinds/catalog.js";
export type { AvailabilityState } from "./kinds/catalog.js";

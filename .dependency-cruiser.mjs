/**
 * Import rules for src/, checked by `npm run deps` (part of `npm run check`).
 * @type {import("dependency-cruiser").IConfiguration}
 */
export default {
  forbidden: [
    {
      name: "no-cycle",
      severity: "error",
      comment:
        "An import cycle, type-only imports included: module initialisation order then depends on which " +
        "module is imported first, and the modules of a cycle can only be read together. Put what both " +
        "need in a module below them. (src/import/index.ts and merge.ts are exempt until the importer's " +
        "parts are split.)",
      from: { path: "^src/", pathNot: "^src/import/(index|merge)[.]ts$" },
      to: { circular: true },
    },
    {
      name: "config-not-into-the-run",
      severity: "error",
      comment:
        "The loader (src/config) sits below the planner, the reader, the executor, the renderers and the " +
        "adapters: it reads files into the desired state and depends on none of them. What both sides " +
        "need (the safety settings) lives in src/config or below.",
      from: { path: "^src/config/" },
      to: { path: "^src/(plan|state|apply|render|gitops|cli|action|run)/" },
    },
    {
      name: "render-not-into-the-run",
      severity: "error",
      comment:
        "Renderers only render: they read plans and reports (src/plan, src/apply/report.ts), never the " +
        "run that makes them (src/run/) or the adapters.",
      from: { path: "^src/render/" },
      to: { path: "^src/(cli|action|gitops|run)/" },
    },
    {
      name: "kinds-not-into-plan-or-state",
      severity: "error",
      comment:
        "src/kinds sits below the planner and the reader: a kind declares its tables and the registry " +
        "hands them up, so nothing in src/kinds imports src/plan or src/state, not even types.",
      from: { path: "^src/kinds/" },
      to: { path: "^src/(plan|state)/" },
    },
    {
      name: "kinds-not-into-config",
      severity: "error",
      comment:
        "src/kinds sits below the config loader: the loader reads each kind's settings section through " +
        "the registry and builds the states the kinds declare. What both need lives below both: where a " +
        "value is written, problem reports, quoting and the YAML file handle in src/source, slots, " +
        "schedules, zones and the store clock in src/time.",
      from: { path: "^src/kinds/" },
      to: { path: "^src/config/" },
    },
    {
      name: "config-into-kinds-through-the-registry",
      severity: "error",
      comment:
        "The config loader reaches the kinds through the registry (the kinds' settings sections, their " +
        "catalog entries), the kind contract (src/kinds/resource-kind.ts) and the states the kinds declare for " +
        "the loader to build and read (the catalog's, src/kinds/catalog.ts; the store schedule's, " +
        "src/kinds/store-schedule.ts), never through a kind's own module.",
      from: { path: "^src/config/" },
      to: {
        path: "^src/kinds/",
        pathNot: "^src/kinds/(registry|resource-kind|catalog|store-schedule)[.]ts$",
      },
    },
    {
      name: "below-kinds-and-config",
      severity: "error",
      comment:
        "src/source (the files as sources: the YAML handle, sites, quoting, located problems, the shape " +
        "of addresses), src/time (zones, slots, schedules, the store clock), src/plain-data.ts and " +
        "src/safety-policy.ts sit below the kinds and the config loader, which both use them: they import " +
        "neither, nor anything above them.",
      from: { path: "^src/((source|time)/|(plain-data|safety-policy)[.]ts$)" },
      to: { path: "^src/(kinds|config|show|plan|state|render|apply|import|cli|action|run|gitops|emulator)/" },
    },
    {
      name: "platform-not-into-config",
      severity: "error",
      comment:
        "The platform's client sits below the kinds, and the kinds below the config loader: the client " +
        "checks the platform's answers with the ajv set-up of src/json-schema, shared with the loader's " +
        "file checks, and imports nothing of src/config (an import there puts the loader under every kind).",
      from: { path: "^src/platform/" },
      to: { path: "^src/config/" },
    },
    {
      name: "json-schema-below-all",
      severity: "error",
      comment:
        "src/json-schema (ajv and its companions, the ASCII form of generated validators) sits below the " +
        "config loader and the platform's client, which both compile schemas with it: it imports nothing " +
        "of src/.",
      from: { path: "^src/json-schema/" },
      to: { path: "^src/" },
    },
    {
      name: "kinds-not-into-render",
      severity: "error",
      comment:
        "A kind shows itself (its view, its part of a preview page) with what src/show holds, below it; " +
        "the renderers ask the kinds through the registry, never the other way round.",
      from: { path: "^src/kinds/" },
      to: { path: "^src/render/" },
    },
    {
      name: "show-below-kinds",
      severity: "error",
      comment:
        "src/show holds what the kinds show themselves with (the presentation model of a plan, the files' " +
        "words for values, HTML escaping, the marks of a preview page): below the kinds and the renderers, " +
        "it imports none of them, nor the planner, the reader, the loader or the run.",
      from: { path: "^src/show/" },
      to: { path: "^src/(kinds|plan|state|render|config|apply|import|cli|action|run|gitops|emulator)/" },
    },
    {
      name: "kinds-not-into-import",
      severity: "error",
      comment:
        "A kind's import part lives with the kind (src/kinds/); the importer (src/import) looks the parts " +
        "up in the registry, never the other way round.",
      from: { path: "^src/kinds/" },
      to: { path: "^src/import/" },
    },
    {
      name: "no-emulator-outside",
      severity: "error",
      comment:
        "The emulator is the fake platform: only the embedded start (src/run/session.ts), the CLI's emulator " +
        "command (src/cli/commands.ts, src/cli/main.ts) and the library's entry (src/index.ts) start it; " +
        "nothing else depends on it (the config loader knows the platform only through what it reads).",
      from: {
        path: "^src/",
        pathNot: "^src/(emulator/|run/session\\.ts$|index\\.ts$|cli/(commands|main)\\.ts$)",
      },
      to: { path: "^src/emulator/" },
    },
    {
      name: "no-cycle-in-import",
      severity: "error",
      comment:
        "The importer's modules form no circle, not even through types: the result types live in the " +
        "module that produces them and are imported downwards.",
      from: { path: "^src/import/" },
      to: { path: "^src/import/", circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Keep type-only imports in the graph: every rule counts them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.build.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".json"],
      exportsFields: ["exports"],
      conditionNames: ["import", "node", "default", "types"],
    },
  },
};

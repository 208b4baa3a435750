/**
 * Import rules for src/, checked by `npm run deps` (part of `npm run check`).
 * @type {import("dependency-cruiser").IConfiguration}
 */
export default {
  forbidden: [
    {
      name: "no-runtime-cycle",
      severity: "error",
      comment:
        "A runtime import cycle: module initialisation order then depends on which module is imported " +
        "first. Type-only imports (erased by tsc) may close a cycle.",
      from: { path: "^src/" },
      to: {
        circular: true,
        dependencyTypesNot: ["type-only"],
        viaOnly: { dependencyTypesNot: ["type-only"] },
      },
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
        "The emulator is the fake platform: only the embedded start (src/session.ts), the CLI's emulator " +
        "command (src/cli/commands.ts, src/cli/main.ts) and the library's entry (src/index.ts) start it; " +
        "nothing else depends on it (the config loader knows the platform only through what it reads).",
      from: {
        path: "^src/",
        pathNot: "^src/(emulator/|session\\.ts$|index\\.ts$|cli/(commands|main)\\.ts$)",
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
    // Keep type-only imports in the graph: the kinds rule counts them, the cycle rule skips them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.build.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".json"],
      exportsFields: ["exports"],
      conditionNames: ["import", "node", "default", "types"],
    },
  },
};

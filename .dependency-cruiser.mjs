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

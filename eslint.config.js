// @ts-check
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/** A bare `throw new Error(…)`: src/ throws through the classes of src/errors.ts (exit codes). */
const bareError = {
  selector: "ThrowStatement > NewExpression[callee.name='Error']",
  message:
    "Throw one of the classes of src/errors.ts (UsageError, InternalError for a broken invariant…), each with its exit code, never a bare Error.",
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "src/generated/**", ".carte/**", "**/.carte/**"] },
  // The Action's bundle (npm run build:action): generated.
  { ignores: ["dist-action/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Library code reports through return values and the CLI's writer, never the console.
      "no-console": "error",
    },
  },
  {
    // Errors are thrown through the classes of src/errors.ts, each with its exit code.
    files: ["src/**/*.ts"],
    rules: { "no-restricted-syntax": ["error", bareError] },
  },
  {
    // git runs only through src/gitops/safe-git.ts: a pull request's files must never shape it.
    files: ["src/**/*.ts"],
    ignores: ["src/gitops/safe-git.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        bareError,
        {
          selector:
            "CallExpression:matches([callee.name=/^(spawn|spawnSync|exec|execSync|execFile|execFileSync)$/], [callee.property.name=/^(spawn|spawnSync|exec|execSync|execFile|execFileSync)$/])[arguments.0.value=/(^|\\/)git$/]",
          message: "Run git through src/gitops/safe-git.ts (runGit, askGit, spawnGit), never directly.",
        },
      ],
    },
  },
  {
    files: ["scripts/**", "test/**", "bin/**"],
    languageOptions: { globals: { ...globals.node } },
    rules: { "no-console": "off" },
  },
);

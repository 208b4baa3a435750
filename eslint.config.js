// @ts-check
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

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
    files: ["scripts/**", "test/**", "bin/**"],
    languageOptions: { globals: { ...globals.node } },
    rules: { "no-console": "off" },
  },
);

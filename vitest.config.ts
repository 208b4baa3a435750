import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two files at once even on a 2-core machine (vitest's default there is one): most tests wait on
    // loopback HTTP, child processes and Retry-After, not on the CPU (suite 427 s → 233 s on 2 cores).
    maxWorkers: 3,
  },
});

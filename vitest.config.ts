import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Three files at once on a 2-core machine (vitest's default there is one): most tests wait on
    // loopback HTTP, child processes and Retry-After, not on the CPU (whole suite on 2 cores: 427 s with
    // one, about 400 s with two, 319 s with three).
    maxWorkers: 3,
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One temporary folder for the whole run, removed at its end (test/helpers/temp-root.ts).
    globalSetup: ["test/helpers/temp-root.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Three files at once on a 2-core machine (vitest's default there is one): most tests wait on
    // loopback HTTP, child processes and Retry-After, not on the CPU (whole suite on 2 cores: 427 s with
    // one, about 400 s with two, 319 s with three).
    maxWorkers: 3,
    // Test files share their worker's modules instead of importing everything afresh per file: the
    // import of carte, its dependencies and the compile of its JSON Schemas was about 40 % of the suite's
    // CPU time (user + sys of the whole suite on 2 cores: 564 s isolated, 320 s shared). What a file
    // changes must not reach the next: no file mocks a module, and process-wide state that a test sets
    // (environment variables, the working folder) is restored by that test.
    isolate: false,
  },
});

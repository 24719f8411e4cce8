import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["@dispatch/source"] },
  ssr: { resolve: { conditions: ["@dispatch/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // Loading effect once per worker instead of once per file cuts the suite's wall time by ~10x;
    // no test relies on a fresh module graph (no vi.mock of shared modules).
    isolate: false,
    // One file per core, and never fewer than two: most of the suite's time is spent waiting on the processes it
    // starts (dispatch, kubectl, PostgreSQL, Chromium), so vitest's default of cores - 1 left a 2-core machine
    // running one file at a time (13 minutes; 8 with two).
    maxWorkers: Math.max(2, availableParallelism()),
    // A test whose work is bigger than a minute on a busy machine says so with its own timeout. Hooks
    // start databases (PGlite compiles its WebAssembly), servers and builds: bounded for a machine far
    // slower than an idle one.
    testTimeout: 60_000,
    hookTimeout: 180_000
  }
})

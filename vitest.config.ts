import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["@dispatch/source"] },
  ssr: { resolve: { conditions: ["@dispatch/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // Loading effect once per worker instead of once per file cuts the suite's wall time by ~10x;
    // no test relies on a fresh module graph (no vi.mock of shared modules).
    isolate: false,
    // A test whose work is bigger than a minute on a busy machine says so with its own timeout. Hooks
    // start databases (PGlite compiles its WebAssembly), servers and builds: bounded for a machine far
    // slower than an idle one.
    testTimeout: 60_000,
    hookTimeout: 180_000
  }
})

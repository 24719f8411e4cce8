import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["@dispatch/source"] },
  ssr: { resolve: { conditions: ["@dispatch/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})

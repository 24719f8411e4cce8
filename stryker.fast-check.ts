// Mutation runs only (stryker.vitest.config.ts): properties that set no numRuns run 20 cases, not 100.
import fc from "fast-check"

fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: 20 })

// Mutation runs only (stryker.vitest.config.ts): properties that set no numRuns run 20 cases, not 100.
// The seed is fixed because @fast-check/vitest puts it in each property test's name, and Stryker finds
// the tests that cover a mutant by name: with a new seed per run it would never find a property again.
import fc from "fast-check"

fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: 20, seed: 1 })

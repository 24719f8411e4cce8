// The vitest config for @dispatch/report's mutation runs (stryker.report.config.mjs): without the tests against
// the real service and the demo (test/e2e/), which take tens of seconds each and would rerun for every mutant of
// the sender; the score is measured against the modules' own tests, a lower bound.
import { configDefaults, mergeConfig } from "vitest/config"
import base from "./stryker.vitest.config.ts"

export default mergeConfig(base, { test: { exclude: [...configDefaults.exclude, "**/packages/report/test/e2e/**"] } })

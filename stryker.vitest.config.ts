// The vitest config for mutation runs (stryker.config.mjs): the suite's config, with property tests
// at fewer cases. A mutant a property kills is almost always killed in its first cases, and each
// mutant reruns its tests, so a full run stays within an hour; the score is a lower bound.
import { mergeConfig } from "vitest/config"
import base from "./vitest.config.ts"

export default mergeConfig(base, { test: { setupFiles: ["./stryker.fast-check.ts"] } })

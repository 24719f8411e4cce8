// @ts-check
// Mutation testing for @dispatch/report's modules: `npx stryker run stryker.report.config.mjs` (docs/testing.md).
import { mutationOptions } from "./stryker.config.mjs"

// The pure parts, the sender and the transport, against the modules' own tests; the tests against the real service
// and the demo (packages/report/test/e2e) are left out of the run (stryker.report.vitest.config.ts). The system
// clock is Node's timers.
const options = mutationOptions("report", "packages/report", [
  "packages/report/src/**/*.ts",
  "!packages/report/src/{index,Clock}.ts"
])

export default { ...options, vitest: { ...options.vitest, configFile: "stryker.report.vitest.config.ts" } }

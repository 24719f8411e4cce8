// @ts-check
// Mutation testing for effects' Start and lifecycle: `pnpm mutate:effects` (docs/testing.md).
import { mutationOptions } from "./stryker.config.mjs"

// Start, the modules only Start's steps use (adoption, the frozen runtime, reads of existing objects,
// failure and status mapping, the Workload's readiness, the in-flight guard, polling), and the lifecycle.
const options = mutationOptions("effects", "packages/effects", [
  "packages/effects/src/Start*.ts",
  "packages/effects/src/{AdoptionMark,Backend,ExistingObjects,FrozenRuntime,InFlight,PollUntil,StatusMapping,WorkloadReadiness,WriteFailure}.ts",
  "packages/effects/src/lifecycle/**/*.ts",
  "!packages/effects/src/lifecycle/index.ts"
])

// Without the whole-flow tests (stryker.effects.vitest.config.ts), which would rerun for nearly every mutant.
export default { ...options, vitest: { ...options.vitest, configFile: "stryker.effects.vitest.config.ts" } }

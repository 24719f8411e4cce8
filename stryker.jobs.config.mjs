// @ts-check
// Mutation testing for the jobs package's dispatch state machine and its retry policy: `pnpm mutate:jobs`.
import { mutationOptions } from "./stryker.config.mjs"

export default mutationOptions("jobs", "packages/jobs", ["packages/jobs/src/DispatchMachine.ts", "packages/jobs/src/RetryPolicy.ts"])

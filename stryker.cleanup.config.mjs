// @ts-check
// Mutation testing for the service's cleanup (the sweeper and retention): `npx stryker run stryker.cleanup.config.mjs`.
import { mutationOptions } from "./stryker.config.mjs"

const options = mutationOptions("cleanup", "packages/server", ["packages/server/src/dispatch/{Retention,Sweeper,ClusterCleanup}.ts"])

// Only the cleanup's own tests: nearly every server test starts a service, and with it the cleanup, so `related`
// would rerun the whole server suite for each mutant.
export default { ...options, vitest: { ...options.vitest, configFile: "stryker.cleanup.vitest.config.ts", related: false } }

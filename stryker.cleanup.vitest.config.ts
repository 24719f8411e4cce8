// The vitest config for the cleanup's mutation runs (stryker.cleanup.config.mjs): the mutation config, its tests
// limited to the cleanup's passes on the database with the cluster's answers given (CleanupPasses.test.ts).
// The whole-flow tests over HTTP and the simulator (ClusterCleanup.test.ts) take tens of seconds a mutant;
// DISPATCH_MUTATION_FLOWS=1 adds them. Each is named from the root and from the package directory, which Stryker
// gives vitest as its `dir` (mergeConfig would add to the include list, not replace it).
import base from "./stryker.vitest.config.ts"

const files = process.env["DISPATCH_MUTATION_FLOWS"] === "1" ? "{CleanupPasses,ClusterCleanup}" : "CleanupPasses"

export default { ...base, test: { ...base.test, include: [`test/${files}.test.ts`, `packages/server/test/${files}.test.ts`] } }

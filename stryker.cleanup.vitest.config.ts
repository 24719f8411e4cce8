// The vitest config for the cleanup's mutation runs (stryker.cleanup.config.mjs): the mutation config, its tests
// limited to the sweeper's and retention's (mergeConfig would add to the include list, not replace it), named both from
// the root and from the package directory, which Stryker gives vitest as its `dir`.
import base from "./stryker.vitest.config.ts"

export default { ...base, test: { ...base.test, include: ["test/{CleanupPasses,ClusterCleanup}.test.ts", "packages/server/test/{CleanupPasses,ClusterCleanup}.test.ts"] } }

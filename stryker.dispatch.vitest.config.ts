// The vitest config for the dispatcher's mutation runs (stryker.dispatch.config.mjs): the mutation config, its tests
// limited to those that drive the dispatcher's modules in process (no HTTP server, no service process). Each is named
// from the root and from the package directory, which Stryker gives vitest as its `dir`.
import base from "./stryker.vitest.config.ts"

const files = "{JobDispatch,DispatchRow,StatusSync,JobControlRoutes,DispatchQueries,UnansweredCreates,Retries,Dispatching,ClusterRuntime}"

export default { ...base, test: { ...base.test, include: [`test/${files}.test.ts`, `packages/server/test/${files}.test.ts`] } }

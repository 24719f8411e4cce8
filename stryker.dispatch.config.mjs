// @ts-check
// Mutation testing for the service's dispatcher, the part that executes the dispatch machine's commands and writes its
// answers: `pnpm mutate:dispatch` (docs/testing.md). Its tests open PGlite for every mutant (seconds each, tens of
// seconds on a busy machine) unless DISPATCH_MUTATION_POSTGRES names a PostgreSQL server's admin URL (from
// test/postgres/start.sh): then each test file keeps a database there for the whole run.
import { mutationOptions } from "./stryker.config.mjs"

const options = mutationOptions("dispatch", "packages/server", [
  "packages/server/src/dispatch/{JobDispatch,DispatchRow,Claims,StatusSync,Retries}.ts",
  "packages/server/src/http/JobControlRoutes.ts",
  "packages/server/src/store/{DispatchLeases,DispatchRows,UnansweredCreates}.ts"
])

// Only the tests of these modules, which run the passes in process on PGlite with the simulator in process or a script
// of the cluster's answers: nearly every server test starts a service, and with it the dispatcher, so `related`
// would rerun the whole server suite for each mutant.
export default {
  ...options,
  coverageAnalysis: "perTest",
  vitest: { ...options.vitest, configFile: "stryker.dispatch.vitest.config.ts", related: false }
}

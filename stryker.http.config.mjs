// @ts-check
// Mutation testing for the job service's HTTP face and the pure shapes it answers with: the route groups, admission,
// the handlers' runner, list pages, paging and list items, and the service's settings: `pnpm mutate:http`
// (docs/testing.md). Nearly every server test starts a service and so runs these modules, so `related` would rerun
// the whole server suite for each mutant; each target is run instead with the few test files that state what it
// does (`stryker.http.vitest.config.ts`). `DISPATCH_MUTATION_TARGET=<name>` runs one target alone (the names
// are the keys of `targets`), with only its test files: all of them are hours on a busy machine, a pure module minutes,
// a route group half an hour or more.
// The tests of a service on PostgreSQL use `DATABASE_URL`'s server when it is set (test/postgres/start.sh prints one),
// and the dispatcher's test worlds `DISPATCH_MUTATION_POSTGRES`'s (see stryker.dispatch.config.mjs).
// UnreadableRows.test.ts is left out: its row nests 5,000 deep, which breaks rendering by the call stack's depth, and
// Stryker's instrumented code uses the stack differently, so its initial run fails there.
import { mutationOptions } from "./stryker.config.mjs"

/** Each target: the files it mutates, and the test files (in packages/server/test) that may kill its mutants. */
export const targets = {
  paging: { mutate: ["packages/server/src/wire/{Paging,ListItem}.ts"], tests: ["Paging", "AnswerLimits"] },
  settings: { mutate: ["packages/server/src/config/{ServiceConfig,Setting}.ts"], tests: ["ServiceConfig", "Setting"] },
  listPage: { mutate: ["packages/server/src/http/ListPage.ts"], tests: ["ListPage", "AnswerLimits", "GroupLists"] },
  handlers: { mutate: ["packages/server/src/http/Handlers.ts"], tests: ["Handlers", "CommitAndAnswer", "Idempotency", "Accounts"] },
  admission: { mutate: ["packages/server/src/http/Admission.ts"], tests: ["Admission", "Auth", "BadInput", "Idempotency"] },
  accounts: { mutate: ["packages/server/src/http/AccountRoutes.ts"], tests: ["AccountRoutes", "Accounts", "Auth"] },
  resources: { mutate: ["packages/server/src/http/ResourceRoutes.ts"], tests: ["ResourceRoutes", "Resources", "DioptraResources", "GroupLists"] },
  jobControl: { mutate: ["packages/server/src/http/JobControlRoutes.ts"], tests: ["JobControlRoutes", "JobControl"] }
}

const chosen = process.env["DISPATCH_MUTATION_TARGET"]
const selected = chosen === undefined ? Object.values(targets) : [targets[/** @type {keyof typeof targets} */ (chosen)]]
if (selected[0] === undefined) throw new Error(`DISPATCH_MUTATION_TARGET: no target ${chosen}; one of ${Object.keys(targets).join(", ")}`)
// Read by the vitest config, in Stryker's test runner processes, which inherit this environment. Given already, it
// names the test files instead (to see what one file kills alone).
process.env["DISPATCH_MUTATION_TESTS"] ??= [...new Set(selected.flatMap((t) => t.tests))].join(",")

const options = mutationOptions("http", "packages/server", selected.flatMap((t) => t.mutate))

export default {
  ...options,
  concurrency: 1,
  coverageAnalysis: "perTest",
  incrementalFile: `reports/mutation/http-${chosen ?? "all"}-incremental.json`,
  eventReporter: { baseDir: `reports/mutation/http-${chosen ?? "all"}-events` },
  htmlReporter: { fileName: `reports/mutation/http-${chosen ?? "all"}.html` },
  jsonReporter: { fileName: `reports/mutation/http-${chosen ?? "all"}.json` },
  vitest: { ...options.vitest, configFile: "stryker.http.vitest.config.ts", related: false }
}

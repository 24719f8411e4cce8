// The node side of a request's statements: a process of its own sending exactly the statements one request sent
// through the service's own PostgreSQL client (store/PostgresClient.ts: node-postgres, each statement prepared once
// per connection, effect/sql around it), `concurrency` requests at a time for `seconds`. Prints one JSON line:
// `{ rate, cpuMs }`, the requests per second and this process's CPU milliseconds per request. Where pgbench is the
// database's ceiling, this is the ceiling of a node service that sends those statements and does nothing else.
// `node bench/lib/client-replay.mjs DATABASE_URL STATEMENTS.json CONCURRENCY SECONDS`
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { postgresClientLayer } from "../../packages/server/dist/store/PostgresClient.js"

const [databaseUrl, file, concurrency, seconds] = process.argv.slice(2)
const recorded = JSON.parse(readFileSync(file, "utf8"))
// A transaction's BEGIN and COMMIT, as recorded, become the client's own transaction around what they enclose.
const begin = recorded.findIndex(({ text }) => text === "begin")
const commit = recorded.findIndex(({ text }) => text === "commit")
const parts = begin === -1 ? { before: recorded, inside: [], after: [] } : { before: recorded.slice(0, begin), inside: recorded.slice(begin + 1, commit), after: recorded.slice(commit + 1) }

const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const run = (statements) => Effect.forEach(statements, ({ text, params }) => sql.unsafe(text, params), { discard: true })
  const once = Effect.gen(function* () {
    yield* run(parts.before)
    if (parts.inside.length > 0) yield* sql.withTransaction(run(parts.inside))
    yield* run(parts.after)
  })
  // Warm every connection's prepared statements first, as the service's are warm when it is measured.
  yield* Effect.forEach(Array.from({ length: 2 * Number(concurrency) }), () => once, { concurrency: Number(concurrency), discard: true })
  const deadline = performance.now() + 1000 * Number(seconds)
  let done = 0
  const cpu = process.cpuUsage()
  const start = performance.now()
  const worker = Effect.whileLoop({ while: () => performance.now() < deadline, body: () => once, step: () => void done++ })
  yield* Effect.forEach(Array.from({ length: Number(concurrency) }), () => worker, { concurrency: "unbounded", discard: true })
  const used = process.cpuUsage(cpu)
  return { rate: done / ((performance.now() - start) / 1000), cpuMs: (used.user + used.system) / 1000 / done }
})

const result = await Effect.runPromise(Effect.scoped(Effect.provide(program, Layer.orDie(postgresClientLayer(databaseUrl, Number(concurrency))))))
console.log(JSON.stringify(result))

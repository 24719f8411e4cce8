// The framework's floor: the service's own HTTP stack (effect/http-api's router and builder, the Authorization
// middleware that authenticates the bearer token and decodes every part of the request, the handlers' services, the
// access log, the metrics) answering one endpoint with a constant instead of its handler, in a process of its own.
// No statement is sent per request once the caller's group id is known (asked once, then remembered). Prints its URL
// once it serves.
// `node bench/lib/constant-service.mjs DATABASE_URL TOKENS.json ANSWERS.json`, ANSWERS mapping `group.endpoint`
// (e.g. `jobs.create`) to the answer it gives.
import { readFileSync } from "node:fs"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { listening as listeningOn } from "../../packages/server/dist/http/ApiServer.js"
import { migrate } from "../../packages/server/dist/store/Migrations.js"
import { openApi, routes } from "../../packages/server/dist/Serve.js"
import { postgresLayer } from "../../packages/server/dist/store/PostgresDatabase.js"

const [databaseUrl, tokensFile, answersFile] = process.argv.slice(2)
const answers = JSON.parse(readFileSync(answersFile, "utf8"))
const scope = Effect.runSync(Scope.make())
const database = await Effect.runPromise(Layer.buildWithScope(postgresLayer(databaseUrl), scope))
await Effect.runPromise(Effect.provide(migrate(), database))
const db = Context.get(database, SqlClient.SqlClient)
const constantRoutes = routes.map((route) => {
  const answer = answers[`${route.group}.${route.name}`]
  // Not keyed either: a keyed route's answer runs in a transaction (BEGIN and COMMIT), which is the database's work.
  return answer === undefined ? route : { ...route, keyed: false, handle: () => Effect.succeed(answer) }
})
// In the database's scope: closing it stops listening first, then closes the database.
const listening = await Effect.runPromise(
  Scope.provide(
    listeningOn(
      {
        routes: constantRoutes,
        openApi,
        tokens: JSON.parse(readFileSync(tokensFile, "utf8")),
        db,
        now: () => new Date().toISOString(),
        // As `dispatch serve` runs: one access-log line a request on stderr.
        ...(process.env.DISPATCH_BENCH_NO_ACCESS_LOG === "1" ? {} : { accessLog: { format: "text", write: (line) => void process.stderr.write(`${line}\n`) } })
      },
      "127.0.0.1",
      0
    ),
    scope
  )
)
console.log(listening.url.replace(/\/api\/v1$/, ""))
process.on("SIGTERM", () => void Effect.runPromise(Scope.close(scope, Exit.void)).then(() => process.exit(0)))

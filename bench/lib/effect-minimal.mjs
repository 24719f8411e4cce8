// effect/http-api's own floor: a declared API of the endpoints bench/server.mjs and bench/report.mjs load (a job
// creation, a metric post and a report batch: an id in the path, a JSON payload decoded by a schema of its fields)
// answering a constant on effect's node:http server, with none of the service's own middleware (no authentication, no admission, no access log, no
// metrics, no request services). Prints its URL once it serves.
// `node bench/lib/effect-minimal.mjs ANSWERS.json`, ANSWERS mapping `jobs.create`, `jobs.recordMetric` and
// `jobs.send` to answers.
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
// The service's own copy of the platform package, as bench/lib/recorded-database.mjs takes the service's pg.
import * as NodeHttpServer from "../../packages/server/node_modules/@effect/platform-node/dist/NodeHttpServer.js"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

const answers = JSON.parse(readFileSync(process.argv[2], "utf8"))
const Id = { id: Schema.NumberFromString }
const Texts = Schema.Record(Schema.String, Schema.String)
const Creation = Schema.Struct({ entrypoint: Schema.Number, queue: Schema.Number, values: Texts, swaps: Texts, timeout: Schema.String, description: Schema.String })
const Metric = Schema.Struct({ name: Schema.String, step: Schema.optional(Schema.Number), value: Schema.Union([Schema.Number, Schema.String]) })
const Batch = Schema.Struct({ metrics: Schema.optional(Schema.Array(Schema.Struct({ ...Metric.fields, timestamp: Schema.optional(Schema.String) }))) })
const Api = HttpApi.make("minimal").add(
  HttpApiGroup.make("jobs")
    .add(HttpApiEndpoint.post("create", "/api/v1/experiments/:id/jobs", { params: Id, payload: Creation, success: Schema.Unknown }))
    .add(HttpApiEndpoint.post("recordMetric", "/api/v1/jobs/:id/metrics", { params: Id, payload: Metric, success: Schema.Unknown }))
    .add(HttpApiEndpoint.post("send", "/api/v1/jobs/:id/reports", { params: Id, payload: Batch, success: Schema.Unknown }))
)
const jobs = HttpApiBuilder.group(Api, "jobs", (handlers) =>
  handlers.handle("create", () => Effect.succeed(answers["jobs.create"] ?? null)).handle("recordMetric", () => Effect.succeed(answers["jobs.recordMetric"] ?? null))
    .handle("send", () => Effect.succeed(answers["jobs.send"] ?? null))
)
const server = createServer({ keepAliveTimeout: 65_000 })
const app = HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(jobs)), { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))
)
server.on("listening", () => console.log(`http://127.0.0.1:${server.address().port}`))
Effect.runFork(Layer.launch(app))
process.on("SIGTERM", () => process.exit(0))

import { Effect, Result } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
// By path rather than by package name: @dispatch/client depends on @dispatch/server, not the other way round.
import { makeClient, runWithFetch, type DispatchClient } from "../../client/src/index.ts"
import { hashToken, serve, type JobServer, type ServeOptions } from "../src/index.ts"

/** The tokens of the test world: two writers in different groups and a reader in the first group. */
export const tokens = { alice: "alice-token-0123456789", bob: "bob-token-0123456789", reader: "reader-token-0123456789" } as const

const salt = (n: number) => Uint8Array.from({ length: 16 }, (_, i) => (i * 7 + n) % 256)

/** The token configuration the test services run with: only hashes. */
export const tokenEntries = [
  { name: "alice", group: "vision", access: "write", tokenHash: hashToken(tokens.alice, salt(1)) },
  { name: "bob", group: "speech", access: "write", tokenHash: hashToken(tokens.bob, salt(2)) },
  { name: "reader", group: "vision", access: "read", tokenHash: hashToken(tokens.reader, salt(3)) }
] as const

/** A clock that ticks one second per reading, from a fixed start: stamps are distinct and predictable. */
export const tickingClock = (start = Date.UTC(2026, 10, 30, 12, 0, 0)) => {
  let now = start - 1000
  return () => (now += 1000)
}

/** Starts a service or fails the test with why it did not start. */
export const started = async (options: Omit<ServeOptions, "tokens">): Promise<JobServer> => {
  const result = await serve({ tokens: tokenEntries, clock: tickingClock(), ...options })
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

/** A JSON answer: status and parsed body. */
export interface Answer {
  readonly status: number
  readonly body: any
}

/** A raw call of the API under `/api/v1`: any method, path and body (a string is sent as is), answered with status and JSON. */
export type Call = (method: string, path: string, body?: unknown) => Promise<Answer>

/** Runs a program over the typed client (@dispatch/client) to its answer; a refusal rejects naming the service's error body. */
export type Typed = <A, E>(program: (client: DispatchClient) => Effect.Effect<A, E, HttpClient.HttpClient>) => Promise<A>

/** A client of one service as one caller: `typed` calls for the declared endpoints, and raw calls for what the
 * typed client cannot send (bad input, hostile requests) or tests of the wire's exact bytes and statuses. */
export type Client = Call & { readonly typed: Typed }

// A refusal is the service's error body (data, not an Error); a transport or decoding failure is an Error already.
const refusedWith = <E>(failure: E) => (failure instanceof Error ? failure : new Error(`refused: ${JSON.stringify(failure)}`))

/** A client of one service acting with one token (none when undefined). */
export const client = (url: string, token: string | undefined): Client => {
  const call: Call = async (method, path, body) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const typed: Typed = (program) =>
    runWithFetch(Effect.flatMap(makeClient({ baseUrl: url, ...(token === undefined ? {} : { token }) }), (c) => Effect.mapError(program(c), refusedWith)))
  return Object.assign(call, { typed })
}

const inProcessBase = "http://in-process"

/** A client over an in-process call (a handler called directly, no socket): its typed calls travel through `call`,
 * which names the caller itself. */
export const inProcess = <C extends Call>(call: C): C & { readonly typed: Typed } => {
  const transport = HttpClient.make((request, url) =>
    Effect.promise(async () => {
      const body: unknown = request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : undefined
      const answer = await call(request.method, `${url.pathname.slice("/api/v1".length)}${url.search}`, body)
      const text = answer.body === undefined ? null : JSON.stringify(answer.body)
      return HttpClientResponse.fromWeb(request, new Response(text, { status: answer.status, headers: { "content-type": "application/json" } }))
    })
  )
  const typed: Typed = (program) =>
    Effect.runPromise(
      Effect.flatMap(makeClient({ baseUrl: inProcessBase }), (c) => Effect.mapError(program(c), refusedWith)).pipe(
        Effect.provideService(HttpClient.HttpClient, transport)
      )
    )
  return Object.assign(call, { typed })
}

const runtime = { kind: "TrainingRuntime", name: "dioptra-torch" }

/** A queue body render accepts. */
export const queueBody = (name: string) => ({
  name,
  description: "gpu queue",
  backend: { config: { namespace: "ml-team", mode: "plain", runtimes: [runtime] }, runtime, image: "example/worker:1" }
})

/** A task graph with one swap, `training_method`, offering `method_a` and `method_b`. */
export const taskGraph = {
  load: { load_dataset: { path: "$data_dir" } },
  train: { "?training_method": { method_a: { train_a: { epochs: "$epochs" } }, method_b: { train_b: { epochs: "$epochs" } } }, dependencies: ["load"] }
}

/** An entrypoint body with parameters of several types, the swap graph and an artifact input. */
export const entrypointBody = (name: string, queues: ReadonlyArray<number>) => ({
  name,
  description: "trains",
  queues,
  parameters: [
    { name: "data_dir", type: "string" },
    { name: "epochs", type: "integer", defaultValue: "3" },
    { name: "lr", type: "float", defaultValue: "0.01" },
    { name: "shuffle", type: "boolean", defaultValue: "true" }
  ],
  artifactParameters: [],
  taskGraph,
  command: ["python", "-m", "runner"]
})

/** A job body that passes every check against `entrypointBody`. */
export const jobBody = (entrypoint: number, queue: number, extra: Record<string, unknown> = {}) => ({
  entrypoint,
  queue,
  values: { data_dir: "/data", epochs: "5" },
  swaps: [{ swap_name: "training_method", task_alias: "method_a" }],
  timeout: "2h",
  description: "first run",
  ...extra
})

/** The ids of a registered queue, entrypoint and experiment in the caller's group. */
export interface World {
  readonly queue: number
  readonly entrypoint: number
  readonly experiment: number
}

/** Registers a queue, an entrypoint on it and an experiment holding it, named with `tag` to stay unique. */
export const registerWorld = (call: Client, tag: string): Promise<World> =>
  call.typed((c) =>
    Effect.gen(function* () {
      const queue = yield* c.queues.create({ payload: queueBody(`q-${tag}`) as never })
      const entrypoint = yield* c.entrypoints.create({ payload: entrypointBody(`ep-${tag}`, [queue.id]) as never })
      const experiment = yield* c.experiments.create({ payload: { name: `ex-${tag}`, entrypoints: [entrypoint.id] } })
      return { queue: queue.id, entrypoint: entrypoint.id, experiment: experiment.id }
    })
  )

/** Registers a world named with `tag` and creates a job in it; fails the test if either is refused. */
export const newJob = async (call: Client, tag: string, extra: Record<string, unknown> = {}) => {
  const world = await registerWorld(call, tag)
  const job = await call.typed((c) => c.jobs.create({ params: { id: world.experiment }, payload: jobBody(world.entrypoint, world.queue, extra) as never }))
  return { world, job }
}

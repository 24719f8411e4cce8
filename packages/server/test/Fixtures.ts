import { Result } from "effect"
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

/** A client of one service acting with one token (none when undefined). */
export const client = (url: string, token: string | undefined) => async (method: string, path: string, body?: unknown): Promise<Answer> => {
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

/** A client. */
export type Client = ReturnType<typeof client>

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
export const registerWorld = async (call: Client, tag: string): Promise<World> => {
  const queue = await call("POST", "/queues", queueBody(`q-${tag}`))
  if (queue.status !== 200) throw new Error(`queue: ${JSON.stringify(queue.body)}`)
  const entrypoint = await call("POST", "/entrypoints", entrypointBody(`ep-${tag}`, [queue.body.id]))
  if (entrypoint.status !== 200) throw new Error(`entrypoint: ${JSON.stringify(entrypoint.body)}`)
  const experiment = await call("POST", "/experiments", { name: `ex-${tag}`, entrypoints: [entrypoint.body.id] })
  if (experiment.status !== 200) throw new Error(`experiment: ${JSON.stringify(experiment.body)}`)
  return { queue: queue.body.id, entrypoint: entrypoint.body.id, experiment: experiment.body.id }
}

/** Registers a world named with `tag` and creates a job in it; fails the test if either is refused. */
export const newJob = async (call: Client, tag: string, extra: Record<string, unknown> = {}) => {
  const world = await registerWorld(call, tag)
  const created = await call("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, extra))
  if (created.status !== 200) throw new Error(`job: ${JSON.stringify(created.body)}`)
  return { world, job: created.body as { readonly id: number } }
}

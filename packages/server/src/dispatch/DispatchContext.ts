import type { Backend, Gate } from "@dispatch/effects"
import { decodeConfig } from "@dispatch/render"
import { Effect, Option, Result } from "effect"
import type { ClusterRuntime } from "./ClusterRuntime.ts"
import type { SqlClient } from "effect/sql"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { queueGates, type GateRow } from "../store/QueueGates.ts"
import type { DispatchInput, RetryPolicy } from "@dispatch/jobs"

/** What every part of the dispatcher shares: the cluster, who this process is, its clock and settings. Its Effects take
 * the database (effect/sql's SqlClient) from their context. */
export interface DispatchContext {
  readonly cluster: ClusterRuntime
  /** This process's name on its claims and leases. */
  readonly instance: string
  /** The service's clock, epoch ms. */
  readonly clock: () => number
  /** The service's clock as an ISO-8601 string. */
  readonly now: () => string
  /** `n` random bytes. */
  readonly entropy: (n: number) => ReadonlyArray<number>
  /** The secret report tokens are made with. */
  readonly secret: string
  /** The job API's base URL the workloads post to (`.../api/v1`). */
  readonly reportUrl: string
  readonly leaseMs: number
  /** How retries are spaced and bounded. */
  readonly policy: RetryPolicy
  /** Where the dispatcher writes what an operator must read: a gate it closed and why, a pass's problems. */
  readonly log?: (line: string) => void
}

/** What the dispatch machine judges an event with, now: the clock, the policy and a fresh draw for a retry's jitter. */
export const machineInput = (context: DispatchContext): DispatchInput => {
  const [a = 0, b = 0, c = 0] = context.entropy(3)
  return { nowMs: context.clock(), policy: context.policy, draw: (a * 65_536 + b * 256 + c) / 16_777_216 }
}

/** The gate a stored row says; closed when the queue was never proven or is being proven. */
export const gateOf = (row: GateRow | undefined): Gate => {
  if (row === undefined) return { state: "closed", reason: "the queue's backend has not been proven yet" }
  if (row.state === "open") return { state: "open" }
  return { state: row.state === "proving" ? "closed" : row.state, reason: row.reason }
}

/** The Backend of a stored queue backend config and its gate; the reasons when the config no longer decodes. */
export const backendOf = (config: unknown, row: GateRow | undefined): Result.Result<Backend, ReadonlyArray<string>> => {
  const decoded = decodeConfig(config)
  return Result.isFailure(decoded) ? Result.fail(decoded.failure.reasons) : Result.succeed({ config: decoded.success, gate: gateOf(row) })
}

/** Every stored gate, by queue. */
export const readGates: Effect.Effect<ReadonlyMap<number, GateRow>, unknown, SqlClient.SqlClient> = Effect.flatMap(queueGates, (gates) =>
  Effect.map(gates.gates, (rows) => new Map(rows.map((row) => [row.queue, row])))
)

/** One queue's stored gate, if its backend has been proven. */
export const readGate = (queue: number): Effect.Effect<GateRow | undefined, unknown, SqlClient.SqlClient> =>
  Effect.flatMap(queueGates, (gates) => Effect.map(gates.gate(queue), Option.getOrUndefined))

/** Stores what a queue's Factory proved (or the reason it is not open), at `at` (ISO-8601) and `atMs`. */
export const storeGate = (queue: number, gate: Gate, at: string, atMs: number): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.flatMap(queueGates, (gates) => gates.writeGate({ queue, state: gate.state, reason: gate.state === "open" ? "" : gate.reason, at, atMs }))

/** A queue's Backend as a pass read it, or the reasons its stored config no longer decodes. */
export type QueueBackends = (queue: number) => Result.Result<Backend, ReadonlyArray<string>>

/** The Backend of each of these queues as stored now (config and gate, read once for all of them), or the reasons
 * its config no longer decodes: what a pass over many jobs asks for each job's queue. */
export const queueBackendsEffect = (queues: Iterable<number>): Effect.Effect<QueueBackends, unknown, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const ids = [...new Set(queues)]
    const configs = yield* Effect.flatMap(dispatchLeases, (leases) => leases.queueConfigs(ids))
    const gates = yield* readGates
    return (queue: number) => backendOf(configs.get(queue), gates.get(queue))
  })

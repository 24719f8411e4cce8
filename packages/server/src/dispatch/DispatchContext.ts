import type { Backend, Gate } from "@dispatch/effects"
import { decodeConfig } from "@dispatch/render"
import { Effect, Result } from "effect"
import type { ClusterRuntime } from "./ClusterRuntime.ts"
import type { Database } from "../store/Database.ts"
import { fromStore, queueConfigs, readGates, type GateRow } from "../store/DispatchStore.ts"
import type { Sql } from "../store/Database.ts"
import type { DispatchInput, RetryPolicy } from "@dispatch/jobs"

/** What every part of the dispatcher shares: the database, the cluster, who this process is, its clock and settings. */
export interface DispatchContext {
  readonly db: Database
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

/** A queue's Backend as a pass read it, or the reasons its stored config no longer decodes. */
export type QueueBackends = (queue: number) => Result.Result<Backend, ReadonlyArray<string>>

/** The Backend of each of these queues as stored now (config and gate, read once for all of them), or the reasons
 * its config no longer decodes: what a pass over many jobs asks for each job's queue. */
export const queueBackendsEffect = (sql: Sql, queues: Iterable<number>): Effect.Effect<QueueBackends, unknown> =>
  Effect.gen(function* () {
    const ids = [...new Set(queues)]
    const configs = yield* fromStore(() => queueConfigs(sql, ids))
    const gates = yield* fromStore(() => readGates(sql))
    return (queue: number) => backendOf(configs.get(queue), gates.get(queue))
  })

// A job's dispatch as an effect/workflow workflow on effect/cluster's SQL-backed engine: the spike behind the verdict
// in docs/architecture.md ("Why dispatch keeps leases, not effect/workflow"). Start, own, read-back and Stop are
// activities calling the Cluster service; the job's end comes as a durable deferred (what status sync would complete);
// a cancel is the workflow's interruption, and Stop is Start's compensation. Each activity counts its executions, so a
// test can tell a replayed result (read back from the engine's tables) from a second call to the cluster.
import { PGlite } from "@electric-sql/pglite"
import { Cluster, TrainJobs } from "@dispatch/effects"
import { Effect, Layer, Option, Schema } from "effect"
import { ClusterWorkflowEngine, RunnerAddress, SingleRunner } from "effect/cluster"
import { Digest } from "effect/crypto"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { Activity, DurableDeferred, Workflow, WorkflowEngine } from "effect/workflow"
import { pgliteClient } from "../../src/store/PgliteClient.ts"
import { postgresClientLayer } from "../../src/store/PostgresClient.ts"

/** The namespace the spike's TrainJobs live in. */
export const namespace = "ml-team"

/** The TrainJob's name for a job. */
export const trainJobName = (job: number): string => `dj-${job}`

/** The dispatch failed for a reason the cluster gave. */
export class DispatchFailed extends Schema.TaggedError<DispatchFailed>()("DispatchFailed", { reason: Schema.String }) {}

/** One job's dispatch, keyed by the job: a second execute of the same job joins the first. */
export const JobDispatchWorkflow = Workflow.make("JobDispatch", {
  payload: { job: Schema.Number },
  success: Schema.String,
  error: DispatchFailed,
  idempotencyKey: ({ job }) => String(job)
})

/** The job's end as status sync would report it: the TrainJob's final phase. */
export const Finished = DurableDeferred.make("Finished", { success: Schema.String })

/** Completes a job's `Finished` deferred, as status sync would when it sees the TrainJob end. */
export const finish = (job: number, phase: string) =>
  Effect.gen(function* () {
    const executionId = yield* JobDispatchWorkflow.executionId({ job })
    const token = DurableDeferred.tokenFromExecutionId(Finished, { workflow: JobDispatchWorkflow, executionId })
    yield* DurableDeferred.succeed(Finished, { token, value: phase })
  })

/** How many times each activity ran its body (calls to the cluster), by activity and job. */
export type Executions = Map<string, number>

const counted = (executions: Executions, key: string) => Effect.sync(() => void executions.set(key, (executions.get(key) ?? 0) + 1))

const failed = (cause: { readonly _tag: string }) => new DispatchFailed({ reason: cause._tag })

const trainJob = (job: number, owner: string) => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name: trainJobName(job), namespace, labels: { "dispatch/job": String(job) }, annotations: { "dispatch/owner": owner } },
  spec: { runtimeRef: { apiGroup: "trainer.kubeflow.org", kind: "TrainingRuntime", name: "dioptra-torch" }, suspend: true }
})

/** What the workflow's body may hold up on, so a test can stop it between two activities. */
export interface Gates {
  /** Runs after Start's activity and before own's; the default passes at once. */
  readonly afterStart: (job: number) => Effect.Effect<void>
}

/** The workflow's body registered with the engine in context, its activities over the Cluster in context. */
export const jobDispatchLayer = (executions: Executions, gates: Gates = { afterStart: () => Effect.void }) =>
  JobDispatchWorkflow.toLayer(
    Effect.fn(function* ({ job }, executionId) {
      const cluster = yield* Cluster
      const key = { namespace, name: trainJobName(job) }
      const stop = Activity.make({
        name: "Stop",
        error: DispatchFailed,
        execute: counted(executions, `Stop ${job}`).pipe(
          Effect.andThen(cluster.delete(TrainJobs, key, { propagation: "Background" })),
          Effect.catchTag("ClusterError", (e) => (e.reason === "NotFound" ? Effect.void : Effect.fail(failed({ _tag: e.reason }))))
        )
      })
      // Start creates the TrainJob; if the workflow ends in failure or interruption after it, Stop removes it.
      const uid = yield* Activity.make({
        name: "Start",
        success: Schema.String,
        error: DispatchFailed,
        execute: counted(executions, `Start ${job}`).pipe(
          Effect.andThen(cluster.create(TrainJobs, trainJob(job, "none"))),
          Effect.map((created) => String((created.metadata as { uid?: unknown }).uid)),
          Effect.mapError((e) => failed({ _tag: e.reason }))
        )
      }).pipe(JobDispatchWorkflow.withCompensation(() => Effect.orDie(stop)))
      yield* gates.afterStart(job)
      yield* Activity.make({
        name: "Own",
        error: DispatchFailed,
        execute: counted(executions, `Own ${job}`).pipe(
          Effect.andThen(cluster.mergePatch(TrainJobs, key, { metadata: { annotations: { "dispatch/owner": executionId } } })),
          Effect.asVoid,
          Effect.mapError((e) => failed({ _tag: e.reason }))
        )
      })
      yield* Activity.make({
        name: "ReadBack",
        error: DispatchFailed,
        execute: counted(executions, `ReadBack ${job}`).pipe(
          Effect.andThen(cluster.get(TrainJobs, key)),
          Effect.mapError((e) => failed({ _tag: e.reason })),
          Effect.flatMap((read) => {
            const metadata = read.metadata as { uid?: unknown; annotations?: Record<string, unknown> }
            return metadata.uid === uid && metadata.annotations?.["dispatch/owner"] === executionId
              ? Effect.void
              : Effect.fail(new DispatchFailed({ reason: "the TrainJob read back is not the one started and owned" }))
          })
        )
      })
      const phase = yield* DurableDeferred.await(Finished)
      yield* stop
      return phase
    })
  )

/** effect/cluster's single-runner engine (SQL message and runner storage) and the workflow engine on the SqlClient in
 * context. `runner` names this engine's runner (two engines on one database need two names); `pollMs` is how often it
 * reads messages other runners stored for its shards, `refreshAssignmentsMs` how often it reads which runners are alive
 * (effect/cluster's default is 3 s; the tests' engines check often so that a second engine takes its shards soon). */
export const engineLayer = (runner: string, pollMs = 50, refreshAssignmentsMs = 200) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(
      SingleRunner.layer({
        shardingConfig: {
          runnerAddress: Option.some(RunnerAddress.make(runner, 0)),
          entityMessagePollInterval: `${pollMs} millis`,
          entityReplyPollInterval: `${pollMs} millis`,
          refreshAssignmentsInterval: `${refreshAssignmentsMs} millis`,
          // Shard locks as rows, not PostgreSQL advisory locks. With advisory locks the runner storage sets
          // idle_session_timeout on the connection it reserves; when the server ends that session (57P05), the
          // service's PostgreSQL client, which listens for errors on its pool but not on a checked-out connection,
          // lets node-postgres's error escape as an uncaught exception. (PGlite always uses rows.)
          shardLockDisableAdvisory: true
        }
      })
    ),
    Layer.provide(Digest.layerWebCrypto)
  )

/** Waits until `condition` holds, checking every 20 ms; fails naming `what` if it has not within `boundMs`. Real time:
 * the engine paces itself on effect's clock, and the tests wait for what it does, not for a duration. */
export const until = async (what: string, condition: () => boolean | Promise<boolean>, boundMs = 60_000): Promise<void> => {
  const deadline = Date.now() + boundMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A statement counter: how many statements a client sent, read by the test. */
export interface Counter {
  statements: number
  /** When present, how many times each statement's text (its first line) was sent. */
  texts?: Map<string, number>
}

/** Counts one statement. */
export const countStatement = (counter: Counter, text: unknown) => {
  counter.statements++
  if (counter.texts === undefined) return
  const line = String(typeof text === "object" && text !== null && "text" in text ? text.text : text).trim().replace(/\s+/g, " ").slice(0, 90)
  counter.texts.set(line, (counter.texts.get(line) ?? 0) + 1)
}

/** An effect/sql client over an in-memory PGlite whose statements are counted. */
export const countedPglite = (db: PGlite, counter: Counter): Layer.Layer<SqlClient.SqlClient> => {
  const counting = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (property === "query" || property === "exec") {
        return (...args: Array<unknown>) => {
          countStatement(counter, args[0])
          return (value as (...a: Array<unknown>) => unknown).apply(target, args)
        }
      }
      return typeof value === "function" ? value.bind(target) : value
    }
  })
  return Layer.effect(SqlClient.SqlClient, pgliteClient(counting)).pipe(Layer.provide(Reactivity.layer))
}

/** The service's PostgreSQL client layer. */
export const postgresClient = (url: string, poolSize = 10) => postgresClientLayer(url, poolSize)

export { WorkflowEngine }

import {
  catalogOf,
  defaultRetryPolicy,
  recordMetric,
  setMlflowRunId,
  stampLog,
  statusOf,
  step,
  transition,
  wireMetricValue,
  validateJobRequest,
  type InvalidSearch,
  type InvalidTransition,
  type JobStatus,
  type MetricRecord,
  type StatusChange
} from "@dispatch/jobs"
import { Effect, Option, Result, type Schema } from "effect"
import type { SqlError } from "effect/sql"
import { metricNumber, type MetricResponse, type StatusResponse, type StoredJob } from "../wire/ApiSchemas.ts"
import type { Principal } from "./Auth.ts"
import type { Sql } from "../store/Database.ts"
import { onStore, runOn } from "../store/DatabaseBridge.ts"
import { dispatchRows } from "../store/DispatchRows.ts"
import { jobHistory, logSearchFields, MetricRow } from "../store/JobHistory.ts"
import { jobs, jobSearchFields, type JobOwner, type UnreadableJob } from "../store/Jobs.ts"
import { stateOf } from "../dispatch/DispatchRow.ts"
import { listPage, renderRows, type RowNames, type UnreadableItem } from "../wire/ListPage.ts"
import type { PageQuery, Page } from "../wire/Paging.ts"
import { isTrue, searchTerms } from "../wire/DioptraPaging.ts"
import { namesOtherGroup } from "../store/Groups.ts"
import { jobWire, type NamedJob } from "../wire/JobWire.ts"
import { insertArtifact, loadCatalogRows, readArtifact, readExperiment } from "../store/ResourceStore.ts"
import { JobListQuery, JobsGroup } from "./Api.ts"
import { promiseRoute as route, type QueryValue, type RequestContext } from "./Route.ts"
import { AlreadyExists, JobNotControllable, refusal, refusalOf, ResourceNotFound, TooManyReferences, type Refusal } from "../wire/ServiceProblem.ts"


const jobNotFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

// Every job sub-resource first finds the job in the caller's group: that is where cross-group access stops.
const withJob = async <A>(
  sql: Sql,
  group: string,
  id: number,
  body: (job: StoredJob, named: NamedJob) => Promise<Result.Result<A, Refusal>>,
  lock = false
): Promise<Result.Result<A, Refusal>> => {
  const named = Option.getOrUndefined(await onStore(sql, jobs, (stored) => stored.read(group, id, lock)))
  return named === undefined ? Result.fail(jobNotFound(id)) : body(named.job, named)
}

// A job named under an experiment it is not in is as missing as a job that does not exist, as upstream answers.
const withExperimentJob = <A>(
  sql: Sql,
  group: string,
  params: { readonly experimentId: number; readonly jobId: number },
  body: (job: StoredJob, named: NamedJob) => Promise<Result.Result<A, Refusal>>,
  lock = false
): Promise<Result.Result<A, Refusal>> =>
  withJob(sql, group, params.jobId, (job, named) => (job.experiment === params.experimentId ? body(job, named) : Promise.resolve(Result.fail(jobNotFound(params.jobId)))), lock)

// A list refused for its search answers the refusal instead of a page.
async function searchedPage<A>(context: SearchContext, path: string, read: SearchRead<A>): Promise<Result.Result<Page<A>, Refusal>>
async function searchedPage<A>(context: SearchContext, path: string, read: SearchRead<A>, names: RowNames): Promise<Result.Result<Page<A | UnreadableItem>, Refusal>>
async function searchedPage<A>(context: SearchContext, path: string, read: SearchRead<A>, names?: RowNames): Promise<Result.Result<Page<A | UnreadableItem>, Refusal>> {
  let refused: InvalidSearch | undefined
  const reading = async (offset: number, limit: number) => {
    const read_ = await read(offset, limit)
    if (Result.isSuccess(read_)) return read_.success
    refused = read_.failure
    return { items: [], total: 0 }
  }
  const listed = names === undefined ? await listPage(context, path, reading) : await listPage(context, path, reading, names)
  return refused === undefined ? Result.succeed(listed) : Result.fail(refusal(refused))
}

type SearchContext = RequestContext<unknown, PageQuery & Readonly<Record<string, QueryValue | undefined>>, unknown>
type SearchRead<A> = (offset: number, limit: number) => Promise<Result.Result<{ readonly items: ReadonlyArray<A>; readonly total: number }, InvalidSearch>>

/** The owner a new job records: the caller's group and name, and its user id when a user logged in. */
export const ownerOf = (principal: Principal): JobOwner => ({ group: principal.group, user: principal.name, ...(principal.userId === undefined ? {} : { userId: principal.userId }) })

const inputAt = (at: string) => ({ nowMs: Date.parse(at), policy: defaultRetryPolicy, draw: 0 })

/** Deletes a job as the dispatch machine says: its rows stay, as upstream keeps a deleted job's history, and a job
 * an attempt was made for stays `stopping` (hidden from the API) until Stop left nothing of it on the cluster. A
 * dispatcher's claim is kept, so the stop waits for its Start to end. False when there is no such job. */
const deleteJob = (group: string, id: number, at: string) =>
  Effect.gen(function* () {
    const rows = yield* dispatchRows
    // Read, decided and written against what was read: a row that moved meanwhile (a dispatcher's answer) is read again.
    for (;;) {
      const found = yield* rows.live(group, id)
      if (Option.isNone(found)) return false
      const answer = step(stateOf(found.value), { type: "delete" }, inputAt(at))
      if (answer.refused !== undefined) return false
      if (yield* rows.writeAnswer(found.value, answer, at, { claim: "keep", modified: true })) return true
    }
  })

/** A status write (Dioptra's `PUT .../status`) as the dispatch machine allows it: a change Dioptra's transitions
 * refuse is `InvalidTransition`; one on a job the service drives on the cluster is `JobNotControllable`. The job's
 * row must be locked by the caller. Answers the job's new status. */
const writeStatus = (id: number, change: StatusChange, at: string) =>
  Effect.gen(function* () {
    const rows = yield* dispatchRows
    const found = yield* rows.read(id)
    if (Option.isNone(found)) return Result.fail<InvalidTransition | JobNotControllable>(new JobNotControllable({ action: "set the status of", job: id, jobStatus: "deleted", dispatch: "done" }))
    const row = found.value
    const next = transition(row.status, change)
    if (Result.isFailure(next)) return Result.fail<InvalidTransition | JobNotControllable>(next.failure)
    const answer = step(stateOf(row), { type: "setStatus", change }, inputAt(at))
    if (answer.refused !== undefined) return Result.fail(new JobNotControllable({ action: "set the status of", job: id, jobStatus: row.status, dispatch: row.dispatchState }))
    yield* rows.writeAnswer(row, answer, at, { claim: "keep" })
    return Result.succeed<JobStatus>(statusOf(answer.state))
  })

const removeJob = async (db: Sql, group: string, id: number, at: string) =>
  (await runOn(db, deleteJob(group, id, at))) ? Result.succeed({ status: "Success" as const, id: [id] }) : Result.fail(jobNotFound(id))

// The run id is kept canonical (dashed, lower case), so uniqueness holds across MLflow's and Python's spellings.
const setRunId = (sql: Sql, group: string, job: StoredJob, runId: string, at: string) => {
  const updated = setMlflowRunId(job, runId, at)
  if (Result.isFailure(updated)) return Promise.resolve(Result.fail(refusal(updated.failure)))
  const canonical = updated.success.mlflowRunId ?? runId
  return onStore(sql, jobs, (stored) =>
    Effect.flatMap(stored.withMlflowRun(group, canonical), (holder): Effect.Effect<Result.Result<{ readonly mlflowRunId: string }, Refusal>, SqlError.SqlError | Schema.SchemaError> =>
      Option.isSome(holder)
        ? Effect.succeed(Result.fail(refusal(new AlreadyExists({ resource: "job", field: "mlflowRunId", value: canonical }))))
        : Effect.as(stored.setMlflowRun(job.id, canonical, updated.success.lastModifiedOn), Result.succeed({ mlflowRunId: canonical }))
    )
  )
}

const statusAnswer = async (sql: Sql, job: StoredJob): Promise<StatusResponse> => ({
  id: job.id,
  status: job.status,
  // Every status the job has had, oldest first, with the reason the service gave for it.
  history: (await onStore(sql, jobHistory, (history) => history.statuses(job.id))).map(({ reason, ...entry }) => (reason === null ? entry : { ...entry, reason }))
})

const metricAnswer = (row: typeof MetricRow.Type): MetricResponse => {
  const { specialValue, ...rest } = row
  const record: MetricRecord = { ...rest, ...(specialValue === null ? {} : { specialValue }) }
  return { job: record.job, name: record.name, step: record.step, value: wireMetricValue(record), timestamp: record.timestamp }
}

type JobListContext = RequestContext<unknown, typeof JobListQuery.Type, unknown>

const jobPage = (context: JobListContext, path: string, experiment?: number) =>
  searchedPage(context, path, async (offset, limit) => {
    // Another group's list is empty, but its search is still checked, as the other lists check it.
    const other = namesOtherGroup(context.query.groupId, context.principal.groupId)
    const terms = searchTerms(context.query.search, jobSearchFields)
    if (Result.isFailure(terms)) return Result.fail(terms.failure)
    const listed = await onStore(context.db, jobs, (stored) =>
      stored.list({
        group: context.principal.group,
        ...(experiment === undefined ? {} : { experiment }),
        terms: terms.success,
        sortBy: context.query.sortBy ?? "id",
        descending: isTrue(context.query.descending),
        offset,
        limit: other ? 0 : limit
      })
    )
    return Result.succeed(other ? { items: [], total: 0 } : { items: renderRows(context, jobNames, listed.jobs, rowId, (row) => jobWire(readable(row), context.link)), total: listed.total })
  }, jobNames)

const rowId = (row: Result.Result<NamedJob, UnreadableJob>) => (Result.isSuccess(row) ? row.success.job.id : row.failure.id)

// A row that did not decode is rendered as what it is, so the list answers it as unreadable.
const readable = (row: Result.Result<NamedJob, UnreadableJob>): NamedJob => {
  if (Result.isFailure(row)) throw row.failure.error
  return row.success
}

const jobNames: RowNames = { resource: "job", path: (id) => `/jobs/${id}` }

/** Dioptra's job endpoints. */
export const jobRoutes = [
  route(JobsGroup, "create", {
    // Two statements and no transaction of its own: the single INSERT is atomic, and a transaction would lock
    // nothing the catalog read sees (READ COMMITTED takes no row locks on a read), only add two round trips. Under an
    // Idempotency-Key both run in the key's transaction.
    handle: async ({ principal, params, body, db: sql, now, link }) => {
      const rows = await loadCatalogRows(sql, principal.group, {
        experiment: params.id,
        entrypoint: body.entrypoint,
        queue: body.queue,
        artifacts: Object.values(body.artifactValues ?? {}).map((ref) => ref.id),
        entrypointSnapshot: body.entrypointSnapshot
      })
      const catalog = catalogOf({
        experiments: rows.experiment === undefined ? [] : [rows.experiment],
        entrypoints: rows.entrypoint === undefined ? [] : [rows.entrypoint],
        queues: rows.queue === undefined ? [] : [rows.queue],
        artifacts: rows.artifacts
      })
      const accepted = validateJobRequest(params.id, body, catalog)
      if (Result.isFailure(accepted)) return Result.fail(refusalOf(accepted.failure.problems))
      const job = Option.getOrUndefined(await onStore(sql, jobs, (stored) => stored.insert(ownerOf(principal), accepted.success, now())))
      return job === undefined ? Result.fail(jobNotFound(0)) : Result.succeed(jobWire(job, link))
    }
  }),
  route(JobsGroup, "list", {
    handle: (context) => jobPage(context, "/jobs")
  }),
  route(JobsGroup, "listInExperiment", {
    handle: async (context) => {
      const experiment = await readExperiment(context.db, context.principal.group, context.params.id)
      if (experiment === undefined) return Result.fail(refusal(new ResourceNotFound({ resource: "experiment", id: String(context.params.id) })))
      return jobPage(context, `/experiments/${context.params.id}/jobs`, context.params.id)
    }
  }),
  route(JobsGroup, "read", {
    handle: ({ principal, params, db, link }) => withJob(db, principal.group, params.id, async (_, named) => Result.succeed(jobWire(named, link)))
  }),
  route(JobsGroup, "readInExperiment", {
    handle: ({ principal, params, db, link }) => withExperimentJob(db, principal.group, params, async (_, named) => Result.succeed(jobWire(named, link)))
  }),
  route(JobsGroup, "delete", {
    handle: ({ principal, params, db, now }) => removeJob(db, principal.group, params.id, now())
  }),
  route(JobsGroup, "deleteInExperiment", {
    handle: ({ principal, params, db, now }) =>
      db.transaction((sql) => withExperimentJob(sql, principal.group, params, (job) => removeJob(sql, principal.group, job.id, now()), true))
  }),
  route(JobsGroup, "parameters", {
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(job.values))
  }),
  route(JobsGroup, "artifactParameters", {
    handle: ({ principal, params, db }) =>
      withJob(db, principal.group, params.id, async (job) => {
        const artifacts = await onStore(db, jobs, (stored) => stored.artifactsOf(principal.group, Object.values(job.artifactValues).map((ref) => ref.id)))
        return Result.succeed(
          Object.fromEntries(
            Object.entries(job.artifactValues).map(([name, ref]) => [
              name,
              {
                artifact_id: ref.id,
                artifact_snapshot_id: ref.snapshotId,
                artifact_type: artifacts.get(ref.id)?.artifactType ?? "",
                artifact_uri: artifacts.get(ref.id)?.uri ?? null
              }
            ])
          )
        )
      })
  }),
  route(JobsGroup, "createArtifact", {
    handle: ({ principal, params, body, db, now, limits }) =>
      db.transaction((sql) =>
        withExperimentJob(sql, principal.group, params, async (job) => {
          // A job answers every artifact it produced: their number is bounded.
          if (job.artifacts.length >= limits.references) {
            return Result.fail(refusal(new TooManyReferences({ resource: "job", id: job.id, field: "artifacts", count: job.artifacts.length + 1, limit: limits.references })))
          }
          const id = await insertArtifact(sql, principal.group, body.artifactType ?? "artifact", now(), {
            job: job.id,
            uri: body.uri,
            ...(body.description === undefined ? {} : { description: body.description })
          })
          const artifact = await readArtifact(sql, principal.group, id)
          return artifact === undefined ? Result.fail(refusal(new ResourceNotFound({ resource: "artifact", id: String(id) }))) : Result.succeed(artifact)
        })
      )
  }),
  route(JobsGroup, "status", {
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(await statusAnswer(db, job)))
  }),
  route(JobsGroup, "statusInExperiment", {
    handle: ({ principal, params, db }) => withExperimentJob(db, principal.group, params, async (job) => Result.succeed(await statusAnswer(db, job)))
  }),
  route(JobsGroup, "setStatus", {
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withExperimentJob(
          sql,
          principal.group,
          params,
          async (job) => {
            const next = await runOn(sql, writeStatus(job.id, body.status, now()))
            if (Result.isFailure(next)) return Result.fail(refusal(next.failure))
            return Result.succeed(await statusAnswer(sql, { ...job, status: next.success }))
          },
          true
        )
      )
  }),
  route(JobsGroup, "log", {
    handle: (context) =>
      withJob(context.db, context.principal.group, context.params.id, (job) =>
        searchedPage(context, `/jobs/${job.id}/log`, async (offset, limit) => {
          const { severity, sortBy, search } = context.query
          const terms = searchTerms(search, logSearchFields)
          if (Result.isFailure(terms)) return Result.fail(terms.failure)
          const { records, total } = await onStore(context.db, jobHistory, (history) =>
            history.logs({
              job: job.id,
              terms: terms.success,
              ...(severity === undefined ? {} : { severities: typeof severity === "string" ? [severity] : severity }),
              ...(sortBy === undefined ? {} : { sortBy }),
              descending: isTrue(context.query.descending),
              offset,
              limit
            })
          )
          return Result.succeed({ items: records, total })
        })
      )
  }),
  route(JobsGroup, "appendLog", {
    reports: true,
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withJob(sql, principal.group, params.id, async (job) => {
          const at = now()
          const records = body.data.map((input) => stampLog(job.id, input, at))
          await onStore(sql, jobHistory, (history) => history.appendLogs(records))
          return Result.succeed(records)
        })
      )
  }),
  route(JobsGroup, "metrics", {
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed((await onStore(db, jobHistory, (history) => history.latestMetrics(job.id))).map(metricAnswer)))
  }),
  route(JobsGroup, "recordMetric", {
    reports: true,
    handle: ({ principal, params, body, db, now }) =>
      withJob(db, principal.group, params.id, async (job) => {
        const record = recordMetric(
          job.id,
          { name: body.name, step: body.step ?? 0, value: metricNumber(body.value), ...(body.timestamp === undefined ? {} : { timestamp: body.timestamp }) },
          now()
        )
        if (Result.isFailure(record)) return Result.fail(refusalOf(record.failure.problems))
        const recorded = record.success
        await onStore(db, jobHistory, (history) => history.appendMetric(recorded))
        return Result.succeed({ ...record.success, value: wireMetricValue(record.success) })
      })
  }),
  route(JobsGroup, "metricSnapshots", {
    handle: (context) =>
      withJob(context.db, context.principal.group, context.params.id, async (job) => {
        // A metric never posted is an empty page, as upstream answers it, not a 404.
        const listed = await listPage(context, `/jobs/${job.id}/metrics/${encodeURIComponent(context.params.name)}/snapshots`, async (offset, limit) => {
          const { records, total } = await onStore(context.db, jobHistory, (history) => history.metricValues(job.id, context.params.name, offset, limit))
          return { items: records.map(metricAnswer), total }
        })
        return Result.succeed(listed)
      })
  }),
  route(JobsGroup, "mlflowRun", {
    handle: ({ principal, params, db }) =>
      withJob(db, principal.group, params.id, async (job) => Result.succeed({ mlflowRunId: job.mlflowRunId ?? null }))
  }),
  route(JobsGroup, "setMlflowRun", {
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withJob(sql, principal.group, params.id, (job) => setRunId(sql, principal.group, job, body.mlflowRunId, now()), true)
      )
  }),
  route(JobsGroup, "mlflowRunInExperiment", {
    handle: ({ principal, params, db }) =>
      withExperimentJob(db, principal.group, params, async (job) => Result.succeed({ mlflowRunId: job.mlflowRunId ?? null }))
  }),
  route(JobsGroup, "setMlflowRunInExperiment", {
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) => withExperimentJob(sql, principal.group, params, (job) => setRunId(sql, principal.group, job, body.mlflowRunId, now()), true))
  })
]

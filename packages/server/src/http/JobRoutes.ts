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
  type DispatchInput,
  type MetricRecord,
  type StatusChange
} from "@dispatch/jobs"
import { Effect, Option, Result } from "effect"
import { metricNumber, type MetricResponse, type StatusResponse, type StoredJob } from "../wire/ApiSchemas.ts"
import type { Principal } from "./Auth.ts"
import { dispatchRows } from "../store/DispatchRows.ts"
import { jobHistory, logSearchFields, type MetricRow } from "../store/JobHistory.ts"
import { jobs, jobSearchFields, type JobOwner, type UnreadableJob } from "../store/Jobs.ts"
import { stateOf } from "../dispatch/DispatchRow.ts"
import { listContext, pageOf, renderRows, type RowNames } from "./ListPage.ts"
import { isTrue, searchTerms } from "../wire/DioptraPaging.ts"
import { namesOtherGroup } from "../store/Groups.ts"
import { jobWire, type NamedJob } from "../wire/JobWire.ts"
import { resources } from "../store/Resources.ts"
import { downsampledSnapshots } from "../store/DownsampledMetric.ts"
import { JobListQuery, JobsGroup } from "./Api.ts"
import { route } from "./Route.ts"
import { AnswerLimitsService, Caller, Links, now, stored, transaction, type ServiceClock } from "./RequestServices.ts"
import { AlreadyExists, JobNotControllable, refusal, refusalOf, ResourceNotFound, TooManyReferences } from "../wire/ServiceProblem.ts"

/** The refusal of a job the caller cannot see (none, another group's, or deleted): 404. */
export const jobNotFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

/** The caller's job `id`, not deleted; `lock` holds its row until the transaction ends. Every job sub-resource
 * first finds the job so: that is where cross-group access stops. */
export const findJob = (id: number, lock = false) =>
  Effect.gen(function* () {
    const { group } = yield* Caller
    const store = yield* jobs
    const named = yield* stored(store.read(group, id, lock))
    return Option.isSome(named) ? named.value : yield* Effect.fail(jobNotFound(id))
  })

// A job named under an experiment it is not in is as missing as a job that does not exist, as upstream answers.
const findExperimentJob = (params: { readonly experimentId: number; readonly jobId: number }, lock = false) =>
  Effect.flatMap(findJob(params.jobId, lock), (named) => (named.job.experiment === params.experimentId ? Effect.succeed(named) : Effect.fail(jobNotFound(params.jobId))))

/** A job as the wire answers it, its references linked for this request. */
export const jobAnswer = (named: NamedJob) => Links.use(({ link }) => Effect.succeed(jobWire(named, link)))

/** The owner a new job records: the caller's group and name, and its user id when a user logged in. */
export const ownerOf = (principal: Principal): JobOwner => ({ group: principal.group, user: principal.name, ...(principal.userId === undefined ? {} : { userId: principal.userId }) })

// What the dispatch machine is told with an event at `at`: the time, the retry policy, and no retry draw.
const inputAt = (at: string): DispatchInput => ({ nowMs: Date.parse(at), policy: defaultRetryPolicy, draw: 0 })

/** What the dispatch machine is told with an event: the service's time now, the retry policy, and no retry draw. */
export const machineInput: Effect.Effect<DispatchInput, never, ServiceClock> = Effect.map(now, inputAt)

/** Deletes a job as the dispatch machine says: its rows stay, as upstream keeps a deleted job's history, and a job
 * an attempt was made for stays `stopping` (hidden from the API) until Stop left nothing of it on the cluster. A
 * dispatcher's claim is kept, so the stop waits for its Start to end. Not found when there is no such job. */
const deleteJob = (id: number) =>
  Effect.gen(function* () {
    const { group } = yield* Caller
    const rows = yield* dispatchRows
    const at = yield* now
    const input = inputAt(at)
    // Read, decided and written against what was read: a row that moved meanwhile (a dispatcher's answer) is read again.
    for (;;) {
      const found = yield* stored(rows.live(group, id))
      if (Option.isNone(found)) return yield* Effect.fail(jobNotFound(id))
      const answer = step(stateOf(found.value), { type: "delete" }, input)
      if (answer.refused !== undefined) return yield* Effect.fail(jobNotFound(id))
      if (yield* stored(rows.writeAnswer(found.value, answer, at, { claim: "keep", modified: true }))) return { status: "Success" as const, id: [id] }
    }
  })

/** A status write (Dioptra's `PUT .../status`) as the dispatch machine allows it: a change Dioptra's transitions
 * refuse is `InvalidTransition`; one on a job the service drives on the cluster is `JobNotControllable`. The job's
 * row must be locked by the caller. Answers the job's new status. */
const writeStatus = (id: number, change: StatusChange) =>
  Effect.gen(function* () {
    const rows = yield* dispatchRows
    const at = yield* now
    const found = yield* stored(rows.read(id))
    if (Option.isNone(found)) return yield* Effect.fail(refusal(new JobNotControllable({ action: "set the status of", job: id, jobStatus: "deleted", dispatch: "done" })))
    const row = found.value
    const next = transition(row.status, change)
    if (Result.isFailure(next)) return yield* Effect.fail(refusal(next.failure))
    const answer = step(stateOf(row), { type: "setStatus", change }, inputAt(at))
    if (answer.refused !== undefined) return yield* Effect.fail(refusal(new JobNotControllable({ action: "set the status of", job: id, jobStatus: row.status, dispatch: row.dispatchState })))
    yield* stored(rows.writeAnswer(row, answer, at, { claim: "keep" }))
    return statusOf(answer.state)
  })

// The run id is kept canonical (dashed, lower case), so uniqueness holds across MLflow's and Python's spellings.
const setRunId = (job: StoredJob, runId: string) =>
  Effect.gen(function* () {
    const { group } = yield* Caller
    const updated = setMlflowRunId(job, runId, yield* now)
    if (Result.isFailure(updated)) return yield* Effect.fail(refusal(updated.failure))
    const canonical = updated.success.mlflowRunId ?? runId
    const store = yield* jobs
    if (Option.isSome(yield* stored(store.withMlflowRun(group, canonical)))) {
      return yield* Effect.fail(refusal(new AlreadyExists({ resource: "job", field: "mlflowRunId", value: canonical })))
    }
    yield* stored(store.setMlflowRun(job.id, canonical, updated.success.lastModifiedOn))
    return { mlflowRunId: canonical }
  })

const statusAnswer = (job: StoredJob) =>
  Effect.gen(function* () {
    const history = yield* jobHistory
    // Every status the job has had, oldest first, with the reason the service gave for it.
    const statuses = yield* stored(history.statuses(job.id))
    const answer: StatusResponse = { id: job.id, status: job.status, history: statuses.map(({ reason, ...entry }) => (reason === null ? entry : { ...entry, reason })) }
    return answer
  })

const metricAnswer = (row: typeof MetricRow.Type): MetricResponse => {
  const { specialValue, ...rest } = row
  const record: MetricRecord = { ...rest, ...(specialValue === null ? {} : { specialValue }) }
  return { job: record.job, name: record.name, step: record.step, value: wireMetricValue(record), timestamp: record.timestamp }
}

const jobNames: RowNames = { resource: "job", path: (id) => `/jobs/${id}` }

const rowId = (row: Result.Result<NamedJob, UnreadableJob>) => (Result.isSuccess(row) ? row.success.job.id : row.failure.id)

// A row that did not decode is rendered as what it is, so the list answers it as unreadable.
const readable = (row: Result.Result<NamedJob, UnreadableJob>): NamedJob => {
  if (Result.isFailure(row)) throw row.failure.error
  return row.success
}

const jobPage = (query: typeof JobListQuery.Type, path: string, experiment?: number) =>
  Effect.gen(function* () {
    const principal = yield* Caller
    const terms = searchTerms(query.search, jobSearchFields)
    if (Result.isFailure(terms)) return yield* Effect.fail(refusal(terms.failure))
    // Another group's list is empty, but its search is still checked, as the other lists check it.
    const other = namesOtherGroup(query.groupId, principal.groupId)
    const store = yield* jobs
    const context = yield* listContext(query)
    return yield* pageOf(
      query,
      path,
      (offset, limit) =>
        Effect.map(
          stored(
            store.list({
              group: principal.group,
              ...(experiment === undefined ? {} : { experiment }),
              terms: terms.success,
              sortBy: query.sortBy ?? "id",
              descending: isTrue(query.descending),
              offset,
              limit: other ? 0 : limit
            })
          ),
          (listed) => (other ? { items: [], total: 0 } : { items: renderRows(context, jobNames, listed.jobs, rowId, (row) => jobWire(readable(row), context.link)), total: listed.total })
        ),
      jobNames
    )
  })

/** Dioptra's job endpoints. */
export const jobRoutes = [
  route(JobsGroup, "create", {
    // Two statements and no transaction of its own: the single INSERT is atomic, and a transaction would lock
    // nothing the catalog read sees (READ COMMITTED takes no row locks on a read), only add two round trips. Under an
    // Idempotency-Key both run in the key's transaction.
    handle: ({ params, body }) =>
      Effect.gen(function* () {
        const principal = yield* Caller
        const catalogRows = yield* resources
        const rows = yield* stored(
          catalogRows.loadCatalogRows(principal.group, {
            experiment: params.id,
            entrypoint: body.entrypoint,
            queue: body.queue,
            artifacts: Object.values(body.artifactValues ?? {}).map((ref) => ref.id),
            entrypointSnapshot: body.entrypointSnapshot
          })
        )
        const catalog = catalogOf({
          experiments: rows.experiment === undefined ? [] : [rows.experiment],
          entrypoints: rows.entrypoint === undefined ? [] : [rows.entrypoint],
          queues: rows.queue === undefined ? [] : [rows.queue],
          artifacts: rows.artifacts
        })
        const accepted = validateJobRequest(params.id, body, catalog)
        if (Result.isFailure(accepted)) return yield* Effect.fail(refusalOf(accepted.failure.problems))
        const store = yield* jobs
        const job = yield* stored(store.insert(ownerOf(principal), accepted.success, yield* now))
        return Option.isSome(job) ? yield* jobAnswer(job.value) : yield* Effect.fail(jobNotFound(0))
      })
  }),
  route(JobsGroup, "list", {
    handle: ({ query }) => jobPage(query, "/jobs")
  }),
  route(JobsGroup, "listInExperiment", {
    handle: ({ params, query }) =>
      Effect.gen(function* () {
        const { group } = yield* Caller
        const experiment = yield* stored((yield* resources).readExperiment(group, params.id))
        if (experiment === undefined) return yield* Effect.fail(refusal(new ResourceNotFound({ resource: "experiment", id: String(params.id) })))
        return yield* jobPage(query, `/experiments/${params.id}/jobs`, params.id)
      })
  }),
  route(JobsGroup, "read", {
    handle: ({ params }) => Effect.flatMap(findJob(params.id), jobAnswer)
  }),
  route(JobsGroup, "readInExperiment", {
    handle: ({ params }) => Effect.flatMap(findExperimentJob(params), jobAnswer)
  }),
  route(JobsGroup, "delete", {
    handle: ({ params }) => deleteJob(params.id)
  }),
  route(JobsGroup, "deleteInExperiment", {
    handle: ({ params }) => transaction(Effect.flatMap(findExperimentJob(params, true), (named) => deleteJob(named.job.id)))
  }),
  route(JobsGroup, "parameters", {
    handle: ({ params }) => Effect.map(findJob(params.id), (named) => named.job.values)
  }),
  route(JobsGroup, "artifactParameters", {
    handle: ({ params }) =>
      Effect.gen(function* () {
        const { job } = yield* findJob(params.id)
        const store = yield* jobs
        const artifacts = yield* stored(store.artifactsOf(job.group, Object.values(job.artifactValues).map((ref) => ref.id)))
        return Object.fromEntries(
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
      })
  }),
  route(JobsGroup, "createArtifact", {
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const { job } = yield* findExperimentJob(params)
          const limits = yield* AnswerLimitsService
          // A job answers every artifact it produced: their number is bounded.
          if (job.artifacts.length >= limits.references) {
            return yield* Effect.fail(refusal(new TooManyReferences({ resource: "job", id: job.id, field: "artifacts", count: job.artifacts.length + 1, limit: limits.references })))
          }
          const store = yield* resources
          const id = yield* stored(
            store.insertArtifact(job.group, body.artifactType ?? "artifact", yield* now, {
              job: job.id,
              uri: body.uri,
              ...(body.description === undefined ? {} : { description: body.description })
            })
          )
          const artifact = yield* stored(store.readArtifact(job.group, id))
          return artifact === undefined ? yield* Effect.fail(refusal(new ResourceNotFound({ resource: "artifact", id: String(id) }))) : artifact
        })
      )
  }),
  route(JobsGroup, "status", {
    handle: ({ params }) => Effect.flatMap(findJob(params.id), (named) => statusAnswer(named.job))
  }),
  route(JobsGroup, "statusInExperiment", {
    handle: ({ params }) => Effect.flatMap(findExperimentJob(params), (named) => statusAnswer(named.job))
  }),
  route(JobsGroup, "setStatus", {
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const { job } = yield* findExperimentJob(params, true)
          const status = yield* writeStatus(job.id, body.status)
          return yield* statusAnswer({ ...job, status })
        })
      )
  }),
  route(JobsGroup, "log", {
    handle: ({ params, query }) =>
      Effect.gen(function* () {
        const { job } = yield* findJob(params.id)
        const { severity, sortBy, search } = query
        const terms = searchTerms(search, logSearchFields)
        if (Result.isFailure(terms)) return yield* Effect.fail(refusal(terms.failure))
        const history = yield* jobHistory
        return yield* pageOf(query, `/jobs/${job.id}/log`, (offset, limit) =>
          Effect.map(
            stored(
              history.logs({
                job: job.id,
                terms: terms.success,
                ...(severity === undefined ? {} : { severities: typeof severity === "string" ? [severity] : severity }),
                ...(sortBy === undefined ? {} : { sortBy }),
                descending: isTrue(query.descending),
                offset,
                limit
              })
            ),
            ({ records, total }) => ({ items: records, total })
          )
        )
      })
  }),
  route(JobsGroup, "appendLog", {
    reports: true,
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const { job } = yield* findJob(params.id)
          const at = yield* now
          const records = body.data.map((input) => stampLog(job.id, input, at))
          const history = yield* jobHistory
          yield* stored(history.appendLogs(records))
          return records
        })
      )
  }),
  route(JobsGroup, "metrics", {
    handle: ({ params }) =>
      Effect.gen(function* () {
        const { job } = yield* findJob(params.id)
        const history = yield* jobHistory
        return (yield* stored(history.latestMetrics(job.id))).map(metricAnswer)
      })
  }),
  route(JobsGroup, "recordMetric", {
    reports: true,
    // The job is not read: the value is stored only if its job is the caller's, in the one statement that stores it
    // (the commonest request a running job sends). A job that is not there is still a 404 before a bad value's 400.
    handle: ({ params, body }) =>
      Effect.gen(function* () {
        const { group } = yield* Caller
        const record = recordMetric(
          params.id,
          { name: body.name, step: body.step ?? 0, value: metricNumber(body.value), ...(body.timestamp === undefined ? {} : { timestamp: body.timestamp }) },
          yield* now
        )
        if (Result.isFailure(record)) return yield* Effect.flatMap(findJob(params.id), () => Effect.fail(refusalOf(record.failure.problems)))
        const history = yield* jobHistory
        if (!(yield* stored(history.appendMetricOfJob(group, record.success)))) return yield* Effect.fail(jobNotFound(params.id))
        return { ...record.success, value: wireMetricValue(record.success) }
      })
  }),
  route(JobsGroup, "metricSnapshots", {
    handle: ({ params, query }) =>
      Effect.gen(function* () {
        const { job } = yield* findJob(params.id)
        const history = yield* jobHistory
        // A metric never posted is an empty page, as upstream answers it, not a 404.
        const { columns } = query
        return yield* pageOf(query, `/jobs/${job.id}/metrics/${encodeURIComponent(params.name)}/snapshots`, (offset, limit) =>
          Effect.map(
            stored(columns === undefined ? history.metricValues(job.id, params.name, offset, limit) : downsampledSnapshots(job.id, params.name, columns, offset, limit)),
            ({ records, total }) => ({ items: records.map(metricAnswer), total })
          )
        )
      })
  }),
  route(JobsGroup, "mlflowRun", {
    handle: ({ params }) => Effect.map(findJob(params.id), ({ job }) => ({ mlflowRunId: job.mlflowRunId ?? null }))
  }),
  route(JobsGroup, "setMlflowRun", {
    handle: ({ params, body }) => transaction(Effect.flatMap(findJob(params.id, true), ({ job }) => setRunId(job, body.mlflowRunId)))
  }),
  route(JobsGroup, "mlflowRunInExperiment", {
    handle: ({ params }) => Effect.map(findExperimentJob(params), ({ job }) => ({ mlflowRunId: job.mlflowRunId ?? null }))
  }),
  route(JobsGroup, "setMlflowRunInExperiment", {
    handle: ({ params, body }) => transaction(Effect.flatMap(findExperimentJob(params, true), ({ job }) => setRunId(job, body.mlflowRunId)))
  })
]

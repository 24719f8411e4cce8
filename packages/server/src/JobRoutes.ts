import {
  catalogOf,
  JobRequest,
  MetricName,
  LogRecord,
  recordMetric,
  setMlflowRunId,
  stampLog,
  transition,
  validateJobRequest
} from "@dispatch/jobs"
import { Result, Schema } from "effect"
import {
  DeletedResponse,
  IdParam,
  JobResponse,
  LogsInput,
  LogsResponse,
  metricNumber,
  MetricInputBody,
  MetricResponse,
  MetricsResponse,
  MlflowRunInput,
  MlflowRunResponse,
  StatusInput,
  StatusResponse
} from "./ApiSchemas.ts"
import type { Sql } from "./Database.ts"
import {
  deleteJob,
  insertJob,
  insertLogs,
  jobWithMlflowRun,
  latestMetrics,
  listJobs,
  metricSnapshots,
  readJob,
  readLogs,
  statusHistory,
  updateJobStatus,
  updateMlflowRun,
  upsertMetric
} from "./JobStore.ts"
import { listPage } from "./ListPage.ts"
import { PageQuery, pageOf, sortableQuery } from "./Paging.ts"
import { loadCatalogRows, readExperiment } from "./ResourceStore.ts"
import { route, type RequestContext } from "./Route.ts"
import { AlreadyExists, refusal, refusalOf, ResourceNotFound, type Refusal } from "./ServiceProblem.ts"

const JobParams = Schema.Struct({ id: IdParam })
const ExperimentParams = Schema.Struct({ id: IdParam })
const ExperimentJobParams = Schema.Struct({ experimentId: IdParam, jobId: IdParam })
const MetricParams = Schema.Struct({ id: IdParam, name: MetricName })

const JobListQuery = sortableQuery(["id", "createdOn", "lastModifiedOn", "status", "description"] as const)

const jobNotFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

// Every job sub-resource first finds the job in the caller's group: that is where cross-group access stops.
const withJob = async <A>(
  sql: Sql,
  group: string,
  id: number,
  body: (job: JobResponse) => Promise<Result.Result<A, Refusal>>,
  lock = false
): Promise<Result.Result<A, Refusal>> => {
  const job = await readJob(sql, group, id, lock)
  return job === undefined ? Result.fail(jobNotFound(id)) : body(job)
}

const statusOf = async (sql: Sql, job: JobResponse): Promise<StatusResponse> => ({
  id: job.id,
  status: job.status,
  history: await statusHistory(sql, job.id)
})

type JobListContext = RequestContext<unknown, typeof JobListQuery.Type, unknown>

const jobPage = (context: JobListContext, path: string, experiment?: number) =>
  listPage(context, path, async (offset, limit) => {
    const { jobs, total } = await listJobs(context.db, {
      group: context.principal.group,
      ...(experiment === undefined ? {} : { experiment }),
      ...(context.query.search === undefined ? {} : { search: context.query.search }),
      sortBy: context.query.sortBy ?? "id",
      descending: context.query.descending === "true",
      offset,
      limit
    })
    return { items: jobs, total }
  })

/** Dioptra's job endpoints. */
export const jobRoutes = [
  route({
    method: "POST",
    path: "/experiments/{id}/jobs",
    tag: "jobs",
    summary: "Create a job in an experiment; every problem with the request is reported at once",
    params: ExperimentParams,
    body: JobRequest,
    response: JobResponse,
    handle: ({ principal, params, body, db, now }) =>
      db.transaction(async (sql) => {
        const rows = await loadCatalogRows(sql, principal.group, {
          experiment: params.id,
          entrypoint: body.entrypoint,
          queue: body.queue,
          artifacts: Object.values(body.artifactValues ?? {}).map((ref) => ref.id)
        })
        const catalog = catalogOf({
          experiments: rows.experiment === undefined ? [] : [rows.experiment],
          entrypoints: rows.entrypoint === undefined ? [] : [rows.entrypoint],
          queues: rows.queue === undefined ? [] : [rows.queue],
          artifacts: rows.artifacts
        })
        const accepted = validateJobRequest(params.id, body, catalog)
        if (Result.isFailure(accepted)) return Result.fail(refusalOf(accepted.failure.problems))
        const id = await insertJob(sql, { group: principal.group, user: principal.name }, accepted.success, now())
        const job = await readJob(sql, principal.group, id)
        return job === undefined ? Result.fail(jobNotFound(id)) : Result.succeed(job)
      })
  }),
  route({
    method: "GET",
    path: "/jobs",
    tag: "jobs",
    summary: "List the group's jobs: paged, sortable, searchable by description or status",
    params: Schema.Struct({}),
    query: JobListQuery,
    response: pageOf(JobResponse),
    handle: async (context) => Result.succeed(await jobPage(context, "/jobs"))
  }),
  route({
    method: "GET",
    path: "/experiments/{id}/jobs",
    tag: "jobs",
    summary: "List an experiment's jobs: paged, sortable, searchable",
    params: ExperimentParams,
    query: JobListQuery,
    response: pageOf(JobResponse),
    handle: async (context) => {
      const experiment = await readExperiment(context.db, context.principal.group, context.params.id)
      if (experiment === undefined) return Result.fail(refusal(new ResourceNotFound({ resource: "experiment", id: String(context.params.id) })))
      return Result.succeed(await jobPage(context, `/experiments/${context.params.id}/jobs`, context.params.id))
    }
  }),
  route({
    method: "GET",
    path: "/jobs/{id}",
    tag: "jobs",
    summary: "Read a job",
    params: JobParams,
    response: JobResponse,
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(job))
  }),
  route({
    method: "DELETE",
    path: "/jobs/{id}",
    tag: "jobs",
    summary: "Delete a job (its history is kept, but it is no longer served)",
    params: JobParams,
    response: DeletedResponse,
    handle: async ({ principal, params, db, now }) =>
      (await deleteJob(db, principal.group, params.id, now()))
        ? Result.succeed({ status: "Success" as const, id: [params.id] })
        : Result.fail(jobNotFound(params.id))
  }),
  route({
    method: "GET",
    path: "/jobs/{id}/status",
    tag: "jobs",
    summary: "Read a job's status and every status it has had",
    params: JobParams,
    response: StatusResponse,
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(await statusOf(db, job)))
  }),
  route({
    method: "PUT",
    path: "/experiments/{experimentId}/jobs/{jobId}/status",
    tag: "jobs",
    summary: "Change a job's status along Dioptra's state machine (reset puts it back to queued)",
    params: ExperimentJobParams,
    body: StatusInput,
    response: StatusResponse,
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withJob(
          sql,
          principal.group,
          params.jobId,
          async (job) => {
            if (job.experiment !== params.experimentId) return Result.fail(jobNotFound(params.jobId))
            const next = transition(job.status, body.status)
            if (Result.isFailure(next)) return Result.fail(refusal(next.failure))
            await updateJobStatus(sql, job.id, next.success, now())
            return Result.succeed(await statusOf(sql, { ...job, status: next.success }))
          },
          true
        )
      )
  }),
  route({
    method: "GET",
    path: "/jobs/{id}/log",
    tag: "jobs",
    summary: "Read a job's log records, oldest first, paged",
    params: JobParams,
    query: PageQuery,
    response: pageOf(LogRecord),
    handle: (context) =>
      withJob(context.db, context.principal.group, context.params.id, async (job) =>
        Result.succeed(
          await listPage(context, `/jobs/${job.id}/log`, async (offset, limit) => {
            const { records, total } = await readLogs(context.db, job.id, offset, limit)
            return { items: records, total }
          })
        )
      )
  }),
  route({
    method: "POST",
    path: "/jobs/{id}/log",
    tag: "jobs",
    summary: "Append log records to a job; the server stamps their time",
    params: JobParams,
    body: LogsInput,
    response: LogsResponse,
    reports: true,
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withJob(sql, principal.group, params.id, async (job) => {
          const at = now()
          const records = body.logs.map((input) => stampLog(job.id, input, at))
          await insertLogs(sql, records)
          return Result.succeed(records)
        })
      )
  }),
  route({
    method: "GET",
    path: "/jobs/{id}/metrics",
    tag: "jobs",
    summary: "Read the latest step of each of a job's metrics",
    params: JobParams,
    response: MetricsResponse,
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(await latestMetrics(db, job.id)))
  }),
  route({
    method: "POST",
    path: "/jobs/{id}/metrics",
    tag: "jobs",
    summary: "Record a metric of a job at a step; NaN and the infinities are kept as special values",
    params: JobParams,
    body: MetricInputBody,
    response: MetricResponse,
    reports: true,
    handle: ({ principal, params, body, db, now }) =>
      withJob(db, principal.group, params.id, async (job) => {
        const record = recordMetric(job.id, { name: body.name, step: body.step ?? 0, value: metricNumber(body.value) }, now())
        if (Result.isFailure(record)) return Result.fail(refusalOf(record.failure.problems))
        await upsertMetric(db, record.success)
        return Result.succeed(record.success)
      })
  }),
  route({
    method: "GET",
    path: "/jobs/{id}/metrics/{name}/snapshots",
    tag: "jobs",
    summary: "Read every recorded step of one metric of a job, by step, paged",
    params: MetricParams,
    query: PageQuery,
    response: pageOf(MetricResponse),
    handle: (context) =>
      withJob(context.db, context.principal.group, context.params.id, async (job) => {
        const listed = await listPage(context, `/jobs/${job.id}/metrics/${encodeURIComponent(context.params.name)}/snapshots`, async (offset, limit) => {
          const { records, total } = await metricSnapshots(context.db, job.id, context.params.name, offset, limit)
          return { items: records, total }
        })
        return listed.totalNumResults === 0
          ? Result.fail(refusal(new ResourceNotFound({ resource: "metric", id: `${context.params.name} of job ${job.id}` })))
          : Result.succeed(listed)
      })
  }),
  route({
    method: "GET",
    path: "/jobs/{id}/mlflowRun",
    tag: "jobs",
    summary: "Read a job's MLflow run id (null until set)",
    params: JobParams,
    response: MlflowRunResponse,
    handle: ({ principal, params, db }) =>
      withJob(db, principal.group, params.id, async (job) => Result.succeed({ mlflowRunId: job.mlflowRunId ?? null }))
  }),
  route({
    method: "POST",
    path: "/jobs/{id}/mlflowRun",
    tag: "jobs",
    summary: "Set a job's MLflow run id: a UUID, once per job, unique across the group's jobs",
    params: JobParams,
    body: MlflowRunInput,
    response: MlflowRunResponse,
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withJob(
          sql,
          principal.group,
          params.id,
          async (job) => {
            // UUIDs compare case-insensitively, so the stored form is lower case and uniqueness holds across spellings.
            const runId = body.mlflowRunId.toLowerCase()
            const updated = setMlflowRunId(job, runId, now())
            if (Result.isFailure(updated)) return Result.fail(refusal(updated.failure))
            const holder = await jobWithMlflowRun(sql, principal.group, runId)
            if (holder !== undefined) return Result.fail(refusal(new AlreadyExists({ resource: "job", field: "mlflowRunId", value: runId })))
            await updateMlflowRun(sql, job.id, runId, updated.success.lastModifiedOn)
            return Result.succeed({ mlflowRunId: runId })
          },
          true
        )
      )
  })
]

import { catalogOf, recordMetric, setMlflowRunId, stampLog, transition, validateJobRequest } from "@dispatch/jobs"
import { Result } from "effect"
import { JobResponse, metricNumber, StatusResponse } from "./ApiSchemas.ts"
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
import { sortableQuery } from "./Paging.ts"
import { loadCatalogRows, readExperiment } from "./ResourceStore.ts"
import { JobsGroup } from "./Api.ts"
import { route, type RequestContext } from "./Route.ts"
import { AlreadyExists, refusal, refusalOf, ResourceNotFound, type Refusal } from "./ServiceProblem.ts"

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
  route(JobsGroup, "create", {
    // Two round trips and no transaction: a transaction at READ COMMITTED would hold nothing between the catalog read
    // and the insert either, and the insert answers the job as stored.
    handle: async ({ principal, params, body, db, now }) => {
      const rows = await loadCatalogRows(db, principal.group, {
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
      return Result.succeed(await insertJob(db, { group: principal.group, user: principal.name }, accepted.success, now()))
    }
  }),
  route(JobsGroup, "list", {
    handle: async (context) => Result.succeed(await jobPage(context, "/jobs"))
  }),
  route(JobsGroup, "listInExperiment", {
    handle: async (context) => {
      const experiment = await readExperiment(context.db, context.principal.group, context.params.id)
      if (experiment === undefined) return Result.fail(refusal(new ResourceNotFound({ resource: "experiment", id: String(context.params.id) })))
      return Result.succeed(await jobPage(context, `/experiments/${context.params.id}/jobs`, context.params.id))
    }
  }),
  route(JobsGroup, "read", {
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(job))
  }),
  route(JobsGroup, "delete", {
    handle: async ({ principal, params, db, now }) =>
      (await deleteJob(db, principal.group, params.id, now()))
        ? Result.succeed({ status: "Success" as const, id: [params.id] })
        : Result.fail(jobNotFound(params.id))
  }),
  route(JobsGroup, "status", {
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(await statusOf(db, job)))
  }),
  route(JobsGroup, "setStatus", {
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
  route(JobsGroup, "log", {
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
  route(JobsGroup, "appendLog", {
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
  route(JobsGroup, "metrics", {
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(await latestMetrics(db, job.id)))
  }),
  route(JobsGroup, "recordMetric", {
    reports: true,
    handle: ({ principal, params, body, db, now }) =>
      withJob(db, principal.group, params.id, async (job) => {
        const record = recordMetric(job.id, { name: body.name, step: body.step ?? 0, value: metricNumber(body.value) }, now())
        if (Result.isFailure(record)) return Result.fail(refusalOf(record.failure.problems))
        await upsertMetric(db, record.success)
        return Result.succeed(record.success)
      })
  }),
  route(JobsGroup, "metricSnapshots", {
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
  route(JobsGroup, "mlflowRun", {
    handle: ({ principal, params, db }) =>
      withJob(db, principal.group, params.id, async (job) => Result.succeed({ mlflowRunId: job.mlflowRunId ?? null }))
  }),
  route(JobsGroup, "setMlflowRun", {
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

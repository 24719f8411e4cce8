import {
  catalogOf,
  recordMetric,
  setMlflowRunId,
  stampLog,
  wireMetricValue,
  validateJobRequest
} from "@dispatch/jobs"
import { Result } from "effect"
import type { InvalidSearch } from "@dispatch/jobs"
import { metricNumber, type StatusResponse, type StoredJob } from "../wire/ApiSchemas.ts"
import type { Principal } from "./Auth.ts"
import type { Sql } from "../store/Database.ts"
import {
  artifactsOf,
  deleteJob,
  insertJob,
  insertLogs,
  insertMetric,
  jobWithMlflowRun,
  latestMetrics,
  listJobs,
  metricSnapshots,
  readJob,
  readLogs,
  statusHistory,
  updateMlflowRun,
  writeStatus
} from "../store/JobStore.ts"
import { listPage, renderRows, type RowNames, type UnreadableItem } from "../wire/ListPage.ts"
import type { PageQuery, Page } from "../wire/Paging.ts"
import { isTrue } from "../wire/DioptraPaging.ts"
import { namesOtherGroup } from "../store/Groups.ts"
import { jobWire, type NamedJob } from "../wire/JobWire.ts"
import { insertArtifact, loadCatalogRows, readArtifact, readExperiment } from "../store/ResourceStore.ts"
import { downsampledSnapshots } from "../store/DownsampledMetric.ts"
import { JobListQuery, JobsGroup } from "./Api.ts"
import { promiseRoute as route, type QueryValue, type RequestContext } from "./Route.ts"
import { AlreadyExists, refusal, refusalOf, ResourceNotFound, TooManyReferences, type Refusal } from "../wire/ServiceProblem.ts"


const jobNotFound = (id: number) => refusal(new ResourceNotFound({ resource: "job", id: String(id) }))

// Every job sub-resource first finds the job in the caller's group: that is where cross-group access stops.
const withJob = async <A>(
  sql: Sql,
  group: string,
  id: number,
  body: (job: StoredJob, named: NamedJob) => Promise<Result.Result<A, Refusal>>,
  lock = false
): Promise<Result.Result<A, Refusal>> => {
  const named = await readJob(sql, group, id, lock)
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
export const ownerOf = (principal: Principal) => ({ group: principal.group, user: principal.name, ...(principal.userId === undefined ? {} : { userId: principal.userId }) })

const removeJob = async (db: Sql, group: string, id: number, at: string) =>
  (await deleteJob(db, group, id, at)) ? Result.succeed({ status: "Success" as const, id: [id] }) : Result.fail(jobNotFound(id))

// The run id is kept canonical (dashed, lower case), so uniqueness holds across MLflow's and Python's spellings.
const setRunId = (sql: Sql, group: string, job: StoredJob, runId: string, at: string) => {
  const updated = setMlflowRunId(job, runId, at)
  if (Result.isFailure(updated)) return Promise.resolve(Result.fail(refusal(updated.failure)))
  const canonical = updated.success.mlflowRunId ?? runId
  return jobWithMlflowRun(sql, group, canonical).then(async (holder) => {
    if (holder !== undefined) return Result.fail(refusal(new AlreadyExists({ resource: "job", field: "mlflowRunId", value: canonical })))
    await updateMlflowRun(sql, job.id, canonical, updated.success.lastModifiedOn)
    return Result.succeed({ mlflowRunId: canonical })
  })
}

const statusOf = async (sql: Sql, job: StoredJob): Promise<StatusResponse> => ({
  id: job.id,
  status: job.status,
  history: await statusHistory(sql, job.id)
})

type JobListContext = RequestContext<unknown, typeof JobListQuery.Type, unknown>

const jobPage = (context: JobListContext, path: string, experiment?: number) =>
  searchedPage(context, path, async (offset, limit) => {
    // Another group's list is empty, but its search is still checked, as the other lists check it.
    const other = namesOtherGroup(context.query.groupId, context.principal.groupId)
    const listed = await listJobs(context.db, {
      group: context.principal.group,
      ...(experiment === undefined ? {} : { experiment }),
      ...(context.query.search === undefined ? {} : { search: context.query.search }),
      sortBy: context.query.sortBy ?? "id",
      descending: isTrue(context.query.descending),
      offset,
      limit: other ? 0 : limit
    })
    return Result.map(listed, ({ jobs, total }) => (other ? { items: [], total: 0 } : { items: renderRows(context, jobNames, jobs, (named) => named.job.id, (named) => jobWire(named, context.link)), total }))
  }, jobNames)

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
      const job = await insertJob(sql, ownerOf(principal), accepted.success, now())
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
        const artifacts = await artifactsOf(db, principal.group, Object.values(job.artifactValues).map((ref) => ref.id))
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
    handle: ({ principal, params, db }) => withJob(db, principal.group, params.id, async (job) => Result.succeed(await statusOf(db, job)))
  }),
  route(JobsGroup, "statusInExperiment", {
    handle: ({ principal, params, db }) => withExperimentJob(db, principal.group, params, async (job) => Result.succeed(await statusOf(db, job)))
  }),
  route(JobsGroup, "setStatus", {
    handle: ({ principal, params, body, db, now }) =>
      db.transaction((sql) =>
        withExperimentJob(
          sql,
          principal.group,
          params,
          async (job) => {
            const next = await writeStatus(sql, job.id, body.status, now())
            if (Result.isFailure(next)) return Result.fail(refusal(next.failure))
            return Result.succeed(await statusOf(sql, { ...job, status: next.success }))
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
          const read = await readLogs(context.db, {
            job: job.id,
            ...(severity === undefined ? {} : { severities: typeof severity === "string" ? [severity] : severity }),
            ...(sortBy === undefined ? {} : { sortBy }),
            ...(search === undefined ? {} : { search }),
            descending: isTrue(context.query.descending),
            offset,
            limit
          })
          return Result.map(read, ({ records, total }) => ({ items: records, total }))
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
        const record = recordMetric(
          job.id,
          { name: body.name, step: body.step ?? 0, value: metricNumber(body.value), ...(body.timestamp === undefined ? {} : { timestamp: body.timestamp }) },
          now()
        )
        if (Result.isFailure(record)) return Result.fail(refusalOf(record.failure.problems))
        await insertMetric(db, record.success)
        return Result.succeed({ ...record.success, value: wireMetricValue(record.success) })
      })
  }),
  route(JobsGroup, "metricSnapshots", {
    handle: (context) =>
      withJob(context.db, context.principal.group, context.params.id, async (job) => {
        // A metric never posted is an empty page, as upstream answers it, not a 404.
        const listed = await listPage(context, `/jobs/${job.id}/metrics/${encodeURIComponent(context.params.name)}/snapshots`, async (offset, limit) => {
          const { columns } = context.query
          const { records, total } = await (columns === undefined ? metricSnapshots(context.db, job.id, context.params.name, offset, limit) : downsampledSnapshots(context.db, job.id, context.params.name, columns, offset, limit))
          return { items: records, total }
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

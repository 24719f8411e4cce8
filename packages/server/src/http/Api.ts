// The job service's HTTP API, declared once: the server, the OpenAPI document, the docs page and the typed
// client (@dispatch/client) are all made from this declaration. It imports schemas only, never the stores.
import { JobRequest, LogRecord, MetricName } from "@dispatch/jobs"
import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "effect/http-api"
import {
  ArtifactInput,
  ArtifactResponse,
  DeletedResponse,
  EntrypointIds,
  EntrypointInput,
  EntrypointModify,
  EntrypointResponse,
  ExperimentInput,
  ExperimentModify,
  ExperimentResponse,
  IdParam,
  JobArtifactInput,
  JobArtifactParametersResponse,
  JobParametersResponse,
  JobResponse,
  LogsInput,
  LogsResponse,
  MetricInputBody,
  MetricResponse,
  MetricsResponse,
  MlflowRunInput,
  MlflowRunResponse,
  QueueInput,
  QueueModify,
  QueueResponse,
  SeverityFilter,
  StatusInput,
  StatusResponse
} from "../wire/ApiSchemas.ts"
import type { Principal } from "./Auth.ts"
import { ErrorBody } from "../wire/ErrorBody.ts"
import { listItem } from "../wire/ListItem.ts"
import { MetricPageQuery, pageOf, PageQuery } from "../wire/Paging.ts"
import { ResourceRef } from "../wire/RefTypes.ts"
import { AuthResponse, CurrentUserResponse, GroupResponse, LoginInput, UserInput, UserResponse } from "../wire/AccountSchemas.ts"
import { BooleanParam, DioptraPageQuery, dioptraListQuery } from "../wire/DioptraPaging.ts"
import { ReportBatch, reportBatchLimits, ReportBatchResponse } from "../wire/ReportBatch.ts"

/** The prefix every endpoint lives under. */
export const apiPrefix = "/api/v1"

/** The statuses a refusal answers with, each with Dioptra's error body. */
export const refusalStatuses = [400, 401, 403, 404, 409, 413, 415, 429] as const

/** What every endpoint answers while the service starts (its database opens or migrates), with Retry-After. */
export const startingStatus = 503

/**
 * Every refusal an endpoint may answer: Dioptra's `{error, message, detail}` under each refusal status, and
 * under the starting service's 503.
 */
const refused = [...refusalStatuses, startingStatus].map((status) => ErrorBody.pipe(HttpApiSchema.status(status)))

// The document says what a client does with a 503: every endpoint needs the database, so each may answer it.
const startingResponse = {
  description: "The service is starting (its database opens or its migrations run): ask again after Retry-After seconds",
  headers: { "Retry-After": { description: "Seconds to wait before asking again", schema: { type: "integer", minimum: 0 } } }
}
const documentStarting = (spec: Record<string, any>): Record<string, any> => ({
  ...spec,
  paths: Object.fromEntries(
    Object.entries(spec["paths"] as Record<string, Record<string, any>>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          const answer = operation?.responses?.[String(startingStatus)]
          return [method, answer === undefined ? operation : { ...operation, responses: { ...operation.responses, [startingStatus]: { ...answer, ...startingResponse } } }]
        })
      )
    ])
  )
})

/** A request that passed authorization and decoding: who asks and its decoded parts. */
export class AdmittedRequest extends Context.Service<
  AdmittedRequest,
  {
    readonly principal: Principal
    readonly params: unknown
    readonly query: unknown
    readonly body: unknown
    /** A creation named by an `Idempotency-Key`: the key, the request's path and its body as sent. */
    readonly once?: { readonly key: string; readonly path: string; readonly body: string }
  }
>()("dispatch/AdmittedRequest") {}

/** Who may call: a login session's cookie, or a bearer token (a configured user or group token, or a job's report token for its own job). */
export class Authorization extends HttpApiMiddleware.Service<Authorization, { provides: AdmittedRequest }>()("dispatch/Authorization", {
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const Id = { id: IdParam }

// A creation honours an optional `Idempotency-Key` header (IdempotencyKey.ts). It is added to the document by a
// transform rather than declared as `headers`: a declared header schema would make every typed client call pass
// a `headers` argument, even though the header is optional.
const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Names this creation so a retry within 24 hours gets the first answer instead of creating again: a Structured Field string or a token of printable ASCII, at most 255 characters",
  schema: { type: "string" }
}

/** True on an endpoint that honours `Idempotency-Key`: the server reads it from here, as the document does. */
export const TakesIdempotencyKey = Context.Reference<boolean>("dispatch/TakesIdempotencyKey", { defaultValue: () => false })

// Creations that run in one transaction of their own take a key: it is written in that same transaction. Cancel,
// hold and release act on the cluster between transactions and create nothing, so they take none.
/** Marks a creating endpoint: it honours the key, and its OpenAPI operation lists the `Idempotency-Key` header. */
const keyed = Context.add(
  OpenApi.annotations({
    transform: (operation) => ({ ...operation, parameters: [...((operation["parameters"] as ReadonlyArray<unknown> | undefined) ?? []), idempotencyKeyParameter] })
  }),
  TakesIdempotencyKey,
  true
)

/** A job list's query: paged, sorted by upstream's columns, searched in Dioptra's language. */
export const JobListQuery = dioptraListQuery(["id", "createdOn", "lastModifiedOn", "status", "description", "experiment", "entrypoint", "queue"] as const)

// Upstream sorts a log by its columns' snake_case names; the camelCase ones the records carry are taken too.
/** A job log's query: paged, sorted, searched, and filtered by severity. */
export const LogQuery = Schema.Struct({
  ...dioptraListQuery(["severity", "logger_name", "loggerName", "created_on", "createdOn"] as const).fields,
  severity: Schema.optionalKey(SeverityFilter)
})

const ExperimentJob = { experimentId: IdParam, jobId: IdParam }
const EntrypointSnapshot = { id: IdParam, snapshotId: IdParam }

const summary = (text: string) => OpenApi.annotations({ summary: text })

const ResourceListQuery = dioptraListQuery(["id", "name", "createdOn", "lastModifiedOn", "description"] as const)

/** Experiments: named collections of jobs, with the entrypoints their jobs may run. */
export const ExperimentsGroup = HttpApiGroup.make("experiments")
  .add(
    HttpApiEndpoint.post("create", "/experiments", { payload: ExperimentInput, success: ExperimentResponse, error: refused }).annotateMerge(
      summary("Register an experiment and the entrypoints its jobs may run")
    ).annotateMerge(keyed),
    HttpApiEndpoint.get("list", "/experiments", { query: ResourceListQuery, success: pageOf(listItem(ExperimentResponse)), error: refused }).annotateMerge(
      summary("List the group's experiments: paged, sortable, searchable by name and description")
    ),
    HttpApiEndpoint.get("read", "/experiments/:id", { params: Id, success: ExperimentResponse, error: refused }).annotateMerge(summary("Read an experiment")),
    HttpApiEndpoint.put("modify", "/experiments/:id", { params: Id, payload: ExperimentModify, success: ExperimentResponse, error: refused }).annotateMerge(
      summary("Change an experiment's name, description and entrypoints")
    ),
    HttpApiEndpoint.delete("delete", "/experiments/:id", { params: Id, success: DeletedResponse, error: refused }).annotateMerge(
      summary("Delete an experiment (its jobs are kept)")
    ),
    HttpApiEndpoint.post("addEntrypoints", "/experiments/:id/entrypoints", { params: Id, payload: EntrypointIds, success: Schema.Array(ResourceRef), error: refused }).annotateMerge(
      summary("Register more entrypoints with an experiment; answers all of its entrypoints as references")
    )
  )

/** Entrypoints: what a job runs. */
export const EntrypointsGroup = HttpApiGroup.make("entrypoints")
  .add(
    HttpApiEndpoint.post("create", "/entrypoints", { payload: EntrypointInput, success: EntrypointResponse, error: refused }).annotateMerge(
      summary("Register an entrypoint: parameters, task graph (YAML) with its swaps, queues, optional image and command; it gets its first snapshot")
    ).annotateMerge(keyed),
    HttpApiEndpoint.put("update", "/entrypoints/:id", { params: Id, payload: EntrypointModify, success: EntrypointResponse, error: refused }).annotateMerge(
      summary("Edit an entrypoint: adds a snapshot, so jobs created earlier keep the one they ran; answers the latest snapshot")
    ),
    HttpApiEndpoint.get("list", "/entrypoints", { query: ResourceListQuery, success: pageOf(listItem(EntrypointResponse)), error: refused }).annotateMerge(
      summary("List the group's entrypoints: paged, sortable, searchable by name and description")
    ),
    HttpApiEndpoint.get("read", "/entrypoints/:id", { params: Id, success: EntrypointResponse, error: refused }).annotateMerge(
      summary("Read an entrypoint: its latest snapshot, with a link to the list of its snapshots")
    ),
    HttpApiEndpoint.get("snapshots", "/entrypoints/:id/snapshots", { params: Id, query: PageQuery, success: pageOf(listItem(EntrypointResponse)), error: refused }).annotateMerge(
      summary("List an entrypoint's snapshots, oldest first, paged: each as the entrypoint it was (Dioptra's snapshots sub-collection)")
    ),
    HttpApiEndpoint.get("snapshot", "/entrypoints/:id/snapshots/:snapshotId", { params: EntrypointSnapshot, success: EntrypointResponse, error: refused }).annotateMerge(
      summary("Read one snapshot of an entrypoint, as the entrypoint it was")
    ),
    HttpApiEndpoint.delete("delete", "/entrypoints/:id", { params: Id, success: DeletedResponse, error: refused }).annotateMerge(
      summary("Delete an entrypoint (jobs made from it keep their snapshot)")
    )
  )

/** Queues: where jobs wait, and the dispatch backend behind each. */
export const QueuesGroup = HttpApiGroup.make("queues")
  .add(
    HttpApiEndpoint.post("create", "/queues", { payload: QueueInput, success: QueueResponse, error: refused }).annotateMerge(
      summary("Register a queue, with the dispatch backend behind it (or the service's default backend, or none yet)")
    ).annotateMerge(keyed),
    HttpApiEndpoint.get("list", "/queues", { query: ResourceListQuery, success: pageOf(listItem(QueueResponse)), error: refused }).annotateMerge(
      summary("List the group's queues: paged, sortable, searchable by name and description")
    ),
    HttpApiEndpoint.get("read", "/queues/:id", { params: Id, success: QueueResponse, error: refused }).annotateMerge(summary("Read a queue")),
    HttpApiEndpoint.put("modify", "/queues/:id", { params: Id, payload: QueueModify, success: QueueResponse, error: refused }).annotateMerge(
      summary("Change a queue's name and description, and give it a backend (proven afresh); an absent backend is kept")
    ),
    HttpApiEndpoint.delete("delete", "/queues/:id", { params: Id, success: DeletedResponse, error: refused }).annotateMerge(summary("Delete a queue"))
  )

/** Artifacts: inputs a job may be given. */
export const ArtifactsGroup = HttpApiGroup.make("artifacts")
  .add(
    HttpApiEndpoint.post("create", "/artifacts", { payload: ArtifactInput, success: ArtifactResponse, error: refused }).annotateMerge(
      summary("Register an artifact with its first snapshot")
    ).annotateMerge(keyed),
    HttpApiEndpoint.post("addSnapshot", "/artifacts/:id/snapshots", { params: Id, success: ArtifactResponse, error: refused }).annotateMerge(
      summary("Add a snapshot to an artifact")
    ).annotateMerge(keyed),
    HttpApiEndpoint.get("read", "/artifacts/:id", { params: Id, success: ArtifactResponse, error: refused }).annotateMerge(summary("Read an artifact and its snapshots"))
  )

/** Jobs: created in an experiment, dispatched from a queue; their status, logs, metrics and controls. */
export const JobsGroup = HttpApiGroup.make("jobs")
  .add(
    HttpApiEndpoint.post("create", "/experiments/:id/jobs", { params: Id, payload: JobRequest, success: JobResponse, error: refused }).annotateMerge(
      summary("Create a job in an experiment; every problem with the request is reported at once")
    ).annotateMerge(keyed),
    HttpApiEndpoint.get("list", "/jobs", { query: JobListQuery, success: pageOf(listItem(JobResponse)), error: refused }).annotateMerge(
      summary("List the group's jobs: paged, sortable, searchable by description or status")
    ),
    HttpApiEndpoint.get("listInExperiment", "/experiments/:id/jobs", { params: Id, query: JobListQuery, success: pageOf(listItem(JobResponse)), error: refused }).annotateMerge(
      summary("List an experiment's jobs: paged, sortable, searchable")
    ),
    HttpApiEndpoint.get("read", "/jobs/:id", { params: Id, success: JobResponse, error: refused }).annotateMerge(summary("Read a job")),
    HttpApiEndpoint.get("readInExperiment", "/experiments/:experimentId/jobs/:jobId", { params: ExperimentJob, success: JobResponse, error: refused }).annotateMerge(
      summary("Read a job of an experiment")
    ),
    HttpApiEndpoint.delete("deleteInExperiment", "/experiments/:experimentId/jobs/:jobId", { params: ExperimentJob, success: DeletedResponse, error: refused }).annotateMerge(
      summary("Delete a job of an experiment")
    ),
    HttpApiEndpoint.get("parameters", "/jobs/:id/parameters", { params: Id, success: JobParametersResponse, error: refused }).annotateMerge(
      summary("Read a job's parameter values by name, typed as the entrypoint's parameters coerce them")
    ),
    HttpApiEndpoint.get("artifactParameters", "/jobs/:id/artifactParameters", { params: Id, success: JobArtifactParametersResponse, error: refused }).annotateMerge(
      summary("Read the artifacts a job loads, by artifact parameter name")
    ),
    HttpApiEndpoint.post("createArtifact", "/experiments/:experimentId/jobs/:jobId/artifacts", {
      params: ExperimentJob,
      payload: JobArtifactInput,
      success: ArtifactResponse,
      error: refused
    }).annotateMerge(summary("Register an artifact a job produced, at a URI, with its first snapshot")).annotateMerge(keyed),
    HttpApiEndpoint.delete("delete", "/jobs/:id", { params: Id, success: DeletedResponse, error: refused }).annotateMerge(
      summary("Delete a job (its history is kept, but it is no longer served)")
    ),
    HttpApiEndpoint.get("status", "/jobs/:id/status", { params: Id, success: StatusResponse, error: refused }).annotateMerge(
      summary("Read a job's status and every status it has had")
    ),
    HttpApiEndpoint.get("statusInExperiment", "/experiments/:experimentId/jobs/:jobId/status", { params: ExperimentJob, success: StatusResponse, error: refused }).annotateMerge(
      summary("Read the status of a job of an experiment, and every status it has had")
    ),
    HttpApiEndpoint.put("setStatus", "/experiments/:experimentId/jobs/:jobId/status", {
      params: ExperimentJob,
      payload: StatusInput,
      success: StatusResponse,
      error: refused
    }).annotateMerge(summary("Change a job's status along Dioptra's state machine (reset puts it back to queued)")),
    HttpApiEndpoint.get("log", "/jobs/:id/log", { params: Id, query: LogQuery, success: pageOf(LogRecord), error: refused }).annotateMerge(
      summary("Read a job's log records, in the order received unless sorted, paged, filtered by severity and searched")
    ),
    HttpApiEndpoint.post("appendLog", "/jobs/:id/log", { params: Id, payload: LogsInput, success: LogsResponse, error: refused }).annotateMerge(
      summary("Append log records (`{data: [...]}`) to a job; each is stamped with the time received, createdOn")
    ).annotateMerge(keyed),
    HttpApiEndpoint.get("metrics", "/jobs/:id/metrics", { params: Id, success: MetricsResponse, error: refused }).annotateMerge(
      summary("Read the latest step of each of a job's metrics")
    ),
    HttpApiEndpoint.post("recordMetric", "/jobs/:id/metrics", { params: Id, payload: MetricInputBody, success: MetricResponse, error: refused }).annotateMerge(
      summary("Record a metric of a job at a step and the time it names; NaN and the infinities travel as \"nan\", \"inf\", \"-inf\"")
    ).annotateMerge(keyed),
    HttpApiEndpoint.get("metricSnapshots", "/jobs/:id/metrics/:name/snapshots", {
      params: { id: IdParam, name: MetricName },
      query: MetricPageQuery,
      success: pageOf(MetricResponse),
      error: refused
    }).annotateMerge(summary("Read every value posted for one metric of a job, re-posts at a step included, by step then as posted, paged (up to 10,000 a page)")),
    HttpApiEndpoint.get("mlflowRun", "/jobs/:id/mlflowRun", { params: Id, success: MlflowRunResponse, error: refused }).annotateMerge(
      summary("Read a job's MLflow run id (null until set)")
    ),
    HttpApiEndpoint.post("setMlflowRun", "/jobs/:id/mlflowRun", { params: Id, payload: MlflowRunInput, success: MlflowRunResponse, error: refused }).annotateMerge(
      summary("Set a job's MLflow run id: a UUID (dashed or 32 hex digits), once per job, unique across the group's jobs")
    ),
    HttpApiEndpoint.get("mlflowRunInExperiment", "/experiments/:experimentId/jobs/:jobId/mlflowRun", { params: ExperimentJob, success: MlflowRunResponse, error: refused }).annotateMerge(
      summary("Read the MLflow run id of a job of an experiment (null until set)")
    ),
    HttpApiEndpoint.post("setMlflowRunInExperiment", "/experiments/:experimentId/jobs/:jobId/mlflowRun", {
      params: ExperimentJob,
      payload: MlflowRunInput,
      success: MlflowRunResponse,
      error: refused
    }).annotateMerge(summary("Set the MLflow run id of a job of an experiment")),
    HttpApiEndpoint.post("cancel", "/jobs/:id/cancel", { params: Id, success: JobResponse, error: refused }).annotateMerge(
      summary("Cancel a job: it fails with reason cancelled, and its TrainJob (if any) is stopped")
    ),
    HttpApiEndpoint.post("hold", "/jobs/:id/hold", { params: Id, success: JobResponse, error: refused }).annotateMerge(
      summary("Hold a job: deferred; on the cluster its TrainJob is held (Hold)")
    ),
    HttpApiEndpoint.post("release", "/jobs/:id/release", { params: Id, success: JobResponse, error: refused }).annotateMerge(
      summary("Release a held job: back to queued (or started, on the cluster) and its TrainJob released")
    ),
    HttpApiEndpoint.post("rerun", "/jobs/:id/rerun", { params: Id, success: JobResponse, error: refused }).annotateMerge(
      summary("Re-run a job: a new queued job with the same values, artifact values, swaps, timeout and entrypoint snapshot")
    ).annotateMerge(keyed)
  )

/** Users: sign-up (when the service allows it) and the caller. */
export const UsersGroup = HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.post("create", "/users", { payload: UserInput, success: UserResponse, error: refused }).annotateMerge(
      summary("Register a user (only when the service runs with --signup); the password is kept as a scrypt hash")
    ),
    HttpApiEndpoint.get("current", "/users/current", { success: CurrentUserResponse, error: refused }).annotateMerge(summary("Who the caller is, and its group")),
    HttpApiEndpoint.get("list", "/users", { query: DioptraPageQuery, success: pageOf(UserResponse), error: refused }).annotateMerge(
      summary("List the users of the caller's group, paged; search by username and email")
    ),
    HttpApiEndpoint.get("read", "/users/:id", { params: Id, success: UserResponse, error: refused }).annotateMerge(
      summary("Read a user of the caller's group")
    )
  )

/** Login sessions for Dioptra's clients. */
export const AuthGroup = HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("login", "/auth/login", { payload: LoginInput, success: AuthResponse, error: refused }).annotateMerge(
      summary("Log in: answers a session cookie (HttpOnly, SameSite=Lax, 12 hours); failed logins are limited per user and address")
    ),
    HttpApiEndpoint.post("logout", "/auth/logout", { query: Schema.Struct({ everywhere: Schema.optionalKey(BooleanParam) }), success: AuthResponse, error: refused }).annotateMerge(
      summary("Log out this session, or every session of the user (everywhere=true)")
    )
  )

/** Groups: who owns resources, by integer id. */
export const GroupsGroup = HttpApiGroup.make("groups")
  .add(
    HttpApiEndpoint.get("list", "/groups", { query: DioptraPageQuery, success: pageOf(GroupResponse), error: refused }).annotateMerge(
      summary("List the groups the caller belongs to, paged")
    ),
    HttpApiEndpoint.get("read", "/groups/:id", { params: Id, success: GroupResponse, error: refused }).annotateMerge(summary("Read a group and its members"))
  )

/** The most bytes an endpoint's body may take, when it takes fewer than every body may (`maxBodyBytes`). */
export const BodyLimit = Context.Reference<number | undefined>("dispatch/BodyLimit", { defaultValue: () => undefined })

/** What the OpenAPI document marks an endpoint of the service's own (not Dioptra's) with: `x-dispatch`. */
export const extensionField = "x-dispatch"

/** A job's workload reporting in batches: the service's extension beside Dioptra's per-record endpoints. */
export const ReportsGroup = HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.post("send", "/jobs/:id/reports", { params: Id, payload: ReportBatch, success: ReportBatchResponse, error: refused })
      .annotateMerge(
        summary(
          `Store a batch of a job's metric values and log records in one transaction, each with its own step and time, and the counts its reporter dropped; at most ${reportBatchLimits.records} records and ${reportBatchLimits.bytes} bytes (413), and a bad record refuses the whole batch (400), naming every problem`
        )
      )
      .annotateMerge(keyed)
      .annotateMerge(Context.add(OpenApi.annotations({ override: { [extensionField]: { extension: true, limits: reportBatchLimits } } }), BodyLimit, reportBatchLimits.bytes))
  )
  .annotateMerge(
    OpenApi.annotations({
      description: "The service's own extension (not in Dioptra's API): a job's workload reports many metric values and log records per request, with its report token"
    })
  )

/** The job service's API (Dioptra's job API and the service's `reports` extension), every endpoint behind bearer authorization, under `/api/v1`. */
export const DispatchApi = HttpApi.make("dispatch")
  .add(UsersGroup, AuthGroup, GroupsGroup, ExperimentsGroup, EntrypointsGroup, QueuesGroup, ArtifactsGroup, JobsGroup, ReportsGroup)
  .middleware(Authorization)
  .prefix(apiPrefix)
  .annotateMerge(OpenApi.annotations({ title: "dispatch job service (Dioptra job API)", version: "1", transform: documentStarting }))

/** The job service's API. */
export type DispatchApi = typeof DispatchApi

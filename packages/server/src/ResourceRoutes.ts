import { EntrypointVersion } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import {
  ArtifactInput,
  ArtifactResponse,
  EntrypointIds,
  EntrypointInput,
  EntrypointResponse,
  ExperimentInput,
  ExperimentResponse,
  IdParam,
  QueueInput,
  QueueResponse
} from "./ApiSchemas.ts"
import type { Sql } from "./Database.ts"
import { listPage } from "./ListPage.ts"
import { PageQuery, pageOf } from "./Paging.ts"
import { decodePart } from "./RequestDecoding.ts"
import {
  countEntrypoints,
  countExperiments,
  countQueues,
  insertArtifact,
  insertArtifactSnapshot,
  insertEntrypoint,
  insertExperiment,
  insertQueue,
  listEntrypoints,
  listExperiments,
  listQueues,
  missingIds,
  readArtifact,
  readEntrypoint,
  readExperiment,
  readQueue,
  registerEntrypoints,
  updateEntrypoint,
  type SnapshotDocument
} from "./ResourceStore.ts"
import { ArtifactsGroup, EntrypointsGroup, ExperimentsGroup, QueuesGroup } from "./Api.ts"
import { route } from "./Route.ts"
import { AlreadyExists, refusal, refusalOf, ResourceNotFound, type Refusal } from "./ServiceProblem.ts"

const IdParams = Schema.Struct({ id: IdParam })
const NoParams = Schema.Struct({})

const notFound = (resource: string, id: number) => new ResourceNotFound({ resource, id: String(id) })

const found = <A>(resource: string, id: number, value: A | undefined): Result.Result<A, Refusal> =>
  value === undefined ? Result.fail(refusal(notFound(resource, id))) : Result.succeed(value)

const missing = async (sql: Sql, table: "entrypoints" | "queues", group: string, ids: ReadonlyArray<number>) =>
  (await missingIds(sql, table, group, ids)).map((id) => notFound(table === "queues" ? "queue" : "entrypoint", id))

const nameTaken = async (sql: Sql, table: "experiments" | "entrypoints" | "queues", group: string, name: string, except = 0) =>
  (await sql.query(`select 1 from ${table} where grp = $1 and name = $2 and id <> $3`, [group, name, except])).length > 0

// The version's own checks (a parameter declared twice) live in the model's schema; a placeholder id lets it judge.
const snapshotDocument = (input: EntrypointInput): Result.Result<SnapshotDocument, Refusal> => {
  const document: SnapshotDocument = {
    parameters: input.parameters,
    artifactParameters: input.artifactParameters ?? [],
    taskGraph: input.taskGraph,
    command: input.command,
    ...(input.image === undefined ? {} : { image: input.image })
  }
  return Result.map(decodePart(EntrypointVersion, "body", { ...document, snapshot: 1 }), () => document)
}

const entrypointProblems = async (sql: Sql, group: string, input: EntrypointInput, except = 0) => {
  const taken = (await nameTaken(sql, "entrypoints", group, input.name, except))
    ? [new AlreadyExists({ resource: "entrypoint", field: "name", value: input.name })]
    : []
  return [...(await missing(sql, "queues", group, input.queues)), ...taken]
}

const header = (input: EntrypointInput) => ({ name: input.name, description: input.description ?? "", queues: input.queues })


/** `GET /<kind>`: the caller's group's resources of one kind, paged. */
const groupListRoute = <G extends typeof ExperimentsGroup | typeof EntrypointsGroup | typeof QueuesGroup>(
  group: G,
  list: (sql: Sql, group: string, offset: number, limit: number) => Promise<ReadonlyArray<any>>,
  count: (sql: Sql, group: string) => Promise<number>
) =>
  route(group as typeof QueuesGroup, "list", {
    handle: async (context) =>
      Result.succeed(
        await listPage(context, `/${group.identifier}`, async (offset, limit) => ({
          items: await list(context.db, context.principal.group, offset, limit),
          total: await count(context.db, context.principal.group)
        }))
      )
  })

/** Experiments, entrypoints, queues and artifacts: enough of each to create and run jobs. */
export const resourceRoutes = [
  route(ExperimentsGroup, "create", {
    handle: ({ principal, body, db, now }) =>
      db.transaction(async (sql) => {
        const entrypoints = body.entrypoints ?? []
        const problems = [
          ...(await missing(sql, "entrypoints", principal.group, entrypoints)),
          ...((await nameTaken(sql, "experiments", principal.group, body.name)) ? [new AlreadyExists({ resource: "experiment", field: "name", value: body.name })] : [])
        ]
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        const id = await insertExperiment(sql, principal.group, { name: body.name, description: body.description ?? "" }, now())
        await registerEntrypoints(sql, id, entrypoints)
        return found("experiment", id, await readExperiment(sql, principal.group, id))
      })
  }),
  groupListRoute(ExperimentsGroup, listExperiments, countExperiments),
  route(ExperimentsGroup, "read", {
    handle: async ({ principal, params, db }) => found("experiment", params.id, await readExperiment(db, principal.group, params.id))
  }),
  route(ExperimentsGroup, "addEntrypoints", {
    handle: ({ principal, params, body, db }) =>
      db.transaction(async (sql) => {
        if ((await readExperiment(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("experiment", params.id)))
        const problems = await missing(sql, "entrypoints", principal.group, body.ids)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        await registerEntrypoints(sql, params.id, body.ids)
        return found("experiment", params.id, await readExperiment(sql, principal.group, params.id))
      })
  }),
  route(EntrypointsGroup, "create", {
    handle: ({ principal, body, db, now }) => {
      const document = snapshotDocument(body)
      if (Result.isFailure(document)) return Promise.resolve(Result.fail(document.failure))
      return db.transaction(async (sql) => {
        const problems = await entrypointProblems(sql, principal.group, body)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        const id = await insertEntrypoint(sql, principal.group, header(body), document.success, now())
        return found("entrypoint", id, await readEntrypoint(sql, principal.group, id))
      })
    }
  }),
  route(EntrypointsGroup, "update", {
    handle: ({ principal, params, body, db, now }) => {
      const document = snapshotDocument(body)
      if (Result.isFailure(document)) return Promise.resolve(Result.fail(document.failure))
      return db.transaction(async (sql) => {
        if ((await readEntrypoint(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("entrypoint", params.id)))
        const problems = await entrypointProblems(sql, principal.group, body, params.id)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        await updateEntrypoint(sql, principal.group, params.id, header(body), document.success, now())
        return found("entrypoint", params.id, await readEntrypoint(sql, principal.group, params.id))
      })
    }
  }),
  groupListRoute(EntrypointsGroup, listEntrypoints, countEntrypoints),
  route(EntrypointsGroup, "read", {
    handle: async ({ principal, params, db }) => found("entrypoint", params.id, await readEntrypoint(db, principal.group, params.id))
  }),
  route(QueuesGroup, "create", {
    handle: ({ principal, body, db, now }) =>
      db.transaction(async (sql) => {
        if (await nameTaken(sql, "queues", principal.group, body.name)) {
          return Result.fail(refusal(new AlreadyExists({ resource: "queue", field: "name", value: body.name })))
        }
        const id = await insertQueue(sql, principal.group, body, now())
        return found("queue", id, await readQueue(sql, principal.group, id))
      })
  }),
  groupListRoute(QueuesGroup, listQueues, countQueues),
  route(QueuesGroup, "read", {
    handle: async ({ principal, params, db }) => found("queue", params.id, await readQueue(db, principal.group, params.id))
  }),
  route(ArtifactsGroup, "create", {
    handle: ({ principal, body, db, now }) =>
      db.transaction(async (sql) => {
        const id = await insertArtifact(sql, principal.group, body.artifactType, now())
        return found("artifact", id, await readArtifact(sql, principal.group, id))
      })
  }),
  route(ArtifactsGroup, "addSnapshot", {
    handle: ({ principal, params, db, now }) =>
      db.transaction(async (sql) => {
        if ((await readArtifact(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("artifact", params.id)))
        await insertArtifactSnapshot(sql, params.id, now())
        return found("artifact", params.id, await readArtifact(sql, principal.group, params.id))
      })
  }),
  route(ArtifactsGroup, "read", {
    handle: async ({ principal, params, db }) => found("artifact", params.id, await readArtifact(db, principal.group, params.id))
  })
]

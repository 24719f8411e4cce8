import { EntrypointVersion, TaskGraph } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import type { EntrypointModify, ExperimentModify, QueueModify } from "../wire/ApiSchemas.ts"
import type { Principal } from "./Auth.ts"
import type { Sql } from "../store/Database.ts"
import { isTrue, searchCondition } from "../wire/DioptraPaging.ts"
import { namesOtherGroup } from "../store/Groups.ts"
import { listPage, renderRows, type RowNames } from "../wire/ListPage.ts"
import { decodePart } from "./RequestDecoding.ts"
import { maxJsonDepth, valueNesting } from "@dispatch/jobs"
import { yamlDepth } from "./YamlDepth.ts"
import {
  deleteResource,
  insertArtifact,
  insertArtifactSnapshot,
  insertEntrypoint,
  insertExperiment,
  insertQueue,
  listEntrypoints,
  listEntrypointSnapshots,
  listExperiments,
  listQueues,
  missingIds,
  readArtifact,
  readEntrypoint,
  readEntrypointSnapshot,
  readExperiment,
  readQueue,
  pruneSnapshots,
  registerEntrypoints,
  registeredWith,
  snapshotBytes,
  snapshotBytesWith,
  entrypointSearchFields,
  resourceSearchFields,
  updateEntrypoint,
  updateExperiment,
  updateQueue,
  type Creator,
  type ListWindow,
  type SnapshotDocument,
  type StoredSnapshot
} from "../store/ResourceStore.ts"
import { entrypointView, experimentView, queueView } from "../wire/ResourceViews.ts"
import { ArtifactsGroup, EntrypointsGroup, ExperimentsGroup, QueuesGroup } from "./Api.ts"
import { promiseRoute as route, type RequestContext } from "./Route.ts"
import { AlreadyExists, InvalidRequest, NotYourGroup, refusal, refusalOf, ResourceNotFound, ResourceTooLarge, SnapshotTooLarge, TooManyReferences, TooManySnapshots, type Refusal, type ServiceProblem } from "../wire/ServiceProblem.ts"

const notFound = (resource: string, id: number) => new ResourceNotFound({ resource, id: String(id) })

const found = <A>(resource: string, id: number, value: A | undefined): Result.Result<A, Refusal> =>
  value === undefined ? Result.fail(refusal(notFound(resource, id))) : Result.succeed(value)

const missing = async (sql: Sql, table: "entrypoints" | "queues", group: string, ids: ReadonlyArray<number>) =>
  (await missingIds(sql, table, group, ids)).map((id) => notFound(table === "queues" ? "queue" : "entrypoint", id))

const nameTaken = async (sql: Sql, table: "experiments" | "entrypoints" | "queues", group: string, name: string, except = 0) =>
  (await sql.query(`select 1 from ${table} where grp = $1 and name = $2 and id <> $3 and not deleted`, [group, name, except])).length > 0

const taken = async (sql: Sql, table: "experiments" | "entrypoints" | "queues", group: string, name: string, except = 0): Promise<ReadonlyArray<ServiceProblem>> =>
  (await nameTaken(sql, table, group, name, except)) ? [new AlreadyExists({ resource: table.slice(0, -1), field: "name", value: name })] : []

// A Dioptra client names the owning group; the caller may create only in its own.
const groupProblems = (principal: Principal, group: number | undefined): ReadonlyArray<ServiceProblem> =>
  group === undefined || group === principal.groupId ? [] : [new NotYourGroup({ principal: principal.name, group, yours: principal.groupId })]

// dispatch has no plugins, so any plugin id names nothing.
const pluginProblems = (body: { readonly plugins?: ReadonlyArray<number>; readonly artifactPlugins?: ReadonlyArray<number> }): ReadonlyArray<ServiceProblem> =>
  [...(body.plugins ?? []), ...(body.artifactPlugins ?? [])].map((id) => notFound("plugin", id))

// The task graph arrives as Dioptra's YAML string (or, from dispatch's own clients, an object); either way it must
// be a graph the model accepts. The text is kept so the answer gives it back as sent.
const graphOf = (taskGraph: string | Readonly<Record<string, unknown>>): Result.Result<{ readonly graph: unknown; readonly text?: string }, Refusal> => {
  const tooDeep = refusal(new InvalidRequest({ part: "body", path: "taskGraph", detail: `nests deeper than ${maxJsonDepth} levels` }))
  if (typeof taskGraph !== "string") return Result.succeed({ graph: taskGraph })
  // Bounded on the text first: the YAML parser recurses, and a deep enough text takes the process down with it.
  if (yamlDepth(taskGraph, maxJsonDepth) > maxJsonDepth) return Result.fail(tooDeep)
  try {
    const graph: unknown = parseYaml(taskGraph, { maxAliasCount: 100 }) ?? {}
    // Aliases can nest what the text does not (or make a cycle): the parsed graph is held to the same bound.
    if (valueNesting(graph, maxJsonDepth) > maxJsonDepth) return Result.fail(tooDeep)
    return Result.succeed({ graph, text: taskGraph })
  } catch (cause) {
    return Result.fail(refusal(new InvalidRequest({ part: "body", path: "taskGraph", detail: `is not YAML: ${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)}` })))
  }
}

// The version's own checks (a parameter declared twice, a bad graph) live in the model's schema; a placeholder id
// lets it judge.
const snapshotDocument = (input: EntrypointModify): Result.Result<SnapshotDocument, Refusal> =>
  Result.flatMap(graphOf(input.taskGraph), ({ graph, text }) =>
    Result.flatMap(decodePart(TaskGraph, "body", graph), (taskGraph) => {
      const document: SnapshotDocument = {
        parameters: (input.parameters ?? []).map((p) => ({
          name: p.name,
          type: p.parameterType ?? p.type ?? "string",
          ...(p.defaultValue === undefined || p.defaultValue === null ? {} : { defaultValue: p.defaultValue })
        })),
        artifactParameters: input.artifactParameters ?? [],
        taskGraph,
        ...(input.command === undefined ? {} : { command: input.command }),
        ...(input.image === undefined ? {} : { image: input.image }),
        ...(text === undefined ? {} : { taskGraphText: text }),
        ...(input.artifactGraph === undefined || input.artifactGraph === null ? {} : { artifactGraph: input.artifactGraph })
      }
      const { taskGraphText: _, artifactGraph: __, ...version } = document
      return Result.map(decodePart(EntrypointVersion, "body", { ...version, snapshot: 1 }), () => document)
    })
  )

const header = (input: EntrypointModify) => ({ name: input.name, description: input.description ?? "", queues: input.queues ?? [] })

type ListQuery = { readonly index?: number; readonly pageLength?: number; readonly search?: string; readonly sortBy?: ListWindow["sortBy"]; readonly descending?: "true" | "false" | "True" | "False" | "1" | "0"; readonly groupId?: number }

/** `GET /<kind>`: the caller's group's resources of one kind, searched, sorted and paged; `groupId` of another
 * group lists nothing. */
const listRoute = <G extends typeof ExperimentsGroup | typeof EntrypointsGroup | typeof QueuesGroup, S>(
  group: G,
  list: (sql: Sql, group: string, window: ListWindow) => Promise<{ readonly items: ReadonlyArray<S>; readonly total: number }>,
  view: (link: (path: string) => string, stored: S) => unknown,
  searchFields: Readonly<Record<string, string>> = resourceSearchFields
) =>
  route(group as typeof QueuesGroup, "list", {
    handle: async (context) => {
      const query = context.query as ListQuery
      const search = searchCondition(query.search, searchFields, 2)
      if (Result.isFailure(search)) return Result.fail(refusal(search.failure))
      const other = namesOtherGroup(query.groupId, context.principal.groupId)
      const link = (path: string) => context.link(path)
      const names: RowNames = { resource: group.identifier.slice(0, -1), path: (id) => `/${group.identifier}/${id}` }
      const listContext = context as RequestContext<unknown, any, unknown>
      return Result.succeed(
        await listPage(
          listContext,
          `/${group.identifier}`,
          async (offset, limit) => {
            if (other) return { items: [], total: 0 }
            const page = await list(context.db, context.principal.group, { search: search.success, sortBy: query.sortBy ?? "id", descending: isTrue(query.descending), offset, limit })
            return { items: renderRows(listContext, names, page.items, (item) => (item as { readonly id: number }).id, (item) => view(link, item)), total: page.total }
          },
          names
        )
      ) as never
    }
  })

const creatorOf = (principal: Principal): Creator => ({ name: principal.name, ...(principal.userId === undefined ? {} : { userId: principal.userId }) })

const deleted = (id: number) => ({ status: "Success" as const, id: [id] })

type Linker = RequestContext<unknown, unknown, unknown>["link"]
const linkOf = (link: Linker) => (path: string) => link(path)

const readExperimentView = async (sql: Sql, principal: Principal, link: Linker, id: number) => {
  const stored = await readExperiment(sql, principal.group, id)
  return found("experiment", id, stored === undefined ? undefined : experimentView(linkOf(link), stored))
}
const readEntrypointView = async (sql: Sql, principal: Principal, link: Linker, id: number) => {
  const stored = await readEntrypoint(sql, principal.group, id)
  return found("entrypoint", id, stored === undefined ? undefined : entrypointView(linkOf(link), stored))
}
const readQueueView = async (sql: Sql, principal: Principal, link: Linker, id: number) => {
  const stored = await readQueue(sql, principal.group, id)
  return found("queue", id, stored === undefined ? undefined : queueView(linkOf(link), stored))
}

const experimentProblems = async (sql: Sql, principal: Principal, body: ExperimentModify & { readonly group?: number }, except = 0) => [
  ...groupProblems(principal, body.group),
  ...(await missing(sql, "entrypoints", principal.group, body.entrypoints ?? [])),
  ...(await taken(sql, "experiments", principal.group, body.name, except))
]

const entrypointProblems = async (sql: Sql, principal: Principal, input: EntrypointModify & { readonly group?: number }, except = 0) => [
  ...groupProblems(principal, input.group),
  ...(await missing(sql, "queues", principal.group, input.queues ?? [])),
  ...pluginProblems(input),
  ...(await taken(sql, "entrypoints", principal.group, input.name, except))
]

const queueFields = (body: QueueModify, fallback: RequestContext<unknown, unknown, unknown>["defaultBackend"]) => {
  const backend = body.backend ?? fallback
  return { name: body.name, description: body.description ?? "", ...(backend === undefined ? {} : { backend }) }
}

/** Experiments, entrypoints, queues and artifacts: Dioptra's create, get, get_by_id, modify_by_id and delete_by_id. */
export const resourceRoutes = [
  route(ExperimentsGroup, "create", {
    handle: ({ principal, body, db, now, link }) =>
      db.transaction(async (sql) => {
        const problems = await experimentProblems(sql, principal, body)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        const id = await insertExperiment(sql, principal.group, creatorOf(principal), { name: body.name, description: body.description ?? "" }, now())
        await registerEntrypoints(sql, id, body.entrypoints ?? [])
        return readExperimentView(sql, principal, link, id)
      })
  }),
  listRoute(ExperimentsGroup, listExperiments, experimentView),
  route(ExperimentsGroup, "read", {
    handle: ({ principal, params, db, link }) => readExperimentView(db, principal, link, params.id)
  }),
  route(ExperimentsGroup, "modify", {
    handle: ({ principal, params, body, db, now, link }) =>
      db.transaction(async (sql) => {
        if ((await readExperiment(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("experiment", params.id)))
        const problems = await experimentProblems(sql, principal, body, params.id)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        await updateExperiment(sql, principal.group, params.id, { name: body.name, description: body.description ?? "", entrypoints: body.entrypoints ?? [] }, now())
        return readExperimentView(sql, principal, link, params.id)
      })
  }),
  route(ExperimentsGroup, "delete", {
    handle: async ({ principal, params, db, now }) =>
      (await deleteResource(db, "experiments", principal.group, params.id, now())) ? Result.succeed(deleted(params.id)) : Result.fail(refusal(notFound("experiment", params.id)))
  }),
  route(ExperimentsGroup, "addEntrypoints", {
    handle: ({ principal, params, body, db, link, limits }) =>
      db.transaction(async (sql) => {
        if ((await readExperiment(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("experiment", params.id)))
        const problems = await missing(sql, "entrypoints", principal.group, body.ids)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        // Registrations add up over requests, and the experiment answers every one: their number is bounded.
        const count = await registeredWith(sql, params.id, body.ids)
        if (count > limits.references) return Result.fail(refusal(new TooManyReferences({ resource: "experiment", id: params.id, field: "entrypoints", count, limit: limits.references })))
        await registerEntrypoints(sql, params.id, body.ids)
        // Upstream answers the experiment's entrypoints (all of them, not only those added) as references.
        return Result.map(await readExperimentView(sql, principal, link, params.id), (experiment) => experiment.entrypoints)
      })
  }),
  route(EntrypointsGroup, "create", {
    handle: ({ principal, body, db, now, link, limits }) =>
      db.transaction(async (sql) => {
        const document = snapshotDocument(body)
        const problems = [...(Result.isFailure(document) ? document.failure.problems : []), ...(await entrypointProblems(sql, principal, body))]
        if (problems.length > 0 || Result.isFailure(document)) return Result.fail(refusalOf(problems))
        const bytes = snapshotBytes(document.success)
        if (bytes > limits.snapshotBytes) return Result.fail(refusal(new SnapshotTooLarge({ resource: "entrypoint", bytes, limit: limits.snapshotBytes })))
        const id = await insertEntrypoint(sql, principal.group, creatorOf(principal), header(body), document.success, now())
        return readEntrypointView(sql, principal, link, id)
      })
  }),
  route(EntrypointsGroup, "update", {
    // Nothing is written before every bound is checked, so a refusal commits nothing.
    handle: ({ principal, params, body, db, now, link, limits }) =>
      db.transaction(async (sql) => {
        if ((await readEntrypoint(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("entrypoint", params.id)))
        const document = snapshotDocument(body)
        const problems = [...(Result.isFailure(document) ? document.failure.problems : []), ...(await entrypointProblems(sql, principal, body, params.id))]
        if (problems.length > 0 || Result.isFailure(document)) return Result.fail(refusalOf(problems))
        const bytes = snapshotBytes(document.success)
        if (bytes > limits.snapshotBytes) return Result.fail(refusal(new SnapshotTooLarge({ resource: "entrypoint", bytes, limit: limits.snapshotBytes })))
        const stored = await snapshotBytesWith(sql, params.id, bytes, limits.snapshotsKept)
        if (stored > limits.resourceBytes) return Result.fail(refusal(new ResourceTooLarge({ resource: "entrypoint", id: params.id, bytes: stored, limit: limits.resourceBytes })))
        await updateEntrypoint(sql, principal.group, params.id, header(body), document.success, now())
        await pruneSnapshots(sql, params.id, limits.snapshotsKept)
        return readEntrypointView(sql, principal, link, params.id)
      })
  }),
  route(EntrypointsGroup, "snapshots", {
    handle: async (context) => {
      const { principal, params, db, link } = context
      const names: RowNames = { resource: `entrypoint ${params.id} snapshot`, path: (id) => `/entrypoints/${params.id}/snapshots/${id}` }
      let missing = false
      const listContext = context as RequestContext<unknown, any, unknown>
      const listed = await listPage(
        listContext,
        `/entrypoints/${params.id}/snapshots`,
        async (offset, limit) => {
          const found = await listEntrypointSnapshots(db, principal.group, params.id, offset, limit)
          if (found === undefined) {
            missing = true
            return { items: [], total: 0 }
          }
          const latest = found.entrypoint.snapshots[0]?.snapshot ?? 0
          const view = (snapshot: StoredSnapshot) => entrypointView(linkOf(link), found.entrypoint, { snapshot, latest })
          return { items: renderRows(listContext, names, found.snapshots, (s) => s.snapshot, view), total: found.total }
        },
        names
      )
      return missing ? Result.fail(refusal(notFound("entrypoint", params.id))) : Result.succeed(listed)
    }
  }),
  route(EntrypointsGroup, "snapshot", {
    handle: async ({ principal, params, db, link }) => {
      const found = await readEntrypointSnapshot(db, principal.group, params.id, params.snapshotId)
      if (found === undefined) {
        const entrypoint = await readEntrypoint(db, principal.group, params.id)
        return Result.fail(refusal(entrypoint === undefined ? notFound("entrypoint", params.id) : new ResourceNotFound({ resource: "snapshot", id: String(params.snapshotId) })))
      }
      return Result.succeed(entrypointView(linkOf(link), found.entrypoint, { snapshot: found.snapshot, latest: found.entrypoint.snapshots[0]?.snapshot ?? 0 }))
    }
  }),
  listRoute(EntrypointsGroup, listEntrypoints, entrypointView, entrypointSearchFields),
  route(EntrypointsGroup, "read", {
    handle: ({ principal, params, db, link }) => readEntrypointView(db, principal, link, params.id)
  }),
  route(EntrypointsGroup, "delete", {
    handle: async ({ principal, params, db, now }) =>
      (await deleteResource(db, "entrypoints", principal.group, params.id, now())) ? Result.succeed(deleted(params.id)) : Result.fail(refusal(notFound("entrypoint", params.id)))
  }),
  route(QueuesGroup, "create", {
    handle: ({ principal, body, db, now, link, defaultBackend }) =>
      db.transaction(async (sql) => {
        const problems = [...groupProblems(principal, body.group), ...(await taken(sql, "queues", principal.group, body.name))]
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        const id = await insertQueue(sql, principal.group, creatorOf(principal), queueFields(body, defaultBackend), now())
        return readQueueView(sql, principal, link, id)
      })
  }),
  listRoute(QueuesGroup, listQueues, queueView),
  route(QueuesGroup, "read", {
    handle: ({ principal, params, db, link }) => readQueueView(db, principal, link, params.id)
  }),
  route(QueuesGroup, "modify", {
    handle: ({ principal, params, body, db, now, link }) =>
      db.transaction(async (sql) => {
        if ((await readQueue(sql, principal.group, params.id)) === undefined) return Result.fail(refusal(notFound("queue", params.id)))
        const problems = await taken(sql, "queues", principal.group, body.name, params.id)
        if (problems.length > 0) return Result.fail(refusalOf(problems))
        await updateQueue(sql, principal.group, params.id, queueFields(body, undefined), now())
        return readQueueView(sql, principal, link, params.id)
      })
  }),
  route(QueuesGroup, "delete", {
    handle: async ({ principal, params, db, now }) =>
      (await deleteResource(db, "queues", principal.group, params.id, now())) ? Result.succeed(deleted(params.id)) : Result.fail(refusal(notFound("queue", params.id)))
  }),
  route(ArtifactsGroup, "create", {
    handle: ({ principal, body, db, now }) =>
      db.transaction(async (sql) => {
        const id = await insertArtifact(sql, principal.group, body.artifactType, now())
        return found("artifact", id, await readArtifact(sql, principal.group, id))
      })
  }),
  route(ArtifactsGroup, "addSnapshot", {
    handle: ({ principal, params, db, now, limits }) =>
      db.transaction(async (sql) => {
        const artifact = await readArtifact(sql, principal.group, params.id)
        if (artifact === undefined) return Result.fail(refusal(notFound("artifact", params.id)))
        // An artifact answers every snapshot id it has, so their number is what bounds its answer.
        if (artifact.snapshots.length >= limits.artifactSnapshots) return Result.fail(refusal(new TooManySnapshots({ resource: "artifact", id: params.id, limit: limits.artifactSnapshots })))
        await insertArtifactSnapshot(sql, params.id, now())
        return found("artifact", params.id, await readArtifact(sql, principal.group, params.id))
      })
  }),
  route(ArtifactsGroup, "read", {
    handle: async ({ principal, params, db }) => found("artifact", params.id, await readArtifact(db, principal.group, params.id))
  })
]

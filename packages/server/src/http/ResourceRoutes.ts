import { EntrypointVersion, TaskGraph, type Queue } from "@dispatch/jobs"
import { Effect, Result } from "effect"
import { parse as parseYaml } from "yaml"
import type { EntrypointModify, ExperimentModify, QueueModify } from "../wire/ApiSchemas.ts"
import type { Principal } from "./Auth.ts"
import { isTrue, searchCondition } from "../wire/DioptraPaging.ts"
import { namesOtherGroup } from "../store/Groups.ts"
import { listContext, pageOf, renderRows, type RowNames } from "./ListPage.ts"
import { decodePart } from "./RequestDecoding.ts"
import { maxJsonDepth, valueNesting } from "@dispatch/jobs"
import { yamlDepth } from "./YamlDepth.ts"
import {
  entrypointSearchFields,
  resources,
  resourceSearchFields,
  snapshotBytes,
  type Creator,
  type ListWindow,
  type NamedTable,
  type Resources,
  type SnapshotDocument,
  type StoredSnapshot
} from "../store/Resources.ts"
import { entrypointView, experimentView, queueView } from "./ResourceViews.ts"
import { ArtifactsGroup, EntrypointsGroup, ExperimentsGroup, QueuesGroup } from "./Api.ts"
import { AnswerLimitsService, Caller, Links, now, ServiceSettings, stored, transaction } from "./RequestServices.ts"
import { route } from "./Route.ts"
import { AlreadyExists, InvalidRequest, NotYourGroup, refusal, refusalOf, ResourceNotFound, ResourceTooLarge, SnapshotTooLarge, TooManyReferences, TooManySnapshots, type Refusal, type ServiceProblem } from "../wire/ServiceProblem.ts"

const notFound = (resource: string, id: number) => new ResourceNotFound({ resource, id: String(id) })

const found = <A>(resource: string, id: number, value: A | undefined): Effect.Effect<A, Refusal> =>
  value === undefined ? Effect.fail(refusal(notFound(resource, id))) : Effect.succeed(value)

const refuse = (problems: ReadonlyArray<ServiceProblem>) => Effect.fail(refusalOf(problems))

// The repository's statements as a handler runs them (see `stored`).
const store = <A, E>(use: (resources: Resources) => Effect.Effect<A, E, never>) => stored(Effect.flatMap(resources, use))

const missing = (table: "entrypoints" | "queues", group: string, ids: ReadonlyArray<number>) =>
  Effect.map(store((r) => r.missingIds(table, group, ids)), (ids) => ids.map((id) => notFound(table === "queues" ? "queue" : "entrypoint", id)))

const taken = (table: NamedTable, group: string, name: string, except = 0): Effect.Effect<ReadonlyArray<ServiceProblem>, never, import("effect/sql").SqlClient.SqlClient> =>
  Effect.map(store((r) => r.nameTaken(table, group, name, except)), (isTaken) => (isTaken ? [new AlreadyExists({ resource: table.slice(0, -1), field: "name", value: name })] : []))

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
  list: (resources: Resources, group: string, window: ListWindow) => Effect.Effect<{ readonly items: ReadonlyArray<S>; readonly total: number }, unknown>,
  view: (link: (path: string) => string, stored: S) => unknown,
  searchFields: Readonly<Record<string, string>> = resourceSearchFields
) =>
  route(group as typeof QueuesGroup, "list", {
    handle: (request) =>
      Effect.gen(function* () {
        const query = request.query as ListQuery
        const search = searchCondition(query.search, searchFields, 2)
        if (Result.isFailure(search)) return yield* Effect.fail(refusal(search.failure))
        const principal = yield* Caller
        const other = namesOtherGroup(query.groupId, principal.groupId)
        const context = yield* listContext(request.query)
        const link = (path: string) => context.link(path)
        const names: RowNames = { resource: group.identifier.slice(0, -1), path: (id) => `/${group.identifier}/${id}` }
        const window = (offset: number, limit: number): ListWindow => ({ search: search.success, sortBy: query.sortBy ?? "id", descending: isTrue(query.descending), offset, limit })
        return (yield* pageOf(
          request.query,
          `/${group.identifier}`,
          (offset, limit) =>
            other
              ? Effect.succeed({ items: [], total: 0 })
              : Effect.map(store((r) => list(r, principal.group, window(offset, limit))), (page) => ({
                  items: renderRows(context, names, page.items, (item) => (item as { readonly id: number }).id, (item) => view(link, item)),
                  total: page.total
                })),
          names
        )) as never
      })
  })

const creatorOf = (principal: Principal): Creator => ({ name: principal.name, ...(principal.userId === undefined ? {} : { userId: principal.userId }) })

const deleted = (id: number) => ({ status: "Success" as const, id: [id] })

const linker = Links.useSync(({ link }) => (path: string) => link(path))

const readExperimentView = (group: string, id: number) =>
  Effect.gen(function* () {
    const found_ = yield* store((r) => r.readExperiment(group, id))
    return yield* found("experiment", id, found_ === undefined ? undefined : experimentView(yield* linker, found_))
  })
const readEntrypointView = (group: string, id: number) =>
  Effect.gen(function* () {
    const found_ = yield* store((r) => r.readEntrypoint(group, id))
    return yield* found("entrypoint", id, found_ === undefined ? undefined : entrypointView(yield* linker, found_))
  })
const readQueueView = (group: string, id: number) =>
  Effect.gen(function* () {
    const found_ = yield* store((r) => r.readQueue(group, id))
    return yield* found("queue", id, found_ === undefined ? undefined : queueView(yield* linker, found_))
  })

const experimentProblems = (principal: Principal, body: ExperimentModify & { readonly group?: number }, except = 0) =>
  Effect.gen(function* () {
    return [
      ...groupProblems(principal, body.group),
      ...(yield* missing("entrypoints", principal.group, body.entrypoints ?? [])),
      ...(yield* taken("experiments", principal.group, body.name, except))
    ]
  })

const entrypointProblems = (principal: Principal, input: EntrypointModify & { readonly group?: number }, except = 0) =>
  Effect.gen(function* () {
    return [
      ...groupProblems(principal, input.group),
      ...(yield* missing("queues", principal.group, input.queues ?? [])),
      ...pluginProblems(input),
      ...(yield* taken("entrypoints", principal.group, input.name, except))
    ]
  })

const queueFields = (body: QueueModify, fallback: Queue["backend"]) => {
  const backend = body.backend ?? fallback
  return { name: body.name, description: body.description ?? "", ...(backend === undefined ? {} : { backend }) }
}

// A resource deleted softly, or not found in the caller's group.
const deleteRoute = (resource: string, table: NamedTable, id: number) =>
  Effect.gen(function* () {
    const principal = yield* Caller
    const at = yield* now
    return (yield* store((r) => r.deleteResource(table, principal.group, id, at))) ? deleted(id) : yield* Effect.fail(refusal(notFound(resource, id)))
  })

// An entrypoint's new snapshot, checked against every bound before anything is written.
const checkedSnapshot = (principal: Principal, body: EntrypointModify & { readonly group?: number }, except = 0) =>
  Effect.gen(function* () {
    const limits = yield* AnswerLimitsService
    const document = snapshotDocument(body)
    const problems = [...(Result.isFailure(document) ? document.failure.problems : []), ...(yield* entrypointProblems(principal, body, except))]
    if (problems.length > 0 || Result.isFailure(document)) return yield* refuse(problems)
    const bytes = snapshotBytes(document.success)
    if (bytes > limits.snapshotBytes) return yield* Effect.fail(refusal(new SnapshotTooLarge({ resource: "entrypoint", bytes, limit: limits.snapshotBytes })))
    return { document: document.success, bytes }
  })

/** Experiments, entrypoints, queues and artifacts: Dioptra's create, get, get_by_id, modify_by_id and delete_by_id. */
export const resourceRoutes = [
  route(ExperimentsGroup, "create", {
    handle: ({ body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const problems = yield* experimentProblems(principal, body)
          if (problems.length > 0) return yield* refuse(problems)
          const at = yield* now
          const id = yield* store((r) => r.insertExperiment(principal.group, creatorOf(principal), { name: body.name, description: body.description ?? "" }, at))
          yield* store((r) => r.registerEntrypoints(id, body.entrypoints ?? []))
          return yield* readExperimentView(principal.group, id)
        })
      )
  }),
  listRoute(ExperimentsGroup, (r, group, window) => r.listExperiments(group, window), experimentView),
  route(ExperimentsGroup, "read", {
    handle: ({ params }) => Caller.use((principal) => readExperimentView(principal.group, params.id))
  }),
  route(ExperimentsGroup, "modify", {
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          if ((yield* store((r) => r.readExperiment(principal.group, params.id))) === undefined) return yield* Effect.fail(refusal(notFound("experiment", params.id)))
          const problems = yield* experimentProblems(principal, body, params.id)
          if (problems.length > 0) return yield* refuse(problems)
          const at = yield* now
          yield* store((r) => r.updateExperiment(principal.group, params.id, { name: body.name, description: body.description ?? "", entrypoints: body.entrypoints ?? [] }, at))
          return yield* readExperimentView(principal.group, params.id)
        })
      )
  }),
  route(ExperimentsGroup, "delete", {
    handle: ({ params }) => deleteRoute("experiment", "experiments", params.id)
  }),
  route(ExperimentsGroup, "addEntrypoints", {
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const limits = yield* AnswerLimitsService
          if ((yield* store((r) => r.readExperiment(principal.group, params.id))) === undefined) return yield* Effect.fail(refusal(notFound("experiment", params.id)))
          const problems = yield* missing("entrypoints", principal.group, body.ids)
          if (problems.length > 0) return yield* refuse(problems)
          // Registrations add up over requests, and the experiment answers every one: their number is bounded.
          const count = yield* store((r) => r.registeredWith(params.id, body.ids))
          if (count > limits.references) {
            return yield* Effect.fail(refusal(new TooManyReferences({ resource: "experiment", id: params.id, field: "entrypoints", count, limit: limits.references })))
          }
          yield* store((r) => r.registerEntrypoints(params.id, body.ids))
          // Upstream answers the experiment's entrypoints (all of them, not only those added) as references.
          return (yield* readExperimentView(principal.group, params.id)).entrypoints
        })
      )
  }),
  route(EntrypointsGroup, "create", {
    handle: ({ body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const { document } = yield* checkedSnapshot(principal, body)
          const at = yield* now
          const id = yield* store((r) => r.insertEntrypoint(principal.group, creatorOf(principal), header(body), document, at))
          return yield* readEntrypointView(principal.group, id)
        })
      )
  }),
  route(EntrypointsGroup, "update", {
    // Nothing is written before every bound is checked, so a refusal commits nothing.
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const limits = yield* AnswerLimitsService
          if ((yield* store((r) => r.readEntrypoint(principal.group, params.id))) === undefined) return yield* Effect.fail(refusal(notFound("entrypoint", params.id)))
          const { document, bytes } = yield* checkedSnapshot(principal, body, params.id)
          const kept = yield* store((r) => r.snapshotBytesWith(params.id, bytes, limits.snapshotsKept))
          if (kept > limits.resourceBytes) return yield* Effect.fail(refusal(new ResourceTooLarge({ resource: "entrypoint", id: params.id, bytes: kept, limit: limits.resourceBytes })))
          const at = yield* now
          yield* store((r) => r.updateEntrypoint(principal.group, params.id, header(body), document, at))
          yield* store((r) => r.pruneSnapshots(params.id, limits.snapshotsKept))
          return yield* readEntrypointView(principal.group, params.id)
        })
      )
  }),
  route(EntrypointsGroup, "snapshots", {
    handle: ({ params, query }) =>
      Effect.gen(function* () {
        const principal = yield* Caller
        const context = yield* listContext(query)
        const link = yield* linker
        const names: RowNames = { resource: `entrypoint ${params.id} snapshot`, path: (id) => `/entrypoints/${params.id}/snapshots/${id}` }
        let absent = false
        const listed = yield* pageOf(
          query,
          `/entrypoints/${params.id}/snapshots`,
          (offset, limit) =>
            Effect.map(store((r) => r.listEntrypointSnapshots(principal.group, params.id, offset, limit)), (window) => {
              if (window === undefined) {
                absent = true
                return { items: [], total: 0 }
              }
              const latest = window.entrypoint.snapshots[0]?.snapshot ?? 0
              const view = (snapshot: StoredSnapshot) => entrypointView(link, window.entrypoint, { snapshot, latest })
              return { items: renderRows(context, names, window.snapshots, (s) => s.snapshot, view), total: window.total }
            }),
          names
        )
        return absent ? yield* Effect.fail(refusal(notFound("entrypoint", params.id))) : listed
      })
  }),
  route(EntrypointsGroup, "snapshot", {
    handle: ({ params }) =>
      Effect.gen(function* () {
        const principal = yield* Caller
        const one = yield* store((r) => r.readEntrypointSnapshot(principal.group, params.id, params.snapshotId))
        if (one === undefined) {
          const entrypoint = yield* store((r) => r.readEntrypoint(principal.group, params.id))
          return yield* Effect.fail(refusal(entrypoint === undefined ? notFound("entrypoint", params.id) : new ResourceNotFound({ resource: "snapshot", id: String(params.snapshotId) })))
        }
        return entrypointView(yield* linker, one.entrypoint, { snapshot: one.snapshot, latest: one.entrypoint.snapshots[0]?.snapshot ?? 0 })
      })
  }),
  listRoute(EntrypointsGroup, (r, group, window) => r.listEntrypoints(group, window), entrypointView, entrypointSearchFields),
  route(EntrypointsGroup, "read", {
    handle: ({ params }) => Caller.use((principal) => readEntrypointView(principal.group, params.id))
  }),
  route(EntrypointsGroup, "delete", {
    handle: ({ params }) => deleteRoute("entrypoint", "entrypoints", params.id)
  }),
  route(QueuesGroup, "create", {
    handle: ({ body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const { defaultBackend } = yield* ServiceSettings
          const problems = [...groupProblems(principal, body.group), ...(yield* taken("queues", principal.group, body.name))]
          if (problems.length > 0) return yield* refuse(problems)
          const at = yield* now
          const id = yield* store((r) => r.insertQueue(principal.group, creatorOf(principal), queueFields(body, defaultBackend), at))
          return yield* readQueueView(principal.group, id)
        })
      )
  }),
  listRoute(QueuesGroup, (r, group, window) => r.listQueues(group, window), queueView),
  route(QueuesGroup, "read", {
    handle: ({ params }) => Caller.use((principal) => readQueueView(principal.group, params.id))
  }),
  route(QueuesGroup, "modify", {
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          if ((yield* store((r) => r.readQueue(principal.group, params.id))) === undefined) return yield* Effect.fail(refusal(notFound("queue", params.id)))
          const problems = yield* taken("queues", principal.group, body.name, params.id)
          if (problems.length > 0) return yield* refuse(problems)
          const at = yield* now
          yield* store((r) => r.updateQueue(principal.group, params.id, queueFields(body, undefined), at))
          return yield* readQueueView(principal.group, params.id)
        })
      )
  }),
  route(QueuesGroup, "delete", {
    handle: ({ params }) => deleteRoute("queue", "queues", params.id)
  }),
  route(ArtifactsGroup, "create", {
    handle: ({ body }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const at = yield* now
          const id = yield* store((r) => r.insertArtifact(principal.group, body.artifactType, at))
          return yield* found("artifact", id, yield* store((r) => r.readArtifact(principal.group, id)))
        })
      )
  }),
  route(ArtifactsGroup, "addSnapshot", {
    handle: ({ params }) =>
      transaction(
        Effect.gen(function* () {
          const principal = yield* Caller
          const limits = yield* AnswerLimitsService
          const artifact = yield* store((r) => r.readArtifact(principal.group, params.id))
          if (artifact === undefined) return yield* Effect.fail(refusal(notFound("artifact", params.id)))
          // An artifact answers every snapshot id it has, so their number is what bounds its answer.
          if (artifact.snapshots.length >= limits.artifactSnapshots) {
            return yield* Effect.fail(refusal(new TooManySnapshots({ resource: "artifact", id: params.id, limit: limits.artifactSnapshots })))
          }
          const at = yield* now
          yield* store((r) => r.insertArtifactSnapshot(params.id, at))
          return yield* found("artifact", params.id, yield* store((r) => r.readArtifact(principal.group, params.id)))
        })
      )
  }),
  route(ArtifactsGroup, "read", {
    handle: ({ params }) => Caller.use((principal) => Effect.flatMap(store((r) => r.readArtifact(principal.group, params.id)), (artifact) => found("artifact", params.id, artifact)))
  })
]

// The resources' repository: experiments, entrypoints (with their snapshots), queues (with their gates) and
// artifacts, over the SqlClient in context. Every row read is decoded with its schema.
import type { Artifact, Entrypoint, EntrypointVersion, Experiment, Queue } from "@dispatch/jobs"
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { ArtifactResponse, QueueGate } from "../wire/ApiSchemas.ts"
import type { SqlCondition } from "../wire/DioptraPaging.ts"

// Every query takes the caller's group: a resource of another group is never read, so it cannot leak. A deleted
// resource is kept (jobs still name it) but read by nothing here.

/** What every stored resource carries besides its model: its group (name and id) and times. */
interface Owned {
  readonly group: string
  readonly groupId: number
  readonly createdOn: string
  readonly lastModifiedOn: string
  /** Who made it (a user, or a bearer token's name), null when made before the service recorded it. */
  readonly creator: string | null
  /** The user id of who made it, null for a bearer token. */
  readonly creatorId: number | null
}

/** Who makes a resource: a principal's name and, for a logged-in user, its id. */
export interface Creator {
  readonly name: string
  readonly userId?: number
}

/** A name by id, for the references an answer nests. */
export interface NamedId {
  readonly id: number
  readonly name: string
}

/** An experiment as stored: the model, its owner and times, and its entrypoints' names. */
export interface StoredExperiment extends Experiment, Owned {
  readonly entrypointNames: ReadonlyArray<NamedId>
}

/** An entrypoint as stored: the model with one snapshot (the latest, or the one asked for), its owner and times,
 * its queues' names and how many snapshots it keeps. */
export interface StoredEntrypoint extends Entrypoint, Owned {
  readonly queueNames: ReadonlyArray<NamedId>
  readonly snapshotCount: number
}

/** A queue as stored, with its gate. */
export interface StoredQueue extends Queue, Owned {
  readonly gate: QueueGate
}

/** How a list is read: where, in what order, and which window. */
export interface ListWindow {
  readonly search: SqlCondition
  readonly sortBy: "id" | "name" | "createdOn" | "lastModifiedOn" | "description"
  readonly descending: boolean
  readonly offset: number
  readonly limit: number
}

const sortColumn = { id: "id", name: "name", createdOn: "created_on", lastModifiedOn: "last_modified_on", description: "description" } as const

/** The searchable fields of experiments, entrypoints and queues, as SQL over alias `x`. */
export const resourceSearchFields = { name: "x.name", description: "x.description" } as const

// The latest snapshot's text of a graph: the YAML as sent, or for a task graph sent as a JSON object its JSON text.
const latestSnapshotText = (expression: string) =>
  `(select coalesce(${expression}, '') from entrypoint_snapshots s where s.entrypoint = x.id order by s.id desc limit 1)`

/** The searchable fields of entrypoints, as upstream's: also `task_graph` and `artifact_graph`, of the latest snapshot. */
export const entrypointSearchFields = {
  ...resourceSearchFields,
  task_graph: latestSnapshotText(`s.document->>'taskGraphText', s.document->>'taskGraph'`),
  artifact_graph: latestSnapshotText(`s.document->>'artifactGraph'`)
} as const

const groupIdColumn = (alias: string) =>
  `(select gr.id from groups gr where gr.name = ${alias}.grp) as "groupId", ${alias}.creator, ${alias}.creator_id as "creatorId"`

const experimentColumns = (e: string) => `${e}.id, ${e}.grp as "group", ${groupIdColumn(e)}, ${e}.name, ${e}.description, ${e}.created_on as "createdOn", ${e}.last_modified_on as "lastModifiedOn",
  coalesce((select jsonb_agg(l.entrypoint order by l.entrypoint) from experiment_entrypoints l join entrypoints lp on lp.id = l.entrypoint and not lp.deleted where l.experiment = ${e}.id), '[]'::jsonb) as entrypoints,
  coalesce((select jsonb_agg(jsonb_build_object('id', lp.id, 'name', lp.name) order by lp.id) from experiment_entrypoints l join entrypoints lp on lp.id = l.entrypoint and not lp.deleted where l.experiment = ${e}.id), '[]'::jsonb) as "entrypointNames"`

// One snapshot rides along with an entrypoint, never all of them: the latest, or the one `snapshot` (an SQL
// expression) names. The rest are read a page at a time (listEntrypointSnapshots).
const entrypointColumns = (p: string, snapshot = "null::int") => `${p}.id, ${p}.grp as "group", ${groupIdColumn(p)}, ${p}.name, ${p}.description, ${p}.created_on as "createdOn", ${p}.last_modified_on as "lastModifiedOn",
  coalesce((select jsonb_agg(l.queue order by l.queue) from entrypoint_queues l join queues lq on lq.id = l.queue and not lq.deleted where l.entrypoint = ${p}.id), '[]'::jsonb) as queues,
  coalesce((select jsonb_agg(jsonb_build_object('id', lq.id, 'name', lq.name) order by lq.id) from entrypoint_queues l join queues lq on lq.id = l.queue and not lq.deleted where l.entrypoint = ${p}.id), '[]'::jsonb) as "queueNames",
  coalesce((select jsonb_agg(s.document || jsonb_build_object('snapshot', s.id)) from (select s0.id, s0.document from entrypoint_snapshots s0
    where s0.entrypoint = ${p}.id and (${snapshot} is null or s0.id = ${snapshot}) order by s0.id desc limit 1) s), '[]'::jsonb) as snapshots,
  (select count(*)::int from entrypoint_snapshots s where s.entrypoint = ${p}.id) as "snapshotCount"`

/** One snapshot of an entrypoint as stored: its id, when it was made, and its content. */
export interface StoredSnapshot {
  readonly snapshot: number
  readonly createdOn: string
  readonly document: SnapshotDocument
}

/** What an entrypoint is made of, apart from its id and snapshots. */
export interface EntrypointHeader {
  readonly name: string
  readonly description: string
  readonly queues: ReadonlyArray<number>
}

/** A snapshot's content: the version of the entrypoint without its id, and its task graph's text as sent (YAML). */
export type SnapshotDocument = Omit<EntrypointVersion, "snapshot"> & { readonly taskGraphText?: string; readonly artifactGraph?: string }

/** How many bytes of JSON a snapshot's content takes: what the size bounds count. */
export const snapshotBytes = (document: SnapshotDocument): number => Buffer.byteLength(JSON.stringify(document))

// The snapshots retention keeps: the `kept` latest, and every one a job was made from (a job names its snapshot
// for as long as it is stored).
// Sizes are counted as the JSON text of each document, as they are bounded when sent.
const keptSnapshots = (kept: string) => `select x.id from (select s.id, row_number() over (order by s.id desc) as r
  from entrypoint_snapshots s where s.entrypoint = $1) x where x.r <= ${kept} or x.id in (select j.entrypoint_snapshot from jobs j where j.entrypoint = $1)`

const queueColumns = (q: string) => `${q}.id, ${q}.grp as "group", ${groupIdColumn(q)}, ${q}.name, ${q}.description, ${q}.backend, ${q}.created_on as "createdOn", ${q}.last_modified_on as "lastModifiedOn",
  g.state as "gateState", g.reason as "gateReason", g.checked_on as "gateCheckedOn"`

const queueTables = (q: string) => `queues ${q} left join queue_gates g on g.queue = ${q}.id`


/** The gate of a queue without a backend: nothing can be proven until it has one. */
export const noBackendGate: QueueGate = {
  state: "unproven",
  reason: "the queue has no backend: give it one (PUT /queues/{id} with backend) or start the service with --default-backend"
}

const queueOf = ({ gateState, gateReason, gateCheckedOn, backend, ...queue }: QueueRow): StoredQueue => ({
  ...queue,
  ...(backend === null || backend === undefined ? {} : { backend }),
  gate:
    backend === null || backend === undefined
      ? noBackendGate
      : gateState === null
        ? { state: "unproven", reason: "the queue's Factory has not run yet" }
        : { state: gateState, ...(gateState === "open" || gateReason === null ? {} : { reason: gateReason }), ...(gateCheckedOn === null ? {} : { checkedOn: gateCheckedOn }) }
})

const artifactColumns = `a.id, a.grp as "group", a.artifact_type as "artifactType", a.created_on as "createdOn", a.job, a.uri, a.description,
  coalesce((select jsonb_agg(s.id order by s.id) from artifact_snapshots s where s.artifact = a.id), '[]'::jsonb) as snapshots`


const artifactOf = ({ job, uri, description, ...rest }: ArtifactRow): ArtifactResponse => ({
  ...rest,
  ...(job === null ? {} : { job }),
  ...(uri === null ? {} : { uri }),
  ...(description === null ? {} : { description })
})

/** Where an artifact came from: the job that produced it, at a URI, described. */
export interface ArtifactOrigin {
  readonly job: number
  readonly uri: string
  readonly description?: string
}

/** The resources job creation reads, restricted to the group: the stored rows in the model's shapes. */
export interface CatalogRows {
  readonly experiment: Experiment | undefined
  readonly entrypoint: Entrypoint | undefined
  readonly queue: Queue | undefined
  readonly artifacts: ReadonlyArray<Artifact>
}

// A row read through to_jsonb carries its times in PostgreSQL's JSON form (`2026-01-01T00:00:00+00:00`); the
// service answers them in the ISO-8601 form it stamped them in, as a plain read does.
const timeKeys = new Set(["createdOn", "lastModifiedOn", "gateCheckedOn"])
const jsonRow = <R>(row: unknown): R | undefined => {
  if (row === null || row === undefined) return undefined
  const copy: Record<string, unknown> = { ...(row as Record<string, unknown>) }
  for (const key of timeKeys) {
    const value = copy[key]
    if (typeof value === "string") copy[key] = new Date(value).toISOString()
  }
  return copy as R
}


// JSON the service wrote itself, decoded with the model's schema when it was sent: read back as written, checked
// for its shape only. Not decoded again: a task graph may nest deep, and a document that no longer renders must
// reach its view, to be listed as an unreadable row rather than fail its whole list.
const written = <A>(is: (u: unknown) => boolean) => Schema.declare<A>((u): u is A => is(u))
const isObject = (u: unknown) => typeof u === "object" && u !== null && !Array.isArray(u)

const NamedIdRow = Schema.Struct({ id: Schema.Number, name: Schema.String })
const ownedFields = {
  group: Schema.String,
  groupId: Schema.Number,
  creator: Schema.NullOr(Schema.String),
  creatorId: Schema.NullOr(Schema.Number),
  createdOn: Schema.String,
  lastModifiedOn: Schema.String
}

/** An experiment row. */
export const ExperimentRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  entrypoints: Schema.Array(Schema.Number),
  entrypointNames: Schema.Array(NamedIdRow),
  ...ownedFields
})

/** An entrypoint row with one snapshot. */
export const EntrypointRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  queues: Schema.Array(Schema.Number),
  queueNames: Schema.Array(NamedIdRow),
  snapshots: written<ReadonlyArray<EntrypointVersion>>((u) => Array.isArray(u) && u.every(isObject)),
  snapshotCount: Schema.Number,
  ...ownedFields
})

/** A queue row with its gate's columns. */
export const QueueRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  backend: Schema.NullOr(written<NonNullable<Queue["backend"]>>(isObject)),
  gateState: Schema.NullOr(Schema.Literals(["open", "closed", "read-only", "observe-only", "unproven", "proving"])),
  gateReason: Schema.NullOr(Schema.String),
  gateCheckedOn: Schema.NullOr(Schema.String),
  ...ownedFields
})
type QueueRow = typeof QueueRow.Type

/** One snapshot of an entrypoint. */
export const SnapshotRow = Schema.Struct({ snapshot: Schema.Number, createdOn: Schema.String, document: written<SnapshotDocument>(isObject) })

/** An artifact row. */
export const ArtifactRow = Schema.Struct({
  id: Schema.Number,
  group: Schema.String,
  artifactType: Schema.String,
  createdOn: Schema.String,
  job: Schema.NullOr(Schema.Number),
  uri: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  snapshots: Schema.Array(Schema.Number)
})
type ArtifactRow = typeof ArtifactRow.Type

const IdRow = Schema.Struct({ id: Schema.Number })
const CountRow = Schema.Struct({ n: Schema.Number })
// A sum is a bigint, which drivers answer as text or a bigint.
const BytesRow = Schema.Struct({ bytes: Schema.Union([Schema.Number, Schema.String, Schema.BigInt]) })
const CatalogRow = Schema.Struct({ experiment: Schema.Unknown, entrypoint: Schema.Unknown, queue: Schema.Unknown, artifacts: Schema.Array(Schema.Unknown) })
const Params = Schema.Array(Schema.Unknown)

/** The tables a resource is soft-deleted in or named uniquely in. */
export type NamedTable = "experiments" | "entrypoints" | "queues"

// A row read through to_jsonb decoded as its plain read is, once its times are in the service's form.
const decodeJson = <S extends Schema.Top & { readonly DecodingServices: never }>(Row: S, value: unknown) =>
  Effect.map(Schema.decodeUnknownEffect(Row)(jsonRow(value)), (row) => row as S["Type"])

/** The resources' repository over the SqlClient in context. Every query takes the caller's group. */
export const resources = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const all = <S extends Schema.Top & { readonly DecodingServices: never }>(Row: S, text: string, params: ReadonlyArray<unknown>) =>
    SqlSchema.findAll({ Request: Params, Result: Row, execute: (p) => sql.unsafe(text, p) })(params)
  const first = <S extends Schema.Top & { readonly DecodingServices: never }>(Row: S, text: string, params: ReadonlyArray<unknown>) =>
    Effect.map(all(Row, text, params), (rows): S["Type"] | undefined => rows[0])
  const run = (text: string, params: ReadonlyArray<unknown>) => SqlSchema.void({ Request: Params, execute: (p) => sql.unsafe(text, p) })(params)

  const listed = <S extends Schema.Top & { readonly DecodingServices: never }>(Row: S, table: string, columns: string, group: string, window: ListWindow) =>
    Effect.gen(function* () {
      const where = `x.grp = $1 and not x.deleted and ${window.search.where}`
      const order = `x.${sortColumn[window.sortBy]} ${window.descending ? "desc" : "asc"}, x.id ${window.descending ? "desc" : "asc"}`
      const n = window.search.params.length
      const items = yield* all(Row, `select ${columns} from ${table} where ${where} order by ${order} limit $${n + 2} offset $${n + 3}`, [group, ...window.search.params, window.limit, window.offset])
      const count = yield* first(CountRow, `select count(*)::int as n from ${table.split(" ")[0]} x where ${where}`, [group, ...window.search.params])
      return { items, total: count?.n ?? 0 }
    })

  const readEntrypoint = (group: string, id: number, snapshot?: number) =>
    first(EntrypointRow, `select ${entrypointColumns("p", "$3::int")} from entrypoints p where p.id = $1 and p.grp = $2 and not p.deleted`, [id, group, snapshot ?? null])

  // A snapshot is only ever inserted: jobs point at it, so editing it would rewrite what they ran.
  const attachSnapshot = (entrypoint: number, queues: ReadonlyArray<number>, document: SnapshotDocument, at: string) =>
    Effect.gen(function* () {
      yield* run(`delete from entrypoint_queues where entrypoint = $1`, [entrypoint])
      for (const queue of new Set(queues)) yield* run(`insert into entrypoint_queues (entrypoint, queue) values ($1, $2)`, [entrypoint, queue])
      yield* run(`insert into entrypoint_snapshots (entrypoint, document, created_on) values ($1, $2::jsonb, $3)`, [entrypoint, JSON.stringify(document), at])
    })

  const registerEntrypoints = (experiment: number, entrypoints: ReadonlyArray<number>) =>
    Effect.forEach(entrypoints, (entrypoint) => run(`insert into experiment_entrypoints (experiment, entrypoint) values ($1, $2) on conflict do nothing`, [experiment, entrypoint]), { discard: true })

  const readArtifact = (group: string, id: number) =>
    Effect.map(first(ArtifactRow, `select ${artifactColumns} from artifacts a where a.id = $1 and a.grp = $2`, [id, group]), (row) => (row === undefined ? undefined : artifactOf(row)))

  const insertArtifactSnapshot = (artifact: number, at: string) => run(`insert into artifact_snapshots (artifact, created_on) values ($1, $2)`, [artifact, at])

  return {
    /** Reads one experiment of a group. */
    readExperiment: (group: string, id: number): Effect.Effect<StoredExperiment | undefined, SqlErrors> =>
      first(ExperimentRow, `select ${experimentColumns("e")} from experiments e where e.id = $1 and e.grp = $2 and not e.deleted`, [id, group]),
    /** Lists a group's experiments: searched, sorted, one window. */
    listExperiments: (group: string, window: ListWindow): Effect.Effect<{ readonly items: ReadonlyArray<StoredExperiment>; readonly total: number }, SqlErrors> =>
      listed(ExperimentRow, "experiments x", experimentColumns("x"), group, window),
    /** Edits an experiment's name, description and entrypoints; false when it is not the group's. */
    updateExperiment: (group: string, id: number, input: { name: string; description: string; entrypoints: ReadonlyArray<number> }, at: string) =>
      Effect.gen(function* () {
        const rows = yield* all(IdRow, `update experiments set name = $3, description = $4, last_modified_on = $5 where id = $1 and grp = $2 and not deleted returning id`, [id, group, input.name, input.description, at])
        if (rows.length === 0) return false
        yield* run(`delete from experiment_entrypoints where experiment = $1`, [id])
        yield* registerEntrypoints(id, input.entrypoints)
        return true
      }),
    /** Deletes a resource softly (jobs keep naming it); false when it is not the group's. */
    deleteResource: (table: NamedTable, group: string, id: number, at: string) =>
      Effect.map(all(IdRow, `update ${table} set deleted = true, last_modified_on = $3 where id = $1 and grp = $2 and not deleted returning id`, [id, group, at]), (rows) => rows.length > 0),
    /** Whether another live resource of the group in `table` has this name. */
    nameTaken: (table: NamedTable, group: string, name: string, except = 0) =>
      Effect.map(all(CountRow, `select 1 as n from ${table} where grp = $1 and name = $2 and id <> $3 and not deleted`, [group, name, except]), (rows) => rows.length > 0),
    /** Inserts an experiment; the caller has checked its entrypoints exist in the group. */
    insertExperiment: (group: string, creator: Creator, input: { name: string; description: string }, at: string) =>
      Effect.map(
        first(IdRow, `insert into experiments (grp, name, description, created_on, last_modified_on, creator, creator_id) values ($1, $2, $3, $4, $4, $5, $6) returning id`, [
          group,
          input.name,
          input.description,
          at,
          creator.name,
          creator.userId ?? null
        ]),
        (row) => row?.id ?? 0
      ),
    /** Registers entrypoints with an experiment; those already registered stay as they are. */
    registerEntrypoints,
    /** How many entrypoints an experiment would register with `more` added (those already registered counted once). */
    registeredWith: (experiment: number, more: ReadonlyArray<number>) =>
      Effect.map(
        first(CountRow, `select count(*)::int as n from (select entrypoint from experiment_entrypoints where experiment = $1 union select unnest($2::int[])) e`, [experiment, [...more]]),
        (row) => row?.n ?? 0
      ),
    /** The ids among `ids` that name no resource of the group in `table`. */
    missingIds: (table: "entrypoints" | "queues", group: string, ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<number>, SqlErrors> =>
      ids.length === 0
        ? Effect.succeed([])
        : Effect.map(all(IdRow, `select id from ${table} where grp = $1 and not deleted and id = any($2::int[])`, [group, [...ids]]), (found) => {
            const present = new Set(found.map((r) => r.id))
            return [...new Set(ids)].filter((id) => !present.has(id))
          }),
    /** Reads one entrypoint of a group with one snapshot: `snapshot`, else its latest (none when `snapshot` is not
     * one of its own). */
    readEntrypoint: (group: string, id: number, snapshot?: number): Effect.Effect<StoredEntrypoint | undefined, SqlErrors> => readEntrypoint(group, id, snapshot),
    /** Lists a group's entrypoints, each with its latest snapshot: searched, sorted, one window. */
    listEntrypoints: (group: string, window: ListWindow): Effect.Effect<{ readonly items: ReadonlyArray<StoredEntrypoint>; readonly total: number }, SqlErrors> =>
      listed(EntrypointRow, "entrypoints x", entrypointColumns("x"), group, window),
    /** One window of an entrypoint's snapshots, oldest first, and how many it keeps; undefined when the group has no
     * such entrypoint. */
    listEntrypointSnapshots: (group: string, id: number, offset: number, limit: number) =>
      Effect.gen(function* () {
        const entrypoint: StoredEntrypoint | undefined = yield* readEntrypoint(group, id)
        if (entrypoint === undefined) return undefined
        const snapshots: ReadonlyArray<StoredSnapshot> = yield* all(
          SnapshotRow,
          `select s.id as snapshot, s.created_on as "createdOn", s.document from entrypoint_snapshots s where s.entrypoint = $1 order by s.id limit $2 offset $3`,
          [id, limit, offset]
        )
        return { entrypoint, snapshots, total: entrypoint.snapshotCount }
      }),
    /** One snapshot of a group's entrypoint, with the entrypoint; undefined when either is not there. */
    readEntrypointSnapshot: (group: string, id: number, snapshot: number) =>
      Effect.gen(function* () {
        const entrypoint: StoredEntrypoint | undefined = yield* readEntrypoint(group, id)
        if (entrypoint === undefined) return undefined
        const row: StoredSnapshot | undefined = yield* first(
          SnapshotRow,
          `select s.id as snapshot, s.created_on as "createdOn", s.document from entrypoint_snapshots s where s.entrypoint = $1 and s.id = $2`,
          [id, snapshot]
        )
        return row === undefined ? undefined : { entrypoint, snapshot: row }
      }),
    /** Inserts an entrypoint with its first snapshot. */
    insertEntrypoint: (group: string, creator: Creator, header: EntrypointHeader, document: SnapshotDocument, at: string) =>
      Effect.gen(function* () {
        const row = yield* first(IdRow, `insert into entrypoints (grp, name, description, created_on, last_modified_on, creator, creator_id) values ($1, $2, $3, $4, $4, $5, $6) returning id`, [
          group,
          header.name,
          header.description,
          at,
          creator.name,
          creator.userId ?? null
        ])
        const id = row?.id ?? 0
        yield* attachSnapshot(id, header.queues, document, at)
        return id
      }),
    /** The bytes an entrypoint's stored snapshots would take with one more of `adding` bytes, once retention keeps the
     * `kept` latest (the new one among them) and every one a job names. Locks the entrypoint until the transaction
     * ends, so concurrent edits are counted one after the other. */
    snapshotBytesWith: (entrypoint: number, adding: number, kept: number) =>
      Effect.gen(function* () {
        yield* run(`select 1 from entrypoints where id = $1 for update`, [entrypoint])
        const row = yield* first(BytesRow, `select coalesce(sum(octet_length(s.document::text)), 0)::bigint as bytes from entrypoint_snapshots s where s.id in (${keptSnapshots("$2")})`, [entrypoint, kept - 1])
        return Number(row?.bytes ?? 0) + adding
      }),
    /** Deletes an entrypoint's snapshots past retention: all but the `kept` latest and those a job names. */
    pruneSnapshots: (entrypoint: number, kept: number) =>
      run(`delete from entrypoint_snapshots s where s.entrypoint = $1 and s.id not in (select id from (${keptSnapshots("$2")}) k)`, [entrypoint, kept]),
    /** Edits an entrypoint: new name, description and queues, and a new snapshot; false when it is not the group's. */
    updateEntrypoint: (group: string, id: number, header: EntrypointHeader, document: SnapshotDocument, at: string) =>
      Effect.gen(function* () {
        const rows = yield* all(IdRow, `update entrypoints set name = $3, description = $4, last_modified_on = $5 where id = $1 and grp = $2 and not deleted returning id`, [id, group, header.name, header.description, at])
        if (rows.length === 0) return false
        yield* attachSnapshot(id, header.queues, document, at)
        return true
      }),
    /** Reads one queue of a group, with its gate. */
    readQueue: (group: string, id: number): Effect.Effect<StoredQueue | undefined, SqlErrors> =>
      Effect.map(first(QueueRow, `select ${queueColumns("q")} from ${queueTables("q")} where q.id = $1 and q.grp = $2 and not q.deleted`, [id, group]), (row) =>
        row === undefined ? undefined : queueOf(row)
      ),
    /** Lists a group's queues with their gates: searched, sorted, one window. */
    listQueues: (group: string, window: ListWindow): Effect.Effect<{ readonly items: ReadonlyArray<StoredQueue>; readonly total: number }, SqlErrors> =>
      Effect.map(listed(QueueRow, queueTables("x"), queueColumns("x"), group, window), ({ items, total }) => ({ items: items.map(queueOf), total })),
    /** Inserts a queue; without a backend its jobs wait until it gets one. */
    insertQueue: (group: string, creator: Creator, queue: Omit<Queue, "id">, at: string) =>
      Effect.map(
        first(
          IdRow,
          `insert into queues (grp, name, description, backend, created_on, last_modified_on, creator, creator_id) values ($1, $2, $3, $4::jsonb, $5, $5, $6, $7) returning id`,
          [group, queue.name, queue.description ?? "", queue.backend === undefined ? null : JSON.stringify(queue.backend), at, creator.name, creator.userId ?? null]
        ),
        (row) => row?.id ?? 0
      ),
    /** Edits a queue's name, description and (when given) backend; a new backend is proven afresh. False when it is
     * not the group's. */
    updateQueue: (group: string, id: number, queue: Omit<Queue, "id">, at: string) =>
      Effect.gen(function* () {
        const rows = yield* all(
          IdRow,
          `update queues set name = $3, description = $4, backend = coalesce($5::jsonb, backend), last_modified_on = $6 where id = $1 and grp = $2 and not deleted returning id`,
          [id, group, queue.name, queue.description ?? "", queue.backend === undefined ? null : JSON.stringify(queue.backend), at]
        )
        if (rows.length === 0) return false
        if (queue.backend !== undefined) yield* run(`delete from queue_gates where queue = $1`, [id])
        return true
      }),
    /** Gives every queue without a backend this one (the service's `--default-backend`); returns their ids. */
    fillMissingBackends: (backend: NonNullable<Queue["backend"]>, at: string) =>
      Effect.map(all(IdRow, `update queues set backend = $1::jsonb, last_modified_on = $2 where backend is null returning id`, [JSON.stringify(backend), at]), (rows) => rows.map((r) => r.id)),
    /** Reads one artifact of a group. */
    readArtifact,
    /** Inserts an artifact with its first snapshot, and the job that produced it when one did. */
    insertArtifact: (group: string, artifactType: string, at: string, origin?: ArtifactOrigin) =>
      Effect.gen(function* () {
        const row = yield* first(IdRow, `insert into artifacts (grp, artifact_type, created_on, job, uri, description) values ($1, $2, $3, $4, $5, $6) returning id`, [
          group,
          artifactType,
          at,
          origin?.job ?? null,
          origin?.uri ?? null,
          origin?.description ?? null
        ])
        const id = row?.id ?? 0
        yield* insertArtifactSnapshot(id, at)
        return id
      }),
    /** Adds a snapshot to an artifact. */
    insertArtifactSnapshot,
    /** Loads what a job creation request refers to, as the model's resources, in one round trip: a job creation is
     * the service's hottest write, and each statement of it costs a round trip to the database. */
    loadCatalogRows: (
      group: string,
      refs: { readonly experiment: number; readonly entrypoint: number; readonly queue: number; readonly artifacts: ReadonlyArray<number>; readonly entrypointSnapshot?: number | null | undefined }
    ): Effect.Effect<CatalogRows, SqlErrors> =>
      Effect.gen(function* () {
        const row = yield* first(
          CatalogRow,
          `select
       (select to_jsonb(x) from (select ${experimentColumns("e")} from experiments e where e.id = $2 and e.grp = $1 and not e.deleted) x) as experiment,
       (select to_jsonb(x) from (select ${entrypointColumns("p", "$6::int")} from entrypoints p where p.id = $3 and p.grp = $1 and not p.deleted) x) as entrypoint,
       (select to_jsonb(x) from (select ${queueColumns("q")} from ${queueTables("q")} where q.id = $4 and q.grp = $1 and not q.deleted) x) as queue,
       coalesce((select jsonb_agg(to_jsonb(x) order by x.n) from (select u.n, ${artifactColumns} from unnest($5::int[]) with ordinality u(id, n)
         join artifacts a on a.id = u.id and a.grp = $1) x), '[]'::jsonb) as artifacts`,
          [group, refs.experiment, refs.entrypoint, refs.queue, [...refs.artifacts], refs.entrypointSnapshot ?? null]
        )
        const optional = <S extends Schema.Top & { readonly DecodingServices: never }>(Row: S, value: unknown) =>
          value === null || value === undefined ? Effect.succeed(undefined) : decodeJson(Row, value)
        const queue = yield* optional(QueueRow, row?.queue)
        return {
          experiment: yield* optional(ExperimentRow, row?.experiment),
          entrypoint: yield* optional(EntrypointRow, row?.entrypoint),
          queue: queue === undefined ? undefined : queueOf(queue),
          artifacts: (yield* Effect.forEach(row?.artifacts ?? [], (a) => decodeJson(ArtifactRow, a))).map(artifactOf)
        }
      })
  }
})

/** What a resource statement fails with: the database's error, or a row its schema refuses. */
type SqlErrors = import("effect/sql").SqlError.SqlError | Schema.SchemaError

/** The resources' repository. */
export type Resources = Effect.Success<typeof resources>

import type { Artifact, Entrypoint, EntrypointVersion, Experiment, Queue } from "@dispatch/jobs"
import type { ArtifactResponse, QueueGate } from "../wire/ApiSchemas.ts"
import type { Sql } from "./Database.ts"
import { isoTimes } from "./PostgresDialect.ts"
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

const listed = async <R>(sql: Sql, table: string, columns: string, group: string, window: ListWindow, map: (row: any) => R = (r) => r as R) => {
  const where = `x.grp = $1 and not x.deleted and ${window.search.where}`
  const order = `x.${sortColumn[window.sortBy]} ${window.descending ? "desc" : "asc"}, x.id ${window.descending ? "desc" : "asc"}`
  const n = window.search.params.length
  const rows = await sql.query(`select ${columns} from ${table} where ${where} order by ${order} limit $${n + 2} offset $${n + 3}`, [group, ...window.search.params, window.limit, window.offset])
  const [count] = await sql.query<{ n: number }>(`select count(*)::int as n from ${table.split(" ")[0]} x where ${where}`, [group, ...window.search.params])
  return { items: rows.map(map), total: count?.n ?? 0 }
}

const groupIdColumn = (alias: string) =>
  `(select gr.id from groups gr where gr.name = ${alias}.grp) as "groupId", ${alias}.creator, ${alias}.creator_id as "creatorId"`

const experimentColumns = (e: string) => `${e}.id, ${e}.grp as "group", ${groupIdColumn(e)}, ${e}.name, ${e}.description, ${e}.created_on as "createdOn", ${e}.last_modified_on as "lastModifiedOn",
  coalesce((select jsonb_agg(l.entrypoint order by l.entrypoint) from experiment_entrypoints l join entrypoints lp on lp.id = l.entrypoint and not lp.deleted where l.experiment = ${e}.id), '[]'::jsonb) as entrypoints,
  coalesce((select jsonb_agg(jsonb_build_object('id', lp.id, 'name', lp.name) order by lp.id) from experiment_entrypoints l join entrypoints lp on lp.id = l.entrypoint and not lp.deleted where l.experiment = ${e}.id), '[]'::jsonb) as "entrypointNames"`

/** Reads one experiment of a group. */
export const readExperiment = async (sql: Sql, group: string, id: number): Promise<StoredExperiment | undefined> =>
  (await sql.query<StoredExperiment>(`select ${experimentColumns("e")} from experiments e where e.id = $1 and e.grp = $2 and not e.deleted`, [id, group]))[0]

/** Lists a group's experiments: searched, sorted, one window. */
export const listExperiments = (sql: Sql, group: string, window: ListWindow) => listed<StoredExperiment>(sql, "experiments x", experimentColumns("x"), group, window)

/** Edits an experiment's name, description and entrypoints; false when it is not the group's. */
export const updateExperiment = async (sql: Sql, group: string, id: number, input: { name: string; description: string; entrypoints: ReadonlyArray<number> }, at: string): Promise<boolean> => {
  const rows = await sql.query(`update experiments set name = $3, description = $4, last_modified_on = $5 where id = $1 and grp = $2 and not deleted returning id`, [id, group, input.name, input.description, at])
  if (rows.length === 0) return false
  await sql.query(`delete from experiment_entrypoints where experiment = $1`, [id])
  await registerEntrypoints(sql, id, input.entrypoints)
  return true
}

/** Deletes a resource softly (jobs keep naming it); false when it is not the group's. */
export const deleteResource = async (sql: Sql, table: "experiments" | "entrypoints" | "queues", group: string, id: number, at: string): Promise<boolean> =>
  (await sql.query(`update ${table} set deleted = true, last_modified_on = $3 where id = $1 and grp = $2 and not deleted returning id`, [id, group, at])).length > 0

/** Inserts an experiment; the caller has checked its entrypoints exist in the group. */
export const insertExperiment = async (sql: Sql, group: string, creator: Creator, input: { name: string; description: string }, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into experiments (grp, name, description, created_on, last_modified_on, creator, creator_id) values ($1, $2, $3, $4, $4, $5, $6) returning id`,
    [group, input.name, input.description, at, creator.name, creator.userId ?? null]
  )
  return row?.id ?? 0
}

/** Registers entrypoints with an experiment; those already registered stay as they are. */
export const registerEntrypoints = async (sql: Sql, experiment: number, entrypoints: ReadonlyArray<number>): Promise<void> => {
  for (const entrypoint of entrypoints) {
    await sql.query(`insert into experiment_entrypoints (experiment, entrypoint) values ($1, $2) on conflict do nothing`, [experiment, entrypoint])
  }
}

/** How many entrypoints an experiment would register with `more` added (those already registered counted once). */
export const registeredWith = async (sql: Sql, experiment: number, more: ReadonlyArray<number>): Promise<number> => {
  const [row] = await sql.query<{ n: number }>(
    `select count(*)::int as n from (select entrypoint from experiment_entrypoints where experiment = $1 union select unnest($2::int[])) e`,
    [experiment, [...more]]
  )
  return row?.n ?? 0
}

/** The ids among `ids` that name no resource of the group in `table`. */
export const missingIds = async (sql: Sql, table: "entrypoints" | "queues", group: string, ids: ReadonlyArray<number>): Promise<ReadonlyArray<number>> => {
  if (ids.length === 0) return []
  const found = await sql.query<{ id: number }>(`select id from ${table} where grp = $1 and not deleted and id = any($2::int[])`, [group, [...ids]])
  const present = new Set(found.map((r) => r.id))
  return [...new Set(ids)].filter((id) => !present.has(id))
}

// One snapshot rides along with an entrypoint, never all of them: the latest, or the one `snapshot` (an SQL
// expression) names. The rest are read a page at a time (listEntrypointSnapshots).
const entrypointColumns = (p: string, snapshot = "null::int") => `${p}.id, ${p}.grp as "group", ${groupIdColumn(p)}, ${p}.name, ${p}.description, ${p}.created_on as "createdOn", ${p}.last_modified_on as "lastModifiedOn",
  coalesce((select jsonb_agg(l.queue order by l.queue) from entrypoint_queues l join queues lq on lq.id = l.queue and not lq.deleted where l.entrypoint = ${p}.id), '[]'::jsonb) as queues,
  coalesce((select jsonb_agg(jsonb_build_object('id', lq.id, 'name', lq.name) order by lq.id) from entrypoint_queues l join queues lq on lq.id = l.queue and not lq.deleted where l.entrypoint = ${p}.id), '[]'::jsonb) as "queueNames",
  coalesce((select jsonb_agg(s.document || jsonb_build_object('snapshot', s.id)) from (select s0.id, s0.document from entrypoint_snapshots s0
    where s0.entrypoint = ${p}.id and (${snapshot} is null or s0.id = ${snapshot}) order by s0.id desc limit 1) s), '[]'::jsonb) as snapshots,
  (select count(*)::int from entrypoint_snapshots s where s.entrypoint = ${p}.id) as "snapshotCount"`

/** Reads one entrypoint of a group with one snapshot: `snapshot`, else its latest (none when `snapshot` is not
 * one of its own). */
export const readEntrypoint = async (sql: Sql, group: string, id: number, snapshot?: number): Promise<StoredEntrypoint | undefined> =>
  (await sql.query<StoredEntrypoint>(`select ${entrypointColumns("p", "$3::int")} from entrypoints p where p.id = $1 and p.grp = $2 and not p.deleted`, [id, group, snapshot ?? null]))[0]

/** Lists a group's entrypoints, each with its latest snapshot: searched, sorted, one window. */
export const listEntrypoints = (sql: Sql, group: string, window: ListWindow) => listed<StoredEntrypoint>(sql, "entrypoints x", entrypointColumns("x"), group, window)

/** One snapshot of an entrypoint as stored: its id, when it was made, and its content. */
export interface StoredSnapshot {
  readonly snapshot: number
  readonly createdOn: string
  readonly document: SnapshotDocument
}

/** One window of an entrypoint's snapshots, oldest first, and how many it keeps; undefined when the group has no
 * such entrypoint. */
export const listEntrypointSnapshots = async (sql: Sql, group: string, id: number, offset: number, limit: number) => {
  const entrypoint = await readEntrypoint(sql, group, id)
  if (entrypoint === undefined) return undefined
  const rows = await sql.query<StoredSnapshot>(
    `select s.id as snapshot, s.created_on as "createdOn", s.document from entrypoint_snapshots s where s.entrypoint = $1 order by s.id limit $2 offset $3`,
    [id, limit, offset]
  )
  return { entrypoint, snapshots: rows.map(isoTimes), total: entrypoint.snapshotCount }
}

/** One snapshot of a group's entrypoint, with the entrypoint; undefined when either is not there. */
export const readEntrypointSnapshot = async (sql: Sql, group: string, id: number, snapshot: number) => {
  const entrypoint = await readEntrypoint(sql, group, id)
  if (entrypoint === undefined) return undefined
  const [row] = await sql.query<StoredSnapshot>(
    `select s.id as snapshot, s.created_on as "createdOn", s.document from entrypoint_snapshots s where s.entrypoint = $1 and s.id = $2`,
    [id, snapshot]
  )
  return row === undefined ? undefined : { entrypoint, snapshot: isoTimes(row) }
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

/** Inserts an entrypoint with its first snapshot. */
export const insertEntrypoint = async (sql: Sql, group: string, creator: Creator, header: EntrypointHeader, document: SnapshotDocument, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into entrypoints (grp, name, description, created_on, last_modified_on, creator, creator_id) values ($1, $2, $3, $4, $4, $5, $6) returning id`,
    [group, header.name, header.description, at, creator.name, creator.userId ?? null]
  )
  const id = row?.id ?? 0
  await attachSnapshot(sql, id, header.queues, document, at)
  return id
}

// A snapshot is only ever inserted: jobs point at it, so editing it would rewrite what they ran.
const attachSnapshot = async (sql: Sql, entrypoint: number, queues: ReadonlyArray<number>, document: SnapshotDocument, at: string) => {
  await sql.query(`delete from entrypoint_queues where entrypoint = $1`, [entrypoint])
  for (const queue of new Set(queues)) await sql.query(`insert into entrypoint_queues (entrypoint, queue) values ($1, $2)`, [entrypoint, queue])
  await sql.query(`insert into entrypoint_snapshots (entrypoint, document, created_on) values ($1, $2::jsonb, $3)`, [entrypoint, JSON.stringify(document), at])
}

// The snapshots retention keeps: the `kept` latest, and every one a job was made from (a job names its snapshot
// for as long as it is stored).
// Sizes are counted as the JSON text of each document, as they are bounded when sent.
const keptSnapshots = (kept: string) => `select x.id from (select s.id, row_number() over (order by s.id desc) as r
  from entrypoint_snapshots s where s.entrypoint = $1) x where x.r <= ${kept} or x.id in (select j.entrypoint_snapshot from jobs j where j.entrypoint = $1)`

/** The bytes an entrypoint's stored snapshots would take with one more of `adding` bytes, once retention keeps the
 * `kept` latest (the new one among them) and every one a job names. Locks the entrypoint until the transaction
 * ends, so concurrent edits are counted one after the other. */
export const snapshotBytesWith = async (sql: Sql, entrypoint: number, adding: number, kept: number): Promise<number> => {
  await sql.query(`select 1 from entrypoints where id = $1 for update`, [entrypoint])
  const [row] = await sql.query<{ bytes: number }>(
    `select coalesce(sum(octet_length(s.document::text)), 0)::bigint as bytes from entrypoint_snapshots s where s.id in (${keptSnapshots("$2")})`,
    [entrypoint, kept - 1]
  )
  return Number(row?.bytes ?? 0) + adding
}

/** Deletes an entrypoint's snapshots past retention: all but the `kept` latest and those a job names. */
export const pruneSnapshots = async (sql: Sql, entrypoint: number, kept: number): Promise<void> => {
  await sql.query(`delete from entrypoint_snapshots s where s.entrypoint = $1 and s.id not in (select id from (${keptSnapshots("$2")}) k)`, [entrypoint, kept])
}

/** Edits an entrypoint: new name, description and queues, and a new snapshot; false when it is not the group's. */
export const updateEntrypoint = async (sql: Sql, group: string, id: number, header: EntrypointHeader, document: SnapshotDocument, at: string): Promise<boolean> => {
  const rows = await sql.query(
    `update entrypoints set name = $3, description = $4, last_modified_on = $5 where id = $1 and grp = $2 and not deleted returning id`,
    [id, group, header.name, header.description, at]
  )
  if (rows.length === 0) return false
  await attachSnapshot(sql, id, header.queues, document, at)
  return true
}

const queueColumns = (q: string) => `${q}.id, ${q}.grp as "group", ${groupIdColumn(q)}, ${q}.name, ${q}.description, ${q}.backend, ${q}.created_on as "createdOn", ${q}.last_modified_on as "lastModifiedOn",
  g.state as "gateState", g.reason as "gateReason", g.checked_on as "gateCheckedOn"`

const queueTables = (q: string) => `queues ${q} left join queue_gates g on g.queue = ${q}.id`

interface QueueRow extends Omit<StoredQueue, "gate" | "backend"> {
  readonly backend: Queue["backend"] | null
  readonly gateState: QueueGate["state"] | null
  readonly gateReason: string | null
  readonly gateCheckedOn: string | null
}

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

/** Reads one queue of a group, with its gate. */
export const readQueue = async (sql: Sql, group: string, id: number): Promise<StoredQueue | undefined> =>
  (await sql.query<QueueRow>(`select ${queueColumns("q")} from ${queueTables("q")} where q.id = $1 and q.grp = $2 and not q.deleted`, [id, group])).map(queueOf)[0]

/** Lists a group's queues with their gates: searched, sorted, one window. */
export const listQueues = (sql: Sql, group: string, window: ListWindow) => listed(sql, queueTables("x"), queueColumns("x"), group, window, queueOf)

/** Inserts a queue; without a backend its jobs wait until it gets one. */
export const insertQueue = async (sql: Sql, group: string, creator: Creator, queue: Omit<Queue, "id">, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into queues (grp, name, description, backend, created_on, last_modified_on, creator, creator_id) values ($1, $2, $3, $4::jsonb, $5, $5, $6, $7) returning id`,
    [group, queue.name, queue.description ?? "", queue.backend === undefined ? null : JSON.stringify(queue.backend), at, creator.name, creator.userId ?? null]
  )
  return row?.id ?? 0
}

/** Edits a queue's name, description and (when given) backend; a new backend is proven afresh. False when it is
 * not the group's. */
export const updateQueue = async (sql: Sql, group: string, id: number, queue: Omit<Queue, "id">, at: string): Promise<boolean> => {
  const rows = await sql.query(
    `update queues set name = $3, description = $4, backend = coalesce($5::jsonb, backend), last_modified_on = $6 where id = $1 and grp = $2 and not deleted returning id`,
    [id, group, queue.name, queue.description ?? "", queue.backend === undefined ? null : JSON.stringify(queue.backend), at]
  )
  if (rows.length === 0) return false
  if (queue.backend !== undefined) await sql.query(`delete from queue_gates where queue = $1`, [id])
  return true
}

/** Gives every queue without a backend this one (the service's `--default-backend`); returns their ids. */
export const fillMissingBackends = async (sql: Sql, backend: NonNullable<Queue["backend"]>, at: string): Promise<ReadonlyArray<number>> =>
  (await sql.query<{ id: number }>(`update queues set backend = $1::jsonb, last_modified_on = $2 where backend is null returning id`, [JSON.stringify(backend), at])).map((r) => r.id)

const artifactColumns = `a.id, a.grp as "group", a.artifact_type as "artifactType", a.created_on as "createdOn", a.job, a.uri, a.description,
  coalesce((select jsonb_agg(s.id order by s.id) from artifact_snapshots s where s.artifact = a.id), '[]'::jsonb) as snapshots`

type ArtifactRow = Omit<ArtifactResponse, "job" | "uri" | "description"> & { readonly job: number | null; readonly uri: string | null; readonly description: string | null }

const artifactOf = ({ job, uri, description, ...rest }: ArtifactRow): ArtifactResponse => ({
  ...rest,
  ...(job === null ? {} : { job }),
  ...(uri === null ? {} : { uri }),
  ...(description === null ? {} : { description })
})

/** Reads one artifact of a group. */
export const readArtifact = async (sql: Sql, group: string, id: number): Promise<ArtifactResponse | undefined> => {
  const [row] = await sql.query<ArtifactRow>(`select ${artifactColumns} from artifacts a where a.id = $1 and a.grp = $2`, [id, group])
  return row === undefined ? undefined : artifactOf(row)
}

/** Where an artifact came from: the job that produced it, at a URI, described. */
export interface ArtifactOrigin {
  readonly job: number
  readonly uri: string
  readonly description?: string
}

/** Inserts an artifact with its first snapshot, and the job that produced it when one did. */
export const insertArtifact = async (sql: Sql, group: string, artifactType: string, at: string, origin?: ArtifactOrigin): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into artifacts (grp, artifact_type, created_on, job, uri, description) values ($1, $2, $3, $4, $5, $6) returning id`,
    [group, artifactType, at, origin?.job ?? null, origin?.uri ?? null, origin?.description ?? null]
  )
  const id = row?.id ?? 0
  await insertArtifactSnapshot(sql, id, at)
  return id
}

/** Adds a snapshot to an artifact. */
export const insertArtifactSnapshot = async (sql: Sql, artifact: number, at: string): Promise<void> => {
  await sql.query(`insert into artifact_snapshots (artifact, created_on) values ($1, $2)`, [artifact, at])
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

/** Loads what a job creation request refers to, as the model's resources, in one round trip: a job creation is
 * the service's hottest write, and each statement of it costs a round trip to the database. */
export const loadCatalogRows = async (
  sql: Sql,
  group: string,
  refs: { readonly experiment: number; readonly entrypoint: number; readonly queue: number; readonly artifacts: ReadonlyArray<number>; readonly entrypointSnapshot?: number | null | undefined }
): Promise<CatalogRows> => {
  const [row] = await sql.query<{ experiment: unknown; entrypoint: unknown; queue: unknown; artifacts: ReadonlyArray<unknown> }>(
    `select
       (select to_jsonb(x) from (select ${experimentColumns("e")} from experiments e where e.id = $2 and e.grp = $1 and not e.deleted) x) as experiment,
       (select to_jsonb(x) from (select ${entrypointColumns("p", "$6::int")} from entrypoints p where p.id = $3 and p.grp = $1 and not p.deleted) x) as entrypoint,
       (select to_jsonb(x) from (select ${queueColumns("q")} from ${queueTables("q")} where q.id = $4 and q.grp = $1 and not q.deleted) x) as queue,
       coalesce((select jsonb_agg(to_jsonb(x) order by x.n) from (select u.n, ${artifactColumns} from unnest($5::int[]) with ordinality u(id, n)
         join artifacts a on a.id = u.id and a.grp = $1) x), '[]'::jsonb) as artifacts`,
    [group, refs.experiment, refs.entrypoint, refs.queue, [...refs.artifacts], refs.entrypointSnapshot ?? null]
  )
  const queue = jsonRow<QueueRow>(row?.queue)
  return {
    experiment: jsonRow<StoredExperiment>(row?.experiment),
    entrypoint: jsonRow<StoredEntrypoint>(row?.entrypoint),
    queue: queue === undefined ? undefined : queueOf(queue),
    artifacts: (row?.artifacts ?? []).map((a) => {
      const { n: _, ...artifact } = jsonRow<ArtifactResponse & { n: number }>(a) as ArtifactResponse & { n: number }
      return artifact
    })
  }
}

import type { Artifact, Entrypoint, EntrypointVersion, Experiment, Queue } from "@dispatch/jobs"
import type { ArtifactResponse, EntrypointResponse, ExperimentResponse, QueueGate, QueueResponse } from "./ApiSchemas.ts"
import type { Sql } from "./Database.ts"

// Every query takes the caller's group: a resource of another group is never read, so it cannot leak.

const experimentColumns = `e.id, e.grp as "group", e.name, e.description, e.created_on as "createdOn",
  coalesce((select jsonb_agg(x.entrypoint order by x.entrypoint) from experiment_entrypoints x where x.experiment = e.id), '[]'::jsonb) as entrypoints`

/** Reads one experiment of a group. */
export const readExperiment = async (sql: Sql, group: string, id: number): Promise<ExperimentResponse | undefined> =>
  (await sql.query<ExperimentResponse>(`select ${experimentColumns} from experiments e where e.id = $1 and e.grp = $2`, [id, group]))[0]

/** Lists a group's experiments by id. */
export const listExperiments = (sql: Sql, group: string, offset: number, limit: number) =>
  sql.query<ExperimentResponse>(`select ${experimentColumns} from experiments e where e.grp = $1 order by e.id limit $2 offset $3`, [group, limit, offset])

/** Counts a group's experiments. */
export const countExperiments = async (sql: Sql, group: string): Promise<number> =>
  (await sql.query<{ n: number }>(`select count(*)::int as n from experiments where grp = $1`, [group]))[0]?.n ?? 0

/** Inserts an experiment; the caller has checked its entrypoints exist in the group. */
export const insertExperiment = async (sql: Sql, group: string, input: { name: string; description: string }, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into experiments (grp, name, description, created_on, last_modified_on) values ($1, $2, $3, $4, $4) returning id`,
    [group, input.name, input.description, at]
  )
  return row?.id ?? 0
}

/** Registers entrypoints with an experiment; those already registered stay as they are. */
export const registerEntrypoints = async (sql: Sql, experiment: number, entrypoints: ReadonlyArray<number>): Promise<void> => {
  for (const entrypoint of entrypoints) {
    await sql.query(`insert into experiment_entrypoints (experiment, entrypoint) values ($1, $2) on conflict do nothing`, [experiment, entrypoint])
  }
}

/** The ids among `ids` that name no resource of the group in `table`. */
export const missingIds = async (sql: Sql, table: "entrypoints" | "queues", group: string, ids: ReadonlyArray<number>): Promise<ReadonlyArray<number>> => {
  if (ids.length === 0) return []
  const found = await sql.query<{ id: number }>(`select id from ${table} where grp = $1 and id = any($2::int[])`, [group, [...ids]])
  const present = new Set(found.map((r) => r.id))
  return [...new Set(ids)].filter((id) => !present.has(id))
}

const entrypointColumns = `p.id, p.grp as "group", p.name, p.description, p.created_on as "createdOn", p.last_modified_on as "lastModifiedOn",
  coalesce((select jsonb_agg(q.queue order by q.queue) from entrypoint_queues q where q.entrypoint = p.id), '[]'::jsonb) as queues,
  (select jsonb_agg(s.document || jsonb_build_object('snapshot', s.id) order by s.id) from entrypoint_snapshots s where s.entrypoint = p.id) as snapshots`

/** Reads one entrypoint of a group with every snapshot. */
export const readEntrypoint = async (sql: Sql, group: string, id: number): Promise<EntrypointResponse | undefined> =>
  (await sql.query<EntrypointResponse>(`select ${entrypointColumns} from entrypoints p where p.id = $1 and p.grp = $2`, [id, group]))[0]

/** Lists a group's entrypoints by id. */
export const listEntrypoints = (sql: Sql, group: string, offset: number, limit: number) =>
  sql.query<EntrypointResponse>(`select ${entrypointColumns} from entrypoints p where p.grp = $1 order by p.id limit $2 offset $3`, [group, limit, offset])

/** Counts a group's entrypoints. */
export const countEntrypoints = async (sql: Sql, group: string): Promise<number> =>
  (await sql.query<{ n: number }>(`select count(*)::int as n from entrypoints where grp = $1`, [group]))[0]?.n ?? 0

/** What an entrypoint is made of, apart from its id and snapshots. */
export interface EntrypointHeader {
  readonly name: string
  readonly description: string
  readonly queues: ReadonlyArray<number>
}

/** A snapshot's content: the version of the entrypoint without its id. */
export type SnapshotDocument = Omit<EntrypointVersion, "snapshot">

/** Inserts an entrypoint with its first snapshot. */
export const insertEntrypoint = async (sql: Sql, group: string, header: EntrypointHeader, document: SnapshotDocument, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into entrypoints (grp, name, description, created_on, last_modified_on) values ($1, $2, $3, $4, $4) returning id`,
    [group, header.name, header.description, at]
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

/** Edits an entrypoint: new name, description and queues, and a new snapshot; false when it is not the group's. */
export const updateEntrypoint = async (sql: Sql, group: string, id: number, header: EntrypointHeader, document: SnapshotDocument, at: string): Promise<boolean> => {
  const rows = await sql.query(
    `update entrypoints set name = $3, description = $4, last_modified_on = $5 where id = $1 and grp = $2 returning id`,
    [id, group, header.name, header.description, at]
  )
  if (rows.length === 0) return false
  await attachSnapshot(sql, id, header.queues, document, at)
  return true
}

const queueColumns = `q.id, q.grp as "group", q.name, q.description, q.backend, q.created_on as "createdOn",
  g.state as "gateState", g.reason as "gateReason", g.checked_on as "gateCheckedOn"`

const queueTables = `queues q left join queue_gates g on g.queue = q.id`

interface QueueRow extends Omit<QueueResponse, "gate"> {
  readonly gateState: QueueGate["state"] | null
  readonly gateReason: string | null
  readonly gateCheckedOn: string | null
}

const queueOf = ({ gateState, gateReason, gateCheckedOn, ...queue }: QueueRow): QueueResponse => ({
  ...queue,
  gate:
    gateState === null
      ? { state: "unproven", reason: "the queue's Factory has not run yet" }
      : { state: gateState, ...(gateState === "open" || gateReason === null ? {} : { reason: gateReason }), ...(gateCheckedOn === null ? {} : { checkedOn: gateCheckedOn }) }
})

/** Reads one queue of a group, with its gate. */
export const readQueue = async (sql: Sql, group: string, id: number): Promise<QueueResponse | undefined> =>
  (await sql.query<QueueRow>(`select ${queueColumns} from ${queueTables} where q.id = $1 and q.grp = $2`, [id, group])).map(queueOf)[0]

/** Lists a group's queues by id, with their gates. */
export const listQueues = async (sql: Sql, group: string, offset: number, limit: number) =>
  (await sql.query<QueueRow>(`select ${queueColumns} from ${queueTables} where q.grp = $1 order by q.id limit $2 offset $3`, [group, limit, offset])).map(queueOf)

/** Counts a group's queues. */
export const countQueues = async (sql: Sql, group: string): Promise<number> =>
  (await sql.query<{ n: number }>(`select count(*)::int as n from queues where grp = $1`, [group]))[0]?.n ?? 0

/** Inserts a queue. */
export const insertQueue = async (sql: Sql, group: string, queue: Omit<Queue, "id">, at: string): Promise<number> => {
  const [row] = await sql.query<{ id: number }>(
    `insert into queues (grp, name, description, backend, created_on, last_modified_on) values ($1, $2, $3, $4::jsonb, $5, $5) returning id`,
    [group, queue.name, queue.description ?? "", JSON.stringify(queue.backend), at]
  )
  return row?.id ?? 0
}

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
  refs: { readonly experiment: number; readonly entrypoint: number; readonly queue: number; readonly artifacts: ReadonlyArray<number> }
): Promise<CatalogRows> => {
  const [row] = await sql.query<{ experiment: unknown; entrypoint: unknown; queue: unknown; artifacts: ReadonlyArray<unknown> }>(
    `select
       (select to_jsonb(x) from (select ${experimentColumns} from experiments e where e.id = $2 and e.grp = $1) x) as experiment,
       (select to_jsonb(x) from (select ${entrypointColumns} from entrypoints p where p.id = $3 and p.grp = $1) x) as entrypoint,
       (select to_jsonb(x) from (select ${queueColumns} from ${queueTables} where q.id = $4 and q.grp = $1) x) as queue,
       coalesce((select jsonb_agg(to_jsonb(x) order by x.n) from (select u.n, ${artifactColumns} from unnest($5::int[]) with ordinality u(id, n)
         join artifacts a on a.id = u.id and a.grp = $1) x), '[]'::jsonb) as artifacts`,
    [group, refs.experiment, refs.entrypoint, refs.queue, [...refs.artifacts]]
  )
  const queue = jsonRow<QueueRow>(row?.queue)
  return {
    experiment: jsonRow<ExperimentResponse>(row?.experiment),
    entrypoint: jsonRow<EntrypointResponse>(row?.entrypoint),
    queue: queue === undefined ? undefined : queueOf(queue),
    artifacts: (row?.artifacts ?? []).map((a) => {
      const { n: _, ...artifact } = jsonRow<ArtifactResponse & { n: number }>(a) as ArtifactResponse & { n: number }
      return artifact
    })
  }
}

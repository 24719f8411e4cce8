import { type Cause, Effect, Schema } from "effect"
import { Migrator, SqlClient, SqlSchema } from "effect/sql"
import type { SqlError } from "effect/sql"

/** One step of the schema, applied once, in order, and recorded in `effect_sql_migrations` (effect/sql's Migrator). */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

// Times are stamped by the service's injected clock (ISO-8601) and stored as timestamptz (text before migration
// 3); both engines read them back as the same ISO-8601 string (see `isoTimes` in PostgresDialect.ts). Integers that may pass 2^31 (timeouts, metric steps) are float8, which holds every safe integer exactly.
/** The service's schema, oldest first; a released migration is never edited, only followed. */
export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "resources and jobs",
    sql: `
create table experiments (
  id integer generated always as identity primary key,
  grp text not null,
  name text not null,
  description text not null,
  created_on text not null,
  unique (grp, name)
);
create table queues (
  id integer generated always as identity primary key,
  grp text not null,
  name text not null,
  description text not null,
  backend jsonb not null,
  created_on text not null,
  unique (grp, name)
);
create table entrypoints (
  id integer generated always as identity primary key,
  grp text not null,
  name text not null,
  description text not null,
  created_on text not null,
  last_modified_on text not null,
  unique (grp, name)
);
create table entrypoint_queues (
  entrypoint integer not null references entrypoints (id),
  queue integer not null references queues (id),
  primary key (entrypoint, queue)
);
create table entrypoint_snapshots (
  id integer generated always as identity primary key,
  entrypoint integer not null references entrypoints (id),
  document jsonb not null,
  created_on text not null
);
create table experiment_entrypoints (
  experiment integer not null references experiments (id),
  entrypoint integer not null references entrypoints (id),
  primary key (experiment, entrypoint)
);
create table artifacts (
  id integer generated always as identity primary key,
  grp text not null,
  artifact_type text not null,
  created_on text not null
);
create table artifact_snapshots (
  id integer generated always as identity primary key,
  artifact integer not null references artifacts (id),
  created_on text not null
);
create table jobs (
  id integer generated always as identity primary key,
  grp text not null,
  username text not null,
  experiment integer not null references experiments (id),
  entrypoint integer not null references entrypoints (id),
  entrypoint_snapshot integer not null references entrypoint_snapshots (id),
  queue integer not null references queues (id),
  parameter_values jsonb not null,
  artifact_values jsonb not null,
  swaps jsonb not null,
  timeout_seconds float8 not null,
  description text not null,
  status text not null,
  created_on text not null,
  last_modified_on text not null,
  mlflow_run_id text unique,
  deleted boolean not null default false
);
create index jobs_by_group on jobs (grp, id);
create table job_status_history (
  id integer generated always as identity primary key,
  job integer not null references jobs (id),
  status text not null,
  changed_on text not null
);
create table job_logs (
  id integer generated always as identity primary key,
  job integer not null references jobs (id),
  severity text not null,
  logger_name text not null,
  message text not null,
  logged_on text not null
);
create table job_metrics (
  job integer not null references jobs (id),
  name text not null,
  step float8 not null,
  value float8 not null,
  special_value text,
  recorded_on text not null,
  primary key (job, name, step)
);
`
  },
  {
    version: 2,
    name: "dispatching jobs to the cluster",
    // dispatch_state: pending (waits for a claim), starting (claimed: Start and Open in progress), opened (on the
    // cluster, followed by Find), held (on the cluster, held), stopping (cancelled: Stop pending), done.
    sql: `
alter table jobs add column dispatch_state text not null default 'pending';
alter table jobs add column dispatch_reason text;
alter table jobs add column start_request jsonb;
alter table jobs add column trainjob jsonb;
alter table jobs add column attempts integer not null default 0;
alter table jobs add column next_attempt_at float8 not null default 0;
alter table jobs add column claimed_by text;
alter table jobs add column claim_until float8;
alter table jobs add column held_from text;
alter table jobs add column last_error jsonb;
alter table jobs add column rerun_of integer references jobs (id);
create index jobs_by_dispatch_state on jobs (dispatch_state, id);
alter table job_status_history add column reason text;
create table queue_gates (
  queue integer primary key references queues (id),
  state text not null,
  reason text not null,
  checked_on text not null,
  checked_at float8 not null
);
create table probe_leases (
  namespace text primary key,
  holder text not null,
  until_ms float8 not null
);
create table service_keys (
  name text primary key,
  secret text not null
);
`
  },
  {
    version: 3,
    name: "times as timestamptz",
    // Every stored time so far is an ISO-8601 string with its zone, so each casts exactly.
    sql: `
alter table experiments alter column created_on type timestamptz using created_on::timestamptz;
alter table queues alter column created_on type timestamptz using created_on::timestamptz;
alter table entrypoints alter column created_on type timestamptz using created_on::timestamptz, alter column last_modified_on type timestamptz using last_modified_on::timestamptz;
alter table entrypoint_snapshots alter column created_on type timestamptz using created_on::timestamptz;
alter table artifacts alter column created_on type timestamptz using created_on::timestamptz;
alter table artifact_snapshots alter column created_on type timestamptz using created_on::timestamptz;
alter table jobs alter column created_on type timestamptz using created_on::timestamptz, alter column last_modified_on type timestamptz using last_modified_on::timestamptz;
alter table job_status_history alter column changed_on type timestamptz using changed_on::timestamptz;
alter table job_logs alter column logged_on type timestamptz using logged_on::timestamptz;
alter table job_metrics alter column recorded_on type timestamptz using recorded_on::timestamptz;
alter table queue_gates alter column checked_on type timestamptz using checked_on::timestamptz;
`
  },
  {
    version: 4,
    name: "MLflow run ids unique per group",
    // Unique across all groups, a taken run id told one group that another group holds it.
    sql: `
alter table jobs drop constraint jobs_mlflow_run_id_key;
create unique index jobs_mlflow_run_by_group on jobs (grp, mlflow_run_id);
`
  },
  {
    version: 5,
    name: "idempotency keys",
    // One row per key of a caller, written in the transaction of the creation it names (see Idempotency.ts).
    sql: `
create table idempotency_keys (
  grp text not null,
  principal text not null,
  key text not null,
  fingerprint text not null,
  status integer not null,
  body text not null,
  created_on timestamptz not null,
  primary key (grp, principal, key)
);
create index idempotency_keys_by_age on idempotency_keys (created_on);
`
  },
  {
    version: 6,
    name: "groups, users and sessions; Dioptra's resource shapes",
    // Groups keep their names in every resource's grp column; the groups table gives each an integer id, as
    // Dioptra's clients name groups. Queues made by a stock Dioptra client have no backend until one is given.
    // Resources are deleted softly, since jobs keep naming them; a deleted name may be registered again.
    sql: `
create table groups (
  id integer generated always as identity primary key,
  name text not null unique,
  created_on timestamptz not null default now()
);
insert into groups (name)
  select grp from experiments union select grp from queues union select grp from entrypoints
  union select grp from artifacts union select grp from jobs order by 1;
create table users (
  id integer generated always as identity primary key,
  username text not null unique,
  email text not null,
  password_hash text not null,
  grp text not null references groups (name),
  created_on timestamptz not null,
  last_modified_on timestamptz not null,
  last_login_on timestamptz
);
create table sessions (
  token_hash text primary key,
  user_id integer not null references users (id),
  created_on timestamptz not null,
  expires_on timestamptz not null
);
create index sessions_by_user on sessions (user_id);
create table login_failures (
  key text primary key,
  failures integer not null,
  first_failed_on timestamptz not null
);
alter table queues alter column backend drop not null;
alter table queues add column last_modified_on timestamptz;
update queues set last_modified_on = created_on;
alter table queues alter column last_modified_on set not null;
alter table experiments add column last_modified_on timestamptz;
update experiments set last_modified_on = created_on;
alter table experiments alter column last_modified_on set not null;
alter table experiments add column deleted boolean not null default false;
alter table queues add column deleted boolean not null default false;
alter table entrypoints add column deleted boolean not null default false;
alter table experiments drop constraint experiments_grp_name_key;
alter table queues drop constraint queues_grp_name_key;
alter table entrypoints drop constraint entrypoints_grp_name_key;
create unique index experiments_live_name on experiments (grp, name) where not deleted;
create unique index queues_live_name on queues (grp, name) where not deleted;
create unique index entrypoints_live_name on entrypoints (grp, name) where not deleted;
`
  },
  {
    version: 7,
    name: "Dioptra's job wire: timeouts as given, every metric post kept",
    // A job made before keeps a null timeout and answers it formatted from its seconds. Metrics lose their
    // one-row-per-step key: every post is a row, ordered by id, so a re-post at a step keeps the earlier value. An
    // artifact may name the job that produced it, at a URI.
    sql: `
alter table jobs add column timeout text, add column user_id integer references users (id);
alter table job_metrics drop constraint job_metrics_pkey;
alter table job_metrics add column id integer generated always as identity primary key;
create index job_metrics_by_name on job_metrics (job, name, step, id);
alter table artifacts add column job integer references jobs (id), add column uri text, add column description text;
`
  },
  {
    version: 8,
    name: "who made each queue, entrypoint and experiment",
    // Null for those made before: the service did not record it then.
    sql: `
alter table experiments add column creator text, add column creator_id integer references users (id);
alter table queues add column creator text, add column creator_id integer references users (id);
alter table entrypoints add column creator text, add column creator_id integer references users (id);
`
  },
  {
    version: 9,
    name: "the dispatch state machine's state, kept whole",
    // dispatch_state gains claimed (an attempt reading back what earlier ones left), unknown (a create went
    // unanswered and may land until lands_by) and owned (Start done, Open in flight). faults keeps each failed
    // attempt's reason, for the failure that ends a spent budget; stop_ends says what a stopping job becomes.
    // unanswered_creates is every process's memory of creates that may still land, by `<namespace>/<name>`.
    sql: `
alter table jobs add column lands_by float8, add column first_attempt_at float8, add column faults jsonb not null default '[]'::jsonb,
  add column stop_ends text, add column stop_tries integer not null default 0;
update jobs set stop_ends = case when deleted then 'deleted' else 'cancelled' end where dispatch_state = 'stopping';
create table unanswered_creates (key text primary key, at_ms float8 not null);
`
  },
  {
    version: 10,
    name: "retention: removing an ended job's TrainJob and runtime copy from the cluster",
    // A job ended when its last status (finished or failed) was written: job_status_history has it, indexed here.
    // cluster_removed_on: when retention removed its objects (null until then); cluster_removal_next_at: a lease
    // while one process removes them, then the time of the last failed try (failed tries go to the back of the
    // line); cluster_removal_reason: why the last try failed.
    sql: `
alter table jobs add column cluster_removed_on timestamptz, add column cluster_removal_next_at float8 not null default 0,
  add column cluster_removal_reason text;
create index job_status_history_by_job on job_status_history (job, id);
create index jobs_awaiting_removal on jobs (cluster_removal_next_at, id) where cluster_removed_on is null and dispatch_state = 'done';
`
  },
  {
    version: 11,
    name: "job lists at scale: live jobs by group and experiment, and by description",
    // A list's count reads only this index (a deleted job is not in it), and an experiment's page walks it in id
    // order; a search by a description, or by its start, finds its rows by the second (text_pattern_ops: LIKE
    // 'prefix%' can use it whatever the database's collation). Each listed job's artifacts are found by the third,
    // not by reading every artifact.
    sql: `
create index jobs_live_by_experiment on jobs (grp, experiment, id) where not deleted;
create index jobs_live_by_description on jobs (grp, description text_pattern_ops) where not deleted;
create index artifacts_by_job on artifacts (job) where job is not null;
`
  }
]

/** The table effect/sql's Migrator records applied migrations in. */
export const migrationsTable = "effect_sql_migrations"

/** Why the record of applied migrations could not be read: the database failed, or a row did not decode. */
export type RecordUnread = SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError
/** Why migrating failed: the Migrator's own error, or the record could not be read. */
export type MigrationFailure = Migrator.MigrationError | RecordUnread

const Presence = Schema.Struct({ present: Schema.Boolean })
const Recorded = Schema.Struct({ migration_id: Schema.Number })

// Whether a table of that name exists.
const tableIsPresent = (sql: SqlClient.SqlClient) => {
  const find = SqlSchema.findOne({ Request: Schema.String, Result: Presence, execute: (table) => sql`select to_regclass(${table}) is not null as present` })
  return (table: string) => Effect.map(find(table), (row) => row.present)
}

// Before effect/sql's Migrator, the service recorded applied migrations in `schema_migrations (version, name)`.
// A database migrated then gets the Migrator's table filled from it, once, while the old table is locked, so two
// services starting together on it adopt it once; the old table is left as it was, so a service of the older version
// still starts on the database. The lock is a table lock, not an advisory one: taking it makes PostgreSQL read the
// catalog changes committed while the transaction waited, so the second service sees the table the first created.
const adoptIn = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const present = tableIsPresent(sql)
    if (!(yield* present("schema_migrations"))) return
    yield* sql`lock table schema_migrations in exclusive mode`
    if (yield* present(migrationsTable)) return
    yield* sql`create table ${sql(migrationsTable)} (
      migration_id integer primary key,
      created_at timestamp with time zone not null default now(),
      name text not null
    )`
    yield* sql`insert into ${sql(migrationsTable)} (migration_id, name) select version, name from schema_migrations`
  })

const adoptRecordOfOldRunner = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(adoptIn(sql))
})

/** Applies every step the database lacks through effect/sql's Migrator (in one transaction that locks the record
 * table, so a second service starting meanwhile waits, then finds nothing to do); answers the versions applied. */
export const applyMigrations = (steps: ReadonlyArray<Migration> = migrations): Effect.Effect<ReadonlyArray<number>, MigrationFailure, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* adoptRecordOfOldRunner
    const applied = yield* Migrator.make({})({
      table: migrationsTable,
      loader: Effect.succeed(steps.map((step) => [step.version, step.name, Effect.succeed(sql.unsafe(step.sql).unprepared)] as const))
    })
    return applied.map(([version]) => version)
  })

/** The versions recorded as applied (none when the database was never migrated). */
export const recordedMigrations: Effect.Effect<ReadonlySet<number>, RecordUnread, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const recorded = SqlSchema.findAll({ Request: Schema.Void, Result: Recorded, execute: () => sql`select migration_id from ${sql(migrationsTable)}` })
  const rows = (yield* tableIsPresent(sql)(migrationsTable)) ? yield* recorded(undefined) : []
  return new Set(rows.map((row) => row.migration_id))
})

/** Applies every migration the database lacks; answers the versions applied. */
export const migrate = (steps: ReadonlyArray<Migration> = migrations): Effect.Effect<ReadonlyArray<number>, MigrationFailure, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    // A restart on a current database costs one read, not the Migrator's locked transaction.
    const recorded = yield* recordedMigrations
    if (steps.every((step) => recorded.has(step.version))) return []
    return yield* applyMigrations(steps)
  })

// A service process that can be killed the way SIGKILL kills one: from the moment it dies, nothing it sends
// reaches the database or the cluster (its open transactions roll back, its cluster calls are never sent),
// and nothing it holds in memory survives. What it sent before it died lands as sent.
import { Cluster, ClusterError, type ClusterShape } from "@dispatch/effects"
import { Effect, Layer } from "effect"
import { DatabaseError, tappedDatabase, type Database } from "../../src/index.ts"
import { failWhen, type TestDatabase } from "../TestDatabase.ts"

/** Whether the process is dead yet. */
export type Alive = () => boolean

const killed = () => new DatabaseError({ operation: "query", reason: "the service process was killed" })

// A dead process's open transaction is rolled back by the database when its connection goes: the ROLLBACK is let
// through, nothing else is.
/** The database as a process sees it: every statement refused once it is dead (a transaction's COMMIT too);
 * closing it leaves the shared one open. */
export const mortalDatabase = (db: TestDatabase, alive: Alive): Layer.Layer<Database> =>
  tappedDatabase(db.context, failWhen((text) => (alive() || /^\s*rollback/i.test(text) ? undefined : killed())))

/** The cluster as a process sees it: once dead, a call fails before anything is sent (a dead process sends nothing). */
export const mortalCluster = (cluster: Layer.Layer<Cluster, ClusterError>, alive: Alive): Layer.Layer<Cluster, ClusterError> =>
  Layer.effect(
    Cluster,
    Effect.map(Effect.service(Cluster), (inner): ClusterShape => {
      const guard = <A>(call: string, effect: () => Effect.Effect<A, ClusterError>) =>
        Effect.suspend(() => (alive() ? effect() : Effect.fail(new ClusterError({ reason: "Unreachable", call, detail: "KILLED" }))))
      return {
        get: (kind, key) => guard("get", () => inner.get(kind, key)),
        list: (kind, namespace, selector) => guard("list", () => inner.list(kind, namespace, selector)),
        create: (kind, object) => guard("create", () => inner.create(kind, object)),
        mergePatch: (kind, key, patch, options) => guard("patch", () => inner.mergePatch(kind, key, patch, options)),
        delete: (kind, key, options) => guard("delete", () => inner.delete(kind, key, options)),
        podLog: (key, options, onLine) => guard("log", () => inner.podLog(key, options, onLine)),
        now: inner.now
      }
    })
  ).pipe(Layer.provide(cluster))

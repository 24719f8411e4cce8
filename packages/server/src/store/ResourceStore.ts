// The resources' repository (Resources.ts) for the callers still written as Promise code on a `Sql` (job creation
// and the dispatcher): each call runs its statements on what the caller holds, so it joins the caller's
// transaction. It goes when those callers take the repository from context.
import type { Queue } from "@dispatch/jobs"
import type { Effect } from "effect"
import type { Sql } from "./Database.ts"
import { onStore } from "./DatabaseBridge.ts"
import { resources, type ArtifactOrigin } from "./Resources.ts"

export type { ArtifactOrigin, CatalogRows, Creator, SnapshotDocument, StoredEntrypoint, StoredExperiment, StoredQueue, StoredSnapshot } from "./Resources.ts"

/** Reads one experiment of a group. */
export const readExperiment = (sql: Sql, group: string, id: number) => onStore(sql, resources, (store) => store.readExperiment(group, id))

/** Reads one entrypoint of a group with one snapshot: `snapshot`, else its latest. */
export const readEntrypoint = (sql: Sql, group: string, id: number, snapshot?: number) => onStore(sql, resources, (store) => store.readEntrypoint(group, id, snapshot))

/** Reads one queue of a group, with its gate. */
export const readQueue = (sql: Sql, group: string, id: number) => onStore(sql, resources, (store) => store.readQueue(group, id))

/** Reads one artifact of a group. */
export const readArtifact = (sql: Sql, group: string, id: number) => onStore(sql, resources, (store) => store.readArtifact(group, id))

/** Inserts an artifact with its first snapshot, and the job that produced it when one did. */
export const insertArtifact = (sql: Sql, group: string, artifactType: string, at: string, origin?: ArtifactOrigin) =>
  onStore(sql, resources, (store) => store.insertArtifact(group, artifactType, at, origin))

/** Loads what a job creation request refers to, as the model's resources, in one round trip. */
export const loadCatalogRows = (sql: Sql, group: string, refs: Parameters<Effect.Success<typeof resources>["loadCatalogRows"]>[1]) =>
  onStore(sql, resources, (store) => store.loadCatalogRows(group, refs))

/** Gives every queue without a backend this one (the service's `--default-backend`); returns their ids. */
export const fillMissingBackends = (sql: Sql, backend: NonNullable<Queue["backend"]>, at: string) => onStore(sql, resources, (store) => store.fillMissingBackends(backend, at))

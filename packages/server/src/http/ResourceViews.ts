// Stored resources as Dioptra answers them: nested {id, name, url} references, createdOn / lastModifiedOn, the task
// graph as YAML; dispatch's own fields (backend, gate, image, command, the link to the snapshots) ride along.
import { stringify } from "yaml"
import type { EntrypointResponse, ExperimentResponse, QueueResponse } from "../wire/ApiSchemas.ts"
import { refMaker, type GroupRef } from "../wire/RefTypes.ts"
import type { SnapshotDocument, StoredEntrypoint, StoredExperiment, StoredQueue, StoredSnapshot } from "../store/Resources.ts"

type Link = (path: string) => string

const groupOf = (link: Link, stored: { readonly group: string; readonly groupId: number }): GroupRef => refMaker(link).group(stored.groupId, stored.group)

// dispatch keeps no drafts, tags or past snapshots of experiments and queues: each is its own latest snapshot.
const resource = (link: Link, stored: { readonly id: number; readonly name: string; readonly description?: string; readonly group: string; readonly groupId: number; readonly createdOn: string; readonly lastModifiedOn: string; readonly creator: string | null; readonly creatorId: number | null }, snapshot = stored.id) => ({
  id: stored.id,
  snapshot,
  group: groupOf(link, stored),
  user: stored.creator === null ? null : stored.creatorId === null ? { id: null, username: stored.creator, url: null } : refMaker(link).user(stored.creatorId, stored.creator),
  createdOn: stored.createdOn,
  lastModifiedOn: stored.lastModifiedOn,
  // Every change makes the snapshot answered (upstream's rule), so it was made when the resource last changed.
  snapshotCreatedOn: stored.lastModifiedOn,
  latestSnapshot: true,
  hasDraft: false,
  tags: [],
  name: stored.name,
  description: stored.description === undefined || stored.description === "" ? null : stored.description
})

/** An experiment as Dioptra answers it. */
export const experimentView = (link: Link, stored: StoredExperiment): ExperimentResponse => {
  const group = groupOf(link, stored)
  return { ...resource(link, stored), entrypoints: stored.entrypointNames.map((e) => refMaker(link).resource("entrypoint", e.id, e.name, group)) }
}

/** A queue as Dioptra answers it, with its backend (when it has one) and gate. */
export const queueView = (link: Link, stored: StoredQueue): QueueResponse => ({
  ...resource(link, stored),
  ...(stored.backend === undefined ? {} : { backend: stored.backend }),
  gate: stored.gate
})

/** The task graph's text: as the client sent it, or the object written as YAML. */
const graphText = (version: SnapshotDocument): string => version.taskGraphText ?? stringify(version.taskGraph)

/** Which snapshot an entrypoint answer shows, when not its latest: the snapshot, when it was made, and the
 * entrypoint's latest snapshot's id. */
export interface ShownSnapshot {
  readonly snapshot: StoredSnapshot
  readonly latest: number
}

/** An entrypoint as Dioptra answers it: one snapshot's fields (its latest, or `shown`) at the top, and where the
 * rest are listed. */
export const entrypointView = (link: Link, stored: StoredEntrypoint, shown?: ShownSnapshot): EntrypointResponse => {
  const group = groupOf(link, stored)
  const latest = stored.snapshots[0] as (SnapshotDocument & { readonly snapshot: number }) | undefined
  const version: (SnapshotDocument & { readonly snapshot: number }) | undefined = shown === undefined ? latest : { ...shown.snapshot.document, snapshot: shown.snapshot.snapshot }
  return {
    ...resource(link, stored, version?.snapshot ?? stored.id),
    ...(shown === undefined ? {} : { snapshotCreatedOn: shown.snapshot.createdOn, latestSnapshot: shown.snapshot.snapshot === shown.latest }),
    taskGraph: version === undefined ? "" : graphText(version),
    artifactGraph: version?.artifactGraph ?? "",
    parameters: (version?.parameters ?? []).map((p) => ({ name: p.name, parameterType: p.type, defaultValue: p.defaultValue ?? null })),
    artifactParameters: version?.artifactParameters ?? [],
    queues: stored.queueNames.map((q) => refMaker(link).resource("queue", q.id, q.name, group)),
    plugins: [],
    artifactPlugins: [],
    ...(version?.image === undefined ? {} : { image: version.image }),
    ...(version?.command === undefined ? {} : { command: version.command }),
    snapshots: { url: link(`/entrypoints/${stored.id}/snapshots`), count: stored.snapshotCount }
  }
}

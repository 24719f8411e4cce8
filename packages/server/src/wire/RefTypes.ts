// Dioptra nests a reference `{id, name, url}` wherever one resource names another; these are those shapes.
import { ResourceId } from "@dispatch/jobs"
import { Schema } from "effect"

/** A group as another resource names it. */
export const GroupRef = Schema.Struct({ id: ResourceId, name: Schema.String, url: Schema.String })
/** A group as another resource names it. */
export type GroupRef = typeof GroupRef.Type

/** A user as another resource names it (Dioptra calls the name `username`). */
export const UserRef = Schema.Struct({ id: ResourceId, username: Schema.String, url: Schema.String })
/** A user as another resource names it. */
export type UserRef = typeof UserRef.Type

/** A group-owned resource (queue, entrypoint, experiment) as another resource names it. */
export const ResourceRef = Schema.Struct({ id: ResourceId, name: Schema.String, group: GroupRef, url: Schema.String })
/** A group-owned resource as another resource names it. */
export type ResourceRef = typeof ResourceRef.Type

/** A resource named by id alone when it has no name (an artifact, a job). */
export const IdRef = Schema.Struct({ id: ResourceId, group: GroupRef, url: Schema.String })
/** A resource named by id alone. */
export type IdRef = typeof IdRef.Type

/** When a resource was made and last changed (ISO-8601), as Dioptra answers every resource. */
export const Stamps = { createdOn: Schema.String, lastModifiedOn: Schema.String } as const

/** The collection path of each kind of reference, under `/api/v1`. */
export const collectionOf = {
  group: "groups",
  user: "users",
  queue: "queues",
  entrypoint: "entrypoints",
  experiment: "experiments",
  job: "jobs",
  artifact: "artifacts"
} as const

/** Makes references: `link` is the request's absolute-URL maker (`Links.link`). */
export const refMaker = (link: (path: string) => string) => ({
  group: (id: number, name: string): GroupRef => ({ id, name, url: link(`/groups/${id}`) }),
  user: (id: number, username: string): UserRef => ({ id, username, url: link(`/users/${id}`) }),
  resource: (kind: "queue" | "entrypoint" | "experiment", id: number, name: string, group: GroupRef): ResourceRef => ({
    id,
    name,
    group,
    url: link(`/${collectionOf[kind]}/${id}`)
  }),
  byId: (kind: "job" | "artifact", id: number, group: GroupRef): IdRef => ({ id, group, url: link(`/${collectionOf[kind]}/${id}`) })
})
/** Makes references for one request. */
export type RefMaker = ReturnType<typeof refMaker>

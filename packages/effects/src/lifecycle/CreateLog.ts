import { Effect } from "effect"
import type { ClusterShape } from "../Cluster.ts"

/** Which creates a Cluster was asked to make, by plural: answered ones, unanswered ones that may have
 * landed, and ones that found the object already there. The probe reads it to tell a write gate not
 * proven from a launch gate not proven, and its own objects from a concurrent probe's. */
export interface CreateLog {
  readonly created: Set<string>
  readonly maybe: Set<string>
  readonly existing: Set<string>
}

/** An empty log. */
export const emptyCreateLog = (): CreateLog => ({ created: new Set(), maybe: new Set(), existing: new Set() })

/** The same Cluster, noting each create's outcome in `log`. */
export const loggingCreates = (cluster: ClusterShape, log: CreateLog): ClusterShape => ({
  ...cluster,
  create: (kind, object) =>
    cluster.create(kind, object).pipe(
      Effect.tap(() => Effect.sync(() => void log.created.add(kind.plural))),
      Effect.tapError((e) =>
        Effect.sync(() => {
          if (e.reason === "Unanswered") log.maybe.add(kind.plural)
          if (e.reason === "AlreadyExists") log.existing.add(kind.plural)
        })
      )
    )
})

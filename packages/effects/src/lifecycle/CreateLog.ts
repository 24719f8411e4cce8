import { Effect } from "effect"
import type { ClusterShape } from "../Cluster.ts"
import type { ClusterError } from "../ClusterError.ts"

/** Which creates a Cluster was asked to make, by plural: answered ones, unanswered ones that may have
 * landed, and ones that found the object already there; and every other failed create's error, in
 * order. The probe reads it to tell a write gate not proven from a launch gate not proven, its own
 * objects from a concurrent probe's, and why a write failed. */
export interface CreateLog {
  readonly created: Set<string>
  readonly maybe: Set<string>
  readonly existing: Set<string>
  readonly failed: Array<ClusterError>
}

/** An empty log. */
export const emptyCreateLog = (): CreateLog => ({ created: new Set(), maybe: new Set(), existing: new Set(), failed: [] })

/** The same Cluster, noting each create's outcome in `log`. */
export const loggingCreates = (cluster: ClusterShape, log: CreateLog): ClusterShape => ({
  ...cluster,
  create: (kind, object) =>
    cluster.create(kind, object).pipe(
      Effect.tap(() => Effect.sync(() => void log.created.add(kind.plural))),
      Effect.tapError((e) =>
        Effect.sync(() => {
          if (e.reason === "Unanswered") log.maybe.add(kind.plural)
          else if (e.reason === "AlreadyExists") log.existing.add(kind.plural)
          else log.failed.push(e)
        })
      )
    )
})

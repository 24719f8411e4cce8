import { Effect } from "effect"
import type { ClusterShape } from "../Cluster.ts"

/** Which creates a Cluster was asked to make, by plural: answered ones, and unanswered ones that may
 * have landed. The probe reads it to tell a write gate not proven from a launch gate not proven. */
export interface CreateLog {
  readonly created: Set<string>
  readonly maybe: Set<string>
}

/** An empty log. */
export const emptyCreateLog = (): CreateLog => ({ created: new Set(), maybe: new Set() })

/** The same Cluster, noting each create's outcome in `log`. */
export const loggingCreates = (cluster: ClusterShape, log: CreateLog): ClusterShape => ({
  ...cluster,
  create: (kind, object) =>
    cluster.create(kind, object).pipe(
      Effect.tap(() => Effect.sync(() => void log.created.add(kind.plural))),
      Effect.tapError((e) => Effect.sync(() => void (e.reason === "Unanswered" ? log.maybe.add(kind.plural) : undefined)))
    )
})

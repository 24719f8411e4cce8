import type { Artifact } from "./Artifact.ts"
import type { Entrypoint } from "./Entrypoint.ts"
import type { Experiment } from "./Experiment.ts"
import type { Queue } from "./Queue.ts"

/** The registered resources job creation reads: lookups by id, undefined when there is none. */
export interface Catalog {
  readonly experiment: (id: number) => Experiment | undefined
  readonly entrypoint: (id: number) => Entrypoint | undefined
  readonly queue: (id: number) => Queue | undefined
  readonly artifact: (id: number) => Artifact | undefined
}

const byId = <A extends { readonly id: number }>(items: ReadonlyArray<A>) => {
  const map = new Map(items.map((item) => [item.id, item] as const))
  return (id: number): A | undefined => map.get(id)
}

/** A catalog over lists of resources, as a service holding them in memory would build it. */
export const catalogOf = (resources: {
  readonly experiments?: ReadonlyArray<Experiment>
  readonly entrypoints?: ReadonlyArray<Entrypoint>
  readonly queues?: ReadonlyArray<Queue>
  readonly artifacts?: ReadonlyArray<Artifact>
}): Catalog => ({
  experiment: byId(resources.experiments ?? []),
  entrypoint: byId(resources.entrypoints ?? []),
  queue: byId(resources.queues ?? []),
  artifact: byId(resources.artifacts ?? [])
})

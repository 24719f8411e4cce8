import { Context, Effect, Layer, Option } from "effect"

/** Remembers TrainJob creates that went unanswered, so Find can report InFlight for CallBound. */
export interface InFlightShape {
  /** Records that a create of `<namespace>/<name>` went unanswered at `atMs` (Effect Clock). */
  readonly remember: (key: string, atMs: number) => Effect.Effect<void>
  /** When a create of `<namespace>/<name>` last went unanswered, if it did. */
  readonly lookup: (key: string) => Effect.Effect<Option.Option<number>>
  /** Forgets a create once its outcome is known. */
  readonly forget: (key: string) => Effect.Effect<void>
}

/** The key InFlight remembers a TrainJob create under: `<namespace>/<name>`. */
export const inFlightKey = (target: { readonly namespace: string; readonly name: string }): string => `${target.namespace}/${target.name}`

/** The InFlight memory shared by Start and Find. */
export class InFlight extends Context.Service<InFlight, InFlightShape>()("@dispatch/effects/InFlight") {}

/** An InFlight memory held in this process. */
export const makeInFlight = (): InFlightShape => {
  const entries = new Map<string, number>()
  return {
    remember: (key, atMs) => Effect.sync(() => void entries.set(key, atMs)),
    lookup: (key) => Effect.sync(() => Option.fromUndefinedOr(entries.get(key))),
    forget: (key) => Effect.sync(() => void entries.delete(key))
  }
}

/** Provides a fresh in-process InFlight memory. */
export const InFlightMemory: Layer.Layer<InFlight> = Layer.sync(InFlight, makeInFlight)

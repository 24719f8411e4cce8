import { Schema, SchemaTransformation } from "effect"

/** The largest id the service stores: ids are PostgreSQL `integer`s, so 2^31 - 1. */
export const maxResourceId = 2_147_483_647

/** The integer id Dioptra gives every registered resource (experiment, entrypoint, queue, job, ...): 1 to 2^31 - 1. */
export const ResourceId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxResourceId }))
/** The integer id of a registered resource. */
export type ResourceId = typeof ResourceId.Type

// One spelling per id: `0x10`, `1.0`, `1e0`, ` 1`, `+1` and `01` name no resource, so they cannot alias one.
const canonical = /^[1-9][0-9]{0,9}$/

/** The id a path segment names: decimal digits without sign, leading zero or space, within the stored range; else undefined. */
export const parseResourceId = (text: string): ResourceId | undefined => {
  if (!canonical.test(text)) return undefined
  const id = Number(text)
  return id <= maxResourceId ? id : undefined
}

/** A resource id in a URL path: only the canonical decimal spelling decodes (see `parseResourceId`). */
export const ResourceIdFromPath = Schema.String.check(
  // The pattern is what the OpenAPI document shows; the filter adds the range, which a pattern cannot say well.
  Schema.isPattern(canonical),
  Schema.makeFilter((text) => (parseResourceId(text) === undefined ? `not an id: ids are decimal integers from 1 to ${maxResourceId}` : undefined))
).pipe(Schema.decodeTo(ResourceId, SchemaTransformation.numberFromString))

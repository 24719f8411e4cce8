// A list's items as Dioptra's clients read them: the resource, or in its place the stored row it could not be
// rendered from. Pure shapes: the API's declaration (and so the typed client and the web page) takes them from here.
import { ResourceId } from "@dispatch/jobs"
import { Schema } from "effect"

/** What a list answers in place of a stored row it cannot render (a defect: nothing the API accepts makes one):
 * the row's id and URL, so it can be found and deleted, and why it is shown so. Dioptra's clients read it as
 * any other item; the typed client reads it as this. */
export const UnreadableItem = Schema.Struct({
  id: ResourceId,
  error: Schema.Literal("UnreadableRow"),
  message: Schema.String,
  url: Schema.String
})
/** A stored row a list cannot render. */
export type UnreadableItem = typeof UnreadableItem.Type

/** A list item: the resource, or the stored row it could not be rendered from. */
export const listItem = <A extends Schema.Top>(item: A) => Schema.Union([item, UnreadableItem])

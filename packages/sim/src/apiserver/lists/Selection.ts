// Which stored objects a list or watch selects: namespace, label selector and field selector, parsed
// once per request.
import type { ApiResponse, KubeObject } from "../../Api.ts"
import { type FieldRequirement, matchesFields, parseFieldSelector } from "./FieldSelector.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { type LabelSelector, matchesLabels, parseLabelSelector } from "./LabelSelector.ts"
import { identityOf, metadataOf } from "../store/ServerContext.ts"
import { badRequest } from "../StatusErrors.ts"
import type { Kind } from "../../kinds/Kind.ts"

/** A parsed selection. */
export interface Selection {
  readonly namespace: string | undefined
  readonly labels: LabelSelector
  readonly fields: ReadonlyArray<FieldRequirement>
  /** How each field the kind can be selected by is read. */
  readonly selectable: Kind["selectableFields"]
}

const none: Kind["selectableFields"] = {}

/** Parses a request's selectors; a malformed selector is a 400. */
export const parseSelection = (request: {
  readonly namespace?: string | undefined
  readonly name?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  /** The fields the kind can be selected by (beyond metadata.name and metadata.namespace). */
  readonly selectable?: Kind["selectableFields"] | undefined
}): Selection | ApiResponse => {
  const labels = parseLabelSelector(request.labelSelector ?? "")
  if (!labels.ok) return badRequest(labels.message)
  const fields = parseFieldSelector(request.fieldSelector ?? "", Object.keys(request.selectable ?? none))
  if (!fields.ok) return badRequest(fields.message)
  const byName: ReadonlyArray<FieldRequirement> = request.name === undefined ? [] : [{ field: "metadata.name", equal: true, value: request.name }]
  return { namespace: request.namespace, labels: labels.selector, fields: [...fields.selector, ...byName], selectable: request.selectable ?? none }
}

/** True when the parse gave a selection rather than an error answer. */
export const isSelection = (value: Selection | ApiResponse): value is Selection => !("code" in value)

/** True when the object is selected. */
export const selects = (selection: Selection, object: KubeObject): boolean => {
  const { name, namespace } = identityOf(object)
  if (selection.namespace !== undefined && namespace !== selection.namespace) return false
  const labels = metadataOf(object)["labels"]
  const labelMap = isJsonObject(labels) ? (labels as Record<string, string>) : {}
  return matchesLabels(selection.labels, labelMap) && matchesFields(selection.fields, { name, namespace: namespace ?? "" }, (field) => selection.selectable[field]?.(object) ?? "")
}

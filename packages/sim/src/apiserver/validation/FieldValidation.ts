// The fieldValidation directive on writes: what the API server does with fields the schema does not
// define. Strict refuses the request naming every one; Warn drops them and says so in a Warning
// header; Ignore drops them silently. A request that names no directive is treated as Warn, the real
// server's default since Kubernetes 1.23.
import type { ApiResponse, FieldValidation, KubeObject } from "../../Api.ts"
import { prune } from "./FieldTree.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { badRequest } from "../StatusErrors.ts"

/** The directive a request without one gets. */
export const defaultFieldValidation: FieldValidation = "Warn"

/** A body as the server keeps it (unknown fields dropped) with the warnings to send, or the refusal of a strict request. */
export type DecodedFields = { readonly object: KubeObject; readonly warnings: ReadonlyArray<string> } | { readonly refused: ApiResponse }

/**
 * Applies a directive to a request body of a resource, read in `version` (`stored`: the version an update
 * replaces; `handedOver`: the body is the server's to keep, so what is kept of it is not copied).
 */
export const decodeFields = (
  resource: Kind,
  version: string,
  body: KubeObject,
  directive: FieldValidation | undefined,
  stored?: KubeObject,
  handedOver = false
): DecodedFields => {
  const { value, unknown } = prune(resource.fields, body, stored, handedOver)
  const object = isJsonObject(value) ? value : body
  const mode = directive ?? defaultFieldValidation
  if (unknown.length === 0 || mode === "Ignore") return { object, warnings: [] }
  const named = unknown.map((path) => `unknown field "${path}"`)
  if (mode === "Warn") return { object, warnings: named }
  return { refused: badRequest(`${resource.kind} in version "${version}" cannot be handled as a ${resource.kind}: strict decoding error: ${named.join(", ")}`) }
}

// A warning travels as `299 - "<text>"`; several share one header, comma-separated as RFC 9110 allows.
const warningHeader = (warnings: ReadonlyArray<string>): string => warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ")

/** The response with the warnings added as its Warning header (unchanged when there are none). */
export const withWarnings = (response: ApiResponse, warnings: ReadonlyArray<string>): ApiResponse =>
  warnings.length === 0 ? response : { ...response, headers: { ...response.headers, Warning: warningHeader(warnings) } }

// Reading the two headers that change how a call is served: Content-Type picks the patch format, and
// Accept may ask for a meta.k8s.io/v1 Table instead of the object (kubectl's `get` does).
import type { PatchType } from "../Api.ts"
import { memoizeText } from "./TextMemo.ts"

/** How much of each object a Table row carries, from the `includeObject` query parameter. */
export type IncludeObject = "None" | "Metadata" | "Object"

interface MediaRange {
  readonly type: string
  readonly params: Readonly<Record<string, string>>
}

const parseMediaRange = (text: string): MediaRange => {
  const [type = "", ...params] = text.split(";").map((p) => p.trim())
  const entries = params.flatMap((p) => {
    const eq = p.indexOf("=")
    return eq < 0 ? [] : [[p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim()] as const]
  })
  return { type: type.toLowerCase(), params: Object.fromEntries(entries) }
}

/** The patch format named by a Content-Type header, or undefined when it names none. */
export const patchTypeOf = (contentType: string | undefined): PatchType | undefined => patchTypeOfText(contentType ?? "")

// Module state that is a pure memo cache of constant input (header texts; so is isYamlText below): every server may share it.
const patchTypeOfText = memoizeText((contentType: string): PatchType | undefined => {
  switch (parseMediaRange(contentType).type) {
    case "application/json-patch+json":
      return "json"
    case "application/merge-patch+json":
      return "merge"
    case "application/strategic-merge-patch+json":
      return "strategic"
    case "application/apply-patch+yaml":
      return "apply"
    default:
      return undefined
  }
})

/** True when the body is to be read as YAML rather than JSON. */
export const isYamlBody = (contentType: string | undefined): boolean => isYamlText(contentType ?? "")

const isYamlText = memoizeText((contentType: string): boolean => {
  const type = parseMediaRange(contentType).type
  return type === "application/apply-patch+yaml" || type === "application/yaml"
})

/** True when the Accept header lists a meta.k8s.io/v1 Table among the JSON forms it takes. */
export const acceptsTable = (accept: string | undefined): boolean => acceptsTableText(accept ?? "")

const acceptsTableText = memoizeText((accept: string): boolean =>
  accept
    .split(",")
    .map(parseMediaRange)
    .some(
      (m) =>
        (m.type === "application/json" || m.type === "*/*") &&
        m.params["as"] === "Table" &&
        m.params["g"] === "meta.k8s.io" &&
        m.params["v"] === "v1"
    )
)

/** The includeObject query parameter, defaulting as the API server does. */
export const includeObjectOf = (value: string | null): IncludeObject | undefined =>
  value === null || value === "" ? "Metadata" : value === "None" || value === "Metadata" || value === "Object" ? value : undefined

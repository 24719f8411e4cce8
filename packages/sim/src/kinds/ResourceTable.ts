// Lookups over the served resources: by plural, by kind, and the names the API server prints for them.
import { type Resource, Resources } from "../Api.ts"

/** The served resource with that plural name. */
export const resourceByPlural = (plural: string): Resource | undefined => Resources.find((r) => r.plural === plural)

/** The group of an apiVersion string (`group/version`, or `version` for the core group). */
export const groupOf = (apiVersion: string): string => (apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "")

/** The version of an apiVersion string. */
export const versionOf = (apiVersion: string): string => apiVersion.split("/").pop() ?? ""

/** The served resource for an apiVersion and kind, as owner references name them. */
export const resourceByKind = (apiVersion: string, kind: string): Resource | undefined =>
  Resources.find((r) => r.kind === kind && r.group === groupOf(apiVersion))

/** The apiVersion string for a resource at a version. */
export const apiVersionFor = (resource: Resource, version: string): string =>
  resource.group === "" ? version : `${resource.group}/${version}`

/** `plural.group` (or just the plural for the core group), as NotFound and Conflict messages print it. */
export const qualifiedResource = (resource: Resource): string =>
  resource.group === "" ? resource.plural : `${resource.plural}.${resource.group}`

/** `Kind.group` (or just the Kind for the core group), as Invalid messages print it. */
export const qualifiedKind = (resource: Resource): string =>
  resource.group === "" ? resource.kind : `${resource.kind}.${resource.group}`

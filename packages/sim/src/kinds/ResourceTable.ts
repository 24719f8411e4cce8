// Lookups over the served resources: by plural, by kind, and the names the API server prints for them.
import { type Resource, Resources } from "../Api.ts"

// Every write looks resources up several times (its own, its owners'): maps, not scans of the table.
// The first resource of a name wins, as a scan in table order would find it.
const firstBy = (key: (r: Resource) => string): ReadonlyMap<string, Resource> => {
  const map = new Map<string, Resource>()
  for (const r of Resources) if (!map.has(key(r))) map.set(key(r), r)
  return map
}
const byPlural = firstBy((r) => r.plural)
// A group holds no slash, so the last slash of a key tells its kind from its group.
const byKindAndGroup = firstBy((r) => `${r.kind}/${r.group}`)

/** The served resource with that plural name. */
export const resourceByPlural = (plural: string): Resource | undefined => byPlural.get(plural)

/** The group of an apiVersion string (`group/version`, or `version` for the core group). */
export const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.indexOf("/")
  return slash < 0 ? "" : apiVersion.slice(0, slash)
}

/** The version of an apiVersion string (what follows its last slash). */
export const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.lastIndexOf("/") + 1)

/** The served resource for an apiVersion and kind, as owner references name them. */
export const resourceByKind = (apiVersion: string, kind: string): Resource | undefined => byKindAndGroup.get(`${kind}/${groupOf(apiVersion)}`)

/** The apiVersion string for a resource at a version. */
export const apiVersionFor = (resource: Resource, version: string): string =>
  resource.group === "" ? version : `${resource.group}/${version}`

/** `plural.group` (or just the plural for the core group), as NotFound and Conflict messages print it. */
export const qualifiedResource = (resource: Resource): string =>
  resource.group === "" ? resource.plural : `${resource.plural}.${resource.group}`

/** `Kind.group` (or just the Kind for the core group), as Invalid messages print it. */
export const qualifiedKind = (resource: Resource): string =>
  resource.group === "" ? resource.kind : `${resource.kind}.${resource.group}`

// The names the API server derives from a resource and an apiVersion string, whatever the kind.
import type { Resource } from "../Api.ts"

/** The group of an apiVersion string (`group/version`, or `version` for the core group). */
export const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.indexOf("/")
  return slash < 0 ? "" : apiVersion.slice(0, slash)
}

/** The version of an apiVersion string (what follows its last slash). */
export const versionOf = (apiVersion: string): string => apiVersion.slice(apiVersion.lastIndexOf("/") + 1)

/** The apiVersion string for a resource at a version. */
export const apiVersionFor = (resource: Resource, version: string): string => (resource.group === "" ? version : `${resource.group}/${version}`)

/** `plural.group` (or just the plural for the core group), as NotFound and Conflict messages print it. */
export const qualifiedResource = (resource: Resource): string => (resource.group === "" ? resource.plural : `${resource.plural}.${resource.group}`)

/** `Kind.group` (or just the Kind for the core group), as Invalid messages print it. */
export const qualifiedKind = (resource: Resource): string => (resource.group === "" ? resource.kind : `${resource.kind}.${resource.group}`)

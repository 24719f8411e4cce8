// Reading the manifests `sim serve` seeds its cluster with: YAML (one or many documents) or JSON,
// each document one Kubernetes object of a kind the simulator serves.
import { type KubeObject, type Resource, Resources } from "@dispatch/sim"
import { parseAllDocuments } from "yaml"

/** One object to seed, with the resource it belongs to and where it came from. */
export interface SeedObject {
  readonly resource: Resource
  readonly object: KubeObject
  readonly source: string
}

/** A manifest file that could not be read as objects, with every problem found in it. */
export interface ManifestError {
  readonly _tag: "ManifestError"
  readonly file: string
  readonly problems: ReadonlyArray<string>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const resourceOf = (object: Record<string, unknown>): Resource | undefined => {
  const apiVersion = typeof object["apiVersion"] === "string" ? object["apiVersion"] : ""
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion]
  return Resources.find((r) => r.kind === object["kind"] && r.group === group && r.versions.includes(version ?? ""))
}

/** Reads the objects of one manifest file's text; `file` names it in every problem. */
export const parseManifests = (file: string, text: string): { readonly objects: ReadonlyArray<SeedObject> } | ManifestError => {
  const problems: Array<string> = []
  const objects: Array<SeedObject> = []
  const documents = parseAllDocuments(text)
  const list = Array.isArray(documents) ? documents : [documents]
  list.forEach((doc, i) => {
    const where = `document ${i + 1}`
    if (doc.errors.length > 0) {
      for (const e of doc.errors) problems.push(`${where}: ${e.message.split("\n")[0]}`)
      return
    }
    const value: unknown = doc.toJS()
    if (value === null || value === undefined) return
    const items = isRecord(value) && typeof value["kind"] === "string" && value["kind"].endsWith("List") && Array.isArray(value["items"]) ? value["items"] : [value]
    items.forEach((item: unknown, j) => {
      const at = items.length > 1 || item !== value ? `${where} item ${j + 1}` : where
      if (!isRecord(item)) {
        problems.push(`${at}: not a Kubernetes object`)
        return
      }
      const resource = resourceOf(item)
      const name = isRecord(item["metadata"]) ? item["metadata"]["name"] : undefined
      if (resource === undefined) problems.push(`${at}: ${String(item["apiVersion"])} ${String(item["kind"])} is not a kind the simulator serves`)
      if (typeof name !== "string" || name === "") problems.push(`${at}: metadata.name is missing`)
      if (resource !== undefined && typeof name === "string" && name !== "") {
        objects.push({ resource, object: item as KubeObject, source: `${file} ${at} (${resource.kind} ${name})` })
      }
    })
  })
  if (list.length === 0 || (objects.length === 0 && problems.length === 0)) problems.push("no objects found")
  return problems.length > 0 ? { _tag: "ManifestError", file, problems } : { objects }
}

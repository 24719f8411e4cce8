// meta.k8s.io/v1 Tables, the form `kubectl get` asks for so that it can print server-chosen columns:
// each kind's own columns (kinds/<group>/<kind>), NAME and AGE for a kind that declares none.
import type { KubeObject } from "../Api.ts"
import type { Kind } from "../kinds/Kind.ts"
import { record } from "../kinds/Columns.ts"
import type { IncludeObject } from "./MediaType.ts"

const rowObject = (object: KubeObject, include: IncludeObject): Record<string, unknown> => {
  switch (include) {
    case "None":
      return {}
    case "Metadata":
      return { object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata ?? {} } }
    case "Object":
      return { object }
  }
}

/** What a Table is made from: one object, or a list body with `items`. */
export interface TableSource {
  readonly resource: Kind
  readonly body: unknown
  /** The simulator's clock, for the Age column. */
  readonly now: number
  readonly include: IncludeObject
  /** False for watch events after the first: the columns were already sent. */
  readonly withColumns: boolean
}

/** Renders an object or a list as a meta.k8s.io/v1 Table. */
export const tableOf = (source: TableSource): Record<string, unknown> => {
  const columns = source.resource.columns
  const body = record(source.body)
  const items: ReadonlyArray<KubeObject> = Array.isArray(body["items"]) ? body["items"].map(record) : [body]
  const listMeta = record(body["metadata"])
  const isList = Array.isArray(body["items"])
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: isList
      ? {
          ...(listMeta["resourceVersion"] === undefined ? {} : { resourceVersion: listMeta["resourceVersion"] }),
          ...(listMeta["continue"] === undefined ? {} : { continue: listMeta["continue"] }),
          ...(listMeta["remainingItemCount"] === undefined ? {} : { remainingItemCount: listMeta["remainingItemCount"] })
        }
      : { ...(listMeta["resourceVersion"] === undefined ? {} : { resourceVersion: listMeta["resourceVersion"] }) },
    columnDefinitions: source.withColumns
      ? columns.map((c) => ({ name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority ?? 0 }))
      : [],
    rows: items.map((item) => ({ cells: columns.map((c) => c.cell(item, source.now)), ...rowObject(item, source.include) }))
  }
}

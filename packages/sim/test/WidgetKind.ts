// The Widget kind docs/simulator.md shows as its worked example of adding a kind, as a test can import
// it (only the import paths differ: KindExample.test.ts checks the two agree).
import { defineKind } from "../src/kinds/Kind.ts"
import { ageColumn, column, field, nameColumn } from "../src/kinds/Columns.ts"
import { invalidValue } from "../src/apiserver/validation/FieldErrors.ts"
import { fields } from "../src/apiserver/validation/FieldTree.ts"
import { kindFields } from "../src/kinds/core/CoreFields.ts"

/** Widget. */
export const widget = defineKind({
  group: "example.com",
  versions: ["v1"],
  kind: "Widget",
  listKind: "WidgetList",
  plural: "widgets",
  singular: "widget",
  shortNames: ["wd"],
  namespaced: true,
  hasStatus: false,
  fields: kindFields({ spec: fields({ size: "integer" }) }),
  descriptions: { "spec.size": "How big the widget is; at least 1." },
  strategy: {
    defaults: (object) => ({ ...object, spec: { size: 1, ...(object["spec"] as object) } }),
    validate: (object) => {
      const size = field(object, "spec", "size")
      return typeof size === "number" && size < 1 ? [invalidValue("spec.size", size, "must be at least 1")] : []
    }
  },
  columns: [nameColumn, column("Size", "integer", "How big the widget is.", (o) => Number(field(o, "spec", "size") ?? 0)), ageColumn]
})

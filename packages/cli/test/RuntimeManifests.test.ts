import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { stringify } from "yaml"
import { parseManifests } from "../src/RuntimeManifests.ts"

const runtime = (name: string) => `apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: ${name}
spec:
  mlPolicy:
    numNodes: 1
`

describe("parseManifests", () => {
  it("reads every document of a multi-document YAML file", () => {
    const result = parseManifests("rt.yaml", `${runtime("a")}---\n${runtime("b")}---\n`)
    expect("objects" in result && result.objects.map((o) => [o.resource.kind, o.object.metadata?.["name"]])).toEqual([
      ["ClusterTrainingRuntime", "a"],
      ["ClusterTrainingRuntime", "b"]
    ])
  })

  test.prop([
    fc.array(
      fc.record({
        kind: fc.constantFrom("ClusterTrainingRuntime", "TrainingRuntime", "Namespace"),
        name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
        json: fc.boolean()
      }),
      { minLength: 1, maxLength: 6 }
    )
  ])("reads back every object of a multi-document file, in order", (docs) => {
    const objects = docs.map(({ kind, name }) => ({
      apiVersion: kind === "Namespace" ? "v1" : "trainer.kubeflow.org/v1alpha1",
      kind,
      metadata: { name }
    }))
    const text = objects.map((o, i) => (docs[i]?.json ? JSON.stringify(o) : stringify(o))).join("\n---\n")
    const result = parseManifests("many.yaml", text)
    expect("objects" in result && result.objects.map((o) => o.object)).toEqual(objects)
  })

  it("reads JSON and List objects", () => {
    const list = { apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } }] }
    const result = parseManifests("ns.json", JSON.stringify(list))
    expect("objects" in result && result.objects.map((o) => o.resource.plural)).toEqual(["namespaces"])
  })

  it("names the file and every bad document", () => {
    const text = `${runtime("a")}---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: d\n---\nkind: [unclosed\n---\napiVersion: v1\nkind: Namespace\n`
    expect(parseManifests("bad.yaml", text)).toEqual({
      _tag: "ManifestError",
      file: "bad.yaml",
      problems: [
        "document 2: apps/v1 StatefulSet is not a kind the simulator serves",
        expect.stringMatching(/^document 3: /),
        "document 4: metadata.name is missing"
      ]
    })
    expect(parseManifests("empty.yaml", "")).toMatchObject({ _tag: "ManifestError", problems: ["no objects found"] })
  })
})

import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { withPrecondition } from "../src/Cluster.ts"
import { decodeKubeResource } from "../src/KubeObjects.ts"

const extraKey = fc.string({ minLength: 1 }).filter((k) => !["apiVersion", "kind", "metadata", "__proto__"].includes(k))

describe("KubeObjects", () => {
  test.prop([fc.dictionary(extraKey, fc.jsonValue(), { maxKeys: 5 }), fc.dictionary(extraKey.filter((k) => !["name", "namespace", "uid", "resourceVersion", "labels", "annotations", "ownerReferences", "deletionTimestamp"].includes(k)), fc.jsonValue(), { maxKeys: 5 })])(
    "keeps every field it does not type, at the top and in metadata",
    (rest, metaRest) => {
      const object = { ...rest, apiVersion: "v1", kind: "Thing", metadata: { ...metaRest, name: "a" } }
      const decoded = decodeKubeResource(JSON.parse(JSON.stringify(object)))
      expect(Option.getOrThrow(decoded)).toEqual(JSON.parse(JSON.stringify(object)))
    }
  )

  it("refuses an answer that is not an object with metadata", () => {
    expect(Option.isNone(decodeKubeResource({ kind: "Status" }))).toBe(true)
    expect(Option.isNone(decodeKubeResource("text"))).toBe(true)
  })

  test.prop([fc.dictionary(extraKey, fc.jsonValue(), { maxKeys: 4 }), fc.string()])(
    "a precondition adds metadata.resourceVersion and changes nothing else",
    (patch, rv) => {
      const withRv = withPrecondition({ ...patch, metadata: { labels: { a: "b" } } }, rv)
      expect(withRv).toEqual({ ...patch, metadata: { labels: { a: "b" }, resourceVersion: rv } })
      expect(withPrecondition(patch, undefined)).toBe(patch)
    }
  )
})

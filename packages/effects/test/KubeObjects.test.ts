import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { withPrecondition } from "../src/Cluster.ts"
import { decodeKubeResource, KubeResource } from "../src/KubeObjects.ts"

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

  // Each field is mostly what the schema wants, else anything (a wrong type, an array, undefined); the
  // optional ones are also absent at times.
  const either = <T>(good: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 30 }, fc.jsonValue(), fc.constant(undefined), fc.constant([]))
  const stringMap = either(fc.dictionary(fc.string(), either(fc.string()), { maxKeys: 3 }))
  const ownerReference = either(
    fc.record({ apiVersion: either(fc.string()), kind: either(fc.string()), name: either(fc.string()), uid: either(fc.string()), controller: either(fc.boolean()), extra: fc.jsonValue() }, { requiredKeys: [] })
  )
  const metadata = either(
    fc.record(
      {
        name: either(fc.string()),
        namespace: either(fc.string()),
        uid: either(fc.string()),
        resourceVersion: either(fc.string()),
        labels: stringMap,
        annotations: stringMap,
        ownerReferences: either(fc.array(ownerReference, { maxLength: 3 })),
        deletionTimestamp: either(fc.string()),
        extra: fc.jsonValue()
      },
      { requiredKeys: ["name"] }
    )
  )
  const answer = either(fc.record({ apiVersion: either(fc.string()), kind: either(fc.string()), metadata, spec: fc.jsonValue() }, { requiredKeys: ["apiVersion", "kind", "metadata"] }))
  const bySchema = Schema.decodeUnknownOption(KubeResource)

  test.prop([answer], { numRuns: 2_000 })("decides every answer as the KubeResource schema does, and keeps it as it is", (body) => {
    const decoded = decodeKubeResource(body)
    const expected = bySchema(body)
    expect(Option.isSome(decoded)).toBe(Option.isSome(expected))
    if (Option.isSome(decoded)) {
      expect(decoded.value).toBe(body)
      expect(decoded.value).toEqual(Option.getOrThrow(expected))
    }
  })

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

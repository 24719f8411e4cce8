// core/v1 Secret in the simulator: stringData folded into data as base64 and never stored, type Opaque
// unless given, refused for an undeclared field, and validated.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { secretDefaults } from "../src/kinds/core/secret/SecretRules.ts"
import { at, bareSimulator, call, created } from "./SimFixture.ts"

const secret = (name: string, rest: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name }, ...rest })
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64")

describe("Secret", () => {
  it("folds stringData into data, base64-encoded, and keeps neither stringData nor its plain text", () => {
    const sim = bareSimulator()
    const stored = created(sim, "secrets", secret("db", { data: { user: base64("web"), url: base64("old") }, stringData: { url: "postgres://web@db/web" } }))
    expect(stored).toMatchObject({ type: "Opaque", data: { user: base64("web"), url: base64("postgres://web@db/web") } })
    expect(stored["stringData"]).toBeUndefined()
    expect(call(sim, { verb: "get", ...at("secrets"), name: "db" }).body).toEqual(stored)
    // The same on a server-side apply, created or updated.
    const applied = call(sim, { verb: "patch", ...at("secrets"), name: "ssa", patchType: "apply", fieldManager: "kubectl", body: secret("ssa", { stringData: { a: "1" } }) })
    expect(applied.body).toMatchObject({ data: { a: base64("1") } })
    const again = call(sim, { verb: "patch", ...at("secrets"), name: "ssa", patchType: "apply", fieldManager: "kubectl", body: secret("ssa", { stringData: { a: "2" } }) })
    expect(again.body).toMatchObject({ data: { a: base64("2") } })
    expect((again.body as KubeObject)["stringData"]).toBeUndefined()
  })

  test.prop([fc.dictionary(fc.stringMatching(/^[-._a-zA-Z0-9]{1,20}$/), fc.string()), fc.dictionary(fc.stringMatching(/^[-._a-zA-Z0-9]{1,20}$/), fc.string())])(
    "reads each stringData value back from data, over any data value of the same key",
    (data, stringData) => {
      const folded = secretDefaults({ data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])), stringData }) as { data: Record<string, string> }
      for (const [key, value] of Object.entries({ ...data, ...stringData })) expect(Buffer.from(folded.data[key] ?? "", "base64").toString("utf8")).toBe(value)
      expect(Object.keys(folded.data).sort()).toEqual([...new Set([...Object.keys(data), ...Object.keys(stringData)])].sort())
    }
  )

  it("folds a stringData key that names an Object property as any other", () => {
    const folded = secretDefaults(JSON.parse('{"data":{"constructor":"YQ=="},"stringData":{"__proto__":"b","toString":"c"}}')) as { data: Record<string, string> }
    expect(Object.keys(folded.data)).toEqual(["constructor", "__proto__", "toString"])
    expect(Object.getPrototypeOf(folded.data)).toBe(Object.prototype)
    expect(folded.data["toString"]).toBe(base64("c"))
  })

  it("refuses an undeclared field, bad keys and base64, and a TLS secret without its keys", () => {
    const sim = bareSimulator()
    expect(call(sim, { verb: "create", ...at("secrets"), body: secret("a", { strinData: {} }), fieldValidation: "Strict" }).body).toMatchObject({
      message: 'Secret in version "v1" cannot be handled as a Secret: strict decoding error: unknown field "strinData"'
    })
    const causes = (body: KubeObject) => {
      const answer = call(sim, { verb: "create", ...at("secrets"), body })
      expect(answer.code).toBe(422)
      return ((answer.body as any).details.causes as ReadonlyArray<{ field: string }>).map((c) => c.field)
    }
    expect(causes(secret("a", { data: { "no/slash": base64("x"), ok: "not base64!" } }))).toEqual(["data[no/slash]", "data[ok]"])
    expect(causes(secret("a", { type: "kubernetes.io/tls", stringData: { "tls.crt": "x" } }))).toEqual(["data[tls.key]"])
  })

  it("keeps its type, and once immutable its data", () => {
    const sim = bareSimulator()
    const stored = created(sim, "secrets", secret("frozen", { immutable: true, stringData: { a: "1" } }))
    const changed = call(sim, { verb: "update", ...at("secrets"), name: "frozen", body: { ...stored, data: { a: base64("2") } } })
    expect(changed.code).toBe(422)
    expect((changed.body as any).message).toContain("data: Forbidden: field is immutable when `immutable` is set")
    const retyped = call(sim, { verb: "update", ...at("secrets"), name: "frozen", body: { ...stored, type: "kubernetes.io/basic-auth" } })
    expect((retyped.body as any).message).toContain('type: Invalid value: "kubernetes.io/basic-auth": field is immutable')
  })
})

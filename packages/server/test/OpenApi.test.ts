import { Schema } from "effect"
import { describe, expect, test } from "vitest"
import { openApi as serviceOpenApi, routes } from "../src/Serve.ts"

const openApi = serviceOpenApi()

const refsIn = (value: unknown): Array<string> => {
  if (Array.isArray(value)) return value.flatMap(refsIn)
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, inner]) => (key === "$ref" && typeof inner === "string" ? [inner] : refsIn(inner)))
}

const resolve = (pointer: string): unknown =>
  pointer
    .replace(/^#\//, "")
    .split("/")
    .reduce<unknown>((node, key) => (typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined), openApi)

describe("the OpenAPI document", () => {
  test("every reference in it resolves inside it", () => {
    const refs = refsIn(openApi)
    for (const ref of refs) expect(resolve(ref), ref).toBeDefined()
  })

  test("each operation's body and answer are the JSON Schemas of the route's own schemas", () => {
    const paths = openApi.paths as Record<string, Record<string, any>>
    for (const route of routes) {
      const operation = paths[route.path]?.[route.method.toLowerCase()]
      const asJson = (schema: Schema.Top) => JSON.parse(JSON.stringify(Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" }).schema).replaceAll("#/$defs/", "#/components/schemas/"))
      expect(operation.responses["200"].content["application/json"].schema).toEqual(asJson(route.response))
      if (route.body !== undefined) expect(operation.requestBody.content["application/json"].schema).toEqual(asJson(route.body))
      else expect(operation.requestBody).toBeUndefined()
      const pathParams = [...route.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1])
      expect(operation.parameters.filter((p: { in: string }) => p.in === "path").map((p: { name: string }) => p.name)).toEqual(pathParams)
    }
  })

  test("the creations that honour Idempotency-Key, and only they, list it as an optional header", () => {
    const paths = openApi.paths as Record<string, Record<string, any>>
    const keyed = routes.filter((route) => {
      const headers = paths[route.path]?.[route.method.toLowerCase()].parameters.filter((p: { in: string }) => p.in === "header")
      return headers.some((p: { name: string; required: boolean }) => p.name === "Idempotency-Key" && !p.required)
    })
    expect(keyed.map((r) => `${r.method} ${r.path}`).sort()).toEqual(routes.filter((r) => r.keyed).map((r) => `${r.method} ${r.path}`).sort())
    expect(keyed).toHaveLength(11)
  })
})

import { Schema } from "effect"
import { ErrorBody } from "./ErrorBody.ts"
import type { Route } from "./Route.ts"

type JsonObject = { readonly [key: string]: unknown }

// Effect writes draft 2020-12 with local `#/$defs/` references; OpenAPI 3.1 keeps shared ones under components.
const relocateRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(relocateRefs)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === "$ref" && typeof inner === "string" ? inner.replace("#/$defs/", "#/components/schemas/") : relocateRefs(inner)
    ])
  )
}

const jsonSchema = (schema: Schema.Top, components: Record<string, unknown>): JsonObject => {
  const document = Schema.toJsonSchemaDocument(schema)
  for (const [name, definition] of Object.entries(document.definitions)) components[name] = relocateRefs(definition)
  return relocateRefs(document.schema) as JsonObject
}

const parametersOf = (schema: Schema.Top, place: "path" | "query", components: Record<string, unknown>) => {
  const object = jsonSchema(schema, components)
  const properties = (object["properties"] ?? {}) as JsonObject
  const required = new Set((object["required"] ?? []) as ReadonlyArray<string>)
  return Object.entries(properties).map(([name, property]) => ({ name, in: place, required: place === "path" || required.has(name), schema: property }))
}

const errorStatuses = ["400", "401", "403", "404", "409"] as const

const operationId = (route: Route) =>
  route.method.toLowerCase() +
  route.path
    .split("/")
    .filter((s) => s !== "")
    .map((s) => s.replace(/[{}]/g, ""))
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
    .join("")

/** The OpenAPI 3.1 document of the routes, built from the very schemas that decode their requests. */
export const openApiDocument = (routes: ReadonlyArray<Route>, info: { readonly title: string; readonly version: string }) => {
  const components: Record<string, unknown> = {}
  const errorSchema = jsonSchema(ErrorBody, components)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const operation = {
      operationId: operationId(route),
      tags: [route.tag],
      summary: route.summary,
      parameters: [
        ...parametersOf(route.params, "path", components),
        ...(route.query === undefined ? [] : parametersOf(route.query, "query", components))
      ],
      ...(route.body === undefined
        ? {}
        : { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(route.body, components) } } } }),
      responses: {
        "200": { description: "success", content: { "application/json": { schema: jsonSchema(route.response, components) } } },
        ...Object.fromEntries(
          errorStatuses.map((status) => [status, { description: "refused", content: { "application/json": { schema: errorSchema } } }])
        )
      }
    }
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation }
  }
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } }
  }
}

// The API describes itself: /api/v1 lists it, /api/v1/docs is a docs page that loads nothing from elsewhere.
import { describe, expect, test } from "vitest"
import { routes } from "../src/Serve.ts"
import { useService } from "./Service.ts"

describe("the API's own pages", () => {
  const service = useService("pglite")

  test("/api/v1 lists every endpoint and where the document and docs page are, without a token", async () => {
    const { anonymous, server } = service()
    const answer = await anonymous("GET", "")
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ openapi: `${server.url}/api/v1/openapi.json`, docs: `${server.url}/api/v1/docs` })
    expect(answer.body.endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort())
  })

  test("/api/v1/docs is an HTML page whose scripts and styles are inline: no CDN, nothing fetched from another origin", async () => {
    const response = await fetch(`${service().server.url}/api/v1/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    const page = await response.text()
    expect(page).toContain("SwaggerUIBundle")
    expect(page).not.toMatch(/<(script|link)[^>]+(src|href)=["']?(https?:)?\/\//i)
    expect(page).not.toMatch(/cdn\.jsdelivr|unpkg\.com|cdnjs/i)
  })
})

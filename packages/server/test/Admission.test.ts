// Admission reads a body within its size limit: past it the request is refused with BodyTooLarge naming the limit,
// whatever else the request is; a request refused before its body is needed (401) still has its body read, so the
// client gets the answer rather than a reset connection. The service keeps serving after either.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { maxBodyBytes } from "../src/http/ApiServer.ts"
import type { JobServer } from "../src/index.ts"
import { client, started, tokens } from "./Fixtures.ts"

let server: JobServer | undefined
beforeAll(async () => {
  server = await started({})
})
afterAll(async () => {
  await server?.close()
})

const post = async (path: string, body: string, token?: string) => {
  const response = await fetch(`${server?.url ?? ""}/api/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body
  })
  return { status: response.status, body: (await response.json()) as { readonly error: string; readonly detail: ReadonlyArray<Record<string, unknown>> } }
}

describe("a request body and its size limit", () => {
  test("a body one byte past the limit is 413 BodyTooLarge naming the limit, and nothing is stored", async () => {
    const body = JSON.stringify({ name: "x".repeat(maxBodyBytes + 1 - 58), description: "d".repeat(30) })
    expect(Buffer.byteLength(body)).toBe(maxBodyBytes + 1)
    const answer = await post("/experiments", body, tokens.alice)
    expect(answer.status).toBe(413)
    expect(answer.body.error).toBe("BodyTooLarge")
    expect(answer.body.detail).toEqual([expect.objectContaining({ limit: maxBodyBytes })])
    const listed = await client(server?.url ?? "", tokens.alice)("GET", "/experiments")
    expect(listed.status).toBe(200)
    expect((listed.body as { readonly totalNumResults: number }).totalNumResults).toBe(0)
  })

  test("a body within the limit is read whole and decoded", async () => {
    const answer = await post("/experiments", JSON.stringify({ name: "within", description: "d".repeat(maxBodyBytes - 100) }), tokens.alice)
    // Read and decoded whole: refused for the field's own bound, not the body's.
    expect(answer.body.error).not.toBe("BodyTooLarge")
    expect(answer.status).toBe(413)
    expect(answer.body.error).toBe("FieldTooLarge")
  })

  test("a request without credentials is 401 even with a large body, and the service keeps serving", async () => {
    const answer = await post("/experiments", JSON.stringify({ name: "n", description: "d".repeat(1024 * 1024) }))
    expect(answer.status).toBe(401)
    expect(answer.body.error).toBe("Unauthenticated")
    expect((await client(server?.url ?? "", tokens.alice)("GET", "/experiments")).status).toBe(200)
  })
})

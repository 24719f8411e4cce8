// What one failed write says about the backend: a caller retries a transient failure, stops writing on
// a forbidden one, and does not resend a refused object. Every reason a ClusterError can carry has its class.
import { describe, expect, it } from "vitest"
import { ClusterError, type ClusterErrorReason } from "../src/ClusterError.ts"
import { classifyWriteFailure, missingNamespaceOf } from "../src/WriteFailure.ts"

const call = "create trainjobs team-a/dj-x-s1"
const withStatus = (reason: ClusterErrorReason, code: number, message: string) => new ClusterError({ reason, call, status: { code, reason: "", message, causes: [] } })

describe("classifyWriteFailure", () => {
  it("classes every reason: retry later, may not write, or the object is refused", () => {
    const classes: Record<ClusterErrorReason, string> = {
      Unreachable: "transient",
      Unanswered: "transient",
      ServerError: "transient",
      Conflict: "transient",
      AlreadyExists: "transient",
      Forbidden: "forbidden",
      Invalid: "refused",
      NotFound: "refused"
    }
    for (const [reason, expected] of Object.entries(classes)) {
      expect([reason, classifyWriteFailure(new ClusterError({ reason: reason as ClusterErrorReason, call, detail: "ECONNRESET" })).class]).toEqual([reason, expected])
    }
  })

  it("a 404 naming the namespace says which namespace is missing; any other 404 is a kind the API does not serve", () => {
    const missing = withStatus("NotFound", 404, 'namespaces "team-a" not found')
    expect(classifyWriteFailure(missing)).toEqual({ class: "missingNamespace", namespace: "team-a" })
    expect(missingNamespaceOf(missing)).toBe("team-a")
    expect(classifyWriteFailure(withStatus("NotFound", 404, "the server could not find the requested resource"))).toEqual({ class: "refused" })
    // Only the whole sentence names a namespace: a longer message quoting it does not.
    expect(missingNamespaceOf(withStatus("NotFound", 404, 'namespaces "team-a" not found, and more'))).toBeUndefined()
    expect(missingNamespaceOf(withStatus("NotFound", 404, 'see namespaces "team-a" not found'))).toBeUndefined()
    // The same words on another reason name nothing missing.
    expect(missingNamespaceOf(withStatus("ServerError", 500, 'namespaces "team-a" not found'))).toBeUndefined()
  })
})

// What a call that threw before its answer means for Start: nothing reached the server (Unreachable, safe to
// call a definite failure) or the request may have been applied (Unanswered, Find before retrying).
import { describe, expect, it } from "vitest"
import { clusterErrorOfThrown } from "../src/KubeCluster.ts"

const thrown = (code: string) => Object.assign(new Error("transport"), { code })

describe("clusterErrorOfThrown", () => {
  it.each(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT"])("%s: nothing was sent", (code) => {
    expect(clusterErrorOfThrown("create trainjobs", thrown(code))).toMatchObject({ reason: "Unreachable", detail: code })
  })

  it.each(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_ABORTED"])(
    "%s: the request may have been applied",
    (code) => {
      expect(clusterErrorOfThrown("create trainjobs", thrown(code))).toMatchObject({ reason: "Unanswered", detail: code })
    }
  )

  it("a call's own timeout is unanswered", () => {
    expect(clusterErrorOfThrown("create trainjobs", Object.assign(new Error("late"), { name: "TimeoutError" }))).toMatchObject({ reason: "Unanswered", detail: "TimeoutError" })
  })
})

import { fc, test } from "@fast-check/vitest"
import { KubeConfig } from "@kubernetes/client-node"
import { describe, expect } from "vitest"
import { kubeconfigFor } from "../src/http/Kubeconfig.ts"

describe("kubeconfigFor", () => {
  test.prop([
    fc.integer({ min: 1, max: 65535 }),
    fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
    fc.option(fc.stringMatching(/^[a-z]([-a-z0-9]{0,20}[a-z0-9])?$/), { nil: undefined })
  ])("is read by client-node as the server, token and namespace given", (port, token, namespace) => {
    const url = `http://127.0.0.1:${port}`
    const kc = new KubeConfig()
    kc.loadFromString(kubeconfigFor({ url }, { ...(token === undefined ? {} : { token }), ...(namespace === undefined ? {} : { namespace }) }))
    const cluster = kc.getCurrentCluster()
    expect(cluster?.server).toBe(url)
    expect(cluster?.skipTLSVerify).toBe(true)
    expect(kc.getCurrentUser()?.token).toBe(token)
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe(namespace)
  })
})

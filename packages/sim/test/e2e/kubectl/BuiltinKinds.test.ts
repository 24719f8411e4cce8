// The real kubectl's typed commands, which send built-in kinds as protobuf (create namespace, create
// job, auth can-i), next to the ones that send JSON (run, create -f, label, delete); and `auth can-i`
// answered from the token's rights.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { kubeconfigFor } from "../../../src/http/index.ts"
import { startSimServer } from "../../../src/SimServer.ts"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"

describe("kubectl's protobuf bodies", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve()
  })
  afterAll(() => served.close())

  it("creates, labels and deletes a namespace", async () => {
    expect(ok(await kubectl(served, "create", "namespace", "team-a"))).toBe("namespace/team-a created\n")
    expect(served.simulator.system.get("namespaces", undefined, "team-a")).toMatchObject({ metadata: { name: "team-a" }, status: { phase: "Active" } })
    expect(ok(await kubectl(served, "label", "ns", "team-a", "tier=gold"))).toBe("namespace/team-a labeled\n")
    expect(served.simulator.system.get("namespaces", undefined, "team-a")).toMatchObject({ metadata: { labels: { tier: "gold" } } })
    expect(ok(await kubectl(served, "delete", "namespace", "team-a"))).toBe(`namespace "team-a" deleted\n`)
  })

  it("creates a job with kubectl create job", async () => {
    expect(ok(await kubectl(served, "create", "job", "hello", "--image=busybox"))).toBe("job.batch/hello created\n")
    expect(served.simulator.system.get("jobs", "default", "hello")).toMatchObject({
      spec: { template: { spec: { containers: [{ name: "hello", image: "busybox", resources: {} }], restartPolicy: "Never" } } }
    })
  })

  it("creates, lists, describes and refuses ConfigMaps as a real server does", async () => {
    expect(ok(await kubectl(served, "create", "configmap", "settings", "--from-literal=lr=0.1", "--from-literal=epochs=3"))).toBe("configmap/settings created\n")
    expect(served.simulator.system.get("configmaps", "default", "settings")).toMatchObject({ data: { lr: "0.1", epochs: "3" } })
    const listed = ok(await kubectl(served, "get", "cm"))
    expect(listed.split("\n")[0]?.trim().split(/\s+/)).toEqual(["NAME", "DATA", "AGE"])
    expect(listed.split("\n")[1]?.trim().split(/\s+/).slice(0, 2)).toEqual(["settings", "2"])
    expect(ok(await kubectl(served, "get", "configmap", "settings", "-o", "jsonpath={.data.lr}"))).toBe("0.1")
    expect(ok(await kubectl(served, "explain", "configmap.immutable"))).toContain("Once true, data and binaryData cannot change")
    const badKey = await kubectl(served, "create", "configmap", "bad", "--from-literal=no/slash=1")
    expect(badKey.code).not.toBe(0)
    expect(badKey.stderr).toContain("a valid config key must consist of alphanumeric characters")
    expect(ok(await kubectl(served, "patch", "configmap", "settings", "--type=merge", "-p", '{"immutable":true}'))).toBe("configmap/settings patched\n")
    const frozen = await kubectl(served, "patch", "configmap", "settings", "--type=merge", "-p", '{"data":{"lr":"0.2"}}')
    expect(frozen.stderr).toContain("data: Forbidden: field is immutable when `immutable` is set")
    expect(ok(await kubectl(served, "delete", "cm", "settings"))).toBe(`configmap "settings" deleted\n`)
  })

  it("creates pods from kubectl run and from a manifest (JSON bodies)", async () => {
    expect(ok(await kubectl(served, "run", "single", "--image=busybox"))).toBe("pod/single created\n")
    const manifest = join(served.dir, "pod.yaml")
    writeFileSync(manifest, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-file\nspec:\n  containers:\n  - name: c\n    image: busybox\n")
    expect(ok(await kubectl(served, "create", "-f", manifest))).toBe("pod/from-file created\n")
    expect(ok(await kubectl(served, "get", "pods", "single", "from-file", "-o", "name"))).toBe("pod/single\npod/from-file\n")
  })
})

// kubectl sends no bearer token to an http:// server, so each server here acts as one token for a
// request that carries none (as `dispatch sim serve --read-only` does).
const servedAs = async (token: string): Promise<Served> => {
  const served = await serve({ auth: { tokens: { admin: "*", reader: ["get", "list", "watch"] } } })
  const simulator = served.simulator
  const server = await startSimServer({
    simulator: {
      handle: (request) => simulator.handle({ token, ...request }),
      watch: (request, onEvent) => simulator.watch({ token, ...request }, onEvent),
      now: () => simulator.now(),
      advanceTo: (ms) => simulator.advanceTo(ms),
      selfReview: (kind, presented, body) => simulator.selfReview(kind, presented ?? token, body)
    }
  })
  await served.server.close()
  writeFileSync(served.kubeconfigPath, kubeconfigFor(server))
  return { ...served, server, close: async () => Promise.all([server.close(), served.close()]).then(() => undefined) }
}

describe("kubectl auth can-i", () => {
  let reader: Served
  let admin: Served
  beforeAll(async () => {
    reader = await servedAs("reader")
    admin = await servedAs("admin")
  })
  afterAll(async () => {
    await reader.close()
    await admin.close()
  })

  it("says no to a read-only token's create and yes to its list", async () => {
    const create = await kubectl(reader, "auth", "can-i", "create", "trainjobs")
    expect([create.code, create.stdout]).toEqual([1, "no\n"])
    expect(ok(await kubectl(reader, "auth", "can-i", "list", "trainjobs", "-n", "ml-team"))).toBe("yes\n")
    expect(ok(await kubectl(admin, "auth", "can-i", "create", "trainjobs"))).toBe("yes\n")
  })

  it("lists a token's rights", async () => {
    const lines = ok(await kubectl(reader, "auth", "can-i", "--list")).trim().split("\n").map((l) => l.trim().split(/\s{2,}/))
    expect(lines).toContainEqual(["*.*", "[]", "[]", "[get list watch]"])
  })
})

// The real kubectl's server-side apply against the HTTP face: ownership, conflicts, --force-conflicts,
// the move from client-side apply, and managedFields as `--show-managed-fields` prints them.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"

const manifest = (name: string, labels: Record<string, string>): string => `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ${name}
${Object.keys(labels).length === 0 ? "" : `  labels: ${JSON.stringify(labels)}\n`}spec:
  runtimeRef:
    name: torch-distributed
  suspend: true
`

type Entry = { manager: string; operation: string; subresource?: string; fieldsV1: Record<string, any> }

describe("kubectl apply --server-side against the HTTP face", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({})
  })
  afterAll(async () => served.close())

  const write = (name: string, text: string): string => {
    const file = join(served.dir, name)
    writeFileSync(file, text)
    return file
  }
  // The entries of the main resource (Trainer's controller writes status as "trainer" too).
  const managedFields = async (name: string): Promise<ReadonlyArray<Entry>> => {
    const shown = parse(ok(await kubectl(served, "get", "trainjob", name, "-o", "yaml", "--show-managed-fields"))) as { metadata: { managedFields: ReadonlyArray<Entry> } }
    return shown.metadata.managedFields.filter((e) => e.subresource === undefined)
  }

  it("creates and updates with kubectl as the Apply manager, and shows managedFields", async () => {
    const file = write("ssa.yaml", manifest("ssa", { team: "a" }))
    expect(ok(await kubectl(served, "apply", "--server-side", "-f", file))).toContain("trainjob.trainer.kubeflow.org/ssa serverside-applied")
    const entries = await managedFields("ssa")
    expect(entries).toEqual([
      expect.objectContaining({
        manager: "kubectl",
        operation: "Apply",
        fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:team": {} } }, "f:spec": { "f:runtimeRef": { "f:name": {} }, "f:suspend": {} } }
      })
    ])
    // Without the flag, kubectl get hides them, as it does from a real server.
    expect(ok(await kubectl(served, "get", "trainjob", "ssa", "-o", "yaml"))).not.toContain("managedFields")
    // A label dropped from the configuration is removed, and the labels with it.
    writeFileSync(file, manifest("ssa", {}))
    ok(await kubectl(served, "apply", "--server-side", "-f", file))
    expect(ok(await kubectl(served, "get", "trainjob", "ssa", "-o", "jsonpath={.metadata.labels}"))).toBe("")
  })

  it("fails on another manager's field, then takes it with --force-conflicts", async () => {
    const file = write("conflict.yaml", manifest("conflict", { team: "a" }))
    ok(await kubectl(served, "apply", "--server-side", "-f", file))
    ok(await kubectl(served, "label", "--overwrite", "trainjob", "conflict", "team=b"))
    expect((await managedFields("conflict")).map((e) => e.manager)).toEqual(["kubectl", "kubectl-label"])
    const refused = await kubectl(served, "apply", "--server-side", "-f", file)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl-label" using trainer.kubeflow.org/v1alpha1: .metadata.labels.team')
    expect(ok(await kubectl(served, "get", "trainjob", "conflict", "-o", "jsonpath={.metadata.labels.team}"))).toBe("b")
    ok(await kubectl(served, "apply", "--server-side", "--force-conflicts", "-f", file))
    expect(ok(await kubectl(served, "get", "trainjob", "conflict", "-o", "jsonpath={.metadata.labels.team}"))).toBe("a")
    // kubectl-label lost its only field, so its entry is gone.
    expect((await managedFields("conflict")).map((e) => e.manager)).toEqual(["kubectl"])
  })

  it("records client-side apply as kubectl-client-side-apply, and moves it to server-side apply", async () => {
    const file = write("csa.yaml", manifest("csa", { team: "a" }))
    ok(await kubectl(served, "apply", "-f", file))
    const before = await managedFields("csa")
    expect(before.map((e) => [e.manager, e.operation])).toEqual([["kubectl-client-side-apply", "Update"]])
    expect(Object.keys(before[0]?.fieldsV1["f:metadata"]["f:annotations"])).toContain("f:kubectl.kubernetes.io/last-applied-configuration")
    ok(await kubectl(served, "apply", "--server-side", "-f", file))
    const after = await managedFields("csa")
    expect(after.map((e) => e.manager)).not.toContain("kubectl-client-side-apply")
    expect(after.find((e) => e.manager === "kubectl")?.operation).toBe("Apply")
    // Client-side apply keeps working after it.
    writeFileSync(file, manifest("csa", { team: "c" }))
    expect(ok(await kubectl(served, "apply", "-f", file))).toContain("configured")
    expect(ok(await kubectl(served, "get", "trainjob", "csa", "-o", "jsonpath={.metadata.labels.team}"))).toBe("c")
  })
})

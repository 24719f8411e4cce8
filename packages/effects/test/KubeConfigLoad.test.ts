// Loading a kubeconfig: every way a file can be unusable is a ClusterError naming the file and why,
// never a throw later on the first call, and never the file's text.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { loadKubeConfig } from "../src/KubeCluster.ts"

const dir = mkdtempSync(join(tmpdir(), "dispatch-kubeconfig-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fileWith = (name: string, text: string): string => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const reasonsOf = async (path: string): Promise<string> => {
  const error = await Effect.runPromise(Effect.flip(loadKubeConfig(path)))
  expect(error._tag).toBe("ClusterError")
  return error.reasons.join("; ")
}

describe("loadKubeConfig", () => {
  it("refuses a kubeconfig with no current cluster, naming the file", async () => {
    const path = fileWith("empty.yaml", "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    const reasons = await reasonsOf(path)
    expect(reasons).toContain(path)
    expect(reasons).toContain("has no current cluster")
  })

  it("refuses a current-context that names no cluster", async () => {
    const path = fileWith("dangling.yaml", "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: nowhere, user: u}}]\nclusters: []\nusers: [{name: u, user: {token: sekret}}]\n")
    const reasons = await reasonsOf(path)
    expect(reasons).toContain("has no current cluster")
    expect(reasons).not.toContain("sekret")
  })

  it("names a missing file's error code", async () => {
    const path = join(dir, "absent.yaml")
    const reasons = await reasonsOf(path)
    expect(reasons).toContain(path)
    expect(reasons).toContain("ENOENT")
  })

  it("loads one with a current cluster", async () => {
    const path = fileWith("good.yaml", "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: 'http://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\n")
    const config = await Effect.runPromise(loadKubeConfig(path))
    expect(config.getCurrentCluster()?.server).toBe("http://127.0.0.1:1")
  })
})

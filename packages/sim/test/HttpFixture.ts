// Shared setup for the HTTP-face tests: a simulator served on loopback, with a kubeconfig and a fresh
// kubectl cache in a temp dir of its own, and a minimal runtime of our own for TrainJobs to point at.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { torchRuntime } from "../../../test/fixtures/TorchRuntime.ts"
import type { KubeObject } from "../src/Api.ts"
import { type SimServer, kubeconfigFor } from "../src/http/index.ts"
import { startSimServer } from "../src/SimServer.ts"
import { Simulator, type SimulatorOptions } from "../src/Simulator.ts"

/** A ClusterTrainingRuntime with one trainer step, enough for TrainJobs to be admitted and run. */
export const runtime = (name: string): KubeObject => torchRuntime({ name, kind: "ClusterTrainingRuntime", image: "example.org/train:1" })

/** A TrainJob on the fixture runtime. */
export const trainJob = (name: string, extra: { labels?: Record<string, string>; suspend?: boolean } = {}): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name, ...(extra.labels === undefined ? {} : { labels: extra.labels }) },
  spec: { runtimeRef: { name: "torch-distributed" }, ...(extra.suspend === undefined ? {} : { suspend: extra.suspend }) }
})

/** A served simulator and where its kubeconfig and kubectl cache live. */
export interface Served {
  readonly simulator: Simulator
  readonly server: SimServer
  readonly dir: string
  readonly kubeconfigPath: string
  /** Environment for a kubectl child process: this server's kubeconfig and a fresh cache. */
  readonly env: NodeJS.ProcessEnv
  close(): Promise<void>
}

/** Starts a simulator (with the fixture runtime seeded) behind a loopback server. */
export const serve = async (options: SimulatorOptions = {}, token?: string): Promise<Served> => {
  const simulator = new Simulator({ ...options, objects: [runtime("torch-distributed"), ...(options.objects ?? [])] })
  const server = await startSimServer({ simulator, tickMs: 20 })
  const dir = mkdtempSync(join(tmpdir(), "sim-http-"))
  const kubeconfigPath = join(dir, "kubeconfig")
  writeFileSync(kubeconfigPath, kubeconfigFor(server, token === undefined ? {} : { token }))
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, KUBECACHEDIR: join(dir, "cache"), HOME: dir }
  return {
    simulator,
    server,
    dir,
    kubeconfigPath,
    env,
    close: async () => {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/**
 * Polls `check` every `everyMs` until it holds, for at most `withinMs` (a bound for a machine far slower
 * than an idle one, not a duration: it returns as soon as the check holds); returns whether it did.
 */
export const eventually = async (check: () => boolean | Promise<boolean>, withinMs = 60_000, everyMs = 25): Promise<boolean> => {
  for (const end = Date.now() + withinMs; Date.now() < end; await new Promise((r) => setTimeout(r, everyMs))) {
    if (await check()) return true
  }
  return check()
}

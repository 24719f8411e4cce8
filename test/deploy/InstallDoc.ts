// What docs/deploy.md's step-by-step install runs against in its test: a cluster (the simulator with RBAC on,
// `dispatch sim serve --rbac`, kubectl's current context its administrator), a PostgreSQL for the postgres
// overlay's Secret to name, and, from the block that first needs the service answering until the Deployment is
// deleted, `dispatch serve` standing in for the pod the simulator does not run (see PodStandIn.ts).
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { background, type Served } from "../../packages/cli/test/DispatchBinary.ts"
import { type TestPostgres, testPostgres } from "../../packages/server/test/TestPostgres.ts"
import { type PodStandIn, standInForPod } from "./PodStandIn.ts"

/** What a document's test sets up around its blocks: the environment they run in, and steps before named blocks. */
export interface DocSetup {
  readonly start: (dir: string) => Promise<Readonly<Record<string, string>>>
  readonly before: Readonly<Record<string, (dir: string) => Promise<void>>>
  readonly stop: () => Promise<void>
}

/** Where the document's `kubectl port-forward` makes the service reachable, and so where the stand-in listens. */
export const forwardedPort = 18480

/** docs/deploy.md's cluster, database and stand-in pod. */
export const installDoc = (): DocSetup => {
  let sim: Served | undefined
  let database: TestPostgres | undefined
  let pod: PodStandIn | undefined
  let kubeconfig = ""
  return {
    start: async (dir) => {
      database = await testPostgres()
      kubeconfig = join(dir, "cluster.kubeconfig")
      // A job's pods run for a second of the simulator's clock, so a first job finishes while the reader waits.
      sim = await background(["sim", "serve"], ["--rbac", "--kubeconfig-out", kubeconfig, "--run-time", "1"], dir)
      return { KUBECONFIG: kubeconfig, KUBECACHEDIR: join(dir, ".kube-cache"), DATABASE_URL: database.url }
    },
    before: {
      // The pod the Deployment would run, once the manifests and Secrets are on the cluster.
      "sign-in": async (dir) => {
        const root = join(dir, ".pod")
        mkdirSync(root, { recursive: true })
        pod = await standInForPod({ kubeconfig, namespace: "dispatch", deployment: "dispatch", root, host: "127.0.0.1", port: forwardedPort })
      },
      // Deleting the Deployment stops its pod.
      uninstall: async () => {
        await pod?.stop()
        pod = undefined
      }
    },
    stop: async () => {
      await pod?.stop()
      await sim?.stop()
      await database?.release()
    }
  }
}

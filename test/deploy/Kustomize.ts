// Builds deploy/'s overlays with kubectl's built-in kustomize (offline), alone or with the Kueue component
// added through a scratch overlay, and reads what they hold.
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { parseAllDocuments } from "yaml"
import { processBoundMs, repoRoot } from "../../packages/cli/test/DispatchBinary.ts"

/** An object of a built overlay, as kubectl would apply it. */
export interface Manifest {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> }
  readonly [field: string]: unknown
}

/** The overlays deploy/ ships. */
export const overlays = ["embedded", "postgres"] as const
export type Overlay = (typeof overlays)[number]

const run = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile("kubectl", [...args], { timeout: processBoundMs, maxBuffer: 1 << 24 }, (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`kubectl ${args.join(" ")}: ${stderr}`))))
  )

/** The YAML documents of a text, as objects. */
export const documents = (text: string): ReadonlyArray<Manifest> =>
  parseAllDocuments(text)
    .map((d) => d.toJSON() as Manifest | null)
    .filter((o): o is Manifest => o !== null)

/** What `kubectl kustomize` builds from deploy/overlays/`overlay`, with deploy/components/kueue when `kueue`. */
export const build = async (overlay: Overlay, kueue = false): Promise<ReadonlyArray<Manifest>> => {
  const dir = join(repoRoot, "deploy", "overlays", overlay)
  if (!kueue) return documents(await run(["kustomize", dir]))
  // kustomize takes a component only from a kustomization, by a relative path: a scratch one, as a user's own overlay would.
  const scratch = mkdtempSync(join(tmpdir(), "dispatch-kustomize-"))
  try {
    writeFileSync(
      join(scratch, "kustomization.yaml"),
      `resources:\n  - ${relative(scratch, dir)}\ncomponents:\n  - ${relative(scratch, join(repoRoot, "deploy", "components", "kueue"))}\n`
    )
    return documents(await run(["kustomize", scratch]))
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** The one object of `kind` (named `name` when given) in `objects`; throws when there is not exactly one. */
export const one = (objects: ReadonlyArray<Manifest>, kind: string, name?: string): Manifest => {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name))
  if (found.length !== 1) throw new Error(`${found.length} ${kind}${name === undefined ? "" : ` ${name}`} objects, not one`)
  return found[0] as Manifest
}

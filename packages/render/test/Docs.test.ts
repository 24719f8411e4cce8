import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { decodeConfig, PROLOGUE, probeRequest, renderStart, type BackendConfig, type KubeObject } from "../src/index.ts"
import { exampleRequest, runtimeOf } from "./Generators.ts"

const doc = (name: string): string => readFileSync(fileURLToPath(new URL(`../../../docs/${name}`, import.meta.url)), "utf8")

// The doc writes `<d>/` for the label domain; the test renders with a domain that stands out.
const keysOf = (o: KubeObject, field: string): Array<string> => Object.keys(((o["metadata"] as Record<string, object>)[field] ?? {}) as object)

describe("docs/names.md", () => {
  const names = doc("names.md")
  const config = decodeConfig({ namespace: "ml", mode: "kueue", runtimes: [{ kind: "TrainingRuntime", name: "dispatch-torch" }], kueue: { queue: "q", admissionCheck: "a" }, labelDomain: "d" })
  if (Result.isFailure(config)) throw new Error("config")
  const c: BackendConfig = config.success

  it("names every label, annotation and env variable the code emits", () => {
    const emitted = new Set<string>()
    for (const request of [{ ...exampleRequest, spec: { ...exampleRequest.spec, workDir: "/w", env: {} } }, probeRequest(c)]) {
      const r = renderStart(request, c, runtimeOf())
      if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
      for (const o of [r.success.trainJob, r.success.runtimeCopy]) for (const f of ["labels", "annotations"]) keysOf(o, f).forEach((k) => emitted.add(k))
      const trainer = (r.success.trainJob["spec"] as Record<string, any>)["trainer"]
      for (const e of trainer["env"] as Array<{ name: string }>) emitted.add(e.name)
      emitted.add(JSON.stringify((r.success.trainJob["spec"] as Record<string, unknown>)["runtimePatches"]).match(/"manager":"([^"]+)"/)![1]!)
    }
    expect(emitted.size).toBeGreaterThan(10)
    for (const key of emitted) {
      const documented = key.startsWith("d/") ? `\`<d>/${key.slice(2)}` : key.startsWith("trainer.kubeflow.org/") ? "`trainer.kubeflow.org/*`" : `\`${key}\``
      expect(names, `docs/names.md should name ${key}`).toContain(documented)
    }
  })

  it("states the config defaults the code applies", () => {
    expect(names).toContain("`nvidia.com/gpu`")
    expect(names).toContain(`\`callMs\` ${c.timeouts.callMs}`)
    expect(names).toContain(`\`workloadMs\` ${c.timeouts.workloadMs}`)
    expect(names).toContain(`\`callBoundMs\` ${c.timeouts.callBoundMs}`)
    expect(PROLOGUE).toContain("exit 125")
  })

  it("says dispatch adds no volumes, and the rendered objects bear it out", () => {
    expect(names).toContain("dispatch adds no volumes")
    for (const request of [exampleRequest, probeRequest(c)]) {
      const r = renderStart(request, c, runtimeOf())
      if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
      // The source runtime has no volumes, so neither object may mention one.
      expect(JSON.stringify(runtimeOf())).not.toMatch(/volume/i)
      expect(JSON.stringify([r.success.trainJob, r.success.runtimeCopy])).not.toMatch(/volume/i)
    }
  })
})

describe("docs/testing.md", () => {
  const testing = doc("testing.md")
  const repo = (path: string): string => fileURLToPath(new URL(`../../../${path}`, import.meta.url))
  const scripts = (JSON.parse(readFileSync(repo("package.json"), "utf8")) as { scripts: Record<string, string> }).scripts

  it("names only pnpm scripts that exist, and the config files it describes exist", () => {
    const named = [...testing.matchAll(/`pnpm ([a-z:]+)/g)].map((m) => m[1]!)
    expect(named).toEqual(expect.arrayContaining(["mutate", "mutate:effects"]))
    for (const script of named) expect(scripts, `package.json should have the script ${script}`).toHaveProperty([script])
    for (const file of [...testing.matchAll(/`([a-z.]+\.config\.(?:mjs|ts))`/g)].map((m) => m[1]!)) expect(existsSync(repo(file)), file).toBe(true)
  })

  it("describes the mutation settings the config uses", async () => {
    const { default: options } = (await import(repo("stryker.config.mjs"))) as { default: Record<string, unknown> }
    expect(options["concurrency"]).toBe(2)
    expect(testing).toContain("two workers")
    expect(options["ignoreStatic"]).toBe(true)
    expect(options["mutate"]).toEqual(["packages/render/src/**/*.ts", "!packages/render/src/index.ts"])
    expect(testing).toContain("20 cases")
    expect(readFileSync(repo("stryker.fast-check.ts"), "utf8")).toContain("numRuns: 20")
  })
})


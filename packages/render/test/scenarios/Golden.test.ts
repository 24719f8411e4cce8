// The examples render to exactly the objects in golden/: every key, value and order. A deliberate
// change to what render emits shows up here as a reviewable diff; regenerate with
// `npx vitest run packages/render/test/scenarios/Golden.test.ts -u` and read the diff before committing it.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { decodeConfig, decodeStartRequest, probeRequest, renderStart } from "../../src/index.ts"

const example = (name: string): string => readFileSync(fileURLToPath(new URL(`../../../../examples/${name}`, import.meta.url)), "utf8")
const success = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
  return r.success
}
const request = success(decodeStartRequest(JSON.parse(example("request.json"))))
// The example runtime with labels render must keep (Trainer's) and leave behind (the rest, and Trainer
// keys or values that are not valid labels).
const runtime = (() => {
  const r = parse(example("runtime.yaml")) as Record<string, any>
  r["metadata"]["labels"] = {
    "trainer.kubeflow.org/framework": "torch",
    "team.example/owner": "ml",
    "trainer.kubeflow.org/not a key": "x",
    "trainer.kubeflow.org/long-value": "v".repeat(64),
    "trainer.kubeflow.org/number": 5,
    "trainer.kubeflow.org/a-first": "kept-in-key-order"
  }
  return r
})()

describe("golden renders", () => {
  it.each(["config.json", "config-kueue.json"])("the example request under %s", async (file) => {
    const config = success(decodeConfig(JSON.parse(example(file))))
    const rendered = success(renderStart(request, config, runtime))
    await expect(`${JSON.stringify(rendered, null, 2)}\n`).toMatchFileSnapshot(`golden/${file.replace(".json", "")}.request.json`)
  })

  it.each(["config.json", "config-kueue.json"])("the probe under %s", async (file) => {
    const config = success(decodeConfig(JSON.parse(example(file))))
    const probe = probeRequest(config)
    const rendered = success(renderStart(probe, config, runtime))
    await expect(`${JSON.stringify({ probe, rendered }, null, 2)}\n`).toMatchFileSnapshot(`golden/${file.replace(".json", "")}.probe.json`)
  })

  it("a request that breaks every rule at once: every reason, in order", async () => {
    const config = success(decodeConfig(JSON.parse(example("config.json"))))
    const broken = {
      job: "01jd8x2q4m7n9p3r5s6t8v0w1y",
      generation: -1,
      submission: 1_000_000,
      attempt: -1,
      spec: {
        command: ["-x", "a\u0000", "x".repeat(1_048_577)],
        env: { "1bad": "v", DISPATCH_X: "v", OK: "nul\u0000", "K\u0000": "v" },
        workDir: "w\u0000",
        nodes: 0,
        gpusPerNode: -1,
        procsPerNode: -2,
        timeLimit: "-1s",
        checkpoint: "relative",
        extensions: { "dispatch/Image": { ref: "" }, "kubeflow/RuntimeRef": { kind: "TrainingRuntime", name: "dispatch-torch" }, "acme/B": {}, "acme/A": {} }
      }
    }
    const refused = renderStart(broken, config, runtime)
    expect(Result.isFailure(refused)).toBe(true)
    const failure = Result.isFailure(refused) ? refused.failure : undefined
    await expect(`${JSON.stringify(failure, null, 2)}\n`).toMatchFileSnapshot("golden/refusal.json")
  })
})

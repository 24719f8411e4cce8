import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { parseSimServeArgs as parseList } from "../src/SimServeArgs.ts"
import { parsedBy } from "./CommandLine.ts"

const parseSimServeArgs = (argv: ReadonlyArray<string>) => parsedBy(["sim", "serve"], argv, parseList)

const file = fc.stringMatching(/^[a-z][a-z0-9_./-]{0,20}$/)

describe("parseSimServeArgs", async () => {
  test.prop([fc.integer({ min: 0, max: 65535 }), file, fc.array(file, { maxLength: 4 }), fc.constantFrom("plain" as const, "kueue" as const), fc.boolean()])(
    "reads back what a well-formed command line says, in either spelling of flags",
    async (port, out, runtimes, mode, equals) => {
      const flag = (name: string, value: string) => (equals ? [`--${name}=${value}`] : [`--${name}`, value])
      const argv = [...flag("port", String(port)), ...flag("kubeconfig-out", out), ...runtimes.flatMap((r) => flag("runtime", r)), ...flag("mode", mode)]
      expect(await parseSimServeArgs(argv)).toEqual({ args: { port, kubeconfigOut: out, runtimes, mode, faults: [], readOnly: false, rbac: false, serviceAccounts: [], exec: false } })
    }
  )

  it("takes several files after one --runtime", async () => {
    expect(await parseSimServeArgs(["--port", "0", "--runtime", "a.yaml", "b.yaml", "--kubeconfig-out", "k"])).toEqual({
      args: { port: 0, kubeconfigOut: "k", runtimes: ["a.yaml", "b.yaml"], mode: "plain", faults: [], readOnly: false, rbac: false, serviceAccounts: [], exec: false }
    })
  })

  it("reads --rbac and each --service-account NAMESPACE/NAME; names every problem with them", async () => {
    expect(await parseSimServeArgs(["--kubeconfig-out", "k", "--rbac", "--service-account", "ml-team/dispatch", "--service-account", "qa/reader"])).toMatchObject({
      args: { rbac: true, serviceAccounts: [{ namespace: "ml-team", name: "dispatch" }, { namespace: "qa", name: "reader" }] }
    })
    expect(await parseSimServeArgs(["--kubeconfig-out", "k", "--rbac"])).toMatchObject({ args: { rbac: true, serviceAccounts: [] } })
    const refused = await parseSimServeArgs(["--read-only", "--rbac", "--service-account", "dispatch", "--service-account", "Team/x", "--service-account", "a/b/c"])
    expect(refused).toMatchObject({ problems: expect.any(Array) })
    const problems = "problems" in refused ? refused.problems.join("\n") : ""
    expect(problems).toContain("--rbac and --read-only")
    expect(problems).toContain('--service-account "dispatch": must be NAMESPACE/NAME')
    expect(problems).toContain('--service-account "Team/x": namespace:')
    expect(problems).toContain('--service-account "a/b/c": must be NAMESPACE/NAME')
    expect(problems).toContain("--service-account needs --kubeconfig-out")
    expect(await parseSimServeArgs(["--kubeconfig-out", "k", "--service-account", "ml-team/dispatch"])).toMatchObject({ problems: [expect.stringContaining("--service-account needs --rbac")] })
  })

  it("reads --read-only, --config and every --fault", async () => {
    const parsed = await parseSimServeArgs(["--port", "0", "--kubeconfig-out", "k", "--read-only", "--fault", "create:trainjobs=drop", "get:trainingruntimes:x=503", "--config", "c.json"])
    expect(parsed).toEqual({
      args: {
        port: 0,
        kubeconfigOut: "k",
        runtimes: [],
        mode: "plain",
        config: "c.json",
        readOnly: true,
        rbac: false,
        serviceAccounts: [],
        exec: false,
        faults: [
          { verb: "create", resource: "trainjobs", action: { type: "drop" } },
          { verb: "get", resource: "trainingruntimes", name: "x", action: { type: "status", code: 503 } }
        ]
      }
    })
    expect(await parseSimServeArgs(["--port", "0", "--kubeconfig-out", "k", "--read-only", "--fault", "make:x=1"])).toMatchObject({
      problems: [expect.stringContaining('--fault "make:x=1": "make" is not a verb')]
    })
  })

  it("reads --exec and the Kueue quota flags", async () => {
    expect(await parseSimServeArgs(["--exec", "--mode", "kueue", "--queue-cpu", "8", "--queue-memory=64Gi", "--queue-gpus", "4", "--cluster-queue", "team-a"])).toEqual({
      args: { port: 0, runtimes: [], mode: "kueue", faults: [], readOnly: false, rbac: false, serviceAccounts: [], exec: true, queue: { clusterQueue: "team-a", cpu: "8", memory: "64Gi", gpus: 4 } }
    })
    expect(await parseSimServeArgs(["--mode", "kueue", "--queue-cpu", "500m"])).toEqual({
      args: { port: 0, runtimes: [], mode: "kueue", faults: [], readOnly: false, rbac: false, serviceAccounts: [], exec: false, queue: { cpu: "500m" } }
    })
  })

  it("names every bad quota flag, and each one given without --mode kueue", async () => {
    expect(await parseSimServeArgs(["--mode", "kueue", "--queue-cpu", "lots", "--queue-memory", "64 GB", "--queue-gpus", "-1", "--cluster-queue", "Team_A"])).toMatchObject({
      problems: [
        '--queue-cpu "lots" is not a quantity (e.g. 8, 500m, 1.5)',
        '--queue-memory "64 GB" is not a quantity (e.g. 64Gi, 512Mi)',
        '--queue-gpus "-1" is not a whole number of GPUs',
        expect.stringContaining('--cluster-queue "Team_A" is not a valid object name')
      ]
    })
    expect(await parseSimServeArgs(["--queue-gpus", "2", "--cluster-queue", "cq"])).toMatchObject({
      problems: ["--queue-gpus sets the Kueue queue: it needs --mode kueue", "--cluster-queue sets the Kueue queue: it needs --mode kueue"]
    })
  })

  it("names every problem at once", async () => {
    const result = await parseSimServeArgs(["--port", "http", "--mode", "fast", "--colour", "red", "extra"])
    expect(result).toEqual({
      _tag: "UsageError",
      problems: [
        "unknown option --colour",
        'unexpected argument "extra"',
        '--port "http" is not a port number (0-65535)',
        '--mode "fast" is not one of plain, kueue'
      ]
    })
    expect(await parseSimServeArgs(["--kubeconfig-out", "k", "--port"])).toEqual({ _tag: "UsageError", problems: ["--port needs a value"] })
    expect(await parseSimServeArgs([])).toEqual({ args: { port: 0, runtimes: [], mode: "plain", faults: [], readOnly: false, rbac: false, serviceAccounts: [], exec: false } })
    expect(await parseSimServeArgs(["--kubeconfig-out", "k", "--port", "70000"])).toMatchObject({ problems: ['--port "70000" is not a port number (0-65535)'] })
  })
})

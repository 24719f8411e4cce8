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
      expect(await parseSimServeArgs(argv)).toEqual({ args: { port, kubeconfigOut: out, runtimes, mode, faults: [], readOnly: false } })
    }
  )

  it("takes several files after one --runtime", async () => {
    expect(await parseSimServeArgs(["--port", "0", "--runtime", "a.yaml", "b.yaml", "--kubeconfig-out", "k"])).toEqual({
      args: { port: 0, kubeconfigOut: "k", runtimes: ["a.yaml", "b.yaml"], mode: "plain", faults: [], readOnly: false }
    })
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
    expect(await parseSimServeArgs([])).toEqual({ args: { port: 0, runtimes: [], mode: "plain", faults: [], readOnly: false } })
    expect(await parseSimServeArgs(["--kubeconfig-out", "k", "--port", "70000"])).toMatchObject({ problems: ['--port "70000" is not a port number (0-65535)'] })
  })
})

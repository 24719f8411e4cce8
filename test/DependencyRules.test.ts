// The tree's dependency rules, read from every source file's imports: no lower layer imports a higher one.
// Between packages: render, kube and jobs are pure; effects (Start and the lifecycle over the Cluster port)
// knows no simulator, service or CLI; the simulator knows neither the service nor the CLI, and effects only
// in its `cluster` entry; the service knows no CLI; the browser app reaches the service only through
// @dispatch/client. Inside packages: the simulator's API-server machinery knows kinds only through the
// registry; effects' lifecycle builds on Start's modules, never the reverse, and only the package's entry
// reaches the client-node adapter; the CLI's flag declarations do no I/O and only its dispatcher loads the
// commands; the service's folders are layered wire < store < dispatch < http and ops.
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { type Edge, edgesOf, packageOf, reachingChains, readSources, repositoryRoot, type Sources } from "./ImportGraph.ts"

const root = repositoryRoot(import.meta.url)

/** Each package's layer rule: a sentence, and the imports it refuses. */
interface PackageRule {
  readonly says: string
  readonly refuses: (edge: Edge) => boolean
}

const dispatchPackage = (edge: Edge): string | undefined =>
  edge.to._tag === "Package" && edge.to.name.startsWith("@dispatch/") ? edge.to.name.slice("@dispatch/".length) : undefined

const isPackage = (edge: Edge): boolean => edge.to._tag === "Package"

/** A pure package imports only effect's main entry and the pure packages it names. */
const pureBelow =
  (...packages: ReadonlyArray<string>) =>
  (edge: Edge): boolean =>
    isPackage(edge) &&
    !(edge.to._tag === "Package" && edge.to.name === "effect" && edge.to.subpath === "") &&
    !packages.includes(dispatchPackage(edge) ?? "")

const importsAnyOf =
  (...packages: ReadonlyArray<string>) =>
  (edge: Edge): boolean =>
    packages.includes(dispatchPackage(edge) ?? "")

/** Every package's rule; a package missing here fails the test, so a new package is placed in a layer on purpose. */
const packageRules: Readonly<Record<string, PackageRule>> = {
  kube: { says: "imports no package at all: Kubernetes' conventions as pure functions", refuses: pureBelow() },
  render: { says: "is pure: effect and @dispatch/kube only, no node: module", refuses: pureBelow("kube") },
  jobs: { says: "is pure: effect, @dispatch/render and @dispatch/kube only, no node: module", refuses: pureBelow("render", "kube") },
  effects: { says: "imports no simulator, service, client, web app or CLI", refuses: importsAnyOf("sim", "server", "client", "web", "cli") },
  sim: {
    says: "imports no service, client, web app or CLI, and @dispatch/effects only in its cluster entry (src/cluster/)",
    refuses: (edge) =>
      importsAnyOf("server", "client", "web", "cli")(edge) ||
      (dispatchPackage(edge) === "effects" && !edge.from.startsWith("packages/sim/src/cluster/"))
  },
  server: { says: "imports no client or CLI", refuses: importsAnyOf("client", "cli") },
  report: {
    says: "imports no package at all, only Node's own modules: it is loaded into users' training processes",
    refuses: (edge) => isPackage(edge) && !(edge.to._tag === "Package" && edge.to.name.startsWith("node:"))
  },
  client: {
    says: "imports only the service's API declaration (@dispatch/server/api), no other package of the tree",
    refuses: (edge) =>
      importsAnyOf("cli", "web", "sim", "effects", "jobs", "render", "kube")(edge) ||
      (dispatchPackage(edge) === "server" && edge.to._tag === "Package" && edge.to.subpath !== "api")
  },
  web: {
    says: "reaches the service only through @dispatch/client: no service internals, simulator, effects or CLI",
    refuses: importsAnyOf("server", "sim", "effects", "cli")
  },
  cli: { says: "is the top layer: it may import every package", refuses: () => false }
}

/** Every package folder under packages/. */
const packageFolders = (): ReadonlyArray<string> =>
  readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()

/** The package's source: src/, and the browser app's app/. */
const treeSources = (): Sources => readSources(root, packageFolders().flatMap((p) => [`packages/${p}/src`, `packages/${p}/app`]))

const show = (edge: Edge): string => `${edge.from} imports "${edge.specifier}"`

/** Each import that breaks its package's rule, or reaches into another package's files by a relative path. */
const packageViolations = (sources: Sources): ReadonlyArray<string> =>
  edgesOf(sources).flatMap((edge) => {
    const own = packageOf(edge.from) ?? ""
    const rule = packageRules[own]
    if (rule === undefined) return [`${show(edge)}: package ${own} has no layer rule`]
    if (edge.to._tag === "File" && packageOf(edge.to.path) !== own) return [`${show(edge)}: a relative import into another package`]
    return rule.refuses(edge) ? [`${show(edge)}: ${own} ${rule.says}`] : []
  })

/** Each import, direct or through other files, from files `from` accepts into files `forbidden` accepts. */
const inPackage = (pkg: string, test: (path: string) => boolean) => (path: string) =>
  path.startsWith(`packages/${pkg}/src/`) && test(path.slice(`packages/${pkg}/src/`.length))

// The simulator: apiserver/ and http/ reach no controller, no concrete kind (kinds/<group>/...) and not the
// list of built-in kinds, even through another module: they know kinds only through kinds/Kind.ts and
// kinds/KindRegistry.ts. And nothing outside src/cluster/ reaches it, so the main entry loads no effects.
const simMachinery = (path: string): boolean => path.startsWith("apiserver/") || path.startsWith("http/")
const simConcrete = (path: string): boolean => path.startsWith("controllers/") || /^kinds\/[^/]+\//.test(path) || path === "kinds/Builtin.ts"
const simViolations = (sources: Sources): ReadonlyArray<string> => [
  ...reachingChains(sources, inPackage("sim", simMachinery), inPackage("sim", simConcrete)),
  ...reachingChains(
    sources,
    inPackage("sim", (p) => !p.startsWith("cluster/")),
    inPackage("sim", (p) => p.startsWith("cluster/"))
  )
]

// effects: Start's modules (the top folder) never reach the lifecycle, which builds on them; the client-node
// adapter (KubeCluster and the agents and credentials it uses) is reached only from the package's entry, so
// the Cluster port and the programs over it never depend on their adapter; only the adapter does I/O.
const effectsAdapter = new Set(["KubeCluster.ts", "KeepAliveHttp.ts", "KeepAliveAgents.ts", "KubeCredentials.ts"])
const ioPackages = ["@kubernetes/client-node", "undici"]
const effectsViolations = (sources: Sources): ReadonlyArray<string> => [
  ...reachingChains(
    sources,
    inPackage("effects", (p) => !p.includes("/") && p !== "index.ts"),
    inPackage("effects", (p) => p.startsWith("lifecycle/"))
  ),
  ...reachingChains(
    sources,
    inPackage("effects", (p) => !effectsAdapter.has(p) && p !== "index.ts"),
    inPackage("effects", (p) => effectsAdapter.has(p))
  ),
  ...edgesOf(sources)
    .filter((edge) => inPackage("effects", (p) => !effectsAdapter.has(p))(edge.from))
    .filter((edge) => edge.to._tag === "Package" && (edge.to.name.startsWith("node:") || ioPackages.includes(edge.to.name)))
    .map((edge) => `${show(edge)}: only the client-node adapter does I/O`)
]

// The CLI: the flag declarations and what is made from them (help, completion, the flag reference) reach no
// I/O and no effectful package; only the dispatcher (Cli.ts) and the process's entries (main.ts, and ServeMain.ts,
// which runs `dispatch serve` under NodeRuntime.runMain) load a command's module.
const cliDeclarations = new Set(["Commands.ts", "FlagFacts.ts", "FlagReader.ts", "Usage.ts", "CompletionScript.ts", "FlagReference.ts"])
// The service's settings are declared in its `config` entry (effect Config, no I/O), which `dispatch serve`'s
// flags are made from: the one entry of an effectful package the declarations may reach.
const settingsEntry = "@dispatch/server/config"
const effectfulPackage = (edge: Edge): boolean =>
  edge.to._tag === "Package" && edge.specifier !== settingsEntry && (edge.to.name.startsWith("node:") || ["effects", "sim", "server", "client"].includes(dispatchPackage(edge) ?? ""))
const cliViolations = (sources: Sources): ReadonlyArray<string> => {
  const declarations = inPackage("cli", (p) => cliDeclarations.has(p))
  const reached = new Set([...sources.keys()].filter(declarations))
  for (const chain of reachingChains(sources, declarations, () => true)) reached.add(chain.split(" -> ").at(-1) ?? "")
  return [
    ...edgesOf(sources)
      .filter((edge) => reached.has(edge.from) && effectfulPackage(edge))
      .map((edge) => `${show(edge)}: the flag declarations reach it and do no I/O`),
    ...reachingChains(
      sources,
      inPackage("cli", (p) => !p.startsWith("commands/") && !["Cli.ts", "index.ts", "main.ts", "ServeMain.ts"].includes(p)),
      inPackage("cli", (p) => p.startsWith("commands/"))
    )
  ]
}

/** The service's folders, each with the folders (and top-level files: the service's graph) it may not import. */
const serverLayers: ReadonlyArray<{ readonly folder: string; readonly mayNotImport: ReadonlyArray<string> }> = [
  { folder: "wire", mayNotImport: ["store", "dispatch", "http", "ops", "config", "(top)"] },
  { folder: "store", mayNotImport: ["dispatch", "http", "ops", "config", "(top)"] },
  { folder: "dispatch", mayNotImport: ["http", "ops", "config", "(top)"] },
  { folder: "ops", mayNotImport: ["http", "config", "(top)"] },
  { folder: "http", mayNotImport: ["config", "(top)"] }
]

const serverFolder = (path: string): string | undefined => {
  const rest = path.slice("packages/server/src/".length)
  return path.startsWith("packages/server/src/") ? (rest.includes("/") ? rest.split("/")[0] : "(top)") : undefined
}

/** Each direct import from a service folder into a folder above it, as `from -> to`, sorted. */
const serverViolations = (sources: Sources): ReadonlyArray<string> =>
  edgesOf(sources)
    .flatMap((edge) => {
      if (edge.to._tag !== "File") return []
      const layer = serverLayers.find((l) => l.folder === serverFolder(edge.from))
      return layer?.mayNotImport.includes(serverFolder(edge.to.path) ?? "") === true ? [`${edge.from} -> ${edge.to.path}`] : []
    })
    .sort()

describe("the tree's dependency rules", () => {
  const sources = treeSources()

  it("reads every package's sources", () => {
    for (const pkg of ["kube", "render", "report", "jobs", "effects", "sim", "server", "client", "cli"]) {
      expect([...sources.keys()].filter((p) => packageOf(p) === pkg).length, pkg).toBeGreaterThan(1)
    }
    expect([...sources.keys()].some((p) => p.startsWith("packages/web/app/"))).toBe(true)
    expect(Object.keys(packageRules).sort()).toEqual([...packageFolders()])
  })

  it("holds between packages: no package imports one above it", () => {
    expect(packageViolations(sources)).toEqual([])
  })

  it("holds in the simulator: apiserver/ and http/ reach no concrete kind, no list of kinds and no controller", () => {
    expect([...sources.keys()].filter(inPackage("sim", simMachinery)).length).toBeGreaterThan(50)
    expect(simViolations(sources)).toEqual([])
  })

  it("holds in effects: the lifecycle over Start's modules, and the client-node adapter reached only from the entry", () => {
    expect(effectsViolations(sources)).toEqual([])
  })

  it("holds in the CLI: the flag declarations do no I/O, and only the dispatcher loads the commands", () => {
    expect(cliViolations(sources)).toEqual([])
  })

  it("holds in the service's folders: wire, store, dispatch, ops, http, then the service's graph on top", () => {
    expect(serverViolations(sources)).toEqual([])
  })
})

describe("the rules' checks", () => {
  const fake = (files: Record<string, string>): Sources => new Map(Object.entries(files))

  it("read every form of import and skip comment lines", () => {
    const sources = fake({
      "packages/render/src/A.ts": [
        'import { a } from "effect"',
        'import type { B } from "./B.ts"',
        "export {",
        "  c",
        '} from "@dispatch/kube"',
        'import "./side.ts"',
        'const d = await import("../../effects/src/Start.ts")',
        '// a comment that says from "node:fs"',
        ' * from "@dispatch/sim"',
        'type E = import("@dispatch/sim").Simulator'
      ].join("\n")
    })
    expect(edgesOf(sources).map((e) => [e.specifier, e.to])).toEqual([
      ["effect", { _tag: "Package", name: "effect", subpath: "" }],
      ["./B.ts", { _tag: "File", path: "packages/render/src/B.ts" }],
      ["@dispatch/kube", { _tag: "Package", name: "@dispatch/kube", subpath: "" }],
      ["./side.ts", { _tag: "File", path: "packages/render/src/side.ts" }],
      ["../../effects/src/Start.ts", { _tag: "File", path: "packages/effects/src/Start.ts" }],
      ["@dispatch/sim", { _tag: "Package", name: "@dispatch/sim", subpath: "" }]
    ])
  })

  it("refuse a pure package's I/O and effectful imports, a relative import across packages, and deep service imports", () => {
    const sources = fake({
      "packages/render/src/A.ts": 'import { readFileSync } from "node:fs"\nimport { Schema } from "effect"\nimport { x } from "effect/sql"\n',
      "packages/jobs/src/B.ts": 'import { render } from "@dispatch/render"\nimport { start } from "@dispatch/effects"\n',
      "packages/kube/src/C.ts": 'import { y } from "../../render/src/Json.ts"\n',
      "packages/sim/src/D.ts": 'import { Cluster } from "@dispatch/effects"\n',
      "packages/sim/src/cluster/E.ts": 'import { Cluster } from "@dispatch/effects"\n',
      "packages/client/src/F.ts": 'import { DispatchApi } from "@dispatch/server/api"\nimport { serve } from "@dispatch/server"\n',
      "packages/web/app/G.ts": 'import { makeClient } from "@dispatch/client"\nimport { z } from "@dispatch/server/api"\n',
      "packages/report/src/H.ts": 'import { request } from "node:http"\nimport { Effect } from "effect"\nimport { k } from "@dispatch/kube"\n'
    })
    expect(packageViolations(sources).map((v) => v.split(": ")[0])).toEqual([
      'packages/render/src/A.ts imports "node:fs"',
      'packages/render/src/A.ts imports "effect/sql"',
      'packages/jobs/src/B.ts imports "@dispatch/effects"',
      'packages/kube/src/C.ts imports "../../render/src/Json.ts"',
      'packages/sim/src/D.ts imports "@dispatch/effects"',
      'packages/client/src/F.ts imports "@dispatch/server"',
      'packages/web/app/G.ts imports "@dispatch/server/api"',
      'packages/report/src/H.ts imports "effect"',
      'packages/report/src/H.ts imports "@dispatch/kube"'
    ])
  })

  it("find a direct and an indirect reach into the simulator's kinds and controllers", () => {
    const sources = fake({
      "packages/sim/src/apiserver/verbs/Direct.ts": 'import { trainJob } from "../../kinds/trainer/trainjob/TrainJob.ts"\n',
      "packages/sim/src/apiserver/Typed.ts": 'import type { Kind } from "../kinds/Kind.ts"\nexport {\n  x\n} from "./store/Helper.ts"\n',
      "packages/sim/src/apiserver/store/Helper.ts": 'export const x = await import("../../controllers/Install.ts")\n',
      "packages/sim/src/http/Clean.ts": 'import type { KindRegistry } from "../kinds/KindRegistry.ts"\nimport { y } from "node:fs"\n',
      "packages/sim/src/http/All.ts": 'import "../kinds/Builtin.ts"\n',
      "packages/sim/src/index.ts": 'export * from "./cluster/SimCluster.ts"\n'
    })
    expect(simViolations(sources)).toEqual([
      "packages/sim/src/apiserver/Typed.ts -> packages/sim/src/apiserver/store/Helper.ts -> packages/sim/src/controllers/Install.ts",
      "packages/sim/src/apiserver/store/Helper.ts -> packages/sim/src/controllers/Install.ts",
      "packages/sim/src/apiserver/verbs/Direct.ts -> packages/sim/src/kinds/trainer/trainjob/TrainJob.ts",
      "packages/sim/src/http/All.ts -> packages/sim/src/kinds/Builtin.ts",
      "packages/sim/src/index.ts -> packages/sim/src/cluster/SimCluster.ts"
    ])
  })

  it("find effects' and the CLI's layering broken", () => {
    const sources = fake({
      "packages/effects/src/Start.ts": 'import { find } from "./lifecycle/Find.ts"\n',
      "packages/effects/src/Cluster.ts": 'import { kube } from "./KubeCluster.ts"\n',
      "packages/effects/src/KubeCluster.ts": 'import { request } from "node:http"\n',
      "packages/effects/src/PodLogs.ts": 'import { Agent } from "undici"\n',
      "packages/cli/src/Commands.ts": 'import { io } from "./Io.ts"\n',
      "packages/cli/src/Io.ts": 'import { readFile } from "node:fs"\n',
      "packages/cli/src/Output.ts": 'const m = import("./commands/Start.ts")\n',
      "packages/cli/src/Cli.ts": 'const m = import("./commands/Start.ts")\n'
    })
    expect(effectsViolations(sources).map((v) => v.split(": ")[0])).toEqual([
      "packages/effects/src/Start.ts -> packages/effects/src/lifecycle/Find.ts",
      "packages/effects/src/Cluster.ts -> packages/effects/src/KubeCluster.ts",
      'packages/effects/src/PodLogs.ts imports "undici"'
    ])
    expect(cliViolations(sources).map((v) => v.split(": ")[0])).toEqual([
      'packages/cli/src/Io.ts imports "node:fs"',
      "packages/cli/src/Output.ts -> packages/cli/src/commands/Start.ts"
    ])
  })

  it("list each direct import from a service folder into one above it", () => {
    const sources = fake({
      "packages/server/src/wire/A.ts": 'import type { R } from "../http/Route.ts"\nimport { B } from "./B.ts"\n',
      "packages/server/src/store/S.ts": 'import { w } from "../wire/A.ts"\nimport { s } from "../Serve.ts"\n',
      "packages/server/src/dispatch/D.ts": 'import { s } from "../store/S.ts"\nimport { m } from "../ops/Metrics.ts"\n',
      "packages/server/src/http/H.ts": 'import { d } from "../dispatch/D.ts"\nimport { o } from "../ops/Metrics.ts"\n'
    })
    expect(serverViolations(sources)).toEqual([
      "packages/server/src/dispatch/D.ts -> packages/server/src/ops/Metrics.ts",
      "packages/server/src/store/S.ts -> packages/server/src/Serve.ts",
      "packages/server/src/wire/A.ts -> packages/server/src/http/Route.ts"
    ])
  })
})

// Where a `node --cpu-prof` profile's CPU went: the self time of its samples summed by where the code lives (the
// service's own folders, each package under node_modules, Node's internals, native code, the garbage collector),
// its heaviest functions, and the project's own functions with all they call. `node bench/lib/cpu-profile.mjs FILE.cpuprofile [TOP]` prints both.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

// The place a profile node's code lives, as a reader of the summary names it.
const placeOf = (frame) => {
  const url = frame.url ?? ""
  if (url === "") return frame.functionName.startsWith("(") ? frame.functionName : "native (no script)"
  if (url.startsWith("node:")) return "node internals"
  const pnpm = /node_modules\/\.pnpm\/([^/]+)\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pnpm !== null) return `package ${pnpm[2]}`
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (plain !== null) return `package ${plain[1]}`
  const own = /packages\/([^/]+)\/dist\/(?:([^/]+)\/)?/.exec(url)
  if (own !== null) return own[1] === "server" && own[2] !== undefined && !own[2].endsWith(".js") ? `server ${own[2]}/` : `@dispatch/${own[1]}`
  return url
}

/** The self milliseconds of a profile's samples by place and by function (`name place:line`), and the total. */
export const profileSummary = (profile) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000))
  const places = new Map()
  const functions = new Map()
  let total = 0
  for (const [id, ms] of self) {
    const frame = byId.get(id).callFrame
    const place = placeOf(frame)
    const name = `${frame.functionName || "(anonymous)"} ${place}:${frame.lineNumber + 1}`
    places.set(place, (places.get(place) ?? 0) + ms)
    functions.set(name, (functions.get(name) ?? 0) + ms)
    total += ms
  }
  // Inclusive time of the project's own functions: each sample counts once for every such function on its stack.
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const own = new Map()
  profile.samples.forEach((id, i) => {
    const seen = new Set()
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at).callFrame
      const place = placeOf(frame)
      if (!place.startsWith("server ") && !place.startsWith("@dispatch/")) continue
      seen.add(`${frame.functionName || "(anonymous)"} ${place}:${frame.lineNumber + 1}`)
    }
    for (const name of seen) own.set(name, (own.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
  })
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1])
  return { total, places: sorted(places), functions: sorted(functions), inclusive: sorted(own) }
}

/** The summary as lines: each place's share, then the `top` heaviest functions. */
export const summaryLines = ({ total, places, functions, inclusive }, top = 25) => [
  `${total.toFixed(0)} ms sampled`,
  ...places.map(([place, ms]) => `  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${place}`),
  `heaviest functions (self):`,
  ...functions.slice(0, top).map(([name, ms]) => `  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`),
  `heaviest of the project's own functions (with what they call):`,
  ...inclusive.slice(0, top).map(([name, ms]) => `  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`)
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2)
  for (const line of summaryLines(profileSummary(JSON.parse(readFileSync(file, "utf8"))), Number(top ?? 25))) console.log(line)
}

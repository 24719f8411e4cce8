// Runs every benchmark in this folder, one process each (so one bench's heap cannot skew another's
// memory figures), in name order. `pnpm bench -- <name>` runs only the benches whose file name
// contains <name>.
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2).filter((a) => a !== "--")
const benches = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs")
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()

let failed = 0
for (const file of benches) {
  console.log(`\n== ${file}`)
  const run = spawnSync(process.execPath, ["--expose-gc", join(here, file)], { stdio: "inherit" })
  if (run.status !== 0) {
    failed++
    console.log(`!! ${file} exited with ${run.status ?? run.signal}`)
  }
}
process.exitCode = failed === 0 ? 0 : 1

// A bench's child processes: a node process whose output is watched until it is ready, and its CPU so far.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"

/** A node process running `args`, its stdout and stderr kept; answers once `ready(stdout, stderr)` gives a value:
 * that value, the process, and `stop` (SIGTERM, answered on its exit). */
export const child = (args, env, ready) =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    let [out, err] = ["", ""]
    const settle = () => {
      const value = ready(out, err)
      if (value !== undefined) resolve({ value, process: proc, stop: () => new Promise((done) => (proc.once("exit", done), proc.kill("SIGTERM"))) })
    }
    proc.stdout.on("data", (chunk) => ((out += chunk), settle()))
    proc.stderr.on("data", (chunk) => ((err += chunk), settle()))
    proc.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}: ${err}`)))
  })

/** A process's CPU so far in milliseconds: utime and stime, in clock ticks of 10 ms, after its command's name. */
export const processCpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

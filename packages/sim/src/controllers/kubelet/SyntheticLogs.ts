// What a simulated container writes to its log, as a pure function of the pod and the clock: the
// command it would run, a progress line for every second it has been running, and its exit.
import type { KubeObject, LogLine } from "../../Api.ts"
import { asArray, asNumber, asRecord, asString, at } from "../shared/KubeFields.ts"
import { parseTimestamp } from "../shared/Timestamps.ts"

export type { LogLine }

const quoted = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)

/** The container's status entry, if the kubelet wrote one. */
export const containerStatus = (pod: KubeObject, container: string): Record<string, unknown> | undefined =>
  asArray(at(pod, "status", "containerStatuses")).map((entry) => asRecord(entry) ?? {}).find((entry) => entry["name"] === container)

/** The lines `container` of `pod` has written by `now` (none before it started). */
export const syntheticLog = (pod: KubeObject, container: string, now: number): ReadonlyArray<LogLine> => {
  const status = containerStatus(pod, container)
  const state = asRecord(status?.["state"]) ?? {}
  const terminated = asRecord(state["terminated"])
  const started = parseTimestamp(asString(at(state, "running", "startedAt")) ?? asString(terminated?.["startedAt"]))
  if (started === undefined || now < started) return []
  const spec = asArray(at(pod, "spec", "containers")).map((entry) => asRecord(entry) ?? {}).find((entry) => entry["name"] === container) ?? {}
  const words = [...asArray(spec["command"]), ...asArray(spec["args"])].map(String)
  const finished = parseTimestamp(asString(terminated?.["finishedAt"]))
  const end = Math.min(now, finished ?? now)
  const lines: Array<LogLine> = [
    { time: started, text: `[sim] starting container ${container} (image ${asString(spec["image"]) ?? "<none>"})` },
    { time: started, text: words.length === 0 ? "[sim] running the image's entrypoint" : `+ ${words.map(quoted).join(" ")}` }
  ]
  for (let second = 1; started + second * 1000 <= end; second++) lines.push({ time: started + second * 1000, text: `[sim] running: ${second}s` })
  if (finished !== undefined && finished <= now) {
    lines.push({ time: finished, text: `[sim] exited with code ${asNumber(terminated?.["exitCode"]) ?? 0}` })
  }
  return lines
}

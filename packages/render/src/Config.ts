import { Result } from "effect"
import { ceilMillis } from "./Duration.ts"
import { decodableFields, decodeWire } from "./Decode.ts"
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName, MAX_ADMISSION_GATE_LENGTH } from "@dispatch/kube"
import { DEFAULT_LABEL_DOMAIN, admissionGateName } from "./Names.ts"
import { preview } from "./Preview.ts"
import { cappedRefusal, type Refusal } from "./Refusal.ts"
import { Config, type Duration, type RuntimeRef } from "./Wire.ts"

/** A backend's Kueue settings: the LocalQueue its jobs go to and the AdmissionCheck that, with dispatch's admission gate, is their start gate. */
export interface KueueSettings {
  readonly queue: string
  readonly admissionCheck: string
}

interface ConfigFields {
  readonly namespace: string
  readonly runtimes: ReadonlyArray<RuntimeRef>
  readonly gpuResource: string
  readonly probeRuntime: RuntimeRef
  readonly timeouts: { readonly callMs: number; readonly workloadMs: number; readonly callBoundMs: number }
  readonly labelDomain: string
}

/**
 * A backend's configuration after decoding, with every default applied. Kueue mode always has its
 * settings; plain mode may carry them unused.
 */
export type BackendConfig =
  | (ConfigFields & { readonly mode: "plain"; readonly kueue?: KueueSettings })
  | (ConfigFields & { readonly mode: "kueue"; readonly kueue: KueueSettings })

/** The defaults decodeConfig applies; docs/names.md lists the same values. */
export const ConfigDefaults = {
  gpuResource: "nvidia.com/gpu",
  labelDomain: DEFAULT_LABEL_DOMAIN,
  callMs: 30_000,
  workloadMs: 120_000,
  callBoundMs: 300_000
} as const

/** The longest timeout accepted, one day: longer waits are configuration mistakes. */
export const MAX_TIMEOUT_MS = 86_400_000

/** Two runtime references name the same runtime. */
export const sameRuntime = (a: RuntimeRef, b: RuntimeRef): boolean => a.kind === b.kind && a.name === b.name

/** `<kind>/<name>`, how reasons and annotations name a runtime. */
export const runtimeLabel = (ref: RuntimeRef): string => `${ref.kind}/${ref.name}`

const timeout = (
  field: string,
  value: Duration | undefined,
  fallback: number,
  reasons: Array<string>
): number => {
  if (value === undefined) return fallback
  const ms = ceilMillis(value)
  if (ms === undefined) reasons.push(`config timeouts.${field}: ${preview(value)} is not a duration`)
  else if (ms <= 0) reasons.push(`config timeouts.${field}: must be above zero, got ${preview(value)}`)
  else if (ms > MAX_TIMEOUT_MS) reasons.push(`config timeouts.${field}: must be at most 24h, got ${preview(value)}`)
  else return ms
  return fallback
}

/** Every rule a config breaks, checked on the fields that have the right shape (`wire` holds only those):
 * a field that did not decode has its shape problem reported instead. */
const ruleProblems = (wire: Partial<Config>): ReadonlyArray<string> => {
  const reasons: Array<string> = []
  if (wire.namespace !== undefined && !isDns1123Label(wire.namespace)) reasons.push(`config namespace: ${preview(wire.namespace)} is not a DNS-1123 label`)
  if (wire.runtimes !== undefined && wire.runtimes.length === 0) reasons.push("config runtimes: must list at least one runtime")
  wire.runtimes?.forEach((ref, i) => {
    if (!isDns1123Subdomain(ref.name)) reasons.push(`config runtimes[${i}].name: ${preview(ref.name)} is not a DNS-1123 subdomain`)
  })

  const gpuResource = wire.gpuResource ?? ConfigDefaults.gpuResource
  if (!isQualifiedName(gpuResource)) reasons.push(`config gpuResource: ${preview(gpuResource)} is not a resource name`)

  const labelDomain = wire.labelDomain ?? ConfigDefaults.labelDomain
  if (!isDns1123Subdomain(labelDomain)) reasons.push(`config labelDomain: ${preview(labelDomain)} is not a DNS-1123 subdomain`)
  // Kueue caps each admission gate name at 63 characters, and the gate is `<labelDomain>/start`; the
  // patch's manager, `<labelDomain>/dispatch`, is then at most 66, well within what the API server takes.
  else if (admissionGateName({ labelDomain }).length > MAX_ADMISSION_GATE_LENGTH) {
    reasons.push(`config labelDomain: ${preview(labelDomain)} is too long: ${admissionGateName({ labelDomain })} must fit in ${MAX_ADMISSION_GATE_LENGTH} characters`)
  }

  const probeRuntime = wire.probeRuntime
  if (probeRuntime !== undefined && wire.runtimes !== undefined && !wire.runtimes.some((ref) => sameRuntime(ref, probeRuntime))) {
    reasons.push(`config probeRuntime: ${runtimeLabel(probeRuntime)} is not one of the configured runtimes`)
  }

  if (wire.mode === "kueue" && wire.kueue === undefined) reasons.push("config kueue: required in kueue mode")
  if (wire.kueue !== undefined) {
    const { queue, admissionCheck } = wire.kueue
    // An empty name is not a DNS subdomain.
    if (!isLabelValue(queue) || !isDns1123Subdomain(queue)) {
      reasons.push(`config kueue.queue: ${preview(queue)} is not a LocalQueue name usable as a label value`)
    }
    if (!isDns1123Subdomain(admissionCheck)) reasons.push(`config kueue.admissionCheck: ${preview(admissionCheck)} is not a DNS-1123 subdomain`)
  }

  const callMs = timeout("call", wire.timeouts?.call, ConfigDefaults.callMs, reasons)
  timeout("workload", wire.timeouts?.workload, ConfigDefaults.workloadMs, reasons)
  const callBoundMs = timeout("callBound", wire.timeouts?.callBound, ConfigDefaults.callBoundMs, reasons)
  // An unanswered create may still land until its call times out, so the InFlight window must cover it.
  if (callBoundMs < callMs) reasons.push(`config timeouts.callBound: must be at least timeouts.call (${callMs} ms), got ${callBoundMs} ms`)
  return reasons
}

/** Decodes a backend config, applies defaults and reports every problem as one ErrInvalid refusal: the
 * shape problems of every field and the rules broken by the fields of the right shape. */
export const decodeConfig = (input: unknown): Result.Result<BackendConfig, Refusal> => {
  const decoded = decodeWire(Config, input, (path) => (path === "" ? "config" : `config ${path}`))
  if (Result.isFailure(decoded)) {
    return Result.fail(cappedRefusal("ErrInvalid", [...decoded.failure.reasons, ...ruleProblems(decodableFields(Config, input))]))
  }
  const wire = decoded.success
  const reasons = ruleProblems(wire)
  if (reasons.length > 0) return Result.fail(cappedRefusal("ErrInvalid", reasons))
  // ruleProblems refuses an empty runtime list.
  const probeRuntime = wire.probeRuntime ?? wire.runtimes[0]!
  const ms = (value: Duration | undefined, fallback: number) => (value === undefined ? fallback : (ceilMillis(value) ?? fallback))
  // ruleProblems refuses Kueue mode without its settings, so the settings are there whenever the mode says so.
  return Result.succeed({
    namespace: wire.namespace,
    mode: wire.mode,
    runtimes: wire.runtimes.map((ref) => ({ kind: ref.kind, name: ref.name })),
    gpuResource: wire.gpuResource ?? ConfigDefaults.gpuResource,
    probeRuntime: { kind: probeRuntime.kind, name: probeRuntime.name },
    ...(wire.kueue === undefined ? {} : { kueue: { queue: wire.kueue.queue, admissionCheck: wire.kueue.admissionCheck } }),
    timeouts: {
      callMs: ms(wire.timeouts?.call, ConfigDefaults.callMs),
      workloadMs: ms(wire.timeouts?.workload, ConfigDefaults.workloadMs),
      callBoundMs: ms(wire.timeouts?.callBound, ConfigDefaults.callBoundMs)
    },
    labelDomain: wire.labelDomain ?? ConfigDefaults.labelDomain
  } as BackendConfig)
}

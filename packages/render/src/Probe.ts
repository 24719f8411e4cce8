import type { BackendConfig } from "./Config.ts"
import { IMAGE_EXTENSION, RUNTIME_REF_EXTENSION } from "./Extensions.ts"
import type { StartRequest } from "./Wire.ts"

/** The probe's image: under the reserved `.invalid` domain, so it names nothing any job could run. */
export const PROBE_IMAGE = "dispatch.invalid/never:probe"

/** The probe's JobID: the zero ULID, which no generated JobID equals. */
export const PROBE_JOB_ID = "00000000000000000000000000"

/** The value of the probe's node selector `<labelDomain>/probe`, which no node carries. */
export const PROBE_SELECTOR_VALUE = "never"

/** Whether a request is the preflight probe: render recognises it by its image, which nothing else can use. */
export const isProbe = (image: string): boolean => image === PROBE_IMAGE

/** The preflight probe's Start request: image PROBE_IMAGE, command `true`, one node, submission 1, attempt 1, the probe runtime. */
export const probeRequest = (config: BackendConfig): StartRequest => ({
  job: PROBE_JOB_ID,
  generation: 0,
  submission: 1,
  attempt: 1,
  spec: {
    command: ["true"],
    env: {},
    nodes: 1,
    extensions: {
      [IMAGE_EXTENSION]: { ref: PROBE_IMAGE },
      [RUNTIME_REF_EXTENSION]: { kind: config.probeRuntime.kind, name: config.probeRuntime.name }
    }
  }
})

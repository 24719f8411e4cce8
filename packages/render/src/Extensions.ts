import { Result } from "effect"
import { decodeWire, underField } from "./Decode.ts"
import { isDns1123Subdomain } from "@dispatch/kube"
import { preview } from "./Preview.ts"
import { refusal, type Refusal } from "./Refusal.ts"
import { TRAINER_MAX_IMAGE_CHARS } from "./Upstream.ts"
import { ImageExtension, RuntimeRef, type JobSpec, type StartRequest } from "./Wire.ts"

/** The extension that names the container image. */
export const IMAGE_EXTENSION = "dispatch/Image"
/** The extension that names the runtime to copy. */
export const RUNTIME_REF_EXTENSION = "kubeflow/RuntimeRef"
/** The extension accepted and ignored: a shared checkpoint changes nothing in the TrainJob. */
export const SHARED_CHECKPOINT_EXTENSION = "dispatch/SharedCheckpoint"

const KNOWN = new Set([IMAGE_EXTENSION, RUNTIME_REF_EXTENSION, SHARED_CHECKPOINT_EXTENSION])

const extension = (spec: JobSpec, key: string): unknown => (Object.hasOwn(spec.extensions, key) ? spec.extensions[key] : undefined)

/** The `kubeflow/RuntimeRef` extension; missing or malformed is ErrInvalid, since no runtime can be read without it. */
export const runtimeRefOf = (request: StartRequest): Result.Result<RuntimeRef, Refusal> => {
  const value = extension(request.spec, RUNTIME_REF_EXTENSION)
  const where = `spec.extensions["${RUNTIME_REF_EXTENSION}"]`
  if (value === undefined) return Result.fail(refusal("ErrInvalid", [`${where}: required, naming the runtime to copy`]))
  const decoded = decodeWire(RuntimeRef, value, underField(where))
  if (Result.isFailure(decoded)) return decoded
  if (!isDns1123Subdomain(decoded.success.name)) {
    return Result.fail(refusal("ErrInvalid", [`${where}.name: ${preview(decoded.success.name)} is not a DNS-1123 subdomain`]))
  }
  return Result.succeed({ kind: decoded.success.kind, name: decoded.success.name })
}

/** The image of a spec whose extensions passed extensionReasons. */
export const imageOf = (spec: JobSpec): string => {
  const value = extension(spec, IMAGE_EXTENSION) as { ref: string }
  return value.ref
}

/** The extension table's reasons: image problems are ErrInvalid, unknown extensions ErrUnsupported. */
export const extensionReasons = (spec: JobSpec): { invalid: Array<string>; unsupported: Array<string> } => {
  const invalid: Array<string> = []
  const where = `spec.extensions["${IMAGE_EXTENSION}"]`
  const image = extension(spec, IMAGE_EXTENSION)
  if (image === undefined) invalid.push(`${where}: required, naming the container image`)
  else {
    const decoded = decodeWire(ImageExtension, image, underField(where))
    if (Result.isFailure(decoded)) invalid.push(...decoded.failure.reasons)
    else if (decoded.success.ref.length === 0) invalid.push(`${where}.ref: must not be empty`)
    else if (decoded.success.ref.length > TRAINER_MAX_IMAGE_CHARS) {
      invalid.push(`${where}.ref: ${preview(decoded.success.ref)} is longer than Trainer's ${TRAINER_MAX_IMAGE_CHARS} characters`)
    }
  }
  const unsupported = Object.keys(spec.extensions)
    .filter((key) => !KNOWN.has(key))
    .sort()
    .map((key) => `extension ${key.length > 128 ? `${key.slice(0, 128)}...` : key} is not supported on Kubeflow`)
  return { invalid, unsupported }
}

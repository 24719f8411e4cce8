// The examples the CLI falls back on (and `dispatch demo` runs). In the repository they are its
// examples/, read where they are, so one set stays the one the README and the docs show; a packed
// @dispatch/cli carries a copy in its own examples/ (made by its prepack script).
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

// This module sits in src/ (tests) or dist/ (the built binary): one level below the package, two below
// the repository root.
const packaged = new URL("../examples/", import.meta.url)
const examplesDir = existsSync(fileURLToPath(packaged)) ? packaged : new URL("../../../examples/", import.meta.url)

const example = (file: string): string => fileURLToPath(new URL(file, examplesDir))

/** The bundled example files, by role. */
export const BundledExamples = {
  request: example("request.json"),
  runtime: example("runtime.yaml"),
  config: example("config.json"),
  kueueConfig: example("config-kueue.json"),
  /** A training script in plain Node that posts its logs and metrics to the job service itself (`demo service --exec` runs it where there is no Python). */
  workload: example("report-workload.mjs"),
  /** A real training script in plain Python that reports through dispatch_report (`demo service --exec` runs it). */
  trainer: example("train.py")
} as const

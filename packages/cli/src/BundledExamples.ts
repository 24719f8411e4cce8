// The examples the CLI falls back on (and `dispatch demo` runs) are the repository's examples/, read
// where they are rather than copied into the package: the CLI is a workspace package run from its
// repository, so one set of examples stays the one the README and the docs show.
import { fileURLToPath } from "node:url"

// This module sits in src/ (tests) or dist/ (the built binary), two levels below the repository root.
const examplesDir = new URL("../../../examples/", import.meta.url)

const example = (file: string): string => fileURLToPath(new URL(file, examplesDir))

/** The bundled example files, by role. */
export const BundledExamples = {
  request: example("request.json"),
  runtime: example("runtime.yaml"),
  config: example("config.json"),
  kueueConfig: example("config-kueue.json"),
  /** A training script that posts its logs and metrics to the job service (`demo service --exec` runs it). */
  workload: example("report-workload.mjs")
} as const

// The job-service calls the tests that run `dispatch serve` processes make, through the typed client: every job
// page by page, and the example's queue, entrypoint and experiment.
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { client, type Client } from "../../server/test/Fixtures.ts"
import { example } from "./DispatchBinary.ts"

/** A client of the service at `base` (its URL without `/api/v1`) acting with `token`. */
export const serviceAt = (token: string) => (base: string): Client => client(base, token)

/** Every job, page by page (the API pages at most 100 at a time); a job the service could not render fails the test. */
export const allJobs = (service: Client) =>
  service.typed((c) =>
    Effect.gen(function* () {
      const all = []
      for (let index = 0; ; index += 100) {
        const page = yield* c.jobs.list({ query: { index, pageLength: 100 } })
        for (const job of page.data) {
          if ("error" in job) return yield* Effect.die(new Error(`job ${job.id} is unreadable: ${job.message}`))
          all.push(job)
        }
        if (page.isComplete || page.data.length === 0) return all
      }
    })
  )

/** The example backend (examples/config.json's first runtime), as a queue carries it. */
export const exampleBackend = () => {
  const config = JSON.parse(readFileSync(example("config.json"), "utf8"))
  return { config, runtime: config.runtimes[0], image: "example/worker:1" }
}

/**
 * The example backend's queue (or, `gated`, a queue without a backend, whose jobs wait until it gets one) and an
 * entrypoint on it (made at `service`) and an experiment (made at `experimentService`), their names suffixed with
 * `tag` when one service holds several, its entrypoint running `command` (what `dispatch serve --sim --exec` runs);
 * returns the experiment's id and the body of a job submission to it.
 */
export const exampleExperiment = async (service: Client, experimentService: Client = service, { gated = false, tag = "", command = ["python", "-m", "train"] } = {}) => {
  const { queue, entrypoint } = await service.typed((c) =>
    Effect.gen(function* () {
      const queue = yield* c.queues.create({ payload: { name: `gpu${tag}`, description: "", ...(gated ? {} : { backend: exampleBackend() }) } })
      const entrypoint = yield* c.entrypoints.create({
        payload: { name: `train${tag}`, description: "", queues: [queue.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command } as never
      })
      return { queue, entrypoint }
    })
  )
  const experiment = await experimentService.typed((c) => c.experiments.create({ payload: { name: `e${tag}`, entrypoints: [entrypoint.id] } }))
  return { experiment: experiment.id, job: { entrypoint: entrypoint.id, queue: queue.id, values: {}, timeout: "1h", description: "" } }
}

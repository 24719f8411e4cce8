// Controllers that react to each other within one clock step, as informers on a real cluster react
// within milliseconds: a pod's end reaches its Job, JobSet and TrainJob at the moment it happens, and a
// TrainJob's creation reaches its pods, instead of one controller per step of up to a second.
import type { Controller, ControllerHost, SystemClient } from "../../Api.ts"

// A bound on rounds per step, so two controllers that undo each other's writes cannot hang the clock.
const maxRounds = 16

/**
 * One controller that runs `controllers` in turn, round after round, until a round writes nothing;
 * those in `firstRoundOnly` run in the first round only, once per step as on their own (Kueue requeues
 * an evicted Workload after a backoff, not at once). A controller is skipped, as the simulator would
 * skip it, when nothing was written since its last pass and it says it is not due yet. `afterStep`
 * runs once the rounds are over.
 */
export const inTurn = (
  name: string,
  host: ControllerHost,
  controllers: ReadonlyArray<Controller>,
  firstRoundOnly: ReadonlyArray<Controller> = [],
  afterStep: (system: SystemClient) => void = () => {}
): Controller => {
  let writes = 0
  host.onChange(() => {
    writes++
  })
  const seen = new Map<Controller, number>()
  const idle = (controller: Controller, now: number): boolean =>
    seen.get(controller) === writes && controller.dueAt !== undefined && now < controller.dueAt()
  return {
    name,
    dueAt: () => Math.min(...controllers.map((controller) => (controller.dueAt === undefined ? Number.NEGATIVE_INFINITY : controller.dueAt()))),
    reconcile(system: SystemClient) {
      for (let round = 0; round < maxRounds; round++) {
        const before = writes
        for (const controller of controllers) {
          if ((round > 0 && firstRoundOnly.includes(controller)) || idle(controller, system.now())) continue
          const start = writes
          // Each runs with its own client, so its writes are recorded under its own manager.
          controller.reconcile(host.clientOf(controller))
          // A controller that wrote looks again in the next round: its writes may have made it more work.
          seen.set(controller, writes === start ? start : -1)
        }
        if (writes === before) break
      }
      afterStep(system)
    }
  }
}

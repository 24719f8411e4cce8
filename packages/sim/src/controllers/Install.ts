// Installs the simulated Trainer and Kueue into a simulator, as its options say.
import type { ControllerHost } from "../Api.ts"
import { kueueController } from "./KueueController.ts"
import { kueueTrainJobWebhook, kueueWorkloadWebhook } from "./KueueWebhook.ts"
import type { ControllerOptions } from "./Options.ts"
import { trainerController } from "./TrainerController.ts"
import { trainJobWebhook } from "./TrainJobWebhook.ts"

/** Installs the simulator's Trainer and Kueue controllers and their admission webhooks. */
export const installControllers = (host: ControllerHost, options: ControllerOptions | undefined): void => {
  const kueue = options?.kueue
  // Kueue's mutating webhook runs before Trainer's validating one, as mutating webhooks do on a real server.
  if (kueue !== undefined && kueue.installed !== false) {
    host.addAdmission(kueueTrainJobWebhook)
    host.addAdmission(kueueWorkloadWebhook)
  }
  const trainer = options?.trainer ?? {}
  if (trainer.installed !== false) {
    host.addAdmission(trainJobWebhook)
    host.addController(trainerController(trainer))
  }
  if (kueue !== undefined && kueue.installed !== false) host.addController(kueueController(kueue))
}

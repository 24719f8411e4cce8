// The schedules the campaign found, shrunk, each replayed as a test until the service keeps every invariant on it.
import { replay } from "./Replay.ts"

replay("a 503 on the copy's owner patch does not fail the job", {
  steps: [{ kind: "create", queue: "plain" }, { kind: "pass" }],
  faults: [{ call: "own", nth: 1, fault: "503" }],
  triggers: []
})

replay("a 503 on the read-back does not fail the job", {
  steps: [{ kind: "create", queue: "plain" }, { kind: "pass" }],
  faults: [{ call: "read-back", nth: 1, fault: "503" }],
  triggers: []
})

replay("a Workload read lost on its way (never answered) does not fail a Kueue job", {
  steps: [{ kind: "create", queue: "kueue" }, { kind: "pass" }],
  faults: [{ call: "workload", nth: 1, fault: "lost" }],
  triggers: []
})

replay("deleting a job that has run leaves nothing of it on the cluster", {
  steps: [
    { kind: "create", queue: "plain" },
    { kind: "pass" },
    { kind: "tick", ms: 1907 },
    { kind: "pass" },
    { kind: "act", action: { kind: "delete", job: 0 } },
    { kind: "create", queue: "plain" }
  ],
  faults: [],
  triggers: []
})

replay("cancel after a 503 on a read of the TrainJob leaves nothing on the cluster", {
  steps: [{ kind: "create", queue: "plain" }, { kind: "pass" }, { kind: "act", action: { kind: "cancel", job: 0 } }],
  faults: [{ call: "read-back", nth: 2, fault: "503" }],
  triggers: []
})

replay("cancel after the TrainJob's create landed unanswered leaves no copy without an owner", {
  steps: [{ kind: "create", queue: "plain" }, { kind: "pass" }, { kind: "act", action: { kind: "cancel", job: 0 } }],
  faults: [{ call: "create-trainjob", nth: 1, fault: "drop" }],
  triggers: []
})

replay("a Kueue job whose service was killed in Open, after the gate came off its Workload but before its admission check was Ready, is opened by the next attempt, not left suspended", {
  steps: [{ kind: "create", queue: "plain" }, { kind: "create", queue: "kueue" }, { kind: "pass" }],
  faults: [],
  triggers: [{ call: "workload", nth: 3, then: { kind: "kill", landed: true } }]
})

replay("a job whose attempt met a queue not yet proven again after a restart is claimed once its probe opens the queue", {
  steps: [{ kind: "create", queue: "plain" }, { kind: "restart" }, { kind: "pass" }],
  faults: [{ call: "read-runtime", nth: 1, fault: "503" }],
  triggers: []
})

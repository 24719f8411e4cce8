// The `dispatch` executable: runs the CLI on this process's arguments and exits with its code. `dispatch serve`,
// which serves until SIGINT or SIGTERM, runs as an Effect program under NodeRuntime.runMain (ServeMain.ts).
import { runCli } from "./Cli.ts"
import { processIo } from "./ProcessIo.ts"
import { runServeMain, servesUntilStopped } from "./ServeMain.ts"

const argv = process.argv.slice(2)
if (servesUntilStopped(argv)) await runServeMain(argv, processIo())
else process.exitCode = await runCli(argv, processIo())

import { DispatchEnv } from "./Names.ts"

// The script never mentions user text: the command arrives as positional parameters and is run with
// "$@", and the directory arrives in an environment variable, so nothing is split, globbed or
// interpolated. A relative directory gets a "./" so that CDPATH and `cd -` cannot redirect it.

/** The exit status when DISPATCH_K8S_WORKDIR cannot be entered. */
export const WORKDIR_MISSING_EXIT = 125

/** The name the prologue runs under (its `$0`). */
export const PROLOGUE_NAME = "dispatch-prologue"

/** The POSIX sh prologue: enter DISPATCH_K8S_WORKDIR when set (exit 125 if it cannot), then exec the command. */
export const PROLOGUE = [
  `d="\${${DispatchEnv.workDir}:-}"`,
  `if [ -n "$d" ]; then`,
  `  case "$d" in /*) ;; *) d="./$d" ;; esac`,
  `  cd "$d" 2>/dev/null || { printf '%s: cannot enter workdir %s\\n' "$0" "$d" >&2; exit ${WORKDIR_MISSING_EXIT}; }`,
  `fi`,
  `exec "$@"`
].join("\n")

/** The trainer command: `/bin/sh -c <prologue> dispatch-prologue <command...>`. */
export const prologueCommand = (command: ReadonlyArray<string>): Array<string> => ["/bin/sh", "-c", PROLOGUE, PROLOGUE_NAME, ...command]

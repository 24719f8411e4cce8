// Colour only where a person reads it: on a terminal, and never when NO_COLOR is set (no-color.org).
import type { CliIo } from "./CliIo.ts"

/** Whether the stream may be coloured. */
export const colourOn = (io: CliIo, stream: "out" | "err"): boolean => (stream === "out" ? io.terminal : io.errTerminal) && (io.env["NO_COLOR"] ?? "") === ""

/** `text` in red (an error's kind) when `on`. */
export const red = (on: boolean, text: string): string => (on ? `\x1b[31m${text}\x1b[39m` : text)

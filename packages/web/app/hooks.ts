// Live data without reloading: a call repeated every few seconds while the tab is visible, never two at once.
import { useEffect, useState } from "preact/hooks"

/** How often lists and job pages ask again, in milliseconds. */
export const pollMs = 2000

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/**
 * Runs `task` now and, with `everyMs`, again every `everyMs` while the tab is visible, never two runs at once;
 * `current()` turns false once `deps` change or the component goes, so a late answer is dropped. Each run's
 * failure (or `undefined` on success) is handed to `onError`.
 */
export const useRepeating = (
  task: (current: () => boolean) => Promise<void>,
  onError: (message: string | undefined) => void,
  deps: ReadonlyArray<unknown>,
  everyMs: number | undefined
): void => {
  useEffect(() => {
    let stopped = false
    let busy = false
    const current = () => !stopped
    const run = async () => {
      if (busy) return
      busy = true
      try {
        await task(current)
        if (!stopped) onError(undefined)
      } catch (cause) {
        if (!stopped) onError(messageOf(cause))
      } finally {
        busy = false
      }
    }
    void run()
    const timer = everyMs === undefined ? undefined : setInterval(() => document.visibilityState === "visible" && void run(), everyMs)
    return () => {
      stopped = true
      if (timer !== undefined) clearInterval(timer)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, everyMs])
}

/** The latest answer of `load`, asked now and again every `everyMs` (and whenever `deps` change); its error, if the last call failed. */
export const usePoll = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>, everyMs: number | undefined = pollMs) => {
  const [data, setData] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [asked, setAsked] = useState(0)
  useRepeating(
    async (current) => {
      const value = await load()
      if (current()) setData(value)
    },
    setError,
    [...deps, asked],
    everyMs
  )
  return { data, error, reload: () => setAsked((n) => n + 1) }
}

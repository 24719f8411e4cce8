// A confirmation in the browser's own modal <dialog>: it traps focus, Escape closes it, and focus starts on "No".
import { useEffect, useRef } from "preact/hooks"

/** What is asked: the question and what happens on yes. */
export interface Asking {
  readonly question: string
  readonly yes: () => void
}

/** Shows `asking` as a modal dialog while it is set; `done` is called when it closes either way. */
export const Confirm = ({ asking, done }: { readonly asking: Asking | undefined; readonly done: () => void }) => {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const d = dialog.current
    if (d === null) return
    if (asking !== undefined && !d.open) d.showModal()
    if (asking === undefined && d.open) d.close()
  }, [asking])
  return (
    <dialog ref={dialog} data-testid="confirm-dialog" onClose={done} aria-labelledby="confirm-question">
      <form method="dialog">
        <p id="confirm-question">{asking?.question}</p>
        <div class="buttons">
          <button type="submit" value="no" data-testid="confirm-no" autofocus>
            No
          </button>
          <button type="submit" value="yes" class="danger" data-testid="confirm-yes" onClick={() => asking?.yes()}>
            Yes
          </button>
        </div>
      </form>
    </dialog>
  )
}

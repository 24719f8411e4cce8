// Kept apart from the serve command so that a script or test can wait for the line without loading the service.
/** The start of the stderr line `dispatch serve` writes once it serves its API (its database open and migrated,
 * its dispatcher running), after its URL on stdout: what a script waits for instead of polling /readyz. */
export const serveReadyLine = "dispatch serve: ready"

/** @dispatch/server: the Dioptra-style job service. */
export {}

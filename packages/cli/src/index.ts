/** @dispatch/cli */
export {}

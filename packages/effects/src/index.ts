/** @dispatch/effects */
export {}

/** @dispatch/sim */
export {}

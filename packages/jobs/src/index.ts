/** @dispatch/jobs */
export {}

/** @dispatch/render */
export {}

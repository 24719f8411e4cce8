/** @dispatch/server: Dioptra's job API over PGlite or PostgreSQL. */
export * from "./ApiSchemas.ts"
export * from "./Auth.ts"
export * from "./Database.ts"
export * from "./ErrorBody.ts"
export * from "./Migrations.ts"
export * from "./Paging.ts"
export * from "./Serve.ts"
export * from "./ServiceProblem.ts"

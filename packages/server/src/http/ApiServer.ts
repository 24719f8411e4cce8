// The job service over HTTP: the declared API (Api.ts) served by effect's HttpApiBuilder on a node:http server
// (@effect/platform-node). What the builder does not decide the service's way is done once for every endpoint:
// admission (Admission.ts: authentication, authorization and decoding, in the order Dioptra clients expect), the
// handlers' services (Handlers.ts), the answers in Dioptra's error body (ErrorAnswers.ts), the routes beside the
// API (PublicRoutes.ts), the service as a layer (ServiceLayer.ts), and its listener (Listener.ts).
export { apiPrefix } from "./Api.ts"
export { maxBodyBytes, type ApiEnvironment } from "./ApiEnvironment.ts"
export { handleApiRequest, type ApiRequest } from "./InProcess.ts"
export { listening, type Listening } from "./Listener.ts"
export { openApiDocument } from "./PublicRoutes.ts"
export { serviceLayer, startingRetryAfterSeconds } from "./ServiceLayer.ts"

// The built web app's location, for the server that serves it; the app itself is built by `vite build` from app/.
import { fileURLToPath } from "node:url"

/** The directory holding the built web app: `index.html` and its hashed `assets/`. */
export const webRoot: string = fileURLToPath(new URL("../dist/app/", import.meta.url))

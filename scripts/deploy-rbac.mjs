// Writes the RBAC of deploy/ from what `dispatch rbac` prints for the namespace and ServiceAccount the base
// uses: deploy/base/rbac.yaml (plain mode) and deploy/components/kueue/role.yaml (Kueue mode's Role, which
// replaces the plain one). Run `npx tsc -b` first; `node scripts/deploy-rbac.mjs --check` only says whether
// the files are current. test/deploy/Manifests.test.ts fails when they are not.
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parseAllDocuments, stringify } from "yaml"

const repo = fileURLToPath(new URL("..", import.meta.url))

/** The namespace and ServiceAccount deploy/base installs dispatch as. */
export const deployNamespace = "dispatch"
export const deployServiceAccount = "dispatch"

/** What `dispatch rbac` prints in `mode` for the base's namespace and ServiceAccount. */
export const printedRbac = (mode) =>
  execFileSync(process.execPath, [`${repo}packages/cli/bin/dispatch.js`, "rbac", "--mode", mode, "--namespace", deployNamespace, "--service-account", deployServiceAccount], { encoding: "utf8" })

const header = (what) => `# ${what}\n# Written by \`node scripts/deploy-rbac.mjs\` from \`dispatch rbac\`: do not edit by hand.\n`

/** Each file the script writes (its path in the repository) and its text now. */
export const deployRbacFiles = () => {
  const plain = printedRbac("plain")
  const kueue = parseAllDocuments(printedRbac("kueue")).map((d) => d.toJSON())
  const roles = kueue.filter((o) => o.kind === "Role")
  if (roles.length !== 1) throw new Error(`dispatch rbac --mode kueue printed ${roles.length} Roles, not one`)
  return {
    "deploy/base/rbac.yaml": `${header(`dispatch rbac --mode plain --namespace ${deployNamespace} --service-account ${deployServiceAccount}`)}${plain.endsWith("\n") ? plain : `${plain}\n`}`,
    "deploy/components/kueue/role.yaml": `${header(`The Role of dispatch rbac --mode kueue --namespace ${deployNamespace} --service-account ${deployServiceAccount}; its rules replace the plain Role's.`)}${stringify(roles[0])}`
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes("--check")
  const stale = []
  for (const [path, text] of Object.entries(deployRbacFiles())) {
    let current
    try {
      current = readFileSync(`${repo}${path}`, "utf8")
    } catch {
      current = undefined
    }
    if (current === text) continue
    if (check) stale.push(path)
    else writeFileSync(`${repo}${path}`, text)
  }
  if (stale.length > 0) {
    console.error(`stale: ${stale.join(", ")}: run node scripts/deploy-rbac.mjs`)
    process.exit(1)
  }
}

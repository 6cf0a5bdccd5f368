import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** vitest globalSetup: compile dist/ once, so tests that spawn bin/parx.js run the current sources as a user would. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.js', import.meta.url))], { stdio: 'inherit' })
}

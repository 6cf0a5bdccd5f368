import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

// Every project extends the root config and so lists this globalSetup again, and vitest runs each
// project's list as well as the root's: without this mark one run compiled dist/ two or three times.
const built = Symbol.for('parx.test.distBuilt')

/** vitest globalSetup: compile dist/ once, so tests that spawn bin/parx.js run the current sources as a user would. */
export default function setup(): void {
  const g = globalThis as { [built]?: true }
  // Under `npm test` the script's own first step (`npm run build`) has just compiled dist/.
  if (process.env.npm_lifecycle_event === 'test') g[built] = true
  if (g[built]) return
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.js', import.meta.url))], {
    stdio: 'inherit',
  })
  g[built] = true
}

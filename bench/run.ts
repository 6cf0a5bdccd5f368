// npm run bench [-- name...]: runs the named benchmarks (all by default); one JSON line per figure.
import { benchServe } from './serve.js'

const benches: Record<string, () => Promise<void>> = {
  serve: benchServe,
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  const bench = benches[name]
  if (!bench) {
    console.error(`unknown benchmark '${name}'; known: ${Object.keys(benches).join(', ')}`)
    process.exit(2)
  }
  await bench()
}

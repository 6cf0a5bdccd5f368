// npm run bench [-- name...]: runs the named benchmarks (all by default); one JSON line per figure.
import { benchAaSend } from './aa-send.js'
import { benchAuthCapture } from './auth-capture.js'
import { benchBatchSettlement } from './batch-settlement.js'
import { benchBatchSettlementSeller } from './batch-settlement-seller.js'
import { benchBatchSettlementVerify } from './batch-settlement-verify.js'
import { benchCli } from './cli.js'
import { benchFacilitator } from './facilitator.js'
import { benchHosted } from './hosted.js'
import { benchHostile } from './hostile.js'
import { benchMetrics } from './metrics.js'
import { benchPlatform } from './platform.js'
import { benchServe } from './serve.js'
import { benchSol } from './sol.js'
import { benchSwap } from './swap.js'
import { benchXchain } from './xchain.js'
import { benchXchainCu } from './xchain-cu.js'
import { benchXchainGas } from './xchain-gas.js'

const benches: Record<string, () => Promise<void>> = {
  serve: benchServe,
  swap: benchSwap,
  sol: benchSol,
  facilitator: benchFacilitator,
  'xchain-gas': benchXchainGas,
  'aa-send': benchAaSend,
  cli: benchCli,
  'xchain-cu': benchXchainCu,
  hostile: benchHostile,
  hosted: benchHosted,
  platform: benchPlatform,
  xchain: benchXchain,
  metrics: benchMetrics,
  batch: benchBatchSettlement,
  'batch-seller': benchBatchSettlementSeller,
  'batch-verify': benchBatchSettlementVerify,
  'auth-capture': benchAuthCapture,
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

import { z } from 'zod'
import { encodeAccount } from '../account-json.js'
import { invalidParams } from '../rpc-error.js'
import {
  binaryEncoding,
  commitment,
  contextSlot,
  decodeBinary,
  defineMethod,
  encoding,
  positional,
  pubkey,
  withContext,
} from './define.js'

const config = z.object({
  sigVerify: z.boolean().optional(),
  replaceRecentBlockhash: z.boolean().optional(),
  commitment: commitment.optional(),
  encoding: binaryEncoding.optional(),
  accounts: z.object({ addresses: z.array(pubkey), encoding: encoding.optional() }).optional(),
  minContextSlot: z.number().int().nonnegative().optional(),
  innerInstructions: z.boolean().optional(),
})

export const simulateTransaction = defineMethod({
  method: 'simulateTransaction',
  params: positional(z.string(), config.optional()),
  handler: ([data, cfg], ctx) => {
    if (cfg?.sigVerify && cfg.replaceRecentBlockhash) {
      throw invalidParams('sigVerify may not be used with replaceRecentBlockhash')
    }
    contextSlot(ctx, cfg)
    const sim = ctx.svm.simulate(decodeBinary(data, cfg?.encoding), cfg ?? {})
    const getAccount = (a: string) => ctx.svm.getAccount(a)
    const accounts =
      cfg?.accounts && sim.err !== 'BlockhashNotFound'
        ? cfg.accounts.addresses.map((address) => {
            const state = sim.post.has(address) ? (sim.post.get(address) ?? null) : getAccount(address)
            return state ? encodeAccount(state, { encoding: cfg.accounts?.encoding ?? 'base64', getAccount }) : null
          })
        : null
    const innerInstructions = cfg?.innerInstructions
      ? sim.innerInstructions.map(({ index, instructions }) => ({
          index,
          instructions: instructions.map((ix) => ({
            programId: sim.keys[ix.programIdIndex],
            accounts: ix.accounts.map((i) => sim.keys[i]),
            data: ix.data,
            stackHeight: ix.stackHeight,
          })),
        }))
      : null
    return withContext(sim.slot, {
      err: sim.err,
      logs: sim.logs,
      accounts,
      unitsConsumed: sim.unitsConsumed,
      returnData: sim.returnData,
      innerInstructions,
      replacementBlockhash: sim.replacementBlockhash && {
        blockhash: sim.replacementBlockhash.blockhash,
        lastValidBlockHeight: sim.replacementBlockhash.lastValidBlockHeight,
      },
    })
  },
})

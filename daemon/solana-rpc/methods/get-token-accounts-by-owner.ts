import { z } from 'zod'
import { encodeAccount } from '../account-json.js'
import { invalidParams } from '../rpc-error.js'
import { decodeTokenAccount, isTokenProgram } from '../spl-token-state.js'
import { accountConfig, contextSlot, defineMethod, positional, pubkey, withContext } from './define.js'

const filter = z.union([z.object({ mint: pubkey }).strict(), z.object({ programId: pubkey }).strict()])

export const getTokenAccountsByOwner = defineMethod({
  method: 'getTokenAccountsByOwner',
  params: positional(pubkey, filter, accountConfig.optional()),
  handler: ([owner, by, config], ctx) => {
    const slot = contextSlot(ctx, config)
    let programs: string[]
    if ('mint' in by) {
      // The mint's owner says which token program holds its accounts.
      const mintOwner = ctx.svm.getAccount(by.mint)?.owner
      if (!mintOwner || !isTokenProgram(mintOwner)) throw invalidParams('Invalid param: could not find mint')
      programs = [mintOwner]
    } else {
      if (!isTokenProgram(by.programId)) throw invalidParams('Invalid param: unrecognized Token program id')
      programs = [by.programId]
    }
    const getAccount = (a: string) => ctx.svm.getAccount(a)
    const value = programs
      .flatMap((program) => ctx.svm.programAccounts(program))
      .flatMap(({ address, state }) => {
        const token = decodeTokenAccount(state)
        if (!token || token.owner !== owner || ('mint' in by && token.mint !== by.mint)) return []
        return [{ pubkey: address, account: encodeAccount(state, { ...config, getAccount }) }]
      })
    return withContext(slot, value)
  },
})

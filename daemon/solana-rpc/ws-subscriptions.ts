import type WebSocket from 'ws'
import { z } from 'zod'
import { encodeAccount } from './account-json.js'
import { stringifyJson } from './json.js'
import type { LocalSvm } from './local-svm.js'
import {
  commitment,
  dataSlice,
  defineMethod,
  encoding,
  positional,
  pubkey,
  type RpcContext,
  type RpcMethod,
  signature,
} from './methods/define.js'
import { handlePayload } from './rpc-dispatch.js'
import { invalidParams } from './rpc-error.js'

/** One WebSocket client: its live subscriptions, each a function that tears it down. */
type Connection = RpcContext & {
  subscribe: (teardown: (id: number) => () => void) => number
  notify: (method: string, subscription: number, result: unknown) => void
  unsubscribe: (id: number) => boolean
  autoDispose: (id: number) => void
}

type SubMethod = RpcMethod<Connection>
const sub = <S extends z.ZodTypeAny>(m: {
  method: string
  params: S
  handler: (p: z.output<S>, c: Connection) => unknown
}) => defineMethod<S, Connection>(m)

const unsubscribe = (method: string): SubMethod =>
  sub({
    method,
    params: positional(z.number().int().nonnegative()),
    handler: ([id], c) => {
      if (!c.unsubscribe(id)) throw invalidParams('Invalid subscription id.')
      return true
    },
  })

const methods: ReadonlyMap<string, SubMethod> = new Map(
  [
    sub({
      method: 'signatureSubscribe',
      params: positional(
        signature,
        z.object({ commitment: commitment.optional(), enableReceivedNotification: z.boolean().optional() }).optional(),
      ),
      handler: ([sig, cfg], c) =>
        c.subscribe((id) => {
          const send = (slot: number, err: unknown) => {
            c.notify('signatureNotification', id, { context: { slot }, value: { err } })
            // Like a node, a signature subscription ends with its one notification.
            c.autoDispose(id)
          }
          const stop = c.svm.onTransaction.add((tx) => {
            if (tx.signature !== sig) return
            if (cfg?.enableReceivedNotification)
              c.notify('signatureNotification', id, { context: { slot: tx.slot }, value: 'receivedSignature' })
            send(tx.slot, tx.err)
          })
          // Already processed: answer after the subscription id has gone out (web3.js also polls).
          const done = c.svm.txs.summary(sig)
          if (done) setImmediate(() => send(done.slot, done.err))
          return stop
        }),
    }),
    sub({
      method: 'slotSubscribe',
      params: positional(),
      handler: (_p, c) =>
        c.subscribe((id) =>
          c.svm.onSlot.add((slot) =>
            c.notify('slotNotification', id, { parent: Math.max(0, slot - 1), root: slot, slot }),
          ),
        ),
    }),
    sub({
      method: 'accountSubscribe',
      params: positional(
        pubkey,
        z
          .object({ commitment: commitment.optional(), encoding: encoding.optional(), dataSlice: dataSlice.optional() })
          .optional(),
      ),
      handler: ([address, cfg], c) =>
        c.subscribe((id) =>
          c.svm.onTransaction.add((tx) => {
            const change = tx.changed.find((a) => a.address === address)
            if (!change) return
            const getAccount = (a: string) => c.svm.getAccount(a)
            const state = change.state ?? {
              lamports: 0n,
              owner: '11111111111111111111111111111111',
              data: new Uint8Array(),
              executable: false,
            }
            c.notify('accountNotification', id, {
              context: { slot: tx.slot },
              value: encodeAccount(state, { ...cfg, getAccount }),
            })
          }),
        ),
    }),
    unsubscribe('signatureUnsubscribe'),
    unsubscribe('slotUnsubscribe'),
    unsubscribe('accountUnsubscribe'),
  ].map((m) => [m.method, m]),
)

// Ids a node already dropped on its own; web3.js may still unsubscribe them, and retries forever
// on an error, so those get `true`.
const REMEMBERED_DISPOSALS = 1024

/**
 * The pubsub side of the RPC (what solana-test-validator serves on port+1): signature, slot
 * and account subscriptions over JSON-RPC on WebSocket.
 */
export function attachSubscriptions(
  wss: WebSocket.Server,
  svm: LocalSvm,
  onInternalError?: (e: unknown) => void,
): { close(): void } {
  let nextId = 0
  // Slots advance with wall time; something has to look at the clock for slotNotification to flow.
  const ticker = setInterval(() => svm.tick(), svm.clock.slotMs)
  ticker.unref()

  wss.on('connection', (ws: WebSocket) => {
    const live = new Map<number, () => void>()
    const disposed = new Set<number>()
    const connection: Connection = {
      svm,
      onInternalError,
      subscribe: (teardown) => {
        const id = nextId++
        live.set(id, teardown(id))
        return id
      },
      notify: (method, subscription, result) => {
        if (ws.readyState === ws.OPEN)
          ws.send(stringifyJson({ jsonrpc: '2.0', method, params: { result, subscription } }))
      },
      unsubscribe: (id) => {
        const stop = live.get(id)
        stop?.()
        live.delete(id)
        return stop !== undefined || disposed.delete(id)
      },
      autoDispose: (id) => {
        live.get(id)?.()
        if (live.delete(id)) disposed.add(id)
        if (disposed.size > REMEMBERED_DISPOSALS) disposed.delete(disposed.values().next().value as number)
      },
    }
    ws.on('message', (data: WebSocket.Data) => {
      void handlePayload(data.toString(), methods, connection).then((response) => {
        if (response && ws.readyState === ws.OPEN) ws.send(stringifyJson(response))
      })
    })
    // A broken socket must not take the daemon down; the client reconnects.
    ws.on('error', () => ws.terminate())
    ws.on('close', () => {
      for (const stop of live.values()) stop()
      live.clear()
    })
  })

  return { close: () => clearInterval(ticker) }
}

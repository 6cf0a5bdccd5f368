import { AsyncLocalStorage } from 'node:async_hooks'
import { randomHex } from '../random-hex.js'

/**
 * Request ids (docs/operations.md "Request ids"): a caller's own `X-Request-Id` is kept when it is
 * 1 to 128 characters of letters, digits and `._:-` (what a proxy, a load balancer or a client
 * library writes: UUIDs, `req_...`, trace ids); anything else is replaced, never echoed, so a log
 * line or an answer header never carries what an attacker chose beyond that alphabet.
 */
export const REQUEST_ID_HEADER = 'x-request-id'
const SANE = /^[A-Za-z0-9._:-]{1,128}$/

/** A fresh id: `req_` and 20 random hex digits (80 bits: unique enough to grep a log by). */
export const newRequestId = (): string => `req_${randomHex(10)}`

/** The caller's id when sane, else a new one. */
export const requestIdFrom = (incoming: string | undefined | null): string =>
  incoming && SANE.test(incoming) ? incoming : newRequestId()

/**
 * What the request being served is, for everything it causes: the daemon logger's mixin adds
 * `requestId` to every line written inside it (daemon/logger.ts), services included, without
 * passing a logger down. A process-wide store is right here: what it holds is per request.
 */
const scope = new AsyncLocalStorage<{ requestId: string }>()

export const inRequest = <T>(requestId: string, fn: () => T): T => scope.run({ requestId }, fn)

/** The id of the request this code runs for; undefined outside one (a worker duty, start-up). */
export const currentRequestId = (): string | undefined => scope.getStore()?.requestId

import type { z } from 'zod'
import type { RpcContext, RpcMethod } from './methods/index.js'
import { RpcCode, RpcError, toRpcError } from './rpc-error.js'
import { rpcLimits, tooLargeBatch } from './rpc-limits.js'

type Id = string | number | null
export type RpcResponse = { jsonrpc: '2.0'; id: Id; result?: unknown; error?: ReturnType<RpcError['toWire']> }

const failure = (id: Id, error: RpcError): RpcResponse => ({ jsonrpc: '2.0', id, error: error.toWire() })

function paramsError(error: z.ZodError): RpcError {
  const issue = error.issues[0]
  const text = issue?.message ?? 'invalid params'
  // Messages written like a node's ("Invalid param: …") go out as they are.
  if (text.startsWith('Invalid param')) return new RpcError(RpcCode.INVALID_PARAMS, text)
  const where = issue && issue.path.length > 0 ? ` at params[${issue.path.join('][')}]` : ''
  return new RpcError(RpcCode.INVALID_PARAMS, `Invalid params: ${text}${where}`)
}

/** Answers one JSON-RPC request object; undefined for a notification (a request without id). */
export async function handleRequest<C extends Pick<RpcContext, 'onInternalError'>>(
  request: unknown,
  methods: ReadonlyMap<string, RpcMethod<C>>,
  ctx: C,
): Promise<RpcResponse | undefined> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return failure(null, new RpcError(RpcCode.INVALID_REQUEST, 'Invalid request'))
  }
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }
  const idValid = r.id === undefined || r.id === null || typeof r.id === 'string' || typeof r.id === 'number'
  const id = (idValid ? (r.id ?? null) : null) as Id
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !idValid) {
    return failure(id, new RpcError(RpcCode.INVALID_REQUEST, 'Invalid request'))
  }
  if (!('id' in r)) return undefined
  const method = methods.get(r.method)
  if (!method) return failure(id, new RpcError(RpcCode.METHOD_NOT_FOUND, 'Method not found'))
  const parsed = method.params.safeParse(r.params)
  if (!parsed.success) return failure(id, paramsError(parsed.error))
  try {
    return { jsonrpc: '2.0', id, result: await method.handler(parsed.data as never, ctx) }
  } catch (e) {
    const error = toRpcError(e)
    if (error.rpcCode === RpcCode.INTERNAL_ERROR) ctx.onInternalError?.(e)
    return failure(id, error)
  }
}

/**
 * Answers a request body: one request or a batch (answered in order, one at a time, so a batch
 * of sends lands in the order written). Undefined when there is nothing to answer.
 */
export async function handlePayload<C extends Pick<RpcContext, 'onInternalError'>>(
  body: string,
  methods: ReadonlyMap<string, RpcMethod<C>>,
  ctx: C,
): Promise<RpcResponse | RpcResponse[] | undefined> {
  let payload: unknown
  try {
    payload = JSON.parse(body)
  } catch {
    return failure(null, new RpcError(RpcCode.PARSE_ERROR, 'Parse error'))
  }
  if (!Array.isArray(payload)) return handleRequest(payload, methods, ctx)
  if (payload.length === 0) return failure(null, new RpcError(RpcCode.INVALID_REQUEST, 'Invalid request'))
  if (payload.length > rpcLimits.maxBatch) return failure(null, tooLargeBatch())
  const responses: RpcResponse[] = []
  for (const [i, request] of payload.entries()) {
    // The cluster shares the daemon's event loop: between two requests of a batch, other clients
    // (the API's health checks included) get their turn, so a batch never holds the loop for long.
    if (i > 0) await new Promise((resolve) => setImmediate(resolve))
    const response = await handleRequest(request, methods, ctx)
    if (response) responses.push(response)
  }
  return responses.length > 0 ? responses : undefined
}

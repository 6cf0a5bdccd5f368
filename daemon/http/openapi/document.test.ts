import { Validator } from '@seriousme/openapi-schema-validator'
import type { OperationObject, ParameterObject, SchemaObject } from 'openapi3-ts/oas31'
import { describe, expect, it } from 'vitest'
import { errorCodes } from '../../../src/errors/codes.js'
import { routes, workerRoutes } from '../routes/index.js'
import { openApiDocument, openApiPath } from './document.js'

const { document, unexpressed } = openApiDocument({ routes, version: '0.0.0-test' })
const op = (method: string, path: string) =>
  document.paths?.[openApiPath(path)]?.[method.toLowerCase() as 'get'] as OperationObject | undefined

describe('the OpenAPI document of the route table', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const r = await new Validator().validate(structuredClone(document) as never)
    expect(r.errors ?? []).toEqual([])
    expect(r.valid).toBe(true)
    expect(document.openapi).toBe('3.1.0')
  })

  // The CI check of issue 28: a route added to the table (by anyone) is in the document, or this fails.
  it('holds every route of the table, method and path', () => {
    const missing = [...routes, ...workerRoutes]
      .filter((r) => !op(r.method, r.path))
      .map((r) => `${r.method} ${r.path}`)
    expect(missing).toEqual([])
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      ['get', 'post', 'delete'].filter((m) => (item as Record<string, unknown>)[m]),
    )
    expect(operations.length).toBe(new Set(routes.map((r) => `${r.method} ${r.path}`)).size)
  })

  it('expresses every declared zod schema (none fell back to "any")', () => {
    expect(unexpressed).toEqual([])
  })

  it("turns hono's :params into {params}, each declared", () => {
    const show = op('GET', '/api/agents/:id')!
    expect(document.paths!['/api/agents/{id}']).toBeDefined()
    expect((show.parameters as ParameterObject[]).filter((p) => p.in === 'path').map((p) => p.name)).toEqual(['id'])
    const revoke = op('DELETE', '/api/agents/:id/keys/:keyId')!
    expect(
      (revoke.parameters as ParameterObject[])
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['id', 'keyId'])
  })

  it("maps each route's auth to its security scheme", () => {
    expect(Object.keys(document.components!.securitySchemes!).sort()).toEqual([
      'agentKey',
      'dashboardSession',
      'operatorToken',
      'partnerKey',
      'userKey',
    ])
    expect(document.components!.securitySchemes!.partnerKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    })
    expect(op('POST', '/api/base/swap')!.security).toEqual([{ partnerKey: [] }])
    expect(op('POST', '/api/operator/keys')!.security).toEqual([{ operatorToken: [] }])
    expect(op('POST', '/api/agents/:id/pay')!.security).toEqual([{ userKey: [] }, { agentKey: [] }])
    expect(op('GET', '/api/health')!.security).toBeUndefined()
  })

  it('documents bodies, answers and the error body with every published code', () => {
    const pay = op('POST', '/api/agents/:id/pay')!
    expect(pay.summary).toMatch(/402-gated/)
    expect(pay.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { type: 'object' } } },
    })
    // The wire contract's answer schema, not a generic object.
    const answer = (pay.responses!['200'] as { content: Record<string, { schema: SchemaObject }> }).content[
      'application/json'
    ]!.schema
    expect(answer.oneOf?.flatMap((o) => Object.keys((o as SchemaObject).properties ?? {}))).toEqual(
      expect.arrayContaining(['dryRun', 'receipt']),
    )
    // Declared codes by status, each pointing at the one error body.
    expect(pay.responses!['409']).toMatchObject({
      description: expect.stringContaining('PRICE_ABOVE_MAX'),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    })
    expect(pay.responses!.default).toBeDefined()
    const error = document.components!.schemas!.Error as SchemaObject
    expect(error.required).toEqual(['error', 'code'])
    expect((error.properties!.code as SchemaObject).enum).toEqual(
      Object.keys(errorCodes).filter((c) => errorCodes[c as keyof typeof errorCodes].status !== null),
    )
    expect(error.properties!.requestId).toBeDefined()
    expect(op('POST', '/api/operator/keys')!.responses!['201']).toBeDefined()
  })

  it("documents a paid endpoint's raw body as any bytes, with its cap", () => {
    const paid = op('POST', '/paid/:id')!
    expect(paid.requestBody).toMatchObject({ required: false, content: { '*/*': { schema: {} } } })
    expect(paid.description).toMatch(/1048576 bytes/)
    expect(paid.responses!['413']).toBeDefined()
  })

  it('documents pages, scripts and the Prometheus scrape with their own media type, not as JSON', () => {
    const content = (method: string, path: string) =>
      Object.keys((op(method, path)!.responses!['200'] as { content: object }).content)
    expect(content('GET', '/dashboard')).toEqual(['text/html'])
    expect(content('GET', '/api/docs')).toEqual(['text/html'])
    expect(content('GET', '/metrics')).toEqual(['text/plain'])
    expect(content('GET', '/api/readiness')).toEqual(['application/json'])
  })

  it('derives a summary from the path where the route declares none', () => {
    expect(op('GET', '/api/xchain/status/:orderId')!.summary).toBe('xchain status (by orderId)')
  })
})

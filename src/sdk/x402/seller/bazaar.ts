/**
 * The bazaar discovery extension (`extensions.bazaar`, @x402/extensions 2.27) as a seller declares
 * it in its 402: `info` says how to call the resource, `schema` is the JSON Schema `info` obeys. The
 * shapes are the reference's `declareDiscoveryExtension` output after its server extension's
 * `enrichDeclaration` set the request's method, so a bazaar catalogues ours as it does theirs.
 */
const QUERY_METHODS = ['GET', 'HEAD', 'DELETE'] as const
const BODY_METHODS = ['POST', 'PUT', 'PATCH'] as const

export type BazaarExtension = {
  info: { input: Record<string, unknown>; output?: Record<string, unknown> }
  schema: Record<string, unknown>
}

/** The extension for a resource called with `method`, taking any query (or a JSON body for body methods). */
export function bazaarExtension(method: string): BazaarExtension {
  const m = method.toUpperCase()
  const body = (BODY_METHODS as readonly string[]).includes(m)
  const input = body
    ? { type: 'http', method: m, bodyType: 'json', body: {} }
    : { type: 'http', method: (QUERY_METHODS as readonly string[]).includes(m) ? m : 'GET', queryParams: {} }
  const properties: Record<string, unknown> = {
    type: { type: 'string', const: 'http' },
    method: { type: 'string', enum: [input.method] },
    ...(body
      ? { bodyType: { type: 'string', enum: ['json', 'form-data', 'text'] }, body: { properties: {} } }
      : { queryParams: { type: 'object', properties: {} } }),
  }
  return {
    info: { input },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        input: {
          type: 'object',
          properties,
          required: body ? ['type', 'method', 'bodyType', 'body'] : ['type', 'method'],
          additionalProperties: false,
        },
      },
      required: ['input'],
    },
  }
}

/** v1 has no extensions: discovery rides in each requirement's `outputSchema` with `discoverable: true`. */
export function v1OutputSchema(ext: BazaarExtension): Record<string, unknown> {
  return { input: { ...ext.info.input, discoverable: true }, ...(ext.info.output ? { output: ext.info.output } : {}) }
}

import { isRecord } from './wire.js'

/**
 * The `payment-identifier` extension of @x402/extensions 2.27, spoken without the package: a
 * client-chosen id in `paymentPayload.extensions['payment-identifier'].info.id` that makes a
 * purchase idempotent. Same rules as the reference: 16-128 characters of `[A-Za-z0-9_-]`.
 */
export const PAYMENT_IDENTIFIER = 'payment-identifier'
export const PAYMENT_ID_MIN_LENGTH = 16
export const PAYMENT_ID_MAX_LENGTH = 128
export const PAYMENT_ID_PATTERN = /^[a-zA-Z0-9_-]+$/

export const isValidPaymentId = (id: unknown): id is string =>
  typeof id === 'string' &&
  id.length >= PAYMENT_ID_MIN_LENGTH &&
  id.length <= PAYMENT_ID_MAX_LENGTH &&
  PAYMENT_ID_PATTERN.test(id)

/** A new id, as the reference generates them: `pay_` and 32 hex digits. */
export const newPaymentId = (): string => `pay_${globalThis.crypto.randomUUID().replaceAll('-', '')}`

/** The JSON Schema the reference's declaration carries, so stock clients validate the echo. */
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    required: { type: 'boolean' },
    id: {
      type: 'string',
      minLength: PAYMENT_ID_MIN_LENGTH,
      maxLength: PAYMENT_ID_MAX_LENGTH,
      pattern: '^[a-zA-Z0-9_-]+$',
    },
  },
  required: ['required'],
}

/** What a seller puts in its 402 `extensions` (as `declarePaymentIdentifierExtension` does). */
export const declarePaymentIdentifier = (required = false) => ({ info: { required }, schema })

/**
 * The payload's extensions with `id` added, keeping what the seller declared (the reference's
 * resource server checks that a client's echo still contains the declared fields).
 */
export function withPaymentId(extensions: Record<string, unknown> | undefined, id: string): Record<string, unknown> {
  const declared = isRecord(extensions?.[PAYMENT_IDENTIFIER])
    ? (extensions![PAYMENT_IDENTIFIER] as Record<string, unknown>)
    : undefined
  const info = isRecord(declared?.info) ? declared!.info : { required: false }
  return { ...(extensions ?? {}), [PAYMENT_IDENTIFIER]: { ...(declared ?? {}), info: { ...info, id } } }
}

/**
 * The id a payload carries: `undefined` when it has none (no extension, or a declaration echoed
 * without an id), `{ invalid }` when the extension is there but its id breaks the rules.
 */
export function paymentIdOf(extensions: Record<string, unknown> | undefined): string | undefined | { invalid: string } {
  const ext = extensions?.[PAYMENT_IDENTIFIER]
  if (ext === undefined) return undefined
  if (!isRecord(ext) || !isRecord(ext.info))
    return { invalid: `extensions.${PAYMENT_IDENTIFIER} must be {info: {required, id}}` }
  const id = ext.info.id
  if (id === undefined) return undefined
  if (!isValidPaymentId(id)) {
    return {
      invalid:
        `extensions.${PAYMENT_IDENTIFIER}.info.id must be ` +
        `${PAYMENT_ID_MIN_LENGTH}-${PAYMENT_ID_MAX_LENGTH} characters of letters, digits, '-' and '_'`,
    }
  }
  return id
}

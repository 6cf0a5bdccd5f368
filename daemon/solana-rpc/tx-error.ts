/**
 * Transaction errors: litesvm's native error objects turned into the JSON a Solana RPC node
 * returns (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`), their human text, and
 * the error the embedded cluster throws when it refuses a transaction.
 */
import { BaseError } from '../../src/errors/base.js'

export type TransactionErrorJson = string | Record<string, unknown>

// Index = litesvm's TransactionErrorFieldless value (the native enum object is not enumerable).
const TX_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
]

// Index = litesvm's InstructionErrorFieldless value.
const IX_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
]

type Native = { constructor: { name: string } } & Record<string, unknown>

function instructionErrorJson(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return IX_ERRORS[err] ?? `InstructionError${err}`
  const e = err as Native
  if (e.constructor.name === 'InstructionErrorCustom') return { Custom: e.code as number }
  if (e.constructor.name.startsWith('InstructionErrorBorshIo')) return { BorshIoError: e.msg as string }
  return String(err)
}

/** litesvm's `FailedTransactionMetadata.err()` as RPC JSON. */
export function transactionErrorJson(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return TX_ERRORS[err] ?? `TransactionError${err}`
  const e = err as Native
  switch (e.constructor.name) {
    case 'TransactionErrorInstructionError':
      return { InstructionError: [e.index as number, instructionErrorJson((e.err as () => unknown).call(e))] }
    case 'TransactionErrorDuplicateInstruction':
      return { DuplicateInstruction: e.index as number }
    case 'TransactionErrorInsufficientFundsForRent':
      return { InsufficientFundsForRent: { account_index: e.accountIndex as number } }
    case 'TransactionErrorProgramExecutionTemporarilyRestricted':
      return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex as number } }
    default:
      return String(err)
  }
}

const TX_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
}

const IX_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
}

/** The node's Display text for an error, used in `Transaction simulation failed: <text>`. */
export function transactionErrorText(err: TransactionErrorJson): string {
  if (typeof err === 'string') return TX_TEXT[err] ?? err
  const [key, value] = Object.entries(err)[0] ?? ['', undefined]
  if (key === 'InstructionError' && Array.isArray(value)) {
    const [index, ix] = value as [number, TransactionErrorJson]
    const text =
      typeof ix === 'string'
        ? (IX_TEXT[ix] ?? ix)
        : 'Custom' in ix
          ? `custom program error: 0x${Number(ix.Custom).toString(16)}`
          : JSON.stringify(ix)
    return `Error processing Instruction ${index}: ${text}`
  }
  if (key === 'InsufficientFundsForRent') {
    const index = (value as { account_index: number }).account_index
    return `Transaction results in an account (${index}) with insufficient funds for rent`
  }
  if (key === 'DuplicateInstruction')
    return `Transaction contains a duplicate instruction (${String(value)}) that is not allowed`
  return JSON.stringify(err)
}

export type RejectionReason = 'malformed' | 'signature' | 'rejected'

/**
 * The cluster refused a transaction: nothing ran, nothing was charged, nothing was recorded.
 * `malformed`: not a transaction (bad bytes, fails sanitize); `signature`: a signature is missing
 * or does not verify; `rejected`: preflight or the runtime refused it (`err` says why).
 */
export class SolanaTxError extends BaseError {
  override name = 'SolanaTxError'
  constructor(
    readonly reason: RejectionReason,
    message: string,
    readonly err: TransactionErrorJson | null = null,
    readonly logs: string[] = [],
    readonly unitsConsumed = 0,
  ) {
    super('CHAIN_RPC_ERROR', message)
  }
}

export function rejected(err: TransactionErrorJson, logs: string[] = [], unitsConsumed = 0): SolanaTxError {
  if (err === 'SignatureFailure')
    return new SolanaTxError('signature', 'Transaction signature verification failure', err)
  if (err === 'SanitizeFailure')
    return new SolanaTxError('malformed', `invalid transaction: ${transactionErrorText(err)}`, err)
  return new SolanaTxError('rejected', transactionErrorText(err), err, logs, unitsConsumed)
}

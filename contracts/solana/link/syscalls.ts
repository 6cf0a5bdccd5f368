/**
 * The syscalls an SBPFv0 program may call by name. A call to any other undefined symbol would load
 * (the loader hashes whatever name it finds) and fail only when executed, so the linker refuses it:
 * the usual culprit is clang lowering a copy of unknown size to `memcpy`.
 */
export const KNOWN_SYSCALLS: ReadonlySet<string> = new Set([
  'abort',
  'sol_panic_',
  'sol_log_',
  'sol_log_64_',
  'sol_log_compute_units_',
  'sol_log_pubkey',
  'sol_log_data',
  'sol_create_program_address',
  'sol_try_find_program_address',
  'sol_sha256',
  'sol_keccak256',
  'sol_blake3',
  'sol_secp256k1_recover',
  'sol_get_clock_sysvar',
  'sol_get_epoch_schedule_sysvar',
  'sol_get_rent_sysvar',
  'sol_memcpy_',
  'sol_memmove_',
  'sol_memcmp_',
  'sol_memset_',
  'sol_invoke_signed_c',
  'sol_invoke_signed_rust',
  'sol_set_return_data',
  'sol_get_return_data',
  'sol_get_stack_height',
  'sol_get_processed_sibling_instruction',
])

/*
 * Our own minimal Solana C ABI for SBPFv0 programs built with Debian's clang-19 and the linker in
 * ../link. Written from the loader's public rules (input serialisation of the aligned BPF loaders,
 * the C syscall signatures); only what origin_settler and dest_settler use.
 *
 * Rules the linker enforces, so programs here follow them: no mutable globals (.data/.bss are
 * rejected; state lives in accounts), no calls to libc (clang turns unknown-size copies into
 * `memcpy`, which the loader would take for an unknown syscall: use sol_memcpy_).
 */
#ifndef PARX_SOL_H
#define PARX_SOL_H

typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

#define SUCCESS 0
/* Builtin errors live in the upper 32 bits of the return value; custom errors in the lower. */
#define BUILTIN_ERROR(n) ((uint64_t)(n) << 32)
#define ERROR_INVALID_ARGUMENT BUILTIN_ERROR(2)
#define ERROR_INVALID_INSTRUCTION_DATA BUILTIN_ERROR(3)
#define ERROR_NOT_ENOUGH_ACCOUNT_KEYS BUILTIN_ERROR(11)

typedef struct { uint8_t x[32]; } SolPubkey;

/* What the runtime's account info looks like to sol_invoke_signed_c. */
typedef struct {
  SolPubkey *key;
  uint64_t *lamports;
  uint64_t data_len;
  uint8_t *data;
  SolPubkey *owner;
  uint64_t rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

typedef struct { SolPubkey *pubkey; bool is_writable; bool is_signer; } SolAccountMeta;

typedef struct {
  SolPubkey *program_id;
  SolAccountMeta *accounts;
  uint64_t account_len;
  uint8_t *data;
  uint64_t data_len;
} SolInstruction;

typedef struct { const uint8_t *addr; uint64_t len; } SolSignerSeed;
typedef struct { const SolSignerSeed *addr; uint64_t len; } SolSignerSeeds;
typedef struct { const uint8_t *addr; uint64_t len; } SolBytes;

typedef struct {
  uint64_t slot;
  int64_t epoch_start_timestamp;
  uint64_t epoch;
  uint64_t leader_schedule_epoch;
  int64_t unix_timestamp;
} SolClock;

typedef struct {
  uint64_t lamports_per_byte_year;
  uint64_t exemption_threshold_f64_bits; /* an f64 we only compare, never compute with */
  uint8_t burn_percent;
} SolRent;

/* Syscalls: left undefined here; the linker turns each call into a named dynamic relocation. */
void sol_log_(const char *message, uint64_t len);
void sol_log_64_(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);
uint64_t sol_invoke_signed_c(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                             int account_infos_len, const SolSignerSeeds *signers_seeds, int signers_seeds_len);
uint64_t sol_try_find_program_address(const SolSignerSeed *seeds, int seeds_len, const SolPubkey *program_id,
                                      SolPubkey *address, uint8_t *bump_seed);
uint64_t sol_create_program_address(const SolSignerSeed *seeds, int seeds_len, const SolPubkey *program_id,
                                    SolPubkey *address);
uint64_t sol_sha256(const SolBytes *bytes, int bytes_len, uint8_t *result);
uint64_t sol_get_clock_sysvar(void *clock);
uint64_t sol_get_rent_sysvar(void *rent);
void sol_memcpy_(void *dst, const void *src, uint64_t n);
void sol_memset_(void *dst, int c, uint64_t n);
void sol_memcmp_(const void *a, const void *b, uint64_t n, int *result);

#define sol_log(literal) sol_log_(literal, sizeof(literal) - 1)

/* ---------------------------------------------------------------------------------------------
 * Entrypoint input (the aligned loaders' serialisation):
 *   u64 account count; per account either a duplicate marker (u8 index + 7 pad) or
 *   u8 0xff, u8 signer, u8 writable, u8 executable, 4 pad, key 32, owner 32, u64 lamports,
 *   u64 data_len, data, 10 KiB realloc room, pad to 8, u64 rent_epoch;
 *   then u64 instruction data length, the data, and the program id.
 * ------------------------------------------------------------------------------------------- */

#define MAX_PERMITTED_DATA_INCREASE (10 * 1024)
#define NON_DUP_MARKER 0xff
#define MAX_ACCOUNTS 16

typedef struct {
  SolAccountInfo accounts[MAX_ACCOUNTS];
  uint64_t account_count;
  const uint8_t *data;
  uint64_t data_len;
  const SolPubkey *program_id;
} SolInput;

static inline uint64_t rd_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static inline uint16_t rd_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline void wr_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) { p[i] = (uint8_t)v; v >>= 8; }
}

/* Returns false if the transaction gave more accounts than we take: no instruction here needs that many. */
static bool sol_deserialize(const uint8_t *input, SolInput *out) {
  uint64_t n = *(const uint64_t *)input;
  input += 8;
  if (n > MAX_ACCOUNTS) return false;
  out->account_count = n;
  for (uint64_t i = 0; i < n; i++) {
    uint8_t dup = *input;
    input += 1;
    if (dup != NON_DUP_MARKER) {
      input += 7;
      out->accounts[i] = out->accounts[dup];
      continue;
    }
    SolAccountInfo *a = &out->accounts[i];
    a->is_signer = *input++ != 0;
    a->is_writable = *input++ != 0;
    a->executable = *input++ != 0;
    input += 4;
    a->key = (SolPubkey *)input; input += 32;
    a->owner = (SolPubkey *)input; input += 32;
    a->lamports = (uint64_t *)input; input += 8;
    a->data_len = *(const uint64_t *)input; input += 8;
    a->data = (uint8_t *)input;
    input += a->data_len + MAX_PERMITTED_DATA_INCREASE;
    input = (const uint8_t *)(((uint64_t)input + 7) & ~(uint64_t)7);
    a->rent_epoch = *(const uint64_t *)input; input += 8;
  }
  out->data_len = *(const uint64_t *)input; input += 8;
  out->data = input; input += out->data_len;
  out->program_id = (const SolPubkey *)input;
  return true;
}

/* ---------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------- */

/* Through the syscall: 10 CU for up to 2.5 kB, where a byte loop costs several CU per byte. */
static inline bool bytes_eq(const void *a, const void *b, uint64_t n) {
  int result = 1;
  sol_memcmp_(a, b, n, &result);
  return result == 0;
}
static inline bool key_eq(const SolPubkey *a, const SolPubkey *b) { return bytes_eq(a->x, b->x, 32); }
static inline void copy32(void *dst, const void *src) { sol_memcpy_(dst, src, 32); }

static const SolPubkey SYSTEM_PROGRAM_ID = {{0}};
static const SolPubkey TOKEN_PROGRAM_ID = {{
  0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
  0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9}};
static const SolPubkey INSTRUCTIONS_SYSVAR_ID = {{
  0x06, 0xa7, 0xd5, 0x17, 0x18, 0x7b, 0xd1, 0x66, 0x35, 0xda, 0xd4, 0x04, 0x55, 0xfd, 0xc2, 0xc0,
  0xc1, 0x24, 0xc6, 0x8f, 0x21, 0x56, 0x75, 0xa5, 0xdb, 0xba, 0xcb, 0x5f, 0x08, 0x00, 0x00, 0x00}};
static const SolPubkey ED25519_PROGRAM_ID = {{
  0x03, 0x7d, 0x46, 0xd6, 0x7c, 0x93, 0xfb, 0xbe, 0x12, 0xf9, 0x42, 0x8f, 0x83, 0x8d, 0x40, 0xff,
  0x05, 0x70, 0x74, 0x49, 0x27, 0xf4, 0x8a, 0x64, 0xfc, 0xca, 0x70, 0x44, 0x80, 0x00, 0x00, 0x00}};

static const SolPubkey BPF_LOADER_UPGRADEABLE_ID = {{
  0x02, 0xa8, 0xf6, 0x91, 0x4e, 0x88, 0xa1, 0xb0, 0xe2, 0x10, 0x15, 0x3e, 0xf7, 0x63, 0xae, 0x2b,
  0x00, 0xc2, 0xb9, 0x3d, 0x16, 0xc1, 0x24, 0xd2, 0xc0, 0x53, 0x7a, 0x10, 0x04, 0x80, 0x00, 0x00}};
/* Upgradeable loader ProgramData account: u32 tag 3, u64 slot, Option<Pubkey> upgrade authority. */
#define PROGRAM_DATA_TAG 3
#define PROGRAM_DATA_AUTHORITY_SOME 12
#define PROGRAM_DATA_AUTHORITY 13

/* SPL Token account layout: mint 0..32, owner 32..64, amount 64..72, ..., 165 bytes. */
#define TOKEN_ACCOUNT_LEN 165
#define TOKEN_ACCOUNT_MINT 0
#define TOKEN_ACCOUNT_OWNER 32
#define TOKEN_ACCOUNT_AMOUNT 64
/* SPL Token mint layout: decimals at 44. */
#define MINT_LEN 82
#define MINT_DECIMALS 44

static int64_t clock_now(void) {
  SolClock c;
  sol_get_clock_sysvar(&c);
  return c.unix_timestamp;
}

/* Cross-program invocation over accounts we hold by pointer. The runtime writes a changed data
 * length (an account created or closed by the callee) into the serialised input, 8 bytes before the
 * data, and into the copies we pass; our own SolAccountInfo is refreshed from the input, so a later
 * CPI does not present a stale length (which the runtime reads as an illegal data change). */
#define MAX_CPI_ACCOUNTS 4
static uint64_t invoke(const SolInstruction *ix, SolAccountInfo *const *accounts, int n, const SolSignerSeeds *seeds,
                       int seeds_len) {
  SolAccountInfo infos[MAX_CPI_ACCOUNTS];
  if (n > MAX_CPI_ACCOUNTS) return ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < n; i++) infos[i] = *accounts[i];
  uint64_t r = sol_invoke_signed_c(ix, infos, n, seeds, seeds_len);
  for (int i = 0; i < n; i++) accounts[i]->data_len = *(const uint64_t *)(accounts[i]->data - 8);
  return r;
}

/* Rent exemption without floats: the threshold is 2.0 on older clusters and 1.0 (with the per-byte
 * rate doubled) since SIMD-0194; any other value is refused rather than guessed. */
#define F64_ONE_BITS 0x3FF0000000000000ULL
#define F64_TWO_BITS 0x4000000000000000ULL
static bool rent_exempt_minimum(uint64_t space, uint64_t *lamports) {
  SolRent r;
  sol_memset_(&r, 0, sizeof(r));
  if (sol_get_rent_sysvar(&r) != 0) return false;
  uint64_t years;
  if (r.exemption_threshold_f64_bits == F64_ONE_BITS) years = 1;
  else if (r.exemption_threshold_f64_bits == F64_TWO_BITS) years = 2;
  else return false;
  *lamports = (128 + space) * r.lamports_per_byte_year * years;
  return true;
}

/* One system program instruction over `payer` (signer, writable) and/or `target`. */
static uint64_t system_call(uint8_t *data, uint64_t len, SolAccountInfo *payer, SolAccountInfo *target,
                            const SolSignerSeeds *target_seeds) {
  SolAccountMeta metas[2];
  SolAccountInfo *accounts[2];
  int n = 0;
  if (payer) { metas[n] = (SolAccountMeta){payer->key, true, true}; accounts[n++] = payer; }
  metas[n] = (SolAccountMeta){target->key, true, true};
  accounts[n++] = target;
  SolInstruction ix = {(SolPubkey *)&SYSTEM_PROGRAM_ID, metas, (uint64_t)n, data, len};
  return invoke(&ix, accounts, n, target_seeds, 1);
}

/* Creates the PDA `target` (signing by its seeds), rent-exempt, paid by `payer`. An address that
 * already holds lamports (anyone can send some to any address, to block CreateAccount) is topped
 * up, allocated and assigned instead, so such a gift cannot stop an order or a fill. */
static uint64_t cpi_create_account(SolAccountInfo *payer, SolAccountInfo *target, uint64_t space,
                                   const SolPubkey *owner, const SolSignerSeeds *target_seeds) {
  uint64_t lamports;
  if (!rent_exempt_minimum(space, &lamports)) return ERROR_INVALID_ARGUMENT;
  uint8_t data[4 + 8 + 8 + 32];
  sol_memset_(data, 0, sizeof(data));
  uint64_t held = *target->lamports;
  if (held == 0) {
    /* CreateAccount (0): lamports, space, owner. */
    wr_u64(data + 4, lamports);
    wr_u64(data + 12, space);
    copy32(data + 20, owner);
    return system_call(data, sizeof(data), payer, target, target_seeds);
  }
  uint64_t r;
  if (held < lamports) {
    data[0] = 2; /* Transfer (2): lamports */
    wr_u64(data + 4, lamports - held);
    if ((r = system_call(data, 12, payer, target, target_seeds))) return r;
  }
  sol_memset_(data, 0, sizeof(data));
  data[0] = 8; /* Allocate (8): space */
  wr_u64(data + 4, space);
  if ((r = system_call(data, 12, NULL, target, target_seeds))) return r;
  sol_memset_(data, 0, sizeof(data));
  data[0] = 1; /* Assign (1): owner */
  copy32(data + 4, owner);
  return system_call(data, 36, NULL, target, target_seeds);
}

/* SPL Token TransferChecked (12): source -> dest, signed by `authority` (by seeds if given).
 * A struct, because BPF calls take at most five arguments. */
typedef struct {
  SolAccountInfo *source, *mint, *dest, *authority;
  uint64_t amount;
  uint8_t decimals;
  const SolSignerSeeds *seeds;
} TokenTransfer;

static uint64_t cpi_transfer_checked(const TokenTransfer *t) {
  uint8_t data[10];
  data[0] = 12;
  wr_u64(data + 1, t->amount);
  data[9] = t->decimals;
  SolAccountMeta metas[4] = {{t->source->key, true, false}, {t->mint->key, false, false}, {t->dest->key, true, false},
                             {t->authority->key, false, true}};
  SolInstruction ix = {(SolPubkey *)&TOKEN_PROGRAM_ID, metas, 4, data, sizeof(data)};
  SolAccountInfo *accounts[4] = {t->source, t->mint, t->dest, t->authority};
  return invoke(&ix, accounts, 4, t->seeds, t->seeds ? 1 : 0);
}

#endif

/*
 * cs_timer.h -- the timer record and its identity (CIP-5 §3-4, DESIGN §2.1).
 *
 * Records live in the scheduler's pool (cs_sched) and are referred to by a
 * 32-bit slot.  Actors, fee payers and handler names are interned by the
 * scheduler, so a record holds small indices instead of 20-byte addresses
 * and strings.  The queue (cs_queue) owns the q* fields.
 */
#ifndef CS_TIMER_H
#define CS_TIMER_H

#include "cs_types.h"

/* Limits (CIP-5 §3.1, §4.2, §8; DESIGN §2.1). */
#define CS_MAX_PAYLOAD 1048576u
#define CS_MAX_HANDLER 256u
#define CS_MAX_TIMER_ID 256u
#define CS_MAX_TIMERS_PER_ACTOR_DEFAULT 1024u
#define CS_DEFAULT_HANDLER "handle_timer"

/* Metering (CIP-5 §6.1-6.2). */
#define CS_SCHEDULE_CYCLES 1000u
#define CS_CANCEL_CYCLES 500u
#define CS_FIFO_FIRE_CYCLES 550000u
#define CS_FIFO_FIRE_CELLS 550000u

#define CS_NIL UINT32_MAX /* "no slot" */

typedef enum cs_timer_kind {
    CS_KIND_HEIGHT = 0,   /* fires once when h >= due height */
    CS_KIND_INTERVAL = 1, /* rolls forward to h + every_blocks (CIP-5 CN §11) */
    CS_KIND_WATCH = 2     /* fires when a watched key is modified (CIP-5 CN §8) */
} cs_timer_kind;

/* Queue tier a pending record sits in (CIP-1 §2). */
typedef enum cs_tier {
    CS_TIER_NONE = 0,  /* not queued (watch timers, carried, or free) */
    CS_TIER_RING = 1,  /* tier 1 ring buffer */
    CS_TIER_EPOCH = 2, /* tier 2 epoch queue */
    CS_TIER_TREE = 3   /* tier 3 overflow tree */
} cs_tier;

/* Record flags. */
#define CS_TF_LIVE 0x01u     /* slot holds a pending timer */
#define CS_TF_HAS_FEES 0x02u /* max_fee / max_priority given at schedule */
#define CS_TF_HAS_BID 0x04u  /* legacy / auction bid given */
#define CS_TF_CARRIED 0x08u  /* lost an auction; sits in the carry set */

/*
 * A record is split in two parallel arrays indexed by the same slot
 * (DESIGN-NOTES N46).  The hot part holds what the queue, the collection
 * and the per-block candidate pass touch -- 32 bytes, two records per cache
 * line, so migrating, collecting and sorting a bucket reads a quarter of
 * the bytes a whole record would cost.  The cold part (80 bytes) holds the
 * identity, limits and payload, read when a timer is scheduled, found by
 * id, fired or settled.  A timer's bid, fee caps, TTL, fee payer and
 * handler (64 bytes) live in a third table, the money table, only for
 * timers that need an entry (a bid, fee caps given or frozen at
 * scheduling, an expiry height, a fee payer other than the owner, or a
 * custom handler); the cold part keeps its index.
 */
typedef struct cs_timer_hot {
    uint64_t height;    /* due height (CIP-5 §3.1); next due for INTERVAL */
    uint64_t fifo_rank; /* global insertion sequence, unique (CIP-5 CN §6.1) */
    uint32_t qpos;      /* position inside the queue tier or carry set (queue-owned) */
    uint32_t deferrals; /* n: blocks deferred since due (CIP-5 §9.2) */
    uint32_t fire_seq;  /* fires so far (CIP-5 CN §10.2) */
    uint8_t kind;       /* cs_timer_kind */
    uint8_t tier;       /* cs_tier (queue-owned) */
    uint8_t flags;      /* CS_TF_* */
    uint8_t tier_hint;  /* SDK priority tier (CIP-1 rev §7.3), 0..3 */
} cs_timer_hot_t;
CS_STATIC_ASSERT(sizeof(cs_timer_hot_t) == 32, "two hot records per cache line");

typedef struct cs_timer {
    cs_hash_t id;          /* timer_id = keccak256(actor||height||payload||nonce) */
    uint64_t sched_height; /* height of the block whose TX phase created it */
    uint64_t gas_limit;    /* cycles limit per fire */
    uint64_t max_cells;    /* cells limit per fire */
    uint8_t *payload;      /* owned by the scheduler; NULL when empty or all
                            * zero bytes (not copied, DESIGN-NOTES N100) */
    uint32_t actor;        /* interned owner actor index (the simulator finds its agent from it) */
    uint32_t payload_len;  /* bytes in payload */
    union {                /* by kind: a watch timer has no period (CIP-5 CN §8, §11) */
        uint32_t every_blocks; /* HEIGHT, INTERVAL: the period as scheduled (INTERVAL: >= 1) */
        uint32_t wkeys;        /* WATCH: index of its watch-key list, CS_NIL until added */
    };
    uint32_t money;        /* index in the money table, CS_NIL if the timer has no entry */
} cs_timer_t;
CS_STATIC_ASSERT(sizeof(cs_timer_t) == 80, "the cold part of a record");

/* What only some timers have, in the scheduler's money table: a bid, fee
 * caps, a TTL, a fee payer other than the owner, a custom handler.  A
 * timer without any has no entry and reads as all zero with the owner as
 * its fee payer. */
typedef struct cs_timer_money {
    cs_u128 bid;         /* auction bid in base units (CIP-5 §9.7) */
    cs_u128 max_fee;     /* max_fee_per_cycle (CIP-1 rev §6), with CS_TF_HAS_FEES */
    cs_u128 max_prio;    /* max_priority_fee_per_cycle, with CS_TF_HAS_FEES */
    uint64_t expires_at; /* TTL height; 0 = never (CIP-1 rev §9) */
    uint32_t fee_payer;  /* interned fee payer index (CIP-1 rev §6) */
    uint32_t handler;    /* interned handler name; 0 = "handle_timer" (CIP-5 §4.2) */
} cs_timer_money_t;
CS_STATIC_ASSERT(sizeof(cs_timer_money_t) == 64, "a money table entry");

/* Most bytes one pending timer's record can take: hot and cold parts, a
 * money entry and its free-list slot (for memory estimates). */
#define CS_TIMER_RECORD_MAX_BYTES \
    (sizeof(cs_timer_hot_t) + sizeof(cs_timer_t) + sizeof(cs_timer_money_t) + sizeof(uint32_t))

/*
 * Keccak-256 (original Keccak padding 0x01, not SHA3's 0x06).  Writes 32
 * bytes to out.  Uses nettle's sha3_permute for the permutation.
 */
void cs_keccak256(const void *data, size_t len, uint8_t out[32]);

/* The zero Keccak state: fresh states are copied from it (vector moves;
 * a memset of 200 bytes is a slow rep stos, and one runs per id). */
extern const uint64_t cs_keccak_zero_state[25];

/* Incremental Keccak-256, for hashing several pieces without copying. */
typedef struct cs_keccak_ctx {
    uint64_t a[25];     /* state lanes, little-endian words */
    uint8_t buf[136];   /* partial block */
    unsigned fill;      /* bytes in buf */
} cs_keccak_ctx;
void cs_keccak_init(cs_keccak_ctx *c);
void cs_keccak_update(cs_keccak_ctx *c, const void *data, size_t len);
void cs_keccak_final(cs_keccak_ctx *c, uint8_t out[32]);

/*
 * Keccak-f[1600] over n independent states st[0..n) (25 little-endian
 * lanes each), in place: 8 at a time with AVX-512, 4 with AVX2 (a lone
 * last state by cs_keccak_permute1's permutation), 5 with AVX2 + BMI2
 * (4 on vectors and 1 on 64-bit words in the same loop: the default where
 * AVX2 runs as two 128-bit halves, AMD Zen 1), else one at a time with
 * nettle's permutation (core/cs_keccak_x.c).  Same result
 * on every path.  The path is chosen at the first call; cs_keccak_path_set
 * forces one (CS_EINVAL if this CPU lacks it; AUTO = the best), for tests
 * and benchmarks.  Not thread-safe to change while other threads hash.
 */
enum {
    CS_KECCAK_PATH_AUTO = 0,
    CS_KECCAK_PATH_SCALAR,
    CS_KECCAK_PATH_AVX2,
    CS_KECCAK_PATH_AVX512,
    CS_KECCAK_PATH_AVX2_BMI2
};
void cs_keccak_permute_many(uint64_t (*st)[25], size_t n);
/* One state: nettle's permutation on the scalar path, else the one-state
 * permutation chosen below (faster than nettle's). */
void cs_keccak_permute1(uint64_t a[25]);
/*
 * The one-state permutation of cs_keccak_permute1 off the scalar path (and
 * of a lone state in a batch): nettle's, the portable C round (lane
 * complemented), or the round compiled for BMI1 + BMI2 (x86-64).  Chosen at the first use (AUTO = the
 * fastest this CPU has); cs_keccak_one_set forces one (CS_EINVAL if this
 * CPU lacks it), for tests and benchmarks.  Same result for every one.
 */
enum { CS_KECCAK_ONE_AUTO = 0, CS_KECCAK_ONE_NETTLE, CS_KECCAK_ONE_C, CS_KECCAK_ONE_BMI2 };
int cs_keccak_one(void);
int cs_keccak_one_set(int impl);
int cs_keccak_one_available(int impl);
const char *cs_keccak_one_name(int impl);
/* States per batch the callers assemble: 40, a multiple of every batched
 * path's width (AVX2 4, AVX-512 8, the hybrid path 5), so a full batch
 * leaves no state to the slower one-state permutation; 40 states are 8 KB
 * of stack, in L1. */
#define CS_KECCAK_BATCH 40
/* out[k] = cs_keccak256(msg[k], len[k]) for k < n, short messages batched. */
void cs_keccak256_many(const void *const *msg, const size_t *len, size_t n, uint8_t (*out)[32]);
int cs_keccak_path(void);
int cs_keccak_path_set(int path);
int cs_keccak_path_available(int path);
const char *cs_keccak_path_name(int path);

/* CIP-5 §3.3: timer_id = keccak256(actor[20] || height[8 BE] || payload || nonce[8 BE]). */
void cs_timer_id(const cs_addr_t *actor, uint64_t height, const void *payload,
                 size_t payload_len, uint64_t nonce, cs_hash_t *out);
/* The inputs of one CIP-5 §3.3 timer id (cs_timer_id's arguments). */
typedef struct cs_timer_id_in {
    const cs_addr_t *actor; /* owner */
    uint64_t height;        /* due height (HEIGHT, INTERVAL) or the scheduling block (WATCH) */
    const void *payload;    /* the payload as given; may be NULL when payload_len is 0 */
    size_t payload_len;     /* bytes */
    uint64_t nonce;         /* the owner's schedule counter */
} cs_timer_id_in_t;
/* out[k] = cs_timer_id of in[k] for k < n, one-block preimages batched
 * (cs_keccak_permute_many); the same ids as cs_timer_id on every path. */
void cs_timer_id_many(const cs_timer_id_in_t *in, size_t n, cs_hash_t *out);

/*
 * CIP-5 §4.2 custom handler convention: if payload is the JSON object
 * {"_handler": name, "_payload": base64}, store the handler name (NUL
 * terminated, at most CS_MAX_HANDLER bytes) into handler and the decoded
 * inner payload into *inner (malloc'd, caller frees) and return 1.  Return 0
 * when the payload does not follow the convention (default handler), or a
 * negative cs_err on allocation failure / oversize handler.
 */
int cs_payload_route(const uint8_t *payload, size_t len, char handler[CS_MAX_HANDLER + 1],
                     uint8_t **inner, size_t *inner_len);

#endif /* CS_TIMER_H */

/*
 * cs_error.h -- the one cowsim error enum (DESIGN §2.9, STYLE §4).
 *
 * The enum and cs_strerror() are generated from one X-macro table so the
 * names, codes and messages can never drift apart.  The spec's named
 * outcomes (CIP-1 rev §6, §9; CIP-5 CN §7.1) sit beside the input and I/O
 * errors.  The core returns these codes; it never prints or exits.
 */
#ifndef CS_ERROR_H
#define CS_ERROR_H

#define CS_ERRNO_MAP(X)                                                              \
    X(OK, "success")                                                                 \
    X(ENOMEM, "out of memory")                                                       \
    X(EINVAL, "invalid argument")                                                    \
    X(EOVERFLOW, "arithmetic overflow")                                              \
    X(ERANGE, "value out of range")                                                  \
    X(EPAYLOAD_TOO_LARGE, "payload exceeds 1,048,576 bytes (CIP-5 §4.2)")            \
    X(EHANDLER_TOO_LONG, "handler name exceeds 256 bytes (CIP-5 §4.2)")              \
    X(ETIMER_ID_TOO_LONG, "timer_id exceeds 256 bytes (CIP-5 §3.1)")                 \
    X(EHEIGHT_NOT_FUTURE, "height must be greater than the current height (CIP-5 §4.2)") \
    X(ETOO_MANY_TIMERS, "actor already holds MAX_TIMERS_PER_ACTOR timers (CIP-5 §8)") \
    X(ETIMER_NOT_FOUND, "timer not found (ERR_TIMER_NOT_FOUND)")                     \
    X(ETIMER_EXISTS, "a timer with this id already exists")                          \
    X(ENOT_OWNER, "caller does not own this timer")                                  \
    X(EINVALID_PARAM, "invalid timer parameter (ERR_INVALID_PARAM)")                 \
    X(EQUOTA_EXCEEDED, "quota exceeded (ERR_QUOTA_EXCEEDED)")                        \
    X(EUNSUPPORTED_TIMER_TYPE, "unsupported timer type (ERR_UNSUPPORTED_TIMER_TYPE)") \
    X(EBELOW_BASEFEE, "max_fee below the lane basefee (TimerRejectedBelowBasefee)")  \
    X(EARG_DEPRECATED, "legacy bid argument rejected (TimerArgDeprecated)")          \
    X(EOVER_CAP, "gas limit above the per-fire cap")                                 \
    X(EINSUFFICIENT_FUNDS, "insufficient funds (TimerCancelledInsufficientFunds)")   \
    X(ENO_TX, "no transaction is open")                                              \
    X(ETX_OPEN, "a transaction is already open")                                     \
    X(EUNKNOWN_MECHANISM, "unknown mechanism")                                       \
    X(EUNKNOWN_AGENT, "unknown agent kind")                                          \
    X(EINVARIANT, "ledger or timer-accounting invariant violated")                   \
    X(EPARSE, "malformed input")                                                     \
    X(EIO, "input/output error")                                                     \
    X(EINTERRUPTED, "interrupted")                                                   \
    X(EGAS_LIMIT_TOO_LOW, "gas limit below MIN_GAS_LIMIT_PER_TIMER (CIP-5 CN §13, §15)") \
    X(ECORRUPT, "corrupt file (a checksum or a cross-check of its tables failed)") \
    X(EBOOKING_REFUSED, "booking refused: the slot or class is full, or the slot is beyond the booking window")

typedef enum cs_err {
#define CS__ERR_ENUM(name, msg) CS_##name,
    CS_ERRNO_MAP(CS__ERR_ENUM)
#undef CS__ERR_ENUM
    CS_ERR__COUNT
} cs_err;

/* Static string for code e; never NULL (unknown codes get a fixed text). */
const char *cs_strerror(int e);
/* The symbolic name, e.g. "CS_EBELOW_BASEFEE". */
const char *cs_errname(int e);

#endif /* CS_ERROR_H */

/* A test-only store wrapper for fault injection: it forwards every verb to
 * the store it wraps, and can drop or fail one chosen write of one chosen
 * batch, leaving the rest applied, as a non-atomic (HBase) batch would. A
 * sidecar cell (codec/keys.h) is applied, dropped or failed with its row's
 * item, as HBase applies one row's cells together. */
#pragma once
#include "store/store.h"

typedef enum {
  AB_FAULT_DROP, /* the item is skipped silently; the batch reports success */
  AB_FAULT_FAIL, /* items before it are applied, it and the rest are not;
                    the batch fails with AB_STORE_ERROR_INJECTED */
} AbFaultKind;

/* Takes ownership of inner (closed with the wrapper). The wrapper says its
 * batches are not atomic. */
AbStore *ab_store_fault_new (AbStore *inner);

/* Arms one fault: in the nth batch from now (1 = the next batch call),
 * item `item` (0-based, in batch order) is dropped or fails. A batch with
 * fewer items passes unharmed and the fault stays armed for nothing: it
 * fires on that batch or never. Re-arming replaces the previous fault. */
void ab_store_fault_arm (AbStore *s, AbFaultKind kind, guint nth_batch, guint item);
void ab_store_fault_disarm (AbStore *s);
/* The next check-and-put of key fails (AB_STORE_ERROR_INJECTED), once. */
void ab_store_fault_fail_check_and_put (AbStore *s, const guint8 *key, gsize klen);
/* The nth check-and-put from now (1 = the next) is applied, and its caller
 * told it failed (AB_STORE_ERROR_INJECTED): its answer lost on the way back,
 * as when HBase dies between its write and its reply. */
void ab_store_fault_lose_check_and_put (AbStore *s, guint nth);
/* While refuse: every check-and-put fails (a store down for locks). */
void ab_store_fault_refuse_check_and_put (AbStore *s, gboolean refuse);
/* While refuse: every check-and-delete fails (a lock release cut off). */
void ab_store_fault_refuse_check_and_delete (AbStore *s, gboolean refuse);
/* Check-and-put calls seen since the wrapper was made. */
guint ab_store_fault_check_and_puts (AbStore *s);
/* Slow calls, as of a store reassigning its regions: from now each call
 * of `what` takes ms longer (every check-and-put, every get and multi-get,
 * or the nth_batch-th batch call from now, nth_batch >= 1). AB_SLOW_NONE
 * ends it. */
typedef enum { AB_SLOW_NONE, AB_SLOW_LOCKS, AB_SLOW_READS, AB_SLOW_BATCH } AbSlowCall;
void ab_store_fault_slow (AbStore *s, AbSlowCall what, guint nth_batch, guint ms);
/* TRUE once the armed fault hit an item. */
gboolean ab_store_fault_fired (AbStore *s);
/* Batch calls seen since the wrapper was made. */
guint ab_store_fault_batches (AbStore *s);

/* queue/v1 (docs/data-model.md §12): a queue is an immutable edge table whose
 * comment is "queue/v1 {"partitions":N}"; partition = source, message id =
 * target (a ULID), seq = version and the indexed `seq` property. */
#pragma once
#include "engine/engine.h"

typedef struct {
  gchar *ns;
  gchar *queue;
  gchar *storage;
  gint64 partitions;
  gboolean enabled;
} AbQueueInfo;

void ab_queue_info_clear (AbQueueInfo *q);

gboolean ab_queue_create (AbEngine *engine, const gchar *ns, const gchar *queue,
                          const gchar *storage, gint64 partitions, const gchar *actor,
                          AbQueueInfo *out, GError **error);
/* NOT_FOUND when there is no such queue. */
gboolean ab_queue_get (AbEngine *engine, const gchar *ns, const gchar *queue, AbQueueInfo *out,
                       GError **error);
gboolean ab_queue_set_enabled (AbEngine *engine, const gchar *ns, const gchar *queue,
                               gboolean enabled, const gchar *actor, AbQueueInfo *out,
                               GError **error);
/* CONFLICT while enabled. */
gboolean ab_queue_delete (AbEngine *engine, const gchar *ns, const gchar *queue, GError **error);

typedef struct {
  gint64 partition;
  gchar id[27];
  AbKeyStatus status;
} AbEnqueued;

/* messages = [{key, seq, value?}]; results in request order. */
GArray *ab_queue_enqueue (AbEngine *engine, const gchar *ns, const gchar *queue,
                          JsonArray *messages, guint *accepted, GError **error);

typedef struct {
  gchar *id;
  gint64 seq;
  JsonNode *value;
} AbQueueMessage;

typedef struct {
  GPtrArray *messages; /* AbQueueMessage* */
  gboolean has_offset;
  gint64 offset;
  gboolean has_next;
} AbQueuePage;

void ab_queue_page_free (AbQueuePage *p);
AbQueuePage *ab_queue_poll (AbEngine *engine, const gchar *ns, const gchar *queue, gint64 partition,
                            const gint64 *offset, const gint64 *until, gint limit, GError **error);
/* Deletes every message with seq <= offset in the partition. */
gboolean ab_queue_commit (AbEngine *engine, const gchar *ns, const gchar *queue, gint64 partition,
                          gint64 offset, guint64 *committed, GError **error);
/* floorMod(signed xxhash32(key), partitions). */
gint64 ab_queue_partition_of (const gchar *key, gint64 partitions);

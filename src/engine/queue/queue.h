/* queue/v1 (docs/data-model.md §12) over immutable edge tables, both forms:
 * /namespaces (comment "queue/v1 {"partitions":N}", ULID ids, `seq` = version)
 * and /databases (queue_db.c: comment with partitionCount and orderBy). */
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

/* One enqueued message (both forms); arrays of them clear the ids. */
typedef struct {
  gint64 partition;
  gchar *id; /* a ULID here, the caller's in the databases form */
  AbKeyStatus status;
} AbEnqueued;

GArray *ab_enqueued_array_new (guint n);

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

/* ---- upstream's other form: /queue/v1/databases/{database}/queues
 * (queue_db.c, docs/rest-api.md §6.1). A queue is an immutable edge table of
 * an existing database whose comment is
 * "queue/v1 {"partitionCount":N,"orderBy":"F"}"; partition = source (long),
 * the client's message id = target (string), the order value = version and
 * the declared LONG property F, indexed ASC by the index "order". */
typedef struct {
  gchar *database;
  gchar *queue;
  gchar *storage;
  gint64 partition_count;
  gchar *order_by;
} AbQueueDbInfo;

void ab_queue_db_info_clear (AbQueueDbInfo *q);

/* request = {queue, storage, partitionCount?, orderBy?, properties?:
 * [{name, type, nullable?, comment?}], comment?}; BAD_REQUEST with
 * upstream's messages when a rule is broken. */
gboolean ab_queue_db_create (AbEngine *engine, const gchar *database, JsonObject *request,
                             const gchar *actor, AbQueueDbInfo *out, GError **error);
/* NOT_FOUND without such a table; BAD_REQUEST for a table that is not a
 * queue of this form. */
gboolean ab_queue_db_get (AbEngine *engine, const gchar *database, const gchar *queue,
                          AbQueueDbInfo *out, GError **error);
/* Deactivates the queue's table, then deletes it. */
gboolean ab_queue_db_delete (AbEngine *engine, const gchar *database, const gchar *queue,
                             const gchar *actor, GError **error);

/* messages = [{key, id, payload}]: one result per distinct (partition, id),
 * in request order (the array frees the ids). */
GArray *ab_queue_db_enqueue (AbEngine *engine, const gchar *database, const gchar *queue,
                             JsonArray *messages, const gchar *actor, guint *accepted,
                             GError **error);

typedef struct {
  gint64 partition;
  gint64 order;
  const AbEdgeOut *edge; /* id = target, payload = properties; owned by the page */
} AbQueueDbMessage;

typedef struct {
  GArray *messages;  /* AbQueueDbMessage, by order then partition */
  GPtrArray *frames; /* AbEdgeFrame*, the scans the messages point into */
  gchar *cursor;     /* NULL when no partition has a position yet */
  gboolean has_next;
} AbQueueDbPage;

void ab_queue_db_page_free (AbQueueDbPage *p);
/* The partitions p of the queue with p mod shard_count == shard_index, up
 * to limit (1..1000) messages each past the cursor's position (NULL or ""
 * for none), merged by order value. */
AbQueueDbPage *ab_queue_db_poll (AbEngine *engine, const gchar *database, const gchar *queue,
                                 gint64 shard_index, gint64 shard_count, gint64 limit,
                                 const gchar *cursor, GError **error);

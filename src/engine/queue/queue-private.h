/* What the two queue/v1 forms (queue.c, queue_db.c) share inside
 * src/engine/queue and nowhere else: finding a queue's table, building and
 * running an enqueue's INSERTs. The folder's face to others is queue.h. */
#pragma once
#include "engine/core/core.h"
#include "engine/queue/queue.h"

/* A queue's table (a reference), the catalog reloaded once on a miss (a
 * queue made on another node); NULL when there is none. */
AbTableDesc *ab_queue_lookup (AbEngine *engine, const gchar *db, const gchar *table);

/* Fills a form's info from its table; FALSE when the table is not a queue
 * of that form. */
typedef gboolean (*AbQueueParse) (const AbTableDesc *t, gpointer info);
/* The queue's table (a reference) that parse accepts, its info in *info;
 * NULL without a table (*found FALSE) or when parse refuses it (*found TRUE). */
AbTableDesc *ab_queue_table (AbEngine *engine, const gchar *db, const gchar *table,
                             AbQueueParse parse, gpointer info, gboolean *found);
/* Makes the queue's table from proto, its info (parse) in *info. */
gboolean ab_queue_create_table (AbEngine *engine, AbTableDesc *proto, const gchar *actor,
                                AbQueueParse parse, gpointer info, GError **error);

/* One message messages[i] as an INSERT item added to b (ab_queue_add_insert),
 * its partition and id in *out; ctx is the form's queue. */
typedef gboolean (*AbQueueItem) (JsonNode *message, guint i, gconstpointer ctx, JsonBuilder *b,
                                 AbEnqueued *out, GError **error);
/* The mutation body {"mutations":[...]} of the messages, *items (an
 * ab_enqueued_array_new) one per message in request order; NULL at the
 * first message item refuses. */
JsonNode *ab_queue_body (JsonArray *messages, AbQueueItem item, gconstpointer ctx, GArray **items,
                         GError **error);
/* {"type":"INSERT","edge":{version, source: partition, target: id,
 * properties}}; properties is taken (transfer full). */
void ab_queue_add_insert (JsonBuilder *b, gint64 version, gint64 partition, const gchar *id,
                          JsonNode *properties);
/* Writes body into db.table as a synchronous request without edge locks
 * (an append reads nothing it could race on): ab_engine_mutate's results. */
GArray *ab_queue_append (AbEngine *engine, const gchar *db, const gchar *table, JsonNode *body,
                         const gchar *actor, GError **error);

/* libactionbase queues (queue/v1): create, drop, enqueue, poll, commit over
 * the engine's queue layer. Message values are JSON documents by nature and
 * travel as JSON text. */
#include "lib/lib-private.h"
#include "engine/queue/queue.h"
#include "model/types.h"

#define ACTOR "libactionbase"

gboolean
ab_db_queue_create (AbDb *db, const char *ns, const char *queue, guint partitions, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (ns, "ns", error)
      || !ab_lib_require (queue, "queue", error))
    return FALSE;
  AbQueueInfo info = { 0 };
  GError *local = NULL;
  g_autofree gchar *storage = g_strdup_printf ("datastore://queue/%s", queue);
  gboolean ok = ab_queue_create (db->engine, ns, queue, storage, partitions, ACTOR, &info, &local);
  ab_queue_info_clear (&info);
  if (!ok)
    ab_lib_propagate (error, local);
  return ok;
}

gboolean
ab_db_queue_drop (AbDb *db, const char *ns, const char *queue, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (ns, "ns", error)
      || !ab_lib_require (queue, "queue", error))
    return FALSE;
  AbQueueInfo info = { 0 };
  GError *local = NULL;
  gboolean ok = ab_queue_set_enabled (db->engine, ns, queue, FALSE, ACTOR, &info, &local)
                && ab_queue_delete (db->engine, ns, queue, &local);
  ab_queue_info_clear (&info);
  if (!ok)
    ab_lib_propagate (error, local);
  return ok;
}

gboolean
ab_db_queue_enqueue (AbDb *db, const char *ns, const char *queue, const AbDbMessage *messages,
                     guint n_messages, guint *accepted, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (ns, "ns", error)
      || !ab_lib_require (queue, "queue", error))
    return FALSE;
  g_autoptr (JsonArray) arr = json_array_sized_new (n_messages);
  for (guint i = 0; i < n_messages; i++)
    {
      JsonObject *o = json_object_new ();
      if (messages[i].key != NULL)
        json_object_set_string_member (o, "key", messages[i].key);
      json_object_set_int_member (o, "seq", messages[i].seq);
      if (messages[i].value_json != NULL)
        {
          GError *local = NULL;
          JsonNode *v = ab_model_json_parse (messages[i].value_json, -1, &local);
          if (v == NULL)
            {
              json_object_unref (o);
              return ab_lib_propagate (error, local), FALSE;
            }
          json_object_set_member (o, "value", v);
        }
      json_array_add_object_element (arr, o);
    }
  guint taken = 0;
  GError *local = NULL;
  g_autoptr (GArray) res = ab_queue_enqueue (db->engine, ns, queue, arr, &taken, &local);
  if (res == NULL)
    return ab_lib_propagate (error, local), FALSE;
  if (accepted != NULL)
    *accepted = taken;
  return TRUE;
}

struct _AbDbPoll {
  AbQueuePage *page;
  gchar **values; /* JSON text per message, lazily */
};

AbDbPoll *
ab_db_queue_poll (AbDb *db, const char *ns, const char *queue, guint partition,
                  const gint64 *offset, guint limit, GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (ns, "ns", error)
      || !ab_lib_require (queue, "queue", error))
    return NULL;
  GError *local = NULL;
  AbQueuePage *page = ab_queue_poll (db->engine, ns, queue, partition, offset, NULL,
                                     ab_lib_limit (limit), &local);
  if (page == NULL)
    return ab_lib_propagate (error, local), NULL;
  AbDbPoll *p = g_new0 (AbDbPoll, 1);
  p->page = page;
  p->values = g_new0 (gchar *, page->messages->len + 1);
  return p;
}

/* What the accessors read past the end (after the critical): a message of
 * empty values. */
static const AbQueueMessage NO_MESSAGE = { 0 };

static const AbQueueMessage *
message_at (const AbDbPoll *poll, guint i)
{
  g_return_val_if_fail (i < poll->page->messages->len, &NO_MESSAGE);
  return poll->page->messages->pdata[i];
}

guint
ab_db_poll_len (const AbDbPoll *poll)
{
  return poll->page->messages->len;
}

const char *
ab_db_poll_id (const AbDbPoll *poll, guint i)
{
  return message_at (poll, i)->id;
}

gint64
ab_db_poll_seq (const AbDbPoll *poll, guint i)
{
  return message_at (poll, i)->seq;
}

const char *
ab_db_poll_value (const AbDbPoll *poll, guint i)
{
  const AbQueueMessage *m = message_at (poll, i);
  if (m->value == NULL || JSON_NODE_HOLDS_NULL (m->value))
    return NULL;
  if (poll->values[i] == NULL)
    poll->values[i] = json_to_string (m->value, FALSE);
  return poll->values[i];
}

gboolean
ab_db_poll_offset (const AbDbPoll *poll, gint64 *offset)
{
  if (!poll->page->has_offset)
    return FALSE;
  *offset = poll->page->offset;
  return TRUE;
}

void
ab_db_poll_free (AbDbPoll *poll)
{
  if (poll == NULL)
    return;
  ab_queue_page_free (poll->page);
  g_strfreev (poll->values);
  g_free (poll);
}

gboolean
ab_db_queue_commit (AbDb *db, const char *ns, const char *queue, guint partition, gint64 offset,
                    GError **error)
{
  if (!ab_lib_require (db, "db", error) || !ab_lib_require (ns, "ns", error)
      || !ab_lib_require (queue, "queue", error))
    return FALSE;
  guint64 committed = 0;
  GError *local = NULL;
  if (ab_queue_commit (db->engine, ns, queue, partition, offset, &committed, &local))
    return TRUE;
  ab_lib_propagate (error, local);
  return FALSE;
}

guint
ab_db_queue_partition (const char *key, guint partitions)
{
  return partitions == 0 || key == NULL ? 0 : (guint) ab_queue_partition_of (key, partitions);
}

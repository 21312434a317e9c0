/* The Kafka sink's reader: one consumer in the sink's group (by default
 * "actionbase-applier-<topic>", no auto commit, earliest offset when the group
 * has none), entries positioned by (partition, next offset), explicit commits. */
#define G_LOG_DOMAIN "ab-kafka"
#include <string.h>
#include "wal/sink_kafka-private.h"

#define POSITION_LEN 12 /* be32 partition, be64 offset of the next record */
#define CLOSE_TIMEOUT_US (5 * G_USEC_PER_SEC)

typedef struct {
  gint32 partition;
  gint64 next;
} Seen;

typedef struct {
  AbSinkReader base;
  rd_kafka_t *rk;
  gboolean has_from; /* first assignment of from_partition starts there */
  gint32 from_partition;
  gint64 from_next;
  GArray *seen; /* Seen of the entries read and not yet committed */
} KafkaReader;

/* A position is where reading resumes: the record's offset + 1, which is
 * also the offset Kafka commits for "applied up to this record". */
static GBytes *
position_new (gint32 partition, gint64 next)
{
  guint8 b[POSITION_LEN];
  guint32 p = GUINT32_TO_BE ((guint32) partition);
  guint64 o = GUINT64_TO_BE ((guint64) next);
  memcpy (b, &p, 4);
  memcpy (b + 4, &o, 8);
  return g_bytes_new (b, sizeof b);
}

static gboolean
position_parse (GBytes *pos, gint32 *partition, gint64 *next, GError **error)
{
  gsize len = 0;
  const guint8 *b = pos != NULL ? g_bytes_get_data (pos, &len) : NULL;
  if (len != POSITION_LEN)
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_IO, "bad Kafka WAL position");
      return FALSE;
    }
  guint32 p;
  guint64 o;
  memcpy (&p, b, 4);
  memcpy (&o, b + 4, 8);
  *partition = (gint32) GUINT32_FROM_BE (p);
  *next = (gint64) GUINT64_FROM_BE (o);
  return TRUE;
}

/* Eager assignment; the first time the reader's starting partition comes,
 * it starts at the given position instead of the group's committed offset. */
static void
on_rebalance (rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts,
              void *opaque)
{
  KafkaReader *r = opaque;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS)
    {
      for (int i = 0; r->has_from && i < parts->cnt; i++)
        if (parts->elems[i].partition == r->from_partition)
          {
            parts->elems[i].offset = r->from_next;
            r->has_from = FALSE;
          }
      rd_kafka_assign (rk, parts);
    }
  else
    {
      rd_kafka_assign (rk, NULL);
      g_array_set_size (r->seen, 0);
    }
}

static rd_kafka_t *
consumer_new (AbKafkaSink *k, KafkaReader *r, GError **error)
{
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new ();
  /* A short session lets a restarted server (after kill -9) take over the
   * partition within ~10 s instead of the default 45 s. */
  const gchar *kv[] = {
    "bootstrap.servers",
    k->hosts,
    "group.id",
    k->group,
    "client.id",
    "actionbase-applier",
    "enable.auto.commit",
    "false",
    "enable.auto.offset.store",
    "false",
    "auto.offset.reset",
    "earliest",
    "allow.auto.create.topics",
    "false",
    "session.timeout.ms",
    "10000",
    "heartbeat.interval.ms",
    "3000",
    /* also the group's rebalance timeout: after a broker restart the
     * coordinator waited up to the default 300 s for members to rejoin
     * before it assigned the partition again (the applier applied nothing
     * meanwhile). An applier retrying a batch through a store outage for
     * longer leaves the group and rejoins at its next read, from the last
     * committed position (re-applying is harmless). */
    "max.poll.interval.ms",
    "20000",
    "reconnect.backoff.max.ms",
    "1000",
    "topic.metadata.refresh.interval.ms",
    "10000",
    NULL,
  };
  for (guint i = 0; kv[i] != NULL; i += 2)
    if (!ab_kafka_conf_set (conf, kv[i], kv[i + 1], error))
      {
        rd_kafka_conf_destroy (conf);
        return NULL;
      }
  rd_kafka_conf_set_opaque (conf, r);
  rd_kafka_conf_set_rebalance_cb (conf, on_rebalance);
  rd_kafka_conf_set_log_cb (conf, ab_kafka_log_cb);
  rd_kafka_t *rk = rd_kafka_new (RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == NULL)
    {
      rd_kafka_conf_destroy (conf);
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "kafka consumer: %s", err);
    }
  return rk;
}

AbSinkReader *
ab_kafka_open_reader (AbSink *s, GBytes *from, GError **error)
{
  AbKafkaSink *k = (AbKafkaSink *) s;
  KafkaReader *r = g_new0 (KafkaReader, 1);
  r->base.sink = s;
  r->seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  if (from != NULL && !position_parse (from, &r->from_partition, &r->from_next, error))
    goto fail;
  r->has_from = from != NULL;
  if ((r->rk = consumer_new (k, r, error)) == NULL)
    goto fail;
  rd_kafka_poll_set_consumer (r->rk);
  rd_kafka_topic_partition_list_t *topics = rd_kafka_topic_partition_list_new (1);
  rd_kafka_topic_partition_list_add (topics, k->topic, RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t err = rd_kafka_subscribe (r->rk, topics);
  rd_kafka_topic_partition_list_destroy (topics);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
    return &r->base;
  g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE, "kafka subscribe to %s: %s",
               k->topic, rd_kafka_err2str (err));
fail:
  ab_kafka_close_reader (&r->base);
  return NULL;
}

static AbSinkEntry *
entry_new (KafkaReader *r, const rd_kafka_message_t *m)
{
  AbSinkEntry *e = g_new0 (AbSinkEntry, 1);
  e->record.key = m->key != NULL ? g_strndup (m->key, m->key_len) : g_strdup ("");
  e->record.value = m->payload != NULL ? g_strndup (m->payload, m->len) : g_strdup ("");
  e->position = position_new (m->partition, m->offset + 1);
  Seen seen = { m->partition, m->offset + 1 };
  g_array_append_val (r->seen, seen);
  return e;
}

/* Waits up to timeout_ms for the first record, then takes what is already
 * fetched (up to max). Transient consumer errors (broker down, topic not yet
 * there) are logged at debug level and waited out. */
gboolean
ab_kafka_read (AbSinkReader *base, guint max, gint timeout_ms, GPtrArray *out, GError **error)
{
  KafkaReader *r = (KafkaReader *) base;
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  guint got = 0;
  while (got < max)
    {
      gint64 left = got > 0 ? 0 : (deadline - g_get_monotonic_time ()) / 1000;
      rd_kafka_message_t *m = rd_kafka_consumer_poll (r->rk, (int) MAX (left, 0));
      if (m != NULL && m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
        {
          g_ptr_array_add (out, entry_new (r, m));
          got++;
        }
      else if (m != NULL)
        {
          gboolean fatal = m->err == RD_KAFKA_RESP_ERR__FATAL;
          g_debug ("kafka reader: %s", rd_kafka_message_errstr (m));
          if (fatal)
            g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_IO, "kafka consumer: %s",
                         rd_kafka_message_errstr (m));
          rd_kafka_message_destroy (m);
          if (fatal)
            return FALSE;
          m = NULL;
        }
      if (m != NULL)
        rd_kafka_message_destroy (m);
      else if (got > 0 || g_get_monotonic_time () >= deadline)
        break;
    }
  return TRUE;
}

/* Commits, per partition, the furthest position read up to and including
 * the given entry, so the group resumes after the last applied record. */
gboolean
ab_kafka_commit (AbSinkReader *base, GBytes *position, GError **error)
{
  KafkaReader *r = (KafkaReader *) base;
  AbKafkaSink *k = (AbKafkaSink *) base->sink;
  gint32 partition;
  gint64 next;
  if (!position_parse (position, &partition, &next, error))
    return FALSE;
  guint upto = 0;
  while (upto < r->seen->len
         && !(g_array_index (r->seen, Seen, upto).partition == partition
              && g_array_index (r->seen, Seen, upto).next == next))
    upto++;
  gboolean found = upto < r->seen->len;
  rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new (4);
  rd_kafka_topic_partition_list_add (list, k->topic, partition)->offset = next;
  for (guint i = 0; found && i <= upto; i++)
    {
      Seen *s = &g_array_index (r->seen, Seen, i);
      rd_kafka_topic_partition_t *tp
          = rd_kafka_topic_partition_list_find (list, k->topic, s->partition);
      if (tp == NULL)
        tp = rd_kafka_topic_partition_list_add (list, k->topic, s->partition);
      tp->offset = MAX (tp->offset, s->next);
    }
  rd_kafka_resp_err_t err = rd_kafka_commit (r->rk, list, 0);
  rd_kafka_topic_partition_list_destroy (list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE, "kafka commit to %s: %s",
                   k->group, rd_kafka_err2str (err));
      return FALSE;
    }
  if (found)
    g_array_remove_range (r->seen, 0, upto + 1);
  return TRUE;
}

/* Serves the close queue as events: records fetched but not read yet come
 * out there too, and rd_kafka_queue_poll_callback () aborts the process on
 * them (no consume_cb); they are dropped, uncommitted, for the next reader. */
static void
close_queue_serve (KafkaReader *r, rd_kafka_queue_t *q, gint timeout_ms)
{
  rd_kafka_event_t *ev = rd_kafka_queue_poll (q, timeout_ms);
  if (ev == NULL)
    return;
  if (rd_kafka_event_type (ev) == RD_KAFKA_EVENT_REBALANCE)
    on_rebalance (r->rk, rd_kafka_event_error (ev), rd_kafka_event_topic_partition_list (ev), r);
  rd_kafka_event_destroy (ev);
}

/* Leaves the group (bounded: the broker may be gone) and frees the handle. */
void
ab_kafka_close_reader (AbSinkReader *base)
{
  KafkaReader *r = (KafkaReader *) base;
  if (r->rk != NULL)
    {
      rd_kafka_queue_t *q = rd_kafka_queue_new (r->rk);
      rd_kafka_error_t *e = rd_kafka_consumer_close_queue (r->rk, q);
      gint64 deadline = g_get_monotonic_time () + CLOSE_TIMEOUT_US;
      if (e != NULL)
        {
          g_debug ("kafka reader close: %s", rd_kafka_error_string (e));
          rd_kafka_error_destroy (e);
        }
      else
        while (!rd_kafka_consumer_closed (r->rk) && g_get_monotonic_time () < deadline)
          close_queue_serve (r, q, 100);
      rd_kafka_queue_destroy (q);
      rd_kafka_destroy_flags (r->rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    }
  g_array_unref (r->seen);
  g_free (r);
}

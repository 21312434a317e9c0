/* The Kafka sink (kafka://HOST:PORT[,HOST:PORT]/TOPIC[?options]): two
 * idempotent acks=all producers, one for durable appends (bounded wait for
 * every acknowledgement) and one for queued appends (bounded queue, drops
 * counted), a broker health probe, and topic creation (1 partition). */
#define G_LOG_DOMAIN "ab-kafka"
#include <string.h>
#include "wal/sink_kafka-private.h"

#define LOG_EVERY_US (10 * G_USEC_PER_SEC)
#define PROBE_UP_US (2 * G_USEC_PER_SEC)
#define PROBE_DOWN_US (1 * G_USEC_PER_SEC)
#define PROBE_TIMEOUT_MS 1000

/* A durable append waits on this until every record is acknowledged; one
 * reference per record in flight plus the caller's (g_atomic_rc_box). */
typedef struct {
  GMutex lock;
  GCond cond;
  guint pending;
  guint failed;
  gchar *first_error;
} Waiter;

static void
waiter_clear (gpointer data)
{
  Waiter *w = data;
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_free (w->first_error);
}

gboolean
ab_kafka_conf_set (rd_kafka_conf_t *conf, const gchar *key, const gchar *value, GError **error)
{
  char err[256];
  if (rd_kafka_conf_set (conf, key, value, err, sizeof err) == RD_KAFKA_CONF_OK)
    return TRUE;
  g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "kafka %s=%s: %s", key, value, err);
  return FALSE;
}

/* Connection noise goes to debug (the sink's own warnings say when the
 * broker is down or back); configuration warnings are shown. */
void
ab_kafka_log_cb (const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
  if (level <= 4 && g_str_equal (fac, "CONFWARN"))
    g_warning ("%s: %s", rd_kafka_name (rk), buf);
  else
    g_debug ("%s %s: %s", rd_kafka_name (rk), fac, buf);
}

/* ---- health ---- */

/* Called for every acknowledged record: lock-free while already up. */
static void
mark_up (AbKafkaSink *k)
{
  if (!atomic_load (&k->down))
    return;
  g_mutex_lock (&k->state_lock);
  if (k->down_reason != NULL)
    g_message ("kafka %s/%s: reachable again, publishing resumes", k->hosts, k->topic);
  g_clear_pointer (&k->down_reason, g_free);
  atomic_store (&k->down, 0);
  g_mutex_unlock (&k->state_lock);
}

static void
mark_down (AbKafkaSink *k, gchar *reason /* owned */)
{
  g_mutex_lock (&k->state_lock);
  if (k->down_reason == NULL)
    g_warning ("kafka %s/%s: %s", k->hosts, k->topic, reason);
  g_free (k->down_reason);
  k->down_reason = reason;
  atomic_store (&k->down, 1);
  g_mutex_unlock (&k->state_lock);
}

/* Errors that say the broker cannot be reached (rather than a bad record). */
static gboolean
is_unreachable (rd_kafka_resp_err_t err)
{
  return err == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT || err == RD_KAFKA_RESP_ERR__TRANSPORT
         || err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN || err == RD_KAFKA_RESP_ERR__TIMED_OUT
         || err == RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE || err == RD_KAFKA_RESP_ERR__RESOLVE;
}

/* Counts n lost records and warns at most every LOG_EVERY_US per kind. */
static void
count_lost (AbKafkaSink *k, gboolean dropped, guint64 n, const gchar *why)
{
  atomic_fetch_add (dropped ? &k->base.stats.dropped : &k->base.stats.errors, n);
  gint64 now = g_get_monotonic_time ();
  gint64 *at = dropped ? &k->drop_logged_at : &k->error_logged_at;
  guint64 *pending = dropped ? &k->drops_unlogged : &k->errors_unlogged;
  g_mutex_lock (&k->state_lock);
  *pending += n;
  if (*at == 0 || now - *at >= LOG_EVERY_US)
    {
      g_warning ("kafka %s/%s: %" G_GUINT64_FORMAT " record(s) %s (%s)", k->hosts, k->topic,
                 *pending, dropped ? "dropped: the bounded queue is full" : "not delivered", why);
      *at = now;
      *pending = 0;
    }
  g_mutex_unlock (&k->state_lock);
}

/* ---- topic creation and the broker probe ---- */

/* Creates the topic with one partition (per-key order is the WAL's contract,
 * and one partition keeps every key's records in one ordered log) and the
 * broker's default replication factor; an existing topic is fine. */
static rd_kafka_resp_err_t
ensure_topic (AbKafkaSink *k, rd_kafka_t *rk, gint timeout_ms, gchar **why)
{
  char err[256];
  rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new (k->topic, 1, -1, err, sizeof err);
  if (nt == NULL)
    {
      *why = g_strdup (err);
      return RD_KAFKA_RESP_ERR__INVALID_ARG;
    }
  rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new (rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_request_timeout (opt, timeout_ms, err, sizeof err);
  rd_kafka_AdminOptions_set_operation_timeout (opt, timeout_ms, err, sizeof err);
  rd_kafka_queue_t *q = rd_kafka_queue_new (rk);
  rd_kafka_CreateTopics (rk, &nt, 1, opt, q);
  rd_kafka_event_t *ev = rd_kafka_queue_poll (q, timeout_ms + 1000);
  rd_kafka_resp_err_t rc = RD_KAFKA_RESP_ERR__TIMED_OUT;
  const rd_kafka_CreateTopics_result_t *res
      = ev != NULL ? rd_kafka_event_CreateTopics_result (ev) : NULL;
  size_t n = 0;
  const rd_kafka_topic_result_t **tr
      = res != NULL ? rd_kafka_CreateTopics_result_topics (res, &n) : NULL;
  if (ev != NULL && rd_kafka_event_error (ev) != RD_KAFKA_RESP_ERR_NO_ERROR)
    {
      rc = rd_kafka_event_error (ev);
      *why = g_strdup (rd_kafka_event_error_string (ev));
    }
  else if (n == 1)
    {
      rc = rd_kafka_topic_result_error (tr[0]);
      if (rc == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        rc = RD_KAFKA_RESP_ERR_NO_ERROR;
      else if (rc != RD_KAFKA_RESP_ERR_NO_ERROR)
        *why = g_strdup (rd_kafka_topic_result_error_string (tr[0]));
    }
  else
    *why = g_strdup ("no answer to CreateTopics");
  if (ev != NULL)
    rd_kafka_event_destroy (ev);
  rd_kafka_queue_destroy (q);
  rd_kafka_AdminOptions_destroy (opt);
  rd_kafka_NewTopic_destroy (nt);
  return rc;
}

/* One metadata round trip for the topic, creating it when the broker says
 * it does not exist: success marks the sink up, failure down with why. */
static void
probe (AbKafkaSink *k, rd_kafka_t *rk, gint timeout_ms)
{
  rd_kafka_topic_t *rkt = rd_kafka_topic_new (rk, k->topic, NULL);
  const struct rd_kafka_metadata *md = NULL;
  rd_kafka_resp_err_t err = rd_kafka_metadata (rk, 0, rkt, &md, timeout_ms);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1)
    err = md->topics[0].err;
  if (md != NULL)
    rd_kafka_metadata_destroy (md);
  rd_kafka_topic_destroy (rkt);
  g_autofree gchar *why = NULL;
  if (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
    {
      if ((err = ensure_topic (k, rk, timeout_ms, &why)) == RD_KAFKA_RESP_ERR_NO_ERROR)
        g_message ("kafka %s: created topic %s (1 partition)", k->hosts, k->topic);
      else
        {
          mark_down (k, g_strdup_printf ("cannot create topic %s: %s (%s)", k->topic,
                                         why != NULL ? why : "", rd_kafka_err2name (err)));
          return;
        }
    }
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
    mark_up (k);
  else
    mark_down (k, g_strdup_printf ("brokers %s unreachable: metadata request for %s failed: %s",
                                   k->hosts, k->topic, rd_kafka_err2str (err)));
}

/* ---- producers ---- */

static void
on_delivery (rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
  AbKafkaProducer *p = opaque;
  AbKafkaSink *k = p->sink;
  Waiter *w = m->_private;
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
    {
      if (w != NULL)
        atomic_fetch_add (&k->base.stats.appended, 1);
      mark_up (k);
    }
  else
    {
      if (is_unreachable (m->err))
        mark_down (k, g_strdup_printf ("brokers %s unreachable: delivery failed: %s", k->hosts,
                                       rd_kafka_err2str (m->err)));
      if (w == NULL)
        count_lost (k, FALSE, 1, rd_kafka_err2str (m->err));
      else
        atomic_fetch_add (&k->base.stats.errors, 1);
    }
  if (w == NULL)
    return;
  g_mutex_lock (&w->lock);
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR && w->failed++ == 0)
    w->first_error
        = g_strdup_printf ("%s%s", rd_kafka_err2str (m->err),
                           rd_kafka_message_status (m) == RD_KAFKA_MSG_STATUS_POSSIBLY_PERSISTED
                               ? " (the record may still have been persisted)"
                               : "");
  w->pending--;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  g_atomic_rc_box_release_full (w, waiter_clear);
}

static void
on_error (rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
  AbKafkaProducer *p = opaque;
  g_debug ("%s: %s: %s", rd_kafka_name (rk), rd_kafka_err2name (err), reason);
  /* A probe confirms (or not) that the broker is gone: idle connections
   * closed by the broker also raise "all brokers down". */
  if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN || err == RD_KAFKA_RESP_ERR__TRANSPORT)
    atomic_store (&p->sink->probe_now, 1);
}

static rd_kafka_t *
producer_new (AbKafkaProducer *p, GError **error)
{
  AbKafkaSink *k = p->sink;
  char err[512];
  g_autofree gchar *timeout
      = g_strdup_printf ("%d", p->durable ? k->durable_timeout_ms : k->queue_timeout_ms);
  g_autofree gchar *queue = g_strdup_printf ("%d", p->durable ? 100000 : k->queue_max);
  rd_kafka_conf_t *conf = rd_kafka_conf_new ();
  /* murmur2_random: the Java client's key -> partition mapping. */
  const gchar *kv[] = {
    "bootstrap.servers",
    k->hosts,
    "client.id",
    p->durable ? "actionbase-durable" : "actionbase",
    "enable.idempotence",
    "true",
    "acks",
    "all",
    "partitioner",
    "murmur2_random",
    "message.timeout.ms",
    timeout,
    "queue.buffering.max.messages",
    queue,
    "linger.ms",
    p->durable ? "1" : "5",
    "reconnect.backoff.max.ms",
    "1000",
    "allow.auto.create.topics",
    "false",
    NULL,
  };
  for (guint i = 0; kv[i] != NULL; i += 2)
    if (!ab_kafka_conf_set (conf, kv[i], kv[i + 1], error))
      {
        rd_kafka_conf_destroy (conf);
        return NULL;
      }
  rd_kafka_conf_set_opaque (conf, p);
  rd_kafka_conf_set_dr_msg_cb (conf, on_delivery);
  rd_kafka_conf_set_error_cb (conf, on_error);
  rd_kafka_conf_set_log_cb (conf, ab_kafka_log_cb);
  rd_kafka_t *rk = rd_kafka_new (RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == NULL)
    {
      rd_kafka_conf_destroy (conf);
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "kafka producer: %s", err);
    }
  return rk;
}

/* Fails whatever is still queued (delivery reports serve the waiters) and
 * destroys the handle. */
static void
producer_destroy_handle (rd_kafka_t *rk, gint flush_ms)
{
  if (flush_ms > 0)
    rd_kafka_flush (rk, flush_ms);
  rd_kafka_purge (rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (rd_kafka_outq_len (rk) > 0 && g_get_monotonic_time () < deadline)
    rd_kafka_poll (rk, 50);
  rd_kafka_destroy (rk);
}

/* After a fatal error (idempotence state lost) the handle cannot produce
 * again: replace it so publishing resumes without a restart. */
static void
producer_renew (AbKafkaProducer *p, const gchar *why)
{
  g_autoptr (GError) error = NULL;
  mark_down (p->sink, g_strdup_printf ("fatal producer error: %s", why));
  rd_kafka_t *fresh = producer_new (p, &error);
  if (fresh == NULL)
    {
      g_warning ("kafka: cannot renew the producer: %s", error->message);
      return;
    }
  g_rw_lock_writer_lock (&p->lock);
  rd_kafka_t *old = p->rk;
  p->rk = fresh;
  g_rw_lock_writer_unlock (&p->lock);
  producer_destroy_handle (old, 0);
}

/* Serves delivery reports and errors; the queued producer's thread also
 * probes the broker (often while it is down, now and then while it is up). */
static gpointer
producer_thread (gpointer data)
{
  AbKafkaProducer *p = data;
  AbKafkaSink *k = p->sink;
  gint64 next_probe = g_get_monotonic_time () + PROBE_UP_US;
  char why[512];
  while (!atomic_load (&k->stop))
    {
      gint asked = 1;
      g_rw_lock_reader_lock (&p->lock);
      rd_kafka_poll (p->rk, 100);
      rd_kafka_resp_err_t fatal = rd_kafka_fatal_error (p->rk, why, sizeof why);
      gboolean due = !p->durable
                     && (g_get_monotonic_time () >= next_probe
                         || atomic_compare_exchange_strong (&k->probe_now, &asked, 0));
      if (due)
        {
          probe (k, p->rk, PROBE_TIMEOUT_MS);
          next_probe
              = g_get_monotonic_time () + (atomic_load (&k->down) ? PROBE_DOWN_US : PROBE_UP_US);
        }
      g_rw_lock_reader_unlock (&p->lock);
      if (fatal != RD_KAFKA_RESP_ERR_NO_ERROR)
        producer_renew (p, why);
    }
  return NULL;
}

static gboolean
producer_start (AbKafkaSink *k, AbKafkaProducer *p, gboolean durable, GError **error)
{
  p->sink = k;
  p->durable = durable;
  g_rw_lock_init (&p->lock);
  p->rk = producer_new (p, error);
  if (p->rk == NULL)
    return FALSE;
  p->thread = g_thread_new (durable ? "ab-kafka-durable" : "ab-kafka", producer_thread, p);
  return TRUE;
}

static void
producer_stop (AbKafkaProducer *p, gint flush_ms)
{
  if (p->thread != NULL)
    g_thread_join (p->thread);
  if (p->rk != NULL)
    producer_destroy_handle (p->rk, flush_ms);
  if (p->sink != NULL)
    g_rw_lock_clear (&p->lock);
}

/* ---- appends ---- */

static rd_kafka_resp_err_t
produce (rd_kafka_t *rk, const gchar *topic, const AbSinkRecord *r, Waiter *w)
{
  size_t klen = r->key != NULL ? strlen (r->key) : 0;
  size_t vlen = r->value != NULL ? strlen (r->value) : 0;
  return rd_kafka_producev (rk, RD_KAFKA_V_TOPIC (topic), RD_KAFKA_V_MSGFLAGS (RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_KEY (r->key, klen), RD_KAFKA_V_VALUE (r->value, vlen),
                            RD_KAFKA_V_OPAQUE (w), RD_KAFKA_V_END);
}

/* Never blocks: a record the bounded queue cannot take is dropped (counted,
 * logged); the caller's request goes on. */
static gboolean
append_queued (AbKafkaSink *k, GPtrArray *records)
{
  AbKafkaProducer *p = &k->queued;
  guint accepted = 0, full = 0, failed = 0;
  rd_kafka_resp_err_t last = RD_KAFKA_RESP_ERR_NO_ERROR;
  g_rw_lock_reader_lock (&p->lock);
  for (guint i = 0; i < records->len; i++)
    {
      rd_kafka_resp_err_t err = produce (p->rk, k->topic, records->pdata[i], NULL);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
        accepted++;
      else if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL)
        full++;
      else
        {
          failed++;
          last = err;
        }
    }
  g_rw_lock_reader_unlock (&p->lock);
  atomic_fetch_add (&k->base.stats.appended, (gssize) accepted);
  if (full > 0)
    count_lost (k, TRUE, full, "broker slow or unreachable");
  if (failed > 0)
    count_lost (k, FALSE, failed, rd_kafka_err2str (last));
  return TRUE;
}

/* Waits for the waiter's acknowledgements until the deadline. */
static gboolean
wait_acks (AbKafkaSink *k, Waiter *w, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (k->durable_timeout_ms + 2000) * 1000;
  gboolean ok = TRUE;
  g_mutex_lock (&w->lock);
  while (w->pending > 0 && ok)
    ok = g_cond_wait_until (&w->cond, &w->lock, deadline) || w->pending == 0;
  if (!ok)
    g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE,
                 "kafka %s/%s: %u record(s) not acknowledged within %d ms", k->hosts, k->topic,
                 w->pending, k->durable_timeout_ms);
  else if (w->failed > 0)
    {
      ok = FALSE;
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE,
                   "kafka %s/%s: %u record(s) not made durable: %s", k->hosts, k->topic, w->failed,
                   w->first_error);
    }
  g_mutex_unlock (&w->lock);
  return ok;
}

/* Returns once every record is acknowledged by all in-sync replicas, or
 * fails within durable_timeout_ms (at once while the broker is known down). */
static gboolean
append_durable (AbKafkaSink *k, GPtrArray *records, GError **error)
{
  g_autofree gchar *down = NULL;
  g_mutex_lock (&k->state_lock);
  down = g_strdup (k->down_reason);
  g_mutex_unlock (&k->state_lock);
  if (down != NULL)
    {
      atomic_fetch_add (&k->base.stats.errors, (gssize) records->len);
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE, "kafka %s/%s is down: %s",
                   k->hosts, k->topic, down);
      return FALSE;
    }
  Waiter *w = g_atomic_rc_box_new0 (Waiter);
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  guint sent = 0;
  g_rw_lock_reader_lock (&k->durable.lock);
  for (; sent < records->len; sent++)
    {
      g_mutex_lock (&w->lock);
      w->pending++;
      g_mutex_unlock (&w->lock);
      g_atomic_rc_box_acquire (w);
      if ((err = produce (k->durable.rk, k->topic, records->pdata[sent], w)) != 0)
        {
          g_mutex_lock (&w->lock);
          w->pending--;
          g_mutex_unlock (&w->lock);
          g_atomic_rc_box_release (w);
          break;
        }
    }
  g_rw_lock_reader_unlock (&k->durable.lock);
  gboolean ok = err == RD_KAFKA_RESP_ERR_NO_ERROR && wait_acks (k, w, error);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
    {
      atomic_fetch_add (&k->base.stats.errors, (gssize) (records->len - sent));
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_UNAVAILABLE, "kafka %s/%s: %s", k->hosts,
                   k->topic, rd_kafka_err2str (err));
    }
  g_atomic_rc_box_release_full (w, waiter_clear);
  return ok;
}

static gboolean
kafka_append (AbSink *s, GPtrArray *records, gboolean durable, GError **error)
{
  AbKafkaSink *k = (AbKafkaSink *) s;
  return durable ? append_durable (k, records, error) : append_queued (k, records);
}

static gboolean
kafka_healthy (AbSink *s, gchar **reason)
{
  AbKafkaSink *k = (AbKafkaSink *) s;
  g_mutex_lock (&k->state_lock);
  gboolean up = k->down_reason == NULL;
  if (!up && reason != NULL)
    *reason = g_strdup_printf ("kafka %s/%s: %s", k->hosts, k->topic, k->down_reason);
  g_mutex_unlock (&k->state_lock);
  return up;
}

/* ---- open / close ---- */

/* Queued records get a few seconds to leave on a clean shutdown. */
static void
kafka_close (AbSink *s)
{
  AbKafkaSink *k = (AbKafkaSink *) s;
  atomic_store (&k->stop, 1);
  producer_stop (&k->durable, 0);
  producer_stop (&k->queued, 3000);
  if (k->drops_unlogged + k->errors_unlogged > 0)
    g_warning ("kafka %s/%s: %" G_GUINT64_FORMAT " more record(s) dropped and %" G_GUINT64_FORMAT
               " not delivered since the last warning",
               k->hosts, k->topic, k->drops_unlogged, k->errors_unlogged);
  g_mutex_clear (&k->state_lock);
  g_free (k->hosts);
  g_free (k->topic);
  g_free (k->group);
  g_free (k->down_reason);
  g_free (k);
}

static const AbSinkVTable kafka_vt = {
  .name = "kafka",
  .append = kafka_append,
  .healthy = kafka_healthy,
  .open_reader = ab_kafka_open_reader,
  .read = ab_kafka_read,
  .commit = ab_kafka_commit,
  .close_reader = ab_kafka_close_reader,
  .close = kafka_close,
};

static gboolean
set_int_option (gint *dst, const gchar *name, const gchar *value, gint min, GError **error)
{
  guint64 v;
  if (!g_ascii_string_to_unsigned (value, 10, (guint64) min, G_MAXINT32, &v, NULL))
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
                   "kafka sink option %s=%s: expected an integer >= %d", name, value, min);
      return FALSE;
    }
  *dst = (gint) v;
  return TRUE;
}

static gboolean
set_option (AbKafkaSink *k, const gchar *name, const gchar *value, GError **error)
{
  if (g_str_equal (name, "durable_timeout_ms"))
    return set_int_option (&k->durable_timeout_ms, name, value, 100, error);
  if (g_str_equal (name, "queue_timeout_ms"))
    return set_int_option (&k->queue_timeout_ms, name, value, 100, error);
  if (g_str_equal (name, "queue_max"))
    return set_int_option (&k->queue_max, name, value, 1, error);
  if (g_str_equal (name, "group") && value[0] != '\0')
    {
      g_free (k->group);
      k->group = g_strdup (value);
      return TRUE;
    }
  g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
               "unknown kafka sink option '%s=%s' "
               "(durable_timeout_ms, queue_timeout_ms, queue_max, group)",
               name, value);
  return FALSE;
}

/* TOPIC[?durable_timeout_ms=N&queue_timeout_ms=N&queue_max=N&group=NAME] */
static gboolean
parse_topic (AbKafkaSink *k, const gchar *spec, GError **error)
{
  const gchar *q = strchr (spec, '?');
  k->topic = q != NULL ? g_strndup (spec, (gsize) (q - spec)) : g_strdup (spec);
  if (k->topic[0] == '\0' || strchr (k->topic, '/') != NULL)
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "bad kafka topic '%s'", k->topic);
      return FALSE;
    }
  g_auto (GStrv) pairs = g_strsplit (q != NULL ? q + 1 : "", "&", -1);
  for (guint i = 0; pairs[i] != NULL; i++)
    {
      if (pairs[i][0] == '\0')
        continue;
      g_auto (GStrv) kv = g_strsplit (pairs[i], "=", 2);
      if (!set_option (k, kv[0], kv[1] != NULL ? kv[1] : "", error))
        return FALSE;
    }
  if (k->group == NULL)
    k->group = g_strdup_printf ("actionbase-applier-%s", k->topic);
  return TRUE;
}

/* kafka://HOSTS/TOPIC[?options]:
 *   durable_timeout_ms (5000)  bound of a durable append (WAL of ASYNC requests)
 *   queue_timeout_ms (120000)  how long queued records wait for a broker
 *   queue_max (100000)         bounded queue of non-durable records; beyond: dropped
 *   group (actionbase-applier-TOPIC)  consumer group of the readers
 * A failed durable append whose records were sent may still have been
 * persisted (the error says so): Kafka cannot tell, and applying twice is
 * harmless. A missing topic is created with one partition: every key's
 * records stay in one ordered log (an existing topic is used as it is, keys
 * mapped to partitions like the Java client does). */
AbSink *
ab_sink_kafka_open (const gchar *hosts, const gchar *topic, GError **error)
{
  AbKafkaSink *k = g_new0 (AbKafkaSink, 1);
  k->base.vt = &kafka_vt;
  k->hosts = g_strdup (hosts);
  k->durable_timeout_ms = 5000;
  k->queue_timeout_ms = 120000;
  k->queue_max = 100000;
  g_mutex_init (&k->state_lock);
  if (!parse_topic (k, topic, error) || !producer_start (k, &k->queued, FALSE, error)
      || !producer_start (k, &k->durable, TRUE, error))
    {
      kafka_close (&k->base);
      return NULL;
    }
  /* Know the broker's state (and have the topic) before the first append;
   * an unreachable broker is not an error: the sink starts down and the
   * probe brings it up when the broker answers. */
  g_rw_lock_reader_lock (&k->queued.lock);
  probe (k, k->queued.rk, 2 * PROBE_TIMEOUT_MS);
  g_rw_lock_reader_unlock (&k->queued.lock);
  return &k->base;
}

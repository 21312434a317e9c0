/* Sink URI dispatch, the ab_sink_* wrappers and record helpers. Backends
 * live in sink_none.c, sink_file.c and sink_kafka.c. */
#include <string.h>
#include "wal/backend.h"

G_DEFINE_QUARK (ab - sink - error - quark, ab_sink_error)

AbSinkRecord *
ab_sink_record_new (const gchar *key, const gchar *value)
{
  AbSinkRecord *r = g_new0 (AbSinkRecord, 1);
  r->key = g_strdup (key);
  r->value = g_strdup (value);
  return r;
}

void
ab_sink_record_free (AbSinkRecord *r)
{
  if (r == NULL)
    return;
  g_free (r->key);
  g_free (r->value);
  g_free (r);
}

void
ab_sink_entry_free (AbSinkEntry *e)
{
  if (e == NULL)
    return;
  g_free (e->record.key);
  g_free (e->record.value);
  if (e->position != NULL)
    g_bytes_unref (e->position);
  g_free (e);
}

static AbSink *
open_kafka (const gchar *rest, GError **error)
{
  const gchar *slash = strchr (rest, '/');
  if (slash == NULL || slash == rest || slash[1] == '\0')
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
                   "kafka sink URI must be kafka://HOST:PORT[,HOST:PORT]/TOPIC");
      return NULL;
    }
  g_autofree gchar *hosts = g_strndup (rest, (gsize) (slash - rest));
#ifdef AB_HAVE_RDKAFKA
  return ab_sink_kafka_open (hosts, slash + 1, error);
#else
  g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "this build has no Kafka support");
  return NULL;
#endif
}

AbSink *
ab_sink_open (const gchar *uri, GError **error)
{
  AbSink *s = NULL;
  if (uri == NULL || g_str_equal (uri, "none") || g_str_equal (uri, ""))
    s = ab_sink_none_new ();
  else if (g_str_has_prefix (uri, "file:"))
    {
      g_autofree gchar *dir = g_strdup (uri + 5);
      gchar *q = strchr (dir, '?');
      if (q != NULL)
        *q++ = '\0';
      s = ab_sink_file_open (dir, q, error);
    }
  else if (g_str_has_prefix (uri, "kafka://"))
    s = open_kafka (uri + 8, error);
  else
    g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
                 "unknown sink URI '%s' (expected none, file:DIR or kafka://HOST:PORT/TOPIC)", uri);
  if (s != NULL)
    s->uri = g_strdup (uri != NULL ? uri : "none");
  return s;
}

void
ab_sink_close (AbSink *s)
{
  if (s == NULL)
    return;
  g_free (s->uri);
  s->vt->close (s);
}

gboolean
ab_sink_append (AbSink *s, GPtrArray *records, gboolean durable, GError **error)
{
  if (records->len == 0)
    return TRUE;
  return s->vt->append (s, records, durable, error);
}

gboolean
ab_sink_healthy (AbSink *s, gchar **reason)
{
  return s->vt->healthy (s, reason);
}

gboolean
ab_sink_is_none (AbSink *s)
{
  return g_str_equal (s->vt->name, "none");
}

void
ab_sink_stats (AbSink *s, AbSinkStats *out)
{
  out->appended = (guint64) atomic_load (&s->stats.appended);
  out->dropped = (guint64) atomic_load (&s->stats.dropped);
  out->errors = (guint64) atomic_load (&s->stats.errors);
}

AbSinkReader *
ab_sink_open_reader (AbSink *s, GBytes *from, GError **error)
{
  if (s->vt->open_reader == NULL)
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "the %s sink cannot be read back",
                   s->vt->name);
      return NULL;
    }
  return s->vt->open_reader (s, from, error);
}

gboolean
ab_sink_read (AbSinkReader *r, guint max, gint timeout_ms, GPtrArray *out, GError **error)
{
  return r->sink->vt->read (r, max, timeout_ms, out, error);
}

gboolean
ab_sink_commit (AbSinkReader *r, GBytes *position, GError **error)
{
  return r->sink->vt->commit (r, position, error);
}

void
ab_sink_close_reader (AbSinkReader *r)
{
  if (r != NULL)
    r->sink->vt->close_reader (r);
}

AbSink *
ab_sink_open_follower (const gchar *uri, GError **error)
{
  if (uri == NULL || !g_str_has_prefix (uri, "file:"))
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
                   "'%s': only a file WAL (file:DIR) can be followed from another process",
                   uri != NULL ? uri : "");
      return NULL;
    }
  g_autofree gchar *dir = g_strdup (uri + 5);
  gchar *q = strchr (dir, '?');
  if (q != NULL)
    *q = '\0';
  AbSink *s = ab_sink_file_follow (dir, error);
  if (s != NULL)
    s->uri = g_strdup (uri);
  return s;
}

GBytes *
ab_sink_position_since (AbSink *s, gint64 since_ms, GError **error)
{
  if (s->vt->position_since == NULL)
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
                   "the %s sink cannot find a position by time", s->vt->name);
      return NULL;
    }
  return s->vt->position_since (s, since_ms, error);
}

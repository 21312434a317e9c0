/* The "none" sink: accepts and forgets every record (the CDC default). */
#include "wal/backend.h"

static gboolean
none_append (AbSink *s, GPtrArray *records, gboolean durable, GError **error)
{
  return TRUE;
}

static gboolean
none_healthy (AbSink *s, gchar **reason)
{
  return TRUE;
}

static void
none_close (AbSink *s)
{
  g_free (s);
}

static const AbSinkVTable none_vt = {
  .name = "none",
  .append = none_append,
  .healthy = none_healthy,
  .close = none_close,
};

AbSink *
ab_sink_none_new (void)
{
  AbSink *s = g_new0 (AbSink, 1);
  s->vt = &none_vt;
  return s;
}

/* The log writer of actionbased: line format and level filter, the per-thread
 * buffers of INFO/DEBUG lines with their registry, the flusher thread, and the
 * one lock under which bytes reach the descriptor. */
#include <stdatomic.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "server/log.h"

typedef struct {
  GMutex lock; /* the owner appends, the flusher drains */
  GString *text;
  gint64 stamp_sec; /* second of the cached stamp text, -1 = none */
  gchar stamp[32];  /* "2024-05-01T12:00:00" of stamp_sec */
} LogBuf;

static atomic_int threshold = G_LOG_LEVEL_INFO; /* a GLogLevelFlags */
static int out_fd = 2;
static GMutex out_lock; /* whole chunks reach out_fd one at a time */
static GMutex reg_lock; /* guards bufs, flusher state */
static GPtrArray *bufs; /* LogBuf*, in registration order */
static GCond flusher_cond;
static GThread *flusher;
static gboolean stopping;
static atomic_bool buffering;

static void
write_all (const gchar *data, gsize len)
{
  g_mutex_lock (&out_lock);
  while (len > 0)
    {
      ssize_t n = write (out_fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break; /* nowhere to report it: the log is the report */
      data += n;
      len -= (gsize) n;
    }
  g_mutex_unlock (&out_lock);
}

/* With b->lock held: the buffered lines go out, in order. */
static void
drain_locked (LogBuf *b)
{
  if (b->text->len == 0)
    return;
  write_all (b->text->str, b->text->len);
  g_string_truncate (b->text, 0);
}

static void
buf_drain (LogBuf *b)
{
  g_mutex_lock (&b->lock);
  drain_locked (b);
  g_mutex_unlock (&b->lock);
}

/* Thread exit: its lines go out and the buffer leaves the registry. */
static void
buf_free (gpointer data)
{
  LogBuf *b = data;
  g_mutex_lock (&reg_lock);
  g_ptr_array_remove (bufs, b);
  g_mutex_unlock (&reg_lock);
  buf_drain (b);
  g_string_free (b->text, TRUE);
  g_mutex_clear (&b->lock);
  g_free (b);
}

static GPrivate thread_buf = G_PRIVATE_INIT (buf_free);

static LogBuf *
buf_get (void)
{
  LogBuf *b = g_private_get (&thread_buf);
  if (b != NULL)
    return b;
  b = g_new0 (LogBuf, 1);
  g_mutex_init (&b->lock);
  b->text = g_string_sized_new (AB_LOG_BUFFER_BYTES + 512);
  b->stamp_sec = -1;
  g_mutex_lock (&reg_lock);
  g_ptr_array_add (bufs, b);
  g_mutex_unlock (&reg_lock);
  g_private_set (&thread_buf, b);
  return b;
}

void
ab_log_flush (void)
{
  g_mutex_lock (&reg_lock);
  for (guint i = 0; bufs != NULL && i < bufs->len; i++)
    buf_drain (g_ptr_array_index (bufs, i));
  g_mutex_unlock (&reg_lock);
}

static gpointer
flusher_thread (gpointer data)
{
  g_mutex_lock (&reg_lock);
  while (!stopping)
    {
      gint64 next = g_get_monotonic_time () + AB_LOG_FLUSH_MS * 1000;
      while (!stopping && g_cond_wait_until (&flusher_cond, &reg_lock, next))
        ;
      for (guint i = 0; i < bufs->len; i++)
        buf_drain (g_ptr_array_index (bufs, i));
    }
  g_mutex_unlock (&reg_lock);
  return NULL;
}

static const gchar *
level_name (GLogLevelFlags level)
{
  switch (level & G_LOG_LEVEL_MASK)
    {
      case G_LOG_LEVEL_ERROR: return "ERROR";
      case G_LOG_LEVEL_CRITICAL: return "CRITICAL";
      case G_LOG_LEVEL_WARNING: return "WARN";
      case G_LOG_LEVEL_MESSAGE: return "NOTICE";
      case G_LOG_LEVEL_INFO: return "INFO";
      default: return "DEBUG";
    }
}

/* "2024-05-01T12:00:00.123Z LEVEL domain: message\n"; the second's text is
 * cached in b. */
static void
append_line (GString *out, LogBuf *b, GLogLevelFlags level, const gchar *domain,
             const gchar *message, gsize message_len)
{
  gint64 now = g_get_real_time ();
  gint64 sec = now / G_USEC_PER_SEC;
  if (sec != b->stamp_sec)
    {
      time_t t = (time_t) sec;
      struct tm tm;
      gmtime_r (&t, &tm);
      strftime (b->stamp, sizeof b->stamp, "%Y-%m-%dT%H:%M:%S", &tm);
      b->stamp_sec = sec;
    }
  gint ms = (gint) (now % G_USEC_PER_SEC / 1000);
  gchar frac[6]
      = { '.', (gchar) ('0' + ms / 100), (gchar) ('0' + ms / 10 % 10), (gchar) ('0' + ms % 10), 'Z',
          ' ' };
  g_string_append (out, b->stamp);
  g_string_append_len (out, frac, sizeof frac);
  g_string_append (out, level_name (level));
  g_string_append_c (out, ' ');
  g_string_append (out, domain);
  g_string_append_len (out, ": ", 2);
  g_string_append_len (out, message, message_len);
  g_string_append_c (out, '\n');
}

/* GLib's level bits grow as severity falls, so a numeric compare filters. */
static GLogWriterOutput
log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  const gchar *message = "", *domain = "-";
  GLogLevelFlags lvl = level & G_LOG_LEVEL_MASK;
  if (lvl > atomic_load (&threshold))
    return G_LOG_WRITER_HANDLED;
  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
        message = fields[i].value;
      else if (g_str_equal (fields[i].key, "GLIB_DOMAIN") && fields[i].length < 0)
        domain = fields[i].value;
    }
  LogBuf *b = buf_get ();
  g_mutex_lock (&b->lock);
  if (lvl >= G_LOG_LEVEL_INFO && atomic_load (&buffering))
    {
      append_line (b->text, b, level, domain, message, strlen (message));
      if (b->text->len >= AB_LOG_BUFFER_BYTES)
        drain_locked (b);
      g_mutex_unlock (&b->lock);
      return G_LOG_WRITER_HANDLED;
    }
  g_mutex_unlock (&b->lock);
  /* Severe (or unbuffered): what was logged before it goes out first. */
  ab_log_flush ();
  g_autoptr (GString) line = g_string_new (NULL);
  g_mutex_lock (&b->lock);
  append_line (line, b, level, domain, message, strlen (message));
  g_mutex_unlock (&b->lock);
  write_all (line->str, line->len);
  return G_LOG_WRITER_HANDLED;
}

void
ab_log_info_line (const gchar *domain, const gchar *message, gsize len)
{
  if (G_LOG_LEVEL_INFO > atomic_load (&threshold))
    return;
  if (!atomic_load (&buffering))
    {
      g_autofree gchar *text = g_strndup (message, len);
      g_log (domain, G_LOG_LEVEL_INFO, "%s", text);
      return;
    }
  LogBuf *b = buf_get ();
  g_mutex_lock (&b->lock);
  append_line (b->text, b, G_LOG_LEVEL_INFO, domain, message, len);
  if (b->text->len >= AB_LOG_BUFFER_BYTES)
    drain_locked (b);
  g_mutex_unlock (&b->lock);
}

void
ab_log_set_threshold (GLogLevelFlags level)
{
  atomic_store (&threshold, (gint) level);
}

void
ab_log_install (GLogLevelFlags level, int fd)
{
  ab_log_set_threshold (level);
  out_fd = fd;
  g_mutex_lock (&reg_lock);
  if (bufs == NULL)
    bufs = g_ptr_array_new ();
  stopping = FALSE;
  if (flusher == NULL)
    flusher = g_thread_new ("ab-log", flusher_thread, NULL);
  g_mutex_unlock (&reg_lock);
  atomic_store (&buffering, TRUE);
  /* GLib takes a writer once per process. */
  static gsize installed;
  if (g_once_init_enter (&installed))
    {
      g_log_set_writer_func (log_writer, NULL, NULL);
      g_once_init_leave (&installed, 1);
    }
}

void
ab_log_shutdown (void)
{
  atomic_store (&buffering, FALSE);
  g_mutex_lock (&reg_lock);
  stopping = TRUE;
  g_cond_broadcast (&flusher_cond);
  GThread *t = g_steal_pointer (&flusher);
  g_mutex_unlock (&reg_lock);
  if (t != NULL)
    g_thread_join (t);
  ab_log_flush ();
}

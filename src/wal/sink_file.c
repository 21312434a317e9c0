/* The file sink: JSON-lines segment files (wal-<n>.jsonl) in a directory,
 * appended under a lock, made durable by group fdatasync (one caller syncs
 * for everyone waiting), rotated by size, read back by position, and
 * removed once applied and older than the retention; also a read-only
 * follower of a directory another process writes (an online copy's catch-up). */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wal/backend.h"
#include "codec/record.h"

typedef struct {
  AbSink base;
  gchar *dir;
  guint64 segment_bytes;
  gint64 retention_ms;
  GMutex lock; /* everything below */
  GCond cond;  /* appends and sync progress */
  int fd;
  guint64 seg;
  guint64 size;
  guint64 written; /* appends so far */
  guint64 synced;  /* appends known durable */
  gboolean syncing;
  gboolean torn;     /* a failed append left bytes past size that are not cut off yet */
  gboolean follower; /* read-only: another process appends, nothing is removed */
} FileSink;

typedef struct {
  AbSinkReader base;
  guint64 seg;
  guint64 offset;
} FileReader;

static gchar *
segment_path (FileSink *f, guint64 seg)
{
  g_autofree gchar *name = g_strdup_printf ("wal-%020" G_GUINT64_FORMAT ".jsonl", seg);
  return g_build_filename (f->dir, name, NULL);
}

static gboolean
io_error (GError **error, const gchar *what, const gchar *path)
{
  int e = errno;
  g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_IO, "%s %s: %s", what, path, g_strerror (e));
  return FALSE;
}

static gint
u64_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* Segment numbers present in the directory, ascending. */
static GArray *
list_segments (const gchar *dir)
{
  GArray *segs = g_array_new (FALSE, FALSE, sizeof (guint64));
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      guint64 n;
      if (g_str_has_prefix (name, "wal-") && g_str_has_suffix (name, ".jsonl")
          && sscanf (name, "wal-%" G_GUINT64_FORMAT ".jsonl", &n) == 1)
        g_array_append_val (segs, n);
    }
  if (d != NULL)
    g_dir_close (d);
  g_array_sort (segs, u64_cmp);
  return segs;
}

/* A crash can leave a torn last line: it was never acknowledged, drop it. */
static gboolean
open_segment (FileSink *f, guint64 seg, GError **error)
{
  g_autofree gchar *path = segment_path (f, seg);
  int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return io_error (error, "cannot open", path);
  off_t end = lseek (fd, 0, SEEK_END);
  off_t keep = end;
  while (keep > 0)
    {
      gchar c;
      if (pread (fd, &c, 1, keep - 1) != 1 || c == '\n')
        break;
      keep--;
    }
  if (keep != end && ftruncate (fd, keep) != 0)
    {
      close (fd);
      return io_error (error, "cannot truncate torn tail of", path);
    }
  lseek (fd, keep, SEEK_SET);
  f->fd = fd;
  f->seg = seg;
  f->size = (guint64) keep;
  return TRUE;
}

static gboolean
write_all (int fd, const gchar *buf, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, buf, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      buf += n;
      len -= (gsize) n;
    }
  return TRUE;
}

/* Called with the lock held and no sync in flight. */
static gboolean
rotate (FileSink *f, GError **error)
{
  g_autofree gchar *path = segment_path (f, f->seg);
  if (fdatasync (f->fd) != 0)
    return io_error (error, "cannot sync", path);
  close (f->fd);
  f->synced = f->written;
  return open_segment (f, f->seg + 1, error);
}

/* Group sync: returns once every append up to `seq` is durable. */
static gboolean
wait_durable (FileSink *f, guint64 seq, GError **error)
{
  while (f->synced < seq)
    {
      if (f->syncing)
        {
          g_cond_wait (&f->cond, &f->lock);
          continue;
        }
      f->syncing = TRUE;
      guint64 target = f->written;
      int fd = f->fd;
      g_mutex_unlock (&f->lock);
      int rc = fdatasync (fd);
      g_mutex_lock (&f->lock);
      f->syncing = FALSE;
      g_cond_broadcast (&f->cond);
      if (rc != 0)
        return io_error (error, "cannot sync the WAL in", f->dir);
      f->synced = MAX (f->synced, target);
    }
  return TRUE;
}

/* Back to the end of the last whole append (with the lock held). */
static gboolean
cut_torn_tail (FileSink *f, GError **error)
{
  if (ftruncate (f->fd, (off_t) f->size) != 0 || lseek (f->fd, (off_t) f->size, SEEK_SET) < 0)
    return io_error (error, "cannot cut a failed append off the WAL in", f->dir);
  f->torn = FALSE;
  return TRUE;
}

static gboolean
file_append (AbSink *s, GPtrArray *records, gboolean durable, GError **error)
{
  FileSink *f = (FileSink *) s;
  if (f->follower)
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_CLOSED,
                   "the WAL in %s is followed read-only", f->dir);
      return FALSE;
    }
  GString *buf = g_string_new (NULL);
  for (guint i = 0; i < records->len; i++)
    {
      const AbSinkRecord *r = records->pdata[i];
      g_string_append (buf, r->value);
      g_string_append_c (buf, '\n');
    }
  g_mutex_lock (&f->lock);
  while (f->syncing && f->size >= f->segment_bytes) /* rotation must not race a sync */
    g_cond_wait (&f->cond, &f->lock);
  gboolean ok
      = (!f->torn || cut_torn_tail (f, error)) && (f->size < f->segment_bytes || rotate (f, error));
  if (ok && !write_all (f->fd, buf->str, buf->len))
    {
      ok = io_error (error, "cannot append to the WAL in", f->dir);
      /* A full disk takes part of the batch: those bytes go, or the next
       * append would continue a torn line and be lost with it. */
      f->torn = TRUE;
      cut_torn_tail (f, NULL);
    }
  if (ok)
    {
      f->size += buf->len;
      f->written++;
      atomic_fetch_add (&s->stats.appended, (gssize) records->len);
      g_cond_broadcast (&f->cond);
    }
  else
    atomic_fetch_add (&s->stats.errors, (gssize) records->len);
  if (ok && durable)
    ok = wait_durable (f, f->written, error);
  g_mutex_unlock (&f->lock);
  g_string_free (buf, TRUE);
  return ok;
}

static gboolean
file_healthy (AbSink *s, gchar **reason)
{
  FileSink *f = (FileSink *) s;
  if (g_access (f->dir, W_OK) == 0)
    return TRUE;
  if (reason != NULL)
    *reason = g_strdup_printf ("WAL directory %s is not writable", f->dir);
  return FALSE;
}

/* ---- reading back ---- */

static GBytes *
position_new (guint64 seg, guint64 offset)
{
  guint8 b[16];
  ab_codec_put_be64 (b, (gint64) seg);
  ab_codec_put_be64 (b + 8, (gint64) offset);
  return g_bytes_new (b, sizeof b);
}

static gboolean
position_parse (GBytes *p, guint64 *seg, guint64 *offset)
{
  gsize len;
  const guint8 *b = g_bytes_get_data (p, &len);
  if (len != 16)
    return FALSE;
  *seg = (guint64) ab_codec_get_be64 (b);
  *offset = (guint64) ab_codec_get_be64 (b + 8);
  return TRUE;
}

static AbSinkReader *
file_open_reader (AbSink *s, GBytes *from, GError **error)
{
  FileSink *f = (FileSink *) s;
  FileReader *r = g_new0 (FileReader, 1);
  r->base.sink = s;
  if (from != NULL && !position_parse (from, &r->seg, &r->offset))
    {
      g_free (r);
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_IO, "bad WAL position");
      return NULL;
    }
  if (from == NULL)
    {
      g_autoptr (GArray) segs = list_segments (f->dir);
      r->seg = segs->len > 0 ? g_array_index (segs, guint64, 0) : 0;
    }
  else if (f->follower)
    {
      /* Another process may have removed it (retention): say so rather
       * than skip the records it held. */
      g_autofree gchar *path = segment_path (f, r->seg);
      g_autoptr (GArray) segs = list_segments (f->dir);
      if (!g_file_test (path, G_FILE_TEST_EXISTS) && segs->len > 0
          && g_array_index (segs, guint64, 0) > r->seg)
        {
          g_free (r);
          g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_IO,
                       "WAL segment %s was removed (retention) before it was read", path);
          return NULL;
        }
    }
  return &r->base;
}

/* A follower's segment is complete once a later one exists: the writer
 * rotates to seg + 1 and never appends to seg again. */
static gboolean
follower_segment_closed (FileSink *f, guint64 seg)
{
  g_autoptr (GArray) segs = list_segments (f->dir);
  return segs->len > 0 && g_array_index (segs, guint64, segs->len - 1) > seg;
}

/* The position of the oldest segment last written at or after since_ms (its
 * start): every record appended from since_ms on is at or after it. With no
 * such segment, the end of the newest one. */
static GBytes *
file_position_since (AbSink *s, gint64 since_ms, GError **error)
{
  FileSink *f = (FileSink *) s;
  g_autoptr (GArray) segs = list_segments (f->dir);
  guint64 last = 0, size = 0;
  for (guint i = 0; i < segs->len; i++)
    {
      guint64 n = g_array_index (segs, guint64, i);
      g_autofree gchar *path = segment_path (f, n);
      struct stat st;
      if (stat (path, &st) != 0)
        {
          if (errno == ENOENT) /* removed meanwhile: older than what we want */
            continue;
          io_error (error, "cannot stat", path);
          return NULL;
        }
      /* whole seconds rounded down: at worst one segment too early */
      if ((gint64) st.st_mtime * 1000 >= since_ms - 1000)
        return position_new (n, 0);
      last = n;
      size = (guint64) st.st_size;
    }
  return position_new (last, size);
}

/* Complete lines of the reader's segment from its offset (at most max),
 * within its first `limit` bytes. */
static gboolean
read_lines (FileSink *f, FileReader *r, guint max, guint64 limit, GPtrArray *out, GError **error)
{
  g_autofree gchar *path = segment_path (f, r->seg);
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? TRUE : io_error (error, "cannot read", path);
  gchar chunk[65536];
  GString *pending = g_string_new (NULL);
  ssize_t n;
  guint64 off = r->offset;
  while (out->len < max && off < limit
         && (n = pread (fd, chunk, MIN (sizeof chunk, limit - off), (off_t) off)) > 0)
    {
      g_string_append_len (pending, chunk, n);
      off += (guint64) n;
      gchar *start = pending->str, *nl;
      while (out->len < max && (nl = memchr (start, '\n', pending->str + pending->len - start)))
        {
          r->offset += (guint64) (nl - start) + 1;
          AbSinkEntry *e = g_new0 (AbSinkEntry, 1);
          e->record.key = g_strdup ("");
          e->record.value = g_strndup (start, (gsize) (nl - start));
          e->position = position_new (r->seg, r->offset);
          g_ptr_array_add (out, e);
          start = nl + 1;
        }
      g_string_erase (pending, 0, start - pending->str);
      off = r->offset + pending->len;
    }
  g_string_free (pending, TRUE);
  close (fd);
  return TRUE;
}

static gboolean
file_read (AbSinkReader *base, guint max, gint timeout_ms, GPtrArray *out, GError **error)
{
  FileReader *r = (FileReader *) base;
  FileSink *f = (FileSink *) base->sink;
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  guint before = out->len;
  if (max == 0)
    return TRUE;
  for (;;)
    {
      /* Looked at before reading: an append landing after read_lines found
       * nothing is then neither slept through until the deadline nor, when a
       * rotation follows it, skipped by moving on to the next segment. */
      g_mutex_lock (&f->lock);
      guint64 written = f->written;
      gboolean closed = r->seg < f->seg; /* no append goes there any more */
      /* Only whole appends: the lines of one still being written (which a
       * full disk may yet refuse and cut off) are not records yet. */
      guint64 limit = !f->follower && r->seg == f->seg ? f->size : G_MAXUINT64;
      g_mutex_unlock (&f->lock);
      if (f->follower)
        closed = follower_segment_closed (f, r->seg);
      /* max counts this call's entries, as on the Kafka sink */
      if (!read_lines (f, r, before + max, limit, out, error))
        return FALSE;
      if (out->len > before)
        return TRUE;
      if (closed)
        {
          /* read to its end above: go on */
          r->seg++;
          r->offset = 0;
          continue;
        }
      if (f->follower)
        {
          /* The writer is another process: nothing to wait on but the file. */
          if (g_get_monotonic_time () >= deadline)
            return TRUE;
          g_usleep (MIN (20000, MAX (0, deadline - g_get_monotonic_time ())));
          continue;
        }
      g_mutex_lock (&f->lock);
      if (f->written == written)
        g_cond_wait_until (&f->cond, &f->lock, deadline);
      gboolean moved = f->written != written;
      g_mutex_unlock (&f->lock);
      if (!moved && g_get_monotonic_time () >= deadline)
        return TRUE;
    }
}

/* Removes whole segments before the applied one once past retention. */
static gboolean
file_commit (AbSinkReader *base, GBytes *position, GError **error)
{
  FileSink *f = (FileSink *) base->sink;
  guint64 seg, offset;
  if (f->follower || !position_parse (position, &seg, &offset))
    return TRUE;
  g_autoptr (GArray) segs = list_segments (f->dir);
  gint64 now = g_get_real_time ();
  for (guint i = 0; i < segs->len; i++)
    {
      guint64 n = g_array_index (segs, guint64, i);
      if (n >= seg)
        break;
      g_autofree gchar *path = segment_path (f, n);
      GStatBuf st;
      if (g_stat (path, &st) == 0
          && now - (gint64) st.st_mtime * G_USEC_PER_SEC >= f->retention_ms * 1000)
        g_remove (path);
    }
  return TRUE;
}

static void
file_close_reader (AbSinkReader *r)
{
  g_free (r);
}

static void
file_close (AbSink *s)
{
  FileSink *f = (FileSink *) s;
  if (f->fd >= 0)
    {
      fdatasync (f->fd);
      close (f->fd);
    }
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
  g_free (f->dir);
  g_free (f);
}

static const AbSinkVTable file_vt = {
  .name = "file",
  .append = file_append,
  .healthy = file_healthy,
  .open_reader = file_open_reader,
  .read = file_read,
  .commit = file_commit,
  .close_reader = file_close_reader,
  .close = file_close,
  .position_since = file_position_since,
};

static gboolean
parse_options (FileSink *f, const gchar *query, GError **error)
{
  g_auto (GStrv) pairs = g_strsplit (query != NULL ? query : "", "&", -1);
  for (guint i = 0; pairs[i] != NULL; i++)
    {
      if (pairs[i][0] == '\0')
        continue;
      g_auto (GStrv) kv = g_strsplit (pairs[i], "=", 2);
      guint64 v;
      if (kv[1] == NULL || !g_ascii_string_to_unsigned (kv[1], 10, 0, G_MAXINT64, &v, NULL))
        return g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "bad file sink option '%s'",
                            pairs[i]),
               FALSE;
      if (g_str_equal (kv[0], "segment_bytes"))
        f->segment_bytes = MAX (v, 4096);
      else if (g_str_equal (kv[0], "retention_ms"))
        f->retention_ms = (gint64) v;
      else
        return g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI,
                            "unknown file sink option '%s' (segment_bytes, retention_ms)", kv[0]),
               FALSE;
    }
  return TRUE;
}

AbSink *
ab_sink_file_open (const gchar *dir, const gchar *query, GError **error)
{
  FileSink *f = g_new0 (FileSink, 1);
  f->base.vt = &file_vt;
  f->dir = g_strdup (dir);
  f->fd = -1;
  f->segment_bytes = 64u << 20;
  f->retention_ms = 3600 * 1000;
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  gboolean ok = parse_options (f, query, error);
  if (ok && g_mkdir_with_parents (dir, 0755) != 0)
    ok = io_error (error, "cannot create", dir);
  if (ok)
    {
      g_autoptr (GArray) segs = list_segments (dir);
      guint64 last = segs->len > 0 ? g_array_index (segs, guint64, segs->len - 1) : 0;
      ok = open_segment (f, last, error);
    }
  if (ok)
    return &f->base;
  file_close (&f->base);
  return NULL;
}

AbSink *
ab_sink_file_follow (const gchar *dir, GError **error)
{
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, AB_SINK_ERROR, AB_SINK_ERROR_URI, "no WAL directory %s", dir);
      return NULL;
    }
  FileSink *f = g_new0 (FileSink, 1);
  f->base.vt = &file_vt;
  f->dir = g_strdup (dir);
  f->fd = -1;
  f->follower = TRUE;
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  return &f->base;
}

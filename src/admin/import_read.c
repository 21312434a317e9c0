/* The import's reading side (the main thread): records read from a file
 * (CSV records may span lines), gathered in windows, sorted by key when they
 * can be, cut into chunks of a batch each and queued for the workers. */
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include "admin/import-private.h"
#include "admin/import_sort.h"

/* A window is cut short at this size, whatever its records. */
#define WINDOW_MAX_BYTES (32 * 1024 * 1024)

/* ---- reading records ---- */

FILE *
ab_admin_import_open_at (AbImportFile *f, const AbImportMark *at, AbImportReader *r, GError **error)
{
  FILE *fp = fopen (f->path, "rb");
  if (fp == NULL)
    return ab_admin_import_fail (error, "%s: %s", f->path, g_strerror (errno)), NULL;
  if (at->offset > 0 && fseeko (fp, (off_t) at->offset, SEEK_SET) != 0)
    {
      fclose (fp);
      return ab_admin_import_fail (error, "%s: seek: %s", f->path, g_strerror (errno)), NULL;
    }
  *r = (AbImportReader){ fp, NULL, 0, at->line, at->offset };
  return fp;
}

gboolean
ab_admin_import_read_record (AbImportReader *r, gboolean csv, GString *rec, guint64 *first,
                             guint64 *n_lines, gboolean *too_long, GError **error)
{
  g_string_truncate (rec, 0);
  *too_long = FALSE;
  *n_lines = 0;
  *first = r->line + 1;
  gboolean open_quote = FALSE;
  for (;;)
    {
      errno = 0;
      ssize_t n = getline (&r->buf, &r->cap, r->fp);
      if (n < 0)
        {
          if (ferror (r->fp))
            return g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "read: %s",
                                g_strerror (errno)),
                   FALSE;
          if (*n_lines == 0)
            return FALSE;
          break; /* an unterminated quote runs to the end: the parser says so */
        }
      gboolean at_start = r->offset == 0;
      r->line++;
      r->offset += (guint64) n;
      (*n_lines)++;
      const gchar *s = r->buf;
      gsize len = (gsize) n;
      if (at_start && len >= 3 && memcmp (s, "\xEF\xBB\xBF", 3) == 0)
        s += 3, len -= 3; /* a UTF-8 byte order mark */
      if (csv)
        for (gsize i = 0; i < len; i++)
          if (s[i] == '"')
            open_quote = !open_quote;
      if (!csv || !open_quote)
        {
          if (len > 0 && s[len - 1] == '\n')
            len--;
          if (len > 0 && s[len - 1] == '\r')
            len--;
        }
      if (!*too_long && rec->len + len <= AB_IMPORT_MAX_RECORD_BYTES)
        g_string_append_len (rec, s, (gssize) len);
      else
        *too_long = TRUE, g_string_truncate (rec, 0);
      if (!open_quote)
        break;
    }
  return TRUE;
}

static gboolean
blank (const gchar *s)
{
  for (; *s != '\0'; s++)
    if (!g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

/* ---- reading files into chunks (the main thread) ---- */

static AbImportChunk *
chunk_new (AbImportFile *f, guint64 seq, guint64 index)
{
  AbImportChunk *c = g_new0 (AbImportChunk, 1);
  c->file = f;
  c->seq = seq;
  c->index = index;
  c->text = g_string_new (NULL);
  c->recs = g_array_new (FALSE, FALSE, sizeof (AbImportRec));
  return c;
}

void
ab_admin_import_chunk_free (AbImportChunk *c)
{
  if (c == NULL)
    return;
  g_string_free (c->text, TRUE);
  g_array_unref (c->recs);
  g_free (c);
}

/* Queues the records of window w (read from mark start to w->end) as chunks
 * of the batch size: in (source, target) order when the import sorts and
 * every key is known exactly (ab_import_sort_window), else in file order. A
 * key's records stay in one chunk (one request folds them in file order)
 * unless they outgrow a second batch. Sorted chunks but the last end at the
 * window's start: the checkpoint passes a window only once all of it is
 * applied. */
static void
push_window (AbImport *imp, AbImportFile *f, AbImportChunk *w, AbImportMark start, guint64 *seq,
             guint64 *index)
{
  guint n = w->recs->len;
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  g_autofree gboolean *same = g_new0 (gboolean, MAX (n, 1));
  gboolean sorted = FALSE;
  if (imp->sort && f->format == AB_IMPORT_FORMAT_JSONL && n > 1)
    {
      g_autofree const gchar **texts = g_new (const gchar *, n);
      for (guint i = 0; i < n; i++)
        {
          const AbImportRec *r = &g_array_index (w->recs, AbImportRec, i);
          texts[i] = r->too_long ? "" : w->text->str + r->off;
        }
      sorted = ab_import_sort_window (texts, n, imp->schema->source_type, imp->schema->target_type,
                                      order, same);
    }
  for (guint i = 0; !sorted && i < n; i++)
    order[i] = i, same[i] = FALSE;
  /* a chunk's text sized once: a batch of the window's average record */
  gsize chunk_bytes = n > 0 ? w->text->len / n * MIN ((gsize) imp->batch, n) * 9 / 8 + 64 : 0;
  AbImportMark prev = start;
  AbImportChunk *c = NULL;
  for (guint i = 0; i < n; i++)
    {
      if (c == NULL)
        {
          c = chunk_new (f, (*seq)++, (*index)++);
          g_string_set_size (c->text, chunk_bytes);
          g_string_truncate (c->text, 0);
        }
      const AbImportRec *r = &g_array_index (w->recs, AbImportRec, order[i]);
      AbImportRec e = { c->text->len, r->len, r->line, r->too_long, r->after };
      g_array_append_val (c->recs, e);
      g_string_append_len (c->text, w->text->str + r->off, (gssize) r->len);
      g_string_append_c (c->text, '\0');
      guint len = c->recs->len, batch = (guint) imp->batch;
      gboolean key_goes_on = i + 1 < n && same[i + 1] && len < 2 * batch;
      if (i + 1 < n && (len < batch || key_goes_on))
        continue;
      if (i + 1 == n)
        c->end = w->end, c->lines = w->end.line - prev.line;
      else if (sorted)
        c->end = start, c->lines = 0;
      else
        c->end = r->after, c->lines = r->after.line - prev.line, prev = r->after;
      ab_admin_import_queue_push (imp, c);
      c = NULL;
    }
  if (n == 0 && w->lines > 0)
    {
      /* blank lines only: a chunk of none, so the checkpoint passes them */
      c = chunk_new (f, (*seq)++, (*index)++);
      c->end = w->end, c->lines = w->lines;
      ab_admin_import_queue_push (imp, c);
    }
}

gboolean
ab_admin_import_read_file (AbImport *imp, AbImportFile *f, guint64 *seq, GError **error)
{
  AbImportReader r;
  if (ab_admin_import_open_at (f, &f->resume, &r, error) == NULL)
    return FALSE;
  gboolean csv = f->format == AB_IMPORT_FORMAT_CSV;
  g_autoptr (GString) rec = g_string_new (NULL);
  guint64 index = 0, first, n_lines;
  gboolean too_long, ok = TRUE;
  /* the window being gathered: a chunk of up to AB_IMPORT_WINDOW_BATCHES batches */
  guint window = (guint) imp->batch * (imp->sort ? AB_IMPORT_WINDOW_BATCHES : 1);
  AbImportMark start = f->resume;
  AbImportChunk *w = chunk_new (f, 0, 0);
  w->end = start;
  g_autoptr (GError) local = NULL;
  while (!atomic_load (&imp->stop))
    {
      if (!ab_admin_import_read_record (&r, csv, rec, &first, &n_lines, &too_long, &local))
        {
          ok = local == NULL;
          break;
        }
      w->lines += n_lines;
      w->end = (AbImportMark){ r.line, r.offset };
      if (csv && first == 1)
        continue; /* the header, read at start */
      if (!too_long && blank (rec->str))
        continue;
      AbImportRec e = { w->text->len, too_long ? 0 : rec->len, first, too_long, w->end };
      g_array_append_val (w->recs, e);
      if (!too_long)
        g_string_append_len (w->text, rec->str, (gssize) rec->len);
      g_string_append_c (w->text, '\0');
      if (w->recs->len >= window || w->text->len >= WINDOW_MAX_BYTES)
        {
          push_window (imp, f, w, start, seq, &index);
          start = w->end;
          /* the next window reuses this one's memory */
          g_string_truncate (w->text, 0);
          g_array_set_size (w->recs, 0);
          w->lines = 0;
        }
    }
  if (!atomic_load (&imp->stop))
    push_window (imp, f, w, start, seq, &index);
  ab_admin_import_chunk_free (w);
  free (r.buf);
  fclose (r.fp);
  if (!ok)
    return ab_admin_import_fail (error, "%s:%" G_GUINT64_FORMAT ": %s", f->path, r.line + 1,
                                 local->message);
  if (!atomic_load (&imp->stop))
    ab_admin_import_file_read_to_end (imp, f, index);
  return TRUE;
}

/* Physical lines from offset to the end (the progress total). */
guint64
ab_admin_import_count_lines (const AbImportFile *f)
{
  FILE *fp = fopen (f->path, "rb");
  if (fp == NULL)
    return 0;
  if (f->resume.offset > 0 && fseeko (fp, (off_t) f->resume.offset, SEEK_SET) != 0)
    {
      fclose (fp);
      return 0;
    }
  g_autofree gchar *buf = g_malloc (1 << 20);
  guint64 lines = 0;
  gsize n;
  gchar last = '\n';
  while ((n = fread (buf, 1, 1 << 20, fp)) > 0)
    {
      for (const gchar *p = buf; (p = memchr (p, '\n', n - (gsize) (p - buf))) != NULL; p++)
        lines++;
      last = buf[n - 1];
    }
  fclose (fp);
  return lines + (last != '\n');
}

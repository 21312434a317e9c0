/* The writing side of a dump (actionbase-admin backup): a snapshot's rows
 * into chunk files, hashed as they are written, then the manifest, and with
 * --native the store's own copy described beside them. */
#include "admin/dump-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_EVERY 1024

static void
put_be32 (guint8 *out, guint32 v)
{
  out[0] = (guint8) (v >> 24);
  out[1] = (guint8) (v >> 16);
  out[2] = (guint8) (v >> 8);
  out[3] = (guint8) v;
}

static gboolean
fsync_path (const gchar *path, GError **error)
{
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return ab_admin_dump_fail_errno (error, "open", path);
  int rc = fsync (fd);
  int err = errno;
  close (fd);
  if (rc != 0)
    {
      errno = err;
      return ab_admin_dump_fail_errno (error, "fsync", path);
    }
  return TRUE;
}

/* The directory a backup writes into: created, or existing and empty. */
static gboolean
prepare_dir (const gchar *dir, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    return ab_admin_dump_fail_errno (error, "create the backup directory", dir);
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_IO, "backup directory %s: %s", dir,
                               local->message);
  if (g_dir_read_name (d) != NULL)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_EXISTS,
                               "%s is not empty: a backup goes into a new or empty directory", dir);
  return TRUE;
}

/* ---- writing a snapshot ---- */

typedef struct {
  const gchar *dir;
  gsize chunk_max;
  const volatile sig_atomic_t *stop;
  AbProgress *progress;
  guint progress_pending;
  FILE *f;
  gchar *path;
  AbDumpChunkInfo *cur;
  AbSha256 sum;
  guint8 *buf; /* records gathered here, hashed and written WRITE_BUF at a time */
  gsize buf_len;
  GByteArray *last; /* last key written (order check) */
  gboolean any;
  GPtrArray *chunks; /* AbDumpChunkInfo* */
  guint64 rows, bytes;
  GError *error;
} Writer;

#define WRITE_BUF ((gsize) 1 << 20)

static gboolean
write_out (Writer *w, const void *data, gsize len)
{
  ab_sha256_update (&w->sum, data, len);
  if (len > 0 && fwrite (data, 1, len, w->f) != len)
    return ab_admin_dump_fail_errno (&w->error, "write", w->path);
  return TRUE;
}

static gboolean
flush_buf (Writer *w)
{
  gsize n = w->buf_len;
  w->buf_len = 0;
  return write_out (w, w->buf, n);
}

/* Rows are a few small pieces each: gathered, they are hashed and written
 * in large blocks (hashing and stdio per piece cost more than the copy). */
static gboolean
writer_put (Writer *w, const void *data, gsize len)
{
  w->cur->bytes += len;
  if (w->buf_len + len > WRITE_BUF)
    {
      if (!flush_buf (w))
        return FALSE;
      if (len > WRITE_BUF)
        return write_out (w, data, len);
    }
  memcpy (w->buf + w->buf_len, data, len);
  w->buf_len += len;
  return TRUE;
}

static gboolean
chunk_begin (Writer *w)
{
  w->cur = g_new0 (AbDumpChunkInfo, 1);
  w->cur->file = g_strdup_printf ("chunk-%06u.bin", w->chunks->len + 1);
  g_free (w->path);
  w->path = g_build_filename (w->dir, w->cur->file, NULL);
  ab_sha256_init (&w->sum);
  w->f = g_fopen (w->path, "wbx");
  if (w->f == NULL)
    return ab_admin_dump_fail_errno (&w->error, "create", w->path);
  setvbuf (w->f, NULL, _IOFBF, 1 << 18);
  return writer_put (w, AB_DUMP_CHUNK_MAGIC, AB_DUMP_CHUNK_MAGIC_LEN);
}

static gboolean
chunk_end (Writer *w)
{
  if (!flush_buf (w))
    return FALSE;
  gboolean ok = fflush (w->f) == 0 && fsync (fileno (w->f)) == 0;
  int err = errno;
  ok = fclose (w->f) == 0 && ok;
  w->f = NULL;
  if (!ok)
    {
      errno = err;
      return ab_admin_dump_fail_errno (&w->error, "write", w->path);
    }
  gchar hex[65];
  ab_sha256_hex (&w->sum, hex);
  w->cur->sha256 = g_strdup (hex);
  w->cur->last = g_bytes_new (w->last->data, w->last->len);
  w->bytes += w->cur->bytes;
  g_ptr_array_add (w->chunks, w->cur);
  w->cur = NULL;
  return TRUE;
}

static gboolean
write_row (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer user)
{
  Writer *w = user;
  guint8 len[4];
  if (w->stop != NULL && *w->stop)
    return ab_admin_dump_fail (&w->error, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
  if (klen == 0 || klen > AB_DUMP_MAX_KEY || vlen > AB_DUMP_MAX_VALUE)
    return ab_admin_dump_fail (
        &w->error, AB_DUMP_ERROR_TOO_BIG,
        "a row with a key of %zu bytes and a value of %zu bytes is beyond what a dump "
        "holds (keys 1..%u bytes, values up to %zu bytes)",
        klen, vlen, AB_DUMP_MAX_KEY, AB_DUMP_MAX_VALUE);
  if (w->any && ab_store_key_compare (w->last->data, w->last->len, key, klen) >= 0)
    return ab_admin_dump_fail (
        &w->error, AB_DUMP_ERROR_CORRUPT,
        "the store's snapshot returned keys out of order (row %" G_GUINT64_FORMAT ")", w->rows + 1);
  gsize rec = 8 + klen + vlen;
  if (w->cur != NULL && w->cur->rows > 0 && w->cur->bytes + rec > w->chunk_max && !chunk_end (w))
    return FALSE;
  if (w->cur == NULL && !chunk_begin (w))
    return FALSE;
  put_be32 (len, (guint32) klen);
  if (!writer_put (w, len, 4) || !writer_put (w, key, klen))
    return FALSE;
  put_be32 (len, (guint32) vlen);
  if (!writer_put (w, len, 4) || !writer_put (w, value, vlen))
    return FALSE;
  if (w->cur->rows++ == 0)
    w->cur->first = g_bytes_new (key, klen);
  g_byte_array_set_size (w->last, 0);
  g_byte_array_append (w->last, key, (guint) klen);
  w->any = TRUE;
  w->rows++;
  if (w->progress != NULL && ++w->progress_pending == PROGRESS_EVERY)
    {
      ab_progress_add (w->progress, w->progress_pending);
      w->progress_pending = 0;
    }
  return TRUE;
}

static void
add_key (JsonBuilder *b, const gchar *name, GBytes *key)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (key, &len);
  g_autofree gchar *text = g_base64_encode (data, len);
  ab_model_json_add_string (b, name, text);
}

static gboolean
file_sha256 (const gchar *path, gchar **hex, guint64 *size, GError **error)
{
  AbSha256 sum;
  gchar digest[65];
  g_autofree guint8 *buf = g_malloc (1 << 20);
  FILE *f = g_fopen (path, "rb");
  gsize n;
  *size = 0;
  if (f == NULL)
    return ab_admin_dump_fail_errno (error, "open", path);
  ab_sha256_init (&sum);
  while ((n = fread (buf, 1, 1 << 20, f)) > 0)
    {
      ab_sha256_update (&sum, buf, n);
      *size += n;
    }
  gboolean bad = ferror (f);
  fclose (f);
  if (bad)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_IO, "read %s failed", path);
  ab_sha256_hex (&sum, digest);
  *hex = g_strdup (digest);
  return TRUE;
}

/* file, bytes and sha256 of one file of the native copy into b's object. */
static gboolean
native_file (JsonBuilder *b, const gchar *native_dir, const gchar *kind, const gchar *name,
             GError **error)
{
  g_autofree gchar *path = g_build_filename (native_dir, name, NULL);
  g_autofree gchar *rel = g_build_filename (kind, name, NULL);
  g_autofree gchar *sha = NULL;
  guint64 size;
  if (!file_sha256 (path, &sha, &size, error))
    return FALSE;
  ab_model_json_add_string (b, "file", rel);
  ab_admin_json_int (b, "bytes", (gint64) size);
  ab_model_json_add_string (b, "sha256", sha);
  return TRUE;
}

static gint
name_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

/* The names of the files in dir, in name order. */
static GPtrArray *
list_files (const gchar *dir, GError **error)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, error);
  if (d == NULL)
    return NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  for (const gchar *n; (n = g_dir_read_name (d)) != NULL;)
    g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, name_cmp);
  return names;
}

/* The manifest's "native": the copy's kind and its files (names), hashed as
 * the native backup left them, before anything opened the copy. One file
 * (LMDB's data.mdb) is described by the object's own members; several (a
 * RocksDB checkpoint) as "files", in name order. */
static JsonNode *
native_manifest (const gchar *native_dir, const gchar *kind, GPtrArray *names, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "kind", kind);
  if (names->len == 1 && !native_file (b, native_dir, kind, names->pdata[0], error))
    return NULL;
  if (names->len != 1)
    {
      json_builder_set_member_name (b, "files");
      json_builder_begin_array (b);
      for (guint i = 0; i < names->len; i++)
        {
          json_builder_begin_object (b);
          if (!native_file (b, native_dir, kind, names->pdata[i], error))
            return NULL;
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Reading the copy may leave files of the store's own beside it (LMDB's
 * lock file): removed, so that the copy's directory holds the files the
 * manifest lists and nothing else. */
static void
remove_unlisted (const gchar *dir, GPtrArray *names)
{
  g_autoptr (GPtrArray) now = list_files (dir, NULL);
  for (guint i = 0; now != NULL && i < now->len; i++)
    if (!g_ptr_array_find_with_equal_func (names, now->pdata[i], g_str_equal, NULL))
      {
        g_autofree gchar *path = g_build_filename (dir, now->pdata[i], NULL);
        g_remove (path);
      }
}

static gboolean
write_manifest (Writer *w, const AbDumpBackupOptions *o, JsonNode *native, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree gchar *created = g_date_time_format_iso8601 (now);
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "format", AB_DUMP_FORMAT);
  ab_admin_json_int (b, "version", AB_DUMP_VERSION);
  ab_model_json_add_string (b, "source", o->source_uri != NULL ? o->source_uri : "");
  ab_model_json_add_string (b, "created", created);
  ab_admin_json_int (b, "rows", (gint64) w->rows);
  ab_admin_json_int (b, "bytes", (gint64) w->bytes);
  ab_admin_json_int (b, "chunkBytes", (gint64) w->chunk_max);
  if (native != NULL)
    {
      json_builder_set_member_name (b, "native");
      json_builder_add_value (b, json_node_copy (native));
    }
  json_builder_set_member_name (b, "chunks");
  json_builder_begin_array (b);
  for (guint i = 0; i < w->chunks->len; i++)
    {
      AbDumpChunkInfo *c = w->chunks->pdata[i];
      json_builder_begin_object (b);
      ab_model_json_add_string (b, "file", c->file);
      ab_admin_json_int (b, "rows", (gint64) c->rows);
      ab_admin_json_int (b, "bytes", (gint64) c->bytes);
      ab_model_json_add_string (b, "sha256", c->sha256);
      add_key (b, "firstKey", c->first);
      add_key (b, "lastKey", c->last);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  gsize len;
  g_autofree gchar *text = json_generator_to_data (gen, &len);
  g_autofree gchar *path = g_build_filename (w->dir, AB_DUMP_MANIFEST, NULL);
  g_autoptr (GError) local = NULL;
  /* CONSISTENT|DURABLE: a temp file, fsync, rename over the name. */
  if (!g_file_set_contents_full (path, text, (gssize) len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
                                 &local))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_IO, "write the manifest: %s", local->message);
  return fsync_path (w->dir, error);
}

static gboolean
write_dump (AbSnapshot *snap, const gchar *dir, const AbDumpBackupOptions *o, JsonNode *native,
            AbDumpStats *stats, GError **error)
{
  Writer w = { .dir = dir,
               .chunk_max = o->chunk_bytes > 0 ? o->chunk_bytes : AB_DUMP_CHUNK_DEFAULT,
               .stop = o->stop,
               .progress = o->progress };
  AbScanRange all = { 0 };
  GError *scan_error = NULL;
  gboolean ok;
  w.chunks = g_ptr_array_new_with_free_func (ab_admin_dump_chunk_info_free);
  w.buf = g_malloc (WRITE_BUF);
  w.last = g_byte_array_new ();
  ok = ab_snapshot_scan (snap, &all, write_row, &w, &scan_error);
  if (w.progress != NULL && w.progress_pending > 0)
    ab_progress_add (w.progress, w.progress_pending);
  if (!ok)
    g_propagate_prefixed_error (error, scan_error, "reading the store: ");
  else if (w.error != NULL)
    {
      ok = FALSE;
      g_propagate_error (error, w.error);
      w.error = NULL;
    }
  else if (w.cur != NULL && !chunk_end (&w))
    {
      ok = FALSE;
      g_propagate_error (error, w.error);
      w.error = NULL;
    }
  if (w.f != NULL)
    fclose (w.f);
  ab_sha256_clear (&w.sum); /* a chunk given up half-written */
  if (ok)
    ok = fsync_path (dir, error) && write_manifest (&w, o, native, error);
  if (ok && stats != NULL)
    {
      stats->rows = w.rows;
      stats->bytes = w.bytes;
      stats->chunks = w.chunks->len;
    }
  g_clear_pointer (&w.cur, ab_admin_dump_chunk_info_free);
  g_ptr_array_unref (w.chunks);
  g_byte_array_unref (w.last);
  g_free (w.buf);
  g_free (w.path);
  return ok;
}

gboolean
ab_dump_write_snapshot (AbSnapshot *snap, const gchar *dir, const AbDumpBackupOptions *o,
                        AbDumpStats *stats, GError **error)
{
  return prepare_dir (dir, error) && write_dump (snap, dir, o, NULL, stats, error);
}

gboolean
ab_dump_backup (AbStore *store, const gchar *dir, const AbDumpBackupOptions *o, AbDumpStats *stats,
                GError **error)
{
  if (!prepare_dir (dir, error))
    return FALSE;
  if (!o->native)
    {
      g_autoptr (AbSnapshot) snap = ab_store_snapshot_open (store, error);
      return snap != NULL && write_dump (snap, dir, o, NULL, stats, error);
    }
  /* The native copy first, then the chunks from that copy: one snapshot. */
  const gchar *kind = ab_store_kind (store);
  g_autofree gchar *native = g_build_filename (dir, kind, NULL);
  if (!ab_store_native_backup (store, native, error))
    return FALSE;
  g_autoptr (GPtrArray) names = list_files (native, error);
  g_autoptr (JsonNode) described
      = names != NULL ? native_manifest (native, kind, names, error) : NULL;
  if (described == NULL)
    return FALSE;
  g_autofree gchar *uri = ab_store_native_uri (store, native);
  gboolean ok;
  {
    g_autoptr (AbStore) copy = ab_store_open (uri, error);
    if (copy == NULL)
      return FALSE;
    g_autoptr (AbSnapshot) snap = ab_store_snapshot_open (copy, error);
    ok = snap != NULL && write_dump (snap, dir, o, described, stats, error);
  }
  remove_unlisted (native, names);
  return ok;
}

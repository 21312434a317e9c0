/* The dump format of backup and restore: writing a snapshot into chunk files
 * and a manifest, checking a dump (every length, checksum, count and key
 * bound) before anything is written, and restoring it with a checkpoint. */
#include "admin/dump.h"
#include "codec/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (ab - dump - error - quark, ab_dump_error)

#define MANIFEST_MAX_BYTES ((goffset) 64 << 20)
#define CHECKPOINT_FORMAT "actionbase-restore-checkpoint"
#define PROGRESS_EVERY 1024

/* ---- chunk descriptions (the manifest's "chunks") ---- */

typedef struct {
  gchar *file;
  guint64 rows;
  guint64 bytes;
  gchar *sha256;
  GBytes *first;
  GBytes *last;
} ChunkInfo;

static void
chunk_info_free (gpointer p)
{
  ChunkInfo *c = p;
  g_free (c->file);
  g_free (c->sha256);
  g_clear_pointer (&c->first, g_bytes_unref);
  g_clear_pointer (&c->last, g_bytes_unref);
  g_free (c);
}

static gboolean fail (GError **error, AbDumpError code, const gchar *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (GError **error, AbDumpError code, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, AB_DUMP_ERROR, code, msg);
  return FALSE;
}

static gboolean
fail_errno (GError **error, const gchar *what, const gchar *path)
{
  int err = errno;
  return fail (error, AB_DUMP_ERROR_IO, "%s %s: %s", what, path, g_strerror (err));
}

static void
put_be32 (guint8 *out, guint32 v)
{
  out[0] = (guint8) (v >> 24);
  out[1] = (guint8) (v >> 16);
  out[2] = (guint8) (v >> 8);
  out[3] = (guint8) v;
}

static guint32
get_be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

static gboolean
fsync_path (const gchar *path, GError **error)
{
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return fail_errno (error, "open", path);
  int rc = fsync (fd);
  int err = errno;
  close (fd);
  if (rc != 0)
    {
      errno = err;
      return fail_errno (error, "fsync", path);
    }
  return TRUE;
}

/* The directory a backup writes into: created, or existing and empty. */
static gboolean
prepare_dir (const gchar *dir, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    return fail_errno (error, "create the backup directory", dir);
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    return fail (error, AB_DUMP_ERROR_IO, "backup directory %s: %s", dir, local->message);
  if (g_dir_read_name (d) != NULL)
    return fail (error, AB_DUMP_ERROR_EXISTS,
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
  ChunkInfo *cur;
  AbSha256 sum;
  guint8 *buf; /* records gathered here, hashed and written WRITE_BUF at a time */
  gsize buf_len;
  GByteArray *last; /* last key written (order check) */
  gboolean any;
  GPtrArray *chunks; /* ChunkInfo* */
  guint64 rows, bytes;
  GError *error;
} Writer;

#define WRITE_BUF ((gsize) 1 << 20)

static gboolean
write_out (Writer *w, const void *data, gsize len)
{
  ab_sha256_update (&w->sum, data, len);
  if (len > 0 && fwrite (data, 1, len, w->f) != len)
    return fail_errno (&w->error, "write", w->path);
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
  w->cur = g_new0 (ChunkInfo, 1);
  w->cur->file = g_strdup_printf ("chunk-%06u.bin", w->chunks->len + 1);
  g_free (w->path);
  w->path = g_build_filename (w->dir, w->cur->file, NULL);
  ab_sha256_init (&w->sum);
  w->f = g_fopen (w->path, "wbx");
  if (w->f == NULL)
    return fail_errno (&w->error, "create", w->path);
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
      return fail_errno (&w->error, "write", w->path);
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
    return fail (&w->error, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
  if (klen == 0 || klen > AB_DUMP_MAX_KEY || vlen > AB_DUMP_MAX_VALUE)
    return fail (&w->error, AB_DUMP_ERROR_TOO_BIG,
                 "a row with a key of %zu bytes and a value of %zu bytes is beyond what a dump "
                 "holds (keys 1..%u bytes, values up to %zu bytes)",
                 klen, vlen, AB_DUMP_MAX_KEY, AB_DUMP_MAX_VALUE);
  if (w->any && ab_store_key_compare (w->last->data, w->last->len, key, klen) >= 0)
    return fail (&w->error, AB_DUMP_ERROR_CORRUPT,
                 "the store's snapshot returned keys out of order (row %" G_GUINT64_FORMAT ")",
                 w->rows + 1);
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
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, text);
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
    return fail_errno (error, "open", path);
  ab_sha256_init (&sum);
  while ((n = fread (buf, 1, 1 << 20, f)) > 0)
    {
      ab_sha256_update (&sum, buf, n);
      *size += n;
    }
  gboolean bad = ferror (f);
  fclose (f);
  if (bad)
    return fail (error, AB_DUMP_ERROR_IO, "read %s failed", path);
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
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, rel);
  json_builder_set_member_name (b, "bytes");
  json_builder_add_int_value (b, (gint64) size);
  json_builder_set_member_name (b, "sha256");
  json_builder_add_string_value (b, sha);
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
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, kind);
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
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, AB_DUMP_FORMAT);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, AB_DUMP_VERSION);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, o->source_uri != NULL ? o->source_uri : "");
  json_builder_set_member_name (b, "created");
  json_builder_add_string_value (b, created);
  json_builder_set_member_name (b, "rows");
  json_builder_add_int_value (b, (gint64) w->rows);
  json_builder_set_member_name (b, "bytes");
  json_builder_add_int_value (b, (gint64) w->bytes);
  json_builder_set_member_name (b, "chunkBytes");
  json_builder_add_int_value (b, (gint64) w->chunk_max);
  if (native != NULL)
    {
      json_builder_set_member_name (b, "native");
      json_builder_add_value (b, json_node_copy (native));
    }
  json_builder_set_member_name (b, "chunks");
  json_builder_begin_array (b);
  for (guint i = 0; i < w->chunks->len; i++)
    {
      ChunkInfo *c = w->chunks->pdata[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, c->file);
      json_builder_set_member_name (b, "rows");
      json_builder_add_int_value (b, (gint64) c->rows);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) c->bytes);
      json_builder_set_member_name (b, "sha256");
      json_builder_add_string_value (b, c->sha256);
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
    return fail (error, AB_DUMP_ERROR_IO, "write the manifest: %s", local->message);
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
  w.chunks = g_ptr_array_new_with_free_func (chunk_info_free);
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
  g_clear_pointer (&w.cur, chunk_info_free);
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

/* ---- reading a dump ---- */

typedef struct {
  guint64 rows, bytes;
  GPtrArray *chunks; /* ChunkInfo* */
  gchar *sha256;     /* of the manifest text: ties a checkpoint to this dump */
} Manifest;

static void
manifest_clear (Manifest *m)
{
  g_clear_pointer (&m->chunks, g_ptr_array_unref);
  g_clear_pointer (&m->sha256, g_free);
}

static gboolean
member_uint (JsonObject *o, const gchar *name, guint64 *out)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
      || json_node_get_int (n) < 0)
    return FALSE;
  *out = (guint64) json_node_get_int (n);
  return TRUE;
}

static const gchar *
member_text (JsonObject *o, const gchar *name)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static GBytes *
member_key (JsonObject *o, const gchar *name)
{
  const gchar *text = member_text (o, name);
  gsize len;
  if (text == NULL || *text == '\0')
    return NULL;
  /* Canonical base64 only: decoding then encoding gives the text back. */
  guchar *data = g_base64_decode (text, &len);
  g_autofree gchar *again = g_base64_encode (data, len);
  if (len == 0 || len > AB_DUMP_MAX_KEY || strcmp (again, text) != 0)
    {
      g_free (data);
      return NULL;
    }
  return g_bytes_new_take (data, len);
}

/* chunk-DIGITS.bin and nothing else: the name never leaves the directory. */
static gboolean
chunk_name_ok (const gchar *name)
{
  if (!g_str_has_prefix (name, "chunk-") || !g_str_has_suffix (name, ".bin"))
    return FALSE;
  gsize len = strlen (name);
  if (len <= 10)
    return FALSE;
  for (gsize i = 6; i < len - 4; i++)
    if (!g_ascii_isdigit (name[i]))
      return FALSE;
  return TRUE;
}

static gboolean
sha_hex_ok (const gchar *hex)
{
  if (hex == NULL || strlen (hex) != 64)
    return FALSE;
  for (guint i = 0; i < 64; i++)
    if (!g_ascii_isxdigit (hex[i]) || g_ascii_isupper (hex[i]))
      return FALSE;
  return TRUE;
}

static gboolean
read_manifest (const gchar *dir, Manifest *m, GError **error)
{
  g_autofree gchar *path = g_build_filename (dir, AB_DUMP_MANIFEST, NULL);
  g_autofree gchar *text = NULL;
  gsize len;
  GStatBuf st;
  g_autoptr (GError) local = NULL;
  if (g_stat (path, &st) != 0)
    {
      if (errno == ENOENT)
        return fail (error, AB_DUMP_ERROR_CORRUPT,
                     "%s has no %s: it is not a backup, or an incomplete one", dir,
                     AB_DUMP_MANIFEST);
      return fail_errno (error, "stat", path);
    }
  if (st.st_size > MANIFEST_MAX_BYTES)
    return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: larger than %" G_GINT64_FORMAT " bytes", path,
                 (gint64) MANIFEST_MAX_BYTES);
  if (!g_file_get_contents (path, &text, &len, &local))
    return fail (error, AB_DUMP_ERROR_IO, "%s", local->message);
  m->sha256 = ab_sha256_hex_of (text, len);
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: %s", path, local->message);
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: not a JSON object", path);
  JsonObject *o = json_node_get_object (root);
  const gchar *format = member_text (o, "format");
  guint64 version;
  if (g_strcmp0 (format, AB_DUMP_FORMAT) != 0)
    return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: format is not \"%s\"", path, AB_DUMP_FORMAT);
  if (!member_uint (o, "version", &version) || version != AB_DUMP_VERSION)
    return fail (error, AB_DUMP_ERROR_CORRUPT,
                 "%s: format version is not %d (written by another release?)", path,
                 AB_DUMP_VERSION);
  if (!member_uint (o, "rows", &m->rows) || !member_uint (o, "bytes", &m->bytes))
    return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: rows or bytes missing", path);
  JsonNode *cn = json_object_get_member (o, "chunks");
  if (cn == NULL || !JSON_NODE_HOLDS_ARRAY (cn))
    return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: chunks is not an array", path);
  JsonArray *arr = json_node_get_array (cn);
  guint64 rows = 0, bytes = 0;
  m->chunks = g_ptr_array_new_with_free_func (chunk_info_free);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *en = json_array_get_element (arr, i);
      if (!JSON_NODE_HOLDS_OBJECT (en))
        return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: chunk %u is not an object", path, i + 1);
      JsonObject *e = json_node_get_object (en);
      ChunkInfo *c = g_new0 (ChunkInfo, 1);
      g_ptr_array_add (m->chunks, c);
      const gchar *file = member_text (e, "file");
      const gchar *sha = member_text (e, "sha256");
      if (file == NULL || !chunk_name_ok (file))
        return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: chunk %u has a bad file name", path, i + 1);
      c->file = g_strdup (file);
      if (!member_uint (e, "rows", &c->rows) || c->rows == 0 || !member_uint (e, "bytes", &c->bytes)
          || !sha_hex_ok (sha) || (c->first = member_key (e, "firstKey")) == NULL
          || (c->last = member_key (e, "lastKey")) == NULL)
        return fail (error, AB_DUMP_ERROR_CORRUPT,
                     "%s: the entry of %s lacks rows, bytes, sha256, firstKey or lastKey", path,
                     file);
      c->sha256 = g_strdup (sha);
      rows += c->rows;
      bytes += c->bytes;
    }
  if (rows != m->rows || bytes != m->bytes)
    return fail (error, AB_DUMP_ERROR_CORRUPT,
                 "%s: the chunks add up to %" G_GUINT64_FORMAT " rows and %" G_GUINT64_FORMAT
                 " bytes, the totals say %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
                 path, rows, bytes, m->rows, m->bytes);
  return TRUE;
}

/* One chunk file read front to back: every byte hashed, every length checked
 * against what is left of the size the manifest gives (and the file has). */
typedef struct {
  const ChunkInfo *info;
  gchar *path;
  FILE *f;
  guint64 left;   /* record bytes not yet taken */
  guint64 unread; /* file bytes not yet read into in */
  AbSha256 sum;   /* of every byte read into in */
  guint8 *in;     /* READ_BUF bytes at a time: in[in_pos, in_len) not taken yet */
  gsize in_pos, in_len;
  GByteArray *key, *value;
} ChunkReader;

static void
reader_close (ChunkReader *r)
{
  if (r->f != NULL)
    fclose (r->f);
  r->f = NULL;
  ab_sha256_clear (&r->sum);
  g_clear_pointer (&r->in, g_free);
  g_clear_pointer (&r->path, g_free);
  g_clear_pointer (&r->key, g_byte_array_unref);
  g_clear_pointer (&r->value, g_byte_array_unref);
}

static gboolean
corrupt (GError **error, const ChunkReader *r, const gchar *what)
{
  return fail (error, AB_DUMP_ERROR_CORRUPT, "%s is corrupt: %s", r->info->file, what);
}

#define READ_BUF ((gsize) 1 << 20)

/* The next block of the file into in, hashed as a whole. */
static gboolean
reader_fill (ChunkReader *r, GError **error)
{
  gsize want = (gsize) MIN ((guint64) READ_BUF, r->unread);
  gsize got = want > 0 ? fread (r->in, 1, want, r->f) : 0;
  if (got == 0)
    return ferror (r->f) ? fail_errno (error, "read", r->path)
                         : corrupt (error, r, "the file is shorter than the manifest says");
  ab_sha256_update (&r->sum, r->in, got);
  r->unread -= got;
  r->in_pos = 0;
  r->in_len = got;
  return TRUE;
}

static gboolean
reader_read (ChunkReader *r, guint8 *buf, gsize n, GError **error)
{
  if (n > r->left)
    return corrupt (error, r, "a record runs past the end of the chunk");
  r->left -= n;
  while (n > 0)
    {
      if (r->in_pos == r->in_len && !reader_fill (r, error))
        return FALSE;
      gsize take = MIN (n, r->in_len - r->in_pos);
      memcpy (buf, r->in + r->in_pos, take);
      r->in_pos += take;
      buf += take;
      n -= take;
    }
  return TRUE;
}

static gboolean
reader_open (ChunkReader *r, const gchar *dir, const ChunkInfo *info, GError **error)
{
  GStatBuf st;
  guint8 magic[AB_DUMP_CHUNK_MAGIC_LEN];
  memset (r, 0, sizeof *r);
  r->info = info;
  r->path = g_build_filename (dir, info->file, NULL);
  if (g_stat (r->path, &st) != 0)
    {
      int err = errno;
      return fail (error, AB_DUMP_ERROR_CORRUPT, "%s: %s", info->file, g_strerror (err));
    }
  if ((guint64) st.st_size != info->bytes)
    return fail (error, AB_DUMP_ERROR_CORRUPT,
                 "%s is corrupt: %" G_GUINT64_FORMAT " bytes, the manifest says %" G_GUINT64_FORMAT,
                 info->file, (guint64) st.st_size, info->bytes);
  r->f = g_fopen (r->path, "rb");
  if (r->f == NULL)
    return fail_errno (error, "open", r->path);
  r->left = r->unread = info->bytes;
  r->in = g_malloc (READ_BUF);
  ab_sha256_init (&r->sum);
  r->key = g_byte_array_new ();
  r->value = g_byte_array_new ();
  if (!reader_read (r, magic, sizeof magic, error))
    return FALSE;
  if (memcmp (magic, AB_DUMP_CHUNK_MAGIC, AB_DUMP_CHUNK_MAGIC_LEN) != 0)
    return corrupt (error, r, "it does not start with the chunk header");
  return TRUE;
}

/* The next record into r->key / r->value; *more = FALSE at the end. */
static gboolean
reader_next (ChunkReader *r, gboolean *more, GError **error)
{
  guint8 len[4];
  guint32 n;
  *more = r->left > 0;
  if (!*more)
    return TRUE;
  if (!reader_read (r, len, 4, error))
    return FALSE;
  n = get_be32 (len);
  if (n == 0 || n > AB_DUMP_MAX_KEY || n > r->left)
    return corrupt (error, r, "a key length is out of range");
  g_byte_array_set_size (r->key, n);
  if (!reader_read (r, r->key->data, n, error) || !reader_read (r, len, 4, error))
    return FALSE;
  n = get_be32 (len);
  if (n > AB_DUMP_MAX_VALUE || n > r->left)
    return corrupt (error, r, "a value length is out of range");
  g_byte_array_set_size (r->value, n);
  return reader_read (r, r->value->data, n, error);
}

static gboolean
key_equals (GBytes *b, const GByteArray *k)
{
  gsize len;
  const guint8 *d = g_bytes_get_data (b, &len);
  return len == k->len && memcmp (d, k->data, len) == 0;
}

/* Checks the end of a chunk read through: checksum, rows, last key. */
static gboolean
reader_finish (ChunkReader *r, guint64 rows, GError **error)
{
  gchar got[65];
  ab_sha256_hex (&r->sum, got);
  if (strcmp (got, r->info->sha256) != 0)
    return fail (error, AB_DUMP_ERROR_CORRUPT,
                 "%s is corrupt: its SHA-256 is %s, the manifest says %s", r->info->file, got,
                 r->info->sha256);
  if (rows != r->info->rows)
    return fail (error, AB_DUMP_ERROR_CORRUPT,
                 "%s is corrupt: %" G_GUINT64_FORMAT " rows, the manifest says %" G_GUINT64_FORMAT,
                 r->info->file, rows, r->info->rows);
  if (!key_equals (r->info->last, r->key))
    return corrupt (error, r, "its last key is not the manifest's lastKey");
  return TRUE;
}

static gboolean
check_chunk (const gchar *dir, const ChunkInfo *info, GByteArray *prev, GError **error)
{
  ChunkReader r;
  gboolean more = TRUE, ok;
  guint64 rows = 0;
  ok = reader_open (&r, dir, info, error);
  while (ok && (ok = reader_next (&r, &more, error)) && more)
    {
      if (rows == 0 && !key_equals (info->first, r.key))
        ok = corrupt (error, &r, "its first key is not the manifest's firstKey");
      else if (prev->len > 0
               && ab_store_key_compare (prev->data, prev->len, r.key->data, r.key->len) >= 0)
        ok = corrupt (error, &r, "its keys are not in ascending order");
      g_byte_array_set_size (prev, 0);
      g_byte_array_append (prev, r.key->data, r.key->len);
      rows++;
    }
  ok = ok && reader_finish (&r, rows, error);
  reader_close (&r);
  return ok;
}

static gboolean
check_all (const gchar *dir, Manifest *m, GError **error)
{
  g_autoptr (GByteArray) prev = g_byte_array_new ();
  for (guint i = 0; i < m->chunks->len; i++)
    if (!check_chunk (dir, m->chunks->pdata[i], prev, error))
      return FALSE;
  return TRUE;
}

gboolean
ab_dump_read_totals (const gchar *dir, AbDumpStats *stats, GError **error)
{
  Manifest m = { 0 };
  gboolean ok = read_manifest (dir, &m, error);
  if (ok)
    {
      stats->rows = m.rows;
      stats->bytes = m.bytes;
      stats->chunks = m.chunks->len;
    }
  manifest_clear (&m);
  return ok;
}

gboolean
ab_dump_check (const gchar *dir, AbDumpStats *stats, GError **error)
{
  Manifest m = { 0 };
  gboolean ok = read_manifest (dir, &m, error) && check_all (dir, &m, error);
  if (ok && stats != NULL)
    {
      stats->rows = m.rows;
      stats->bytes = m.bytes;
      stats->chunks = m.chunks->len;
    }
  manifest_clear (&m);
  return ok;
}

/* ---- restoring ---- */

typedef struct {
  gchar *manifest_sha256;
  gchar *target;
  guint64 chunks_done;
} Checkpoint;

static void
checkpoint_clear (Checkpoint *c)
{
  g_clear_pointer (&c->manifest_sha256, g_free);
  g_clear_pointer (&c->target, g_free);
}

/* FALSE (no error) when there is none; an unreadable one is an error. */
static gboolean
checkpoint_load (const gchar *path, Checkpoint *c, gboolean *found, GError **error)
{
  g_autofree gchar *text = NULL;
  gsize len;
  g_autoptr (GError) local = NULL;
  *found = FALSE;
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!g_file_get_contents (path, &text, &len, &local))
    return fail (error, AB_DUMP_ERROR_CHECKPOINT, "%s", local->message);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonObject *o;
  const gchar *sha, *target;
  if (!json_parser_load_from_data (parser, text, (gssize) len, NULL)
      || (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root)
      || g_strcmp0 (member_text (o = json_node_get_object (root), "format"), CHECKPOINT_FORMAT) != 0
      || (sha = member_text (o, "manifestSha256")) == NULL
      || (target = member_text (o, "target")) == NULL
      || !member_uint (o, "chunksDone", &c->chunks_done))
    return fail (error, AB_DUMP_ERROR_CHECKPOINT, "%s is not a restore checkpoint", path);
  c->manifest_sha256 = g_strdup (sha);
  c->target = g_strdup (target);
  *found = TRUE;
  return TRUE;
}

static gboolean
checkpoint_save (const gchar *path, const gchar *manifest_sha256, const gchar *target, guint64 done,
                 guint64 total, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, CHECKPOINT_FORMAT);
  json_builder_set_member_name (b, "manifestSha256");
  json_builder_add_string_value (b, manifest_sha256);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, target);
  json_builder_set_member_name (b, "chunksDone");
  json_builder_add_int_value (b, (gint64) done);
  json_builder_set_member_name (b, "chunks");
  json_builder_add_int_value (b, (gint64) total);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  gsize len;
  g_autofree gchar *text = json_generator_to_data (gen, &len);
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents_full (path, text, (gssize) len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
                                 &local))
    return fail (error, AB_DUMP_ERROR_IO,
                 "write the restore checkpoint: %s (--checkpoint FILE puts it elsewhere)",
                 local->message);
  return TRUE;
}

/* Batches to the store: inline on a local store, up to in_flight at once on
 * worker threads when the store's calls wait on a server (hbase). */
typedef struct {
  AbStore *store;
  AbProgress *progress;
  GThreadPool *pool;
  guint in_flight;
  GMutex lock;
  GCond cond;
  guint pending;
  GError *error; /* the first failure */
} Sender;

static void
sender_job (gpointer data, gpointer user)
{
  AbBatch *b = data;
  Sender *s = user;
  GError *local = NULL;
  gboolean ok = ab_store_batch (s->store, b, &local);
  if (ok && s->progress != NULL)
    ab_progress_add (s->progress, ab_batch_len (b));
  ab_batch_free (b);
  g_mutex_lock (&s->lock);
  if (!ok && s->error == NULL)
    s->error = local;
  else
    g_clear_error (&local);
  s->pending--;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

static gboolean
sender_send (Sender *s, AbBatch *b, GError **error)
{
  if (s->pool == NULL)
    {
      gboolean ok = ab_store_batch (s->store, b, error);
      if (ok && s->progress != NULL)
        ab_progress_add (s->progress, ab_batch_len (b));
      ab_batch_free (b);
      return ok;
    }
  g_mutex_lock (&s->lock);
  while (s->pending >= s->in_flight && s->error == NULL)
    g_cond_wait (&s->cond, &s->lock);
  GError *failed = s->error;
  s->error = NULL;
  if (failed == NULL)
    s->pending++;
  g_mutex_unlock (&s->lock);
  if (failed != NULL)
    {
      ab_batch_free (b);
      g_propagate_error (error, failed);
      return FALSE;
    }
  g_thread_pool_push (s->pool, b, NULL);
  return TRUE;
}

/* Waits for every batch sent; FALSE with the first failure. */
static gboolean
sender_drain (Sender *s, GError **error)
{
  if (s->pool == NULL)
    return TRUE;
  g_mutex_lock (&s->lock);
  while (s->pending > 0)
    g_cond_wait (&s->cond, &s->lock);
  GError *e = s->error;
  s->error = NULL;
  g_mutex_unlock (&s->lock);
  if (e != NULL)
    {
      g_propagate_error (error, e);
      return FALSE;
    }
  return TRUE;
}

static gboolean
store_is_empty (AbStore *store, gboolean *empty, GError **error)
{
  AbScanRange all = { .limit = 1 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (!ab_store_scan (store, &all, rows, error))
    return FALSE;
  *empty = rows->len == 0;
  return TRUE;
}

/* One chunk through a sorted load (rocksdb: one table file, ingested only
 * once the chunk has checked out again) or in batches. */
static gboolean
restore_chunk (Sender *s, AbStoreLoad *load, const gchar *dir, const ChunkInfo *info,
               guint batch_rows, const volatile sig_atomic_t *stop, GError **error)
{
  ChunkReader r;
  gboolean more = TRUE, ok;
  guint64 rows = 0;
  gsize bytes = 0;
  AbBatch *b = load == NULL ? ab_batch_new () : NULL;
  ok = reader_open (&r, dir, info, error);
  while (ok && (ok = reader_next (&r, &more, error)) && more)
    {
      rows++;
      if (load != NULL)
        {
          ok = ab_store_load_put (load, r.key->data, r.key->len, r.value->data, r.value->len,
                                  error);
          if (ok && rows % batch_rows == 0 && s->progress != NULL)
            ab_progress_add (s->progress, batch_rows);
          if (ok && rows % batch_rows == 0 && stop != NULL && *stop)
            ok = fail (error, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
          continue;
        }
      ab_batch_put (b, r.key->data, r.key->len, r.value->data, r.value->len);
      bytes += r.key->len + r.value->len;
      if (ab_batch_len (b) >= batch_rows || bytes >= AB_DUMP_BATCH_BYTES)
        {
          ok = sender_send (s, b, error);
          b = ab_batch_new ();
          bytes = 0;
          if (ok && stop != NULL && *stop)
            ok = fail (error, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
        }
    }
  if (ok && b != NULL && ab_batch_len (b) > 0)
    {
      ok = sender_send (s, b, error);
      b = NULL;
    }
  g_clear_pointer (&b, ab_batch_free);
  /* Everything sent must have landed before the chunk counts as written. */
  if (!sender_drain (s, ok ? error : NULL))
    ok = FALSE;
  ok = ok && reader_finish (&r, rows, error);
  if (ok && load != NULL && (ok = ab_store_load_commit (load, error)) && s->progress != NULL)
    ab_progress_add (s->progress, rows % batch_rows);
  reader_close (&r);
  return ok;
}

static gboolean
restore_rows (AbStore *store, const gchar *dir, Manifest *m, const gchar *checkpoint,
              const gchar *target, guint64 start, const AbDumpRestoreOptions *o, AbDumpStats *stats,
              GError **error)
{
  Sender s = { .store = store, .progress = o->progress };
  guint batch_rows = o->batch_rows > 0 ? o->batch_rows : AB_DUMP_BATCH_ROWS;
  gboolean ok = TRUE;
  GError *local = NULL;
  g_mutex_init (&s.lock);
  g_cond_init (&s.cond);
  if (!ab_store_never_blocks (store))
    {
      s.in_flight = o->in_flight > 0 ? o->in_flight : AB_DUMP_IN_FLIGHT;
      s.pool = g_thread_pool_new (sender_job, &s, (gint) s.in_flight, FALSE, NULL);
    }
  /* A store that takes sorted rows faster than batches (rocksdb) gets
   * each chunk that way: a dump's rows are in key order. */
  g_autoptr (AbStoreLoad) load = ab_store_load_new (store);
  guint64 done = start;
  for (guint64 i = start; ok && i < m->chunks->len; i++)
    {
      const ChunkInfo *info = m->chunks->pdata[i];
      if (o->stop_after_chunks > 0 && i - start >= o->stop_after_chunks)
        ok = fail (&local, AB_DUMP_ERROR_INTERRUPTED, "stopped after %u chunks as asked",
                   o->stop_after_chunks);
      else if (o->stop != NULL && *o->stop)
        ok = fail (&local, AB_DUMP_ERROR_INTERRUPTED, "interrupted");
      else if ((ok = restore_chunk (&s, load, dir, info, batch_rows, o->stop, &local)))
        {
          done = i + 1;
          stats->rows += info->rows;
          stats->bytes += info->bytes;
          stats->chunks++;
          ok = checkpoint_save (checkpoint, m->sha256, target, done, m->chunks->len, &local);
        }
    }
  stats->table_files = load != NULL ? ab_store_load_files (load) : 0;
  if (s.pool != NULL)
    g_thread_pool_free (s.pool, FALSE, TRUE);
  g_clear_error (&s.error);
  g_mutex_clear (&s.lock);
  g_cond_clear (&s.cond);
  if (!ok)
    {
      g_set_error (error, AB_DUMP_ERROR,
                   local->domain == AB_DUMP_ERROR ? local->code : AB_DUMP_ERROR_IO,
                   "%s; chunks 1..%" G_GUINT64_FORMAT " of %u are written (checkpoint %s): run "
                   "the same restore with --resume to continue after them",
                   local->message, done, m->chunks->len, checkpoint);
      g_error_free (local);
      return FALSE;
    }
  g_remove (checkpoint); /* done: nothing to resume */
  return TRUE;
}

gboolean
ab_dump_restore (AbStore *store, const gchar *dir, const AbDumpRestoreOptions *o,
                 AbDumpStats *stats, GError **error)
{
  Manifest m = { 0 };
  Checkpoint cp = { 0 };
  AbDumpStats local_stats = { 0 };
  gboolean found = FALSE, empty = TRUE, ok;
  const gchar *target = o->target_uri != NULL ? o->target_uri : "";
  g_autofree gchar *checkpoint = o->checkpoint != NULL
                                     ? g_strdup (o->checkpoint)
                                     : g_build_filename (dir, AB_DUMP_CHECKPOINT, NULL);
  guint64 start = 0;
  if (stats == NULL)
    stats = &local_stats;
  memset (stats, 0, sizeof *stats);
  /* 1. The whole dump checks out, or nothing is written. */
  ok = read_manifest (dir, &m, error) && check_all (dir, &m, error)
       && checkpoint_load (checkpoint, &cp, &found, error);
  /* 2. Where to start: after the checkpoint, or into an empty store. */
  if (ok && o->resume)
    {
      if (!found)
        ok = fail (error, AB_DUMP_ERROR_CHECKPOINT,
                   "--resume: there is no checkpoint %s (nothing to resume)", checkpoint);
      else if (strcmp (cp.manifest_sha256, m.sha256) != 0)
        ok = fail (error, AB_DUMP_ERROR_CHECKPOINT,
                   "--resume: the checkpoint %s belongs to another backup", checkpoint);
      else if (strcmp (cp.target, target) != 0)
        ok = fail (error, AB_DUMP_ERROR_CHECKPOINT,
                   "--resume: the checkpoint %s is of a restore into %s, not %s", checkpoint,
                   cp.target, target);
      else if (cp.chunks_done > m.chunks->len)
        ok = fail (error, AB_DUMP_ERROR_CHECKPOINT, "%s: more chunks done than the backup has",
                   checkpoint);
      else
        start = cp.chunks_done;
    }
  else if (ok && (ok = store_is_empty (store, &empty, error)) && !empty && !o->force)
    {
      gboolean ours
          = found && strcmp (cp.manifest_sha256, m.sha256) == 0 && strcmp (cp.target, target) == 0;
      if (ours)
        ok = fail (error, AB_DUMP_ERROR_NOT_EMPTY,
                   "the target store is not empty: a restore of this backup into it stopped "
                   "after %" G_GUINT64_FORMAT " of %u chunks (checkpoint %s); continue it with "
                   "--resume, or write over the store with --force",
                   cp.chunks_done, m.chunks->len, checkpoint);
      else
        ok = fail (error, AB_DUMP_ERROR_NOT_EMPTY,
                   "the target store is not empty: restore into an empty store, or pass --force "
                   "to write the backup's rows over it (rows not in the backup stay)");
    }
  stats->chunks_skipped = (guint) start;
  if (!ok && error != NULL && *error != NULL)
    {
      gchar *msg = g_strconcat ((*error)->message, "; nothing was written", NULL);
      g_free ((*error)->message);
      (*error)->message = msg;
    }
  /* 3. A checkpoint before the first write (the place must be writable). */
  ok = ok && checkpoint_save (checkpoint, m.sha256, target, start, m.chunks->len, error);
  ok = ok && restore_rows (store, dir, &m, checkpoint, target, start, o, stats, error);
  manifest_clear (&m);
  checkpoint_clear (&cp);
  return ok;
}

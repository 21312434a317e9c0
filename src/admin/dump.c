/* The dump format of backup and restore, its reading side: a manifest read
 * and checked, a chunk file read record by record (every length, checksum,
 * count and key bound checked), a whole dump checked before anything is written. */
#include "admin/dump-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK (ab - dump - error - quark, ab_dump_error)

#define MANIFEST_MAX_BYTES ((goffset) 64 << 20)

void
ab_admin_dump_chunk_info_free (gpointer p)
{
  AbDumpChunkInfo *c = p;
  g_free (c->file);
  g_free (c->sha256);
  g_clear_pointer (&c->first, g_bytes_unref);
  g_clear_pointer (&c->last, g_bytes_unref);
  g_free (c);
}

gboolean
ab_admin_dump_fail_errno (GError **error, const gchar *what, const gchar *path)
{
  int err = errno;
  return ab_admin_dump_fail (error, AB_DUMP_ERROR_IO, "%s %s: %s", what, path, g_strerror (err));
}

static guint32
get_be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

/* ---- reading a dump ---- */

gboolean
ab_admin_dump_member_uint (JsonObject *o, const gchar *name, guint64 *out)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
      || json_node_get_int (n) < 0)
    return FALSE;
  *out = (guint64) json_node_get_int (n);
  return TRUE;
}

const gchar *
ab_admin_dump_member_text (JsonObject *o, const gchar *name)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

static GBytes *
member_key (JsonObject *o, const gchar *name)
{
  const gchar *text = ab_admin_dump_member_text (o, name);
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

gboolean
ab_admin_dump_read_manifest (const gchar *dir, AbDumpManifest *m, GError **error)
{
  g_autofree gchar *path = g_build_filename (dir, AB_DUMP_MANIFEST, NULL);
  g_autofree gchar *text = NULL;
  gsize len;
  GStatBuf st;
  g_autoptr (GError) local = NULL;
  if (g_stat (path, &st) != 0)
    {
      if (errno == ENOENT)
        return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT,
                                   "%s has no %s: it is not a backup, or an incomplete one", dir,
                                   AB_DUMP_MANIFEST);
      return ab_admin_dump_fail_errno (error, "stat", path);
    }
  if (st.st_size > MANIFEST_MAX_BYTES)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT,
                               "%s: larger than %" G_GINT64_FORMAT " bytes", path,
                               (gint64) MANIFEST_MAX_BYTES);
  if (!g_file_get_contents (path, &text, &len, &local))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_IO, "%s", local->message);
  m->sha256 = ab_sha256_hex_of (text, len);
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, (gssize) len, &local))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: %s", path, local->message);
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: not a JSON object", path);
  JsonObject *o = json_node_get_object (root);
  const gchar *format = ab_admin_dump_member_text (o, "format");
  guint64 version;
  if (g_strcmp0 (format, AB_DUMP_FORMAT) != 0)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: format is not \"%s\"", path,
                               AB_DUMP_FORMAT);
  if (!ab_admin_dump_member_uint (o, "version", &version) || version != AB_DUMP_VERSION)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT,
                               "%s: format version is not %d (written by another release?)", path,
                               AB_DUMP_VERSION);
  if (!ab_admin_dump_member_uint (o, "rows", &m->rows)
      || !ab_admin_dump_member_uint (o, "bytes", &m->bytes))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: rows or bytes missing", path);
  JsonNode *cn = json_object_get_member (o, "chunks");
  if (cn == NULL || !JSON_NODE_HOLDS_ARRAY (cn))
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: chunks is not an array", path);
  JsonArray *arr = json_node_get_array (cn);
  guint64 rows = 0, bytes = 0;
  m->chunks = g_ptr_array_new_with_free_func (ab_admin_dump_chunk_info_free);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *en = json_array_get_element (arr, i);
      if (!JSON_NODE_HOLDS_OBJECT (en))
        return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: chunk %u is not an object",
                                   path, i + 1);
      JsonObject *e = json_node_get_object (en);
      AbDumpChunkInfo *c = g_new0 (AbDumpChunkInfo, 1);
      g_ptr_array_add (m->chunks, c);
      const gchar *file = ab_admin_dump_member_text (e, "file");
      const gchar *sha = ab_admin_dump_member_text (e, "sha256");
      if (file == NULL || !chunk_name_ok (file))
        return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: chunk %u has a bad file name",
                                   path, i + 1);
      c->file = g_strdup (file);
      if (!ab_admin_dump_member_uint (e, "rows", &c->rows) || c->rows == 0
          || !ab_admin_dump_member_uint (e, "bytes", &c->bytes) || !sha_hex_ok (sha)
          || (c->first = member_key (e, "firstKey")) == NULL
          || (c->last = member_key (e, "lastKey")) == NULL)
        return ab_admin_dump_fail (
            error, AB_DUMP_ERROR_CORRUPT,
            "%s: the entry of %s lacks rows, bytes, sha256, firstKey or lastKey", path, file);
      c->sha256 = g_strdup (sha);
      rows += c->rows;
      bytes += c->bytes;
    }
  if (rows != m->rows || bytes != m->bytes)
    return ab_admin_dump_fail (
        error, AB_DUMP_ERROR_CORRUPT,
        "%s: the chunks add up to %" G_GUINT64_FORMAT " rows and %" G_GUINT64_FORMAT
        " bytes, the totals say %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
        path, rows, bytes, m->rows, m->bytes);
  return TRUE;
}

void
ab_admin_dump_manifest_clear (AbDumpManifest *m)
{
  g_clear_pointer (&m->chunks, g_ptr_array_unref);
  g_clear_pointer (&m->sha256, g_free);
}

void
ab_admin_dump_reader_close (AbDumpChunkReader *r)
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
corrupt (GError **error, const AbDumpChunkReader *r, const gchar *what)
{
  return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s is corrupt: %s", r->info->file,
                             what);
}

#define READ_BUF ((gsize) 1 << 20)

/* The next block of the file into in, hashed as a whole. */
static gboolean
reader_fill (AbDumpChunkReader *r, GError **error)
{
  gsize want = (gsize) MIN ((guint64) READ_BUF, r->unread);
  gsize got = want > 0 ? fread (r->in, 1, want, r->f) : 0;
  if (got == 0)
    return ferror (r->f) ? ab_admin_dump_fail_errno (error, "read", r->path)
                         : corrupt (error, r, "the file is shorter than the manifest says");
  ab_sha256_update (&r->sum, r->in, got);
  r->unread -= got;
  r->in_pos = 0;
  r->in_len = got;
  return TRUE;
}

static gboolean
reader_read (AbDumpChunkReader *r, guint8 *buf, gsize n, GError **error)
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

gboolean
ab_admin_dump_reader_open (AbDumpChunkReader *r, const gchar *dir, const AbDumpChunkInfo *info,
                           GError **error)
{
  GStatBuf st;
  guint8 magic[AB_DUMP_CHUNK_MAGIC_LEN];
  memset (r, 0, sizeof *r);
  r->info = info;
  r->path = g_build_filename (dir, info->file, NULL);
  if (g_stat (r->path, &st) != 0)
    {
      int err = errno;
      return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT, "%s: %s", info->file,
                                 g_strerror (err));
    }
  if ((guint64) st.st_size != info->bytes)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT,
                               "%s is corrupt: %" G_GUINT64_FORMAT
                               " bytes, the manifest says %" G_GUINT64_FORMAT,
                               info->file, (guint64) st.st_size, info->bytes);
  r->f = g_fopen (r->path, "rb");
  if (r->f == NULL)
    return ab_admin_dump_fail_errno (error, "open", r->path);
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

gboolean
ab_admin_dump_reader_next (AbDumpChunkReader *r, gboolean *more, GError **error)
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

gboolean
ab_admin_dump_reader_finish (AbDumpChunkReader *r, guint64 rows, GError **error)
{
  gchar got[65];
  ab_sha256_hex (&r->sum, got);
  if (strcmp (got, r->info->sha256) != 0)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT,
                               "%s is corrupt: its SHA-256 is %s, the manifest says %s",
                               r->info->file, got, r->info->sha256);
  if (rows != r->info->rows)
    return ab_admin_dump_fail (error, AB_DUMP_ERROR_CORRUPT,
                               "%s is corrupt: %" G_GUINT64_FORMAT
                               " rows, the manifest says %" G_GUINT64_FORMAT,
                               r->info->file, rows, r->info->rows);
  if (!key_equals (r->info->last, r->key))
    return corrupt (error, r, "its last key is not the manifest's lastKey");
  return TRUE;
}

static gboolean
check_chunk (const gchar *dir, const AbDumpChunkInfo *info, GByteArray *prev, GError **error)
{
  AbDumpChunkReader r;
  gboolean more = TRUE, ok;
  guint64 rows = 0;
  ok = ab_admin_dump_reader_open (&r, dir, info, error);
  while (ok && (ok = ab_admin_dump_reader_next (&r, &more, error)) && more)
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
  ok = ok && ab_admin_dump_reader_finish (&r, rows, error);
  ab_admin_dump_reader_close (&r);
  return ok;
}

gboolean
ab_admin_dump_check_chunks (const gchar *dir, AbDumpManifest *m, GError **error)
{
  g_autoptr (GByteArray) prev = g_byte_array_new ();
  for (guint i = 0; i < m->chunks->len; i++)
    if (!check_chunk (dir, m->chunks->pdata[i], prev, error))
      return FALSE;
  return TRUE;
}

/* The manifest's totals into stats (when not NULL), after every chunk
 * read through when check. */
static gboolean
read_dump (const gchar *dir, gboolean check, AbDumpStats *stats, GError **error)
{
  AbDumpManifest m = { 0 };
  gboolean ok = ab_admin_dump_read_manifest (dir, &m, error)
                && (!check || ab_admin_dump_check_chunks (dir, &m, error));
  if (ok && stats != NULL)
    {
      stats->rows = m.rows;
      stats->bytes = m.bytes;
      stats->chunks = m.chunks->len;
    }
  ab_admin_dump_manifest_clear (&m);
  return ok;
}

gboolean
ab_dump_read_totals (const gchar *dir, AbDumpStats *stats, GError **error)
{
  return read_dump (dir, FALSE, stats, error);
}

gboolean
ab_dump_check (const gchar *dir, AbDumpStats *stats, GError **error)
{
  return read_dump (dir, TRUE, stats, error);
}

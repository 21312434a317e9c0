/* The checkpoint file of actionbase-admin copy: what it records (mode, each
 * key range's safe position, totals, the WAL catch-up's position), how it is
 * loaded and durably saved, and the lock that keeps two runs of it apart. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "admin/copy-private.h"
#include "codec/bytes.h"

#define COPY_GROUP "copy"
#define COPY_FORMAT 1

static void
position_free (gpointer p)
{
  if (p != NULL)
    g_byte_array_unref (p);
}

GPtrArray *
ab_admin_copy_positions_new (guint n)
{
  GPtrArray *a = g_ptr_array_new_full (n, position_free);
  g_ptr_array_set_size (a, (gint) n);
  return a;
}

void
ab_admin_copy_checkpoint_clear (AbCopyCheckpoint *ck)
{
  g_clear_pointer (&ck->wal_position, g_byte_array_unref);
  g_clear_pointer (&ck->mode, g_free);
  g_clear_pointer (&ck->positions, g_ptr_array_unref);
}

static GByteArray *
hex_decode (const gchar *hex)
{
  gsize n = strlen (hex);
  if (n % 2 != 0)
    return NULL;
  GByteArray *a = g_byte_array_sized_new ((guint) (n / 2));
  for (gsize i = 0; i < n; i += 2)
    {
      gint hi = g_ascii_xdigit_value (hex[i]), lo = g_ascii_xdigit_value (hex[i + 1]);
      if (hi < 0 || lo < 0)
        {
          g_byte_array_unref (a);
          return NULL;
        }
      guint8 byte = (guint8) (hi << 4 | lo);
      g_byte_array_append (a, &byte, 1);
    }
  return a;
}

gboolean
ab_admin_copy_checkpoint_load (const AbCopyOptions *o, AbCopyCheckpoint *ck, gboolean *mismatch,
                               GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  *mismatch = FALSE;
  memset (ck, 0, sizeof *ck);
  if (!g_key_file_load_from_file (kf, o->checkpoint, G_KEY_FILE_NONE, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: %s", o->checkpoint,
                   local->message);
      return FALSE;
    }
  g_autofree gchar *from = g_key_file_get_string (kf, COPY_GROUP, "from", NULL);
  g_autofree gchar *to = g_key_file_get_string (kf, COPY_GROUP, "to", NULL);
  g_auto (GStrv) dbs = g_key_file_get_string_list (kf, COPY_GROUP, "databases", NULL, NULL);
  g_autofree gchar *mode = g_key_file_get_string (kf, COPY_GROUP, "mode", NULL);
  g_autofree gchar *pos = g_key_file_get_string (kf, COPY_GROUP, "position", NULL);
  if (from == NULL || to == NULL || mode == NULL || pos == NULL
      || (!g_str_equal (mode, "copy") && !g_str_equal (mode, "rescan")))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "checkpoint %s is not an actionbase-admin copy checkpoint", o->checkpoint);
      return FALSE;
    }
  gboolean same = g_str_equal (from, o->from) && g_str_equal (to, o->to)
                  && (dbs == NULL ? 0 : g_strv_length (dbs)) == o->databases->len;
  for (guint i = 0; same && i < o->databases->len; i++)
    same = g_str_equal (dbs[i], o->databases->pdata[i]);
  if (!same)
    {
      g_autofree gchar *theirs
          = dbs != NULL && dbs[0] != NULL ? g_strjoinv (", ", dbs) : g_strdup ("(all)");
      g_autofree gchar *ours = ab_admin_copy_databases_text (o);
      *mismatch = TRUE;
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "checkpoint %s belongs to another copy (from %s to %s, databases %s; this one: "
                   "from %s to %s, databases %s): give another --checkpoint, or delete that file "
                   "to start over",
                   o->checkpoint, from, to, theirs, o->from, o->to, ours);
      return FALSE;
    }
  ck->mode = g_steal_pointer (&mode);
  ck->complete = g_key_file_get_boolean (kf, COPY_GROUP, "complete", NULL);
  ck->rows = g_key_file_get_uint64 (kf, COPY_GROUP, "rows", NULL);
  ck->written = g_key_file_get_uint64 (kf, COPY_GROUP, "written", NULL);
  ck->deleted = g_key_file_get_uint64 (kf, COPY_GROUP, "deleted", NULL);
  g_autofree gchar *wal_pos = g_key_file_get_string (kf, COPY_GROUP, "wal_position", NULL);
  ck->wal_since_ms = g_key_file_get_int64 (kf, COPY_GROUP, "wal_since_ms", NULL);
  ck->wal_read = g_key_file_get_uint64 (kf, COPY_GROUP, "wal_read", NULL);
  ck->wal_applied = g_key_file_get_uint64 (kf, COPY_GROUP, "wal_applied", NULL);
  ck->wal_running = g_key_file_get_boolean (kf, COPY_GROUP, "wal_running", NULL);
  ck->wal_interrupted = g_key_file_get_boolean (kf, COPY_GROUP, "wal_interrupted", NULL);
  if (wal_pos != NULL && (ck->wal_position = hex_decode (wal_pos)) == NULL)
    {
      ab_admin_copy_checkpoint_clear (ck);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: bad wal_position",
                   o->checkpoint);
      return FALSE;
    }
  /* ranges=N and positions=HEX;...: a copy that read N key ranges at once;
   * else the one position. */
  gint64 ranges = g_key_file_has_key (kf, COPY_GROUP, "ranges", NULL)
                      ? g_key_file_get_int64 (kf, COPY_GROUP, "ranges", NULL)
                      : 1;
  g_auto (GStrv) each = NULL;
  gsize n_each = 0;
  if (ranges > 1)
    each = g_key_file_get_string_list (kf, COPY_GROUP, "positions", &n_each, NULL);
  if (ranges < 1 || ranges > COPY_MAX_READERS || (ranges > 1 && n_each != (gsize) ranges))
    {
      ab_admin_copy_checkpoint_clear (ck);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: bad ranges",
                   o->checkpoint);
      return FALSE;
    }
  ck->positions = ab_admin_copy_positions_new ((guint) ranges);
  for (guint i = 0; i < ck->positions->len; i++)
    {
      const gchar *hex = ranges > 1 ? each[i] : pos;
      if (hex[0] != '\0' && (ck->positions->pdata[i] = hex_decode (hex)) == NULL)
        {
          ab_admin_copy_checkpoint_clear (ck);
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "checkpoint %s: bad position",
                       o->checkpoint);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ab_admin_copy_checkpoint_save (const AbCopyOptions *o, const AbCopyCheckpoint *ck, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  guint ranges = ck->positions->len;
  g_auto (GStrv) hexes = g_new0 (gchar *, ranges + 1);
  for (guint i = 0; i < ranges; i++)
    {
      const GByteArray *p = ck->positions->pdata[i];
      hexes[i] = p != NULL ? ab_codec_hex (p->data, p->len) : g_strdup ("");
    }
  g_autofree gchar *dir = g_path_get_dirname (o->checkpoint);
  g_key_file_set_integer (kf, COPY_GROUP, "format", COPY_FORMAT);
  g_key_file_set_string (kf, COPY_GROUP, "from", o->from);
  g_key_file_set_string (kf, COPY_GROUP, "to", o->to);
  g_key_file_set_string_list (kf, COPY_GROUP, "databases",
                              (const gchar *const *) o->databases->pdata, o->databases->len);
  g_key_file_set_string (kf, COPY_GROUP, "mode", ck->mode);
  g_key_file_set_boolean (kf, COPY_GROUP, "complete", ck->complete);
  /* One range: its position (the format of earlier versions). Several:
   * each range's, in order; "position" stays empty (an earlier version
   * reading it starts over, which is safe). */
  g_key_file_set_string (kf, COPY_GROUP, "position", ranges == 1 ? hexes[0] : "");
  if (ranges > 1)
    {
      g_key_file_set_integer (kf, COPY_GROUP, "ranges", (gint) ranges);
      g_key_file_set_string_list (kf, COPY_GROUP, "positions", (const gchar *const *) hexes,
                                  ranges);
    }
  g_key_file_set_uint64 (kf, COPY_GROUP, "rows", ck->rows);
  g_key_file_set_uint64 (kf, COPY_GROUP, "written", ck->written);
  g_key_file_set_uint64 (kf, COPY_GROUP, "deleted", ck->deleted);
  if (ck->wal_position != NULL)
    {
      g_autofree gchar *wal_pos = ab_codec_hex (ck->wal_position->data, ck->wal_position->len);
      g_key_file_set_string (kf, COPY_GROUP, "wal_position", wal_pos);
      g_key_file_set_int64 (kf, COPY_GROUP, "wal_since_ms", ck->wal_since_ms);
      g_key_file_set_uint64 (kf, COPY_GROUP, "wal_read", ck->wal_read);
      g_key_file_set_uint64 (kf, COPY_GROUP, "wal_applied", ck->wal_applied);
      g_key_file_set_boolean (kf, COPY_GROUP, "wal_running", ck->wal_running);
      g_key_file_set_boolean (kf, COPY_GROUP, "wal_interrupted", ck->wal_interrupted);
    }
  gsize len;
  g_autofree gchar *text = g_key_file_to_data (kf, &len, NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                   "checkpoint directory %s: %s", dir, g_strerror (err));
      return FALSE;
    }
  if (!g_file_set_contents_full (o->checkpoint, text, (gssize) len,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644,
                                 error))
    return FALSE;
  ab_admin_sync_dir (dir);
  return TRUE;
}

int
ab_admin_copy_lock_checkpoint (const AbCopyOptions *o)
{
  g_autofree gchar *path = g_strconcat (o->checkpoint, ".lock", NULL);
  g_autofree gchar *dir = g_path_get_dirname (o->checkpoint);
  int fd = g_mkdir_with_parents (dir, 0755) == 0 ? open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)
                                                 : -1;
  if (fd < 0)
    {
      fprintf (stderr, "actionbase-admin copy: %s: %s\n", path, g_strerror (errno));
      return -1;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      fprintf (stderr,
               "actionbase-admin copy: another run of this copy is going on (%s is locked): "
               "wait for it to end, or stop it, then run the command again\n",
               path);
      close (fd);
      return -1;
    }
  return fd;
}

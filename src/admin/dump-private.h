/* What the three parts of the dump share (dump.c reads and checks a dump,
 * dump_write.c writes one, dump_restore.c restores one): the manifest and its
 * chunk entries, the chunk reader, and how they fail. */
#pragma once
#include <stdio.h>
#include <json-glib/json-glib.h>
#include "admin/dump.h"
#include "codec/digest.h"
#include "model/json_get.h"

/* A chunk's entry in the manifest's "chunks". */
typedef struct {
  gchar *file;
  guint64 rows;
  guint64 bytes;
  gchar *sha256;
  GBytes *first;
  GBytes *last;
} AbDumpChunkInfo;

void ab_admin_dump_chunk_info_free (gpointer p);

/* An AB_DUMP_ERROR of code with the formatted message; FALSE. */
#define ab_admin_dump_fail(error, code, ...) \
  ab_admin_fail ((error), AB_DUMP_ERROR, (code), __VA_ARGS__)
/* AB_DUMP_ERROR_IO "WHAT PATH: strerror (errno)"; FALSE. */
gboolean ab_admin_dump_fail_errno (GError **error, const gchar *what, const gchar *path);

/* A JSON member that is a non-negative integer (FALSE otherwise), or a
 * string (NULL otherwise). */
gboolean ab_admin_dump_member_uint (JsonObject *o, const gchar *name, guint64 *out);
const gchar *ab_admin_dump_member_text (JsonObject *o, const gchar *name);

typedef struct {
  guint64 rows, bytes;
  GPtrArray *chunks; /* AbDumpChunkInfo* */
  gchar *sha256;     /* of the manifest text: ties a checkpoint to this dump */
} AbDumpManifest;

/* Reads DIR/manifest.json: every entry well-formed, the totals adding up. */
gboolean ab_admin_dump_read_manifest (const gchar *dir, AbDumpManifest *m, GError **error);
void ab_admin_dump_manifest_clear (AbDumpManifest *m);
/* Reads every chunk of m through (ab_admin_dump_reader_*), writing nothing. */
gboolean ab_admin_dump_check_chunks (const gchar *dir, AbDumpManifest *m, GError **error);

/* One chunk file read front to back: every byte hashed, every length checked
 * against what is left of the size the manifest gives (and the file has). */
typedef struct {
  const AbDumpChunkInfo *info;
  gchar *path;
  FILE *f;
  guint64 left;   /* record bytes not yet taken */
  guint64 unread; /* file bytes not yet read into in */
  AbSha256 sum;   /* of every byte read into in */
  guint8 *in;     /* READ_BUF bytes at a time: in[in_pos, in_len) not taken yet */
  gsize in_pos, in_len;
  GByteArray *key, *value;
} AbDumpChunkReader;

/* Opens DIR/info->file (its size the manifest's) and reads the chunk header. */
gboolean ab_admin_dump_reader_open (AbDumpChunkReader *r, const gchar *dir,
                                    const AbDumpChunkInfo *info, GError **error);
/* The next record into r->key / r->value; *more = FALSE at the end. */
gboolean ab_admin_dump_reader_next (AbDumpChunkReader *r, gboolean *more, GError **error);
/* Checks the end of a chunk read through: checksum, rows, last key. */
gboolean ab_admin_dump_reader_finish (AbDumpChunkReader *r, guint64 rows, GError **error);
void ab_admin_dump_reader_close (AbDumpChunkReader *r);

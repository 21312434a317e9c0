/* Hash codes and row keys: salt + source + table code + record type prefix,
 * and the Lock/Count/State/Index/Group/Cache keys built on it (docs/storage-format.md
 * §2-§4), plus the parser that splits a key back into its parts. */
#pragma once
#include <glib.h>
#include "codec/element.h"

typedef enum {
  AB_ROW_LOCK = -1,
  AB_ROW_COUNT = -2,
  AB_ROW_STATE = -3,
  AB_ROW_INDEX = -4,
  AB_ROW_GROUP = -5,
  AB_ROW_CACHE = -6,
  AB_ROW_TOPK_RANK = -7,  /* this project: top-K ranking entries (storage-format.md §4) */
  AB_ROW_TOPK_SCORE = -8, /* this project: top-K score of each ranked value */
} AbRowType;

typedef enum { AB_DIR_OUT = 2, AB_DIR_IN = 3 } AbDirection;

/* Signed xxhash32 (seed 0) of bytes; of a NUL-terminated name. */
gint32 ab_codec_hash (const void *data, gsize len);
gint32 ab_codec_code (const gchar *name);
/* xxhash32 of "<db>.<table>". */
gint32 ab_codec_table_code (const gchar *database, const gchar *table);
/* Property codes of the reserved createdAt / deletedAt cells. */
#define AB_CODE_INSERT_TS 306306609
#define AB_CODE_DELETE_TS 1013158786

/* salt(4, BE) || enc(source) || enc_int32(table_code) || enc_int8(type). */
gboolean ab_codec_put_prefix (GByteArray *out, const AbValue *source, gint32 table_code,
                              AbRowType type, GError **error);

/* Whole keys; each returns a new array or NULL with error. */
GByteArray *ab_codec_state_key (const AbValue *source, const AbValue *target, gint32 table_code,
                                GError **error);
GByteArray *ab_codec_lock_key (const AbValue *source, const AbValue *target, gint32 table_code,
                               GError **error);
GByteArray *ab_codec_count_key (const AbValue *dsource, AbDirection dir, gint32 table_code,
                                GError **error);
/* Index scan prefix P = prefix(dsource, -4) || enc_int8(dir) || enc_int32(index_code). */
GByteArray *ab_codec_index_prefix (const AbValue *dsource, AbDirection dir, gint32 table_code,
                                   gint32 index_code, GError **error);
/* Full index key: prefix || per field enc/encD(values[i]) || enc(dtarget). */
GByteArray *ab_codec_index_key (const AbValue *dsource, AbDirection dir, gint32 table_code,
                                gint32 index_code, const AbValue *values, const AbOrder *orders,
                                guint n_fields, const AbValue *dtarget, GError **error);
/* Group / Cache wide-row keys: prefix || enc_int8(dir) || enc_int32(code). */
GByteArray *ab_codec_wide_key (const AbValue *dsource, AbDirection dir, gint32 table_code,
                               AbRowType type, gint32 code, GError **error);

/* The same keys appended to an AbBuf (nothing allocated while they fit its
 * inline room); on failure out is as it was. */
gboolean ab_key_prefix (AbBuf *out, const AbValue *source, gint32 table_code, AbRowType type,
                        GError **error);
gboolean ab_key_state (AbBuf *out, const AbValue *source, const AbValue *target, gint32 table_code,
                       GError **error);
gboolean ab_key_lock (AbBuf *out, const AbValue *source, const AbValue *target, gint32 table_code,
                      GError **error);
gboolean ab_key_count (AbBuf *out, const AbValue *dsource, AbDirection dir, gint32 table_code,
                       GError **error);
gboolean ab_key_wide (AbBuf *out, const AbValue *dsource, AbDirection dir, gint32 table_code,
                      AbRowType type, gint32 code, GError **error);
gboolean ab_key_index (AbBuf *out, const AbValue *dsource, AbDirection dir, gint32 table_code,
                       gint32 index_code, const AbValue *values, const AbOrder *orders,
                       guint n_fields, const AbValue *dtarget, GError **error);

/* Wide rows (Group -5, Cache -6) are stored cell by cell under the
 * composite key row || qualifier, so that a narrow store sees one key per
 * cell and a row read is a prefix scan. Returns the length of the row part
 * of such a key (after enc_int8(dir) || enc_int32(code)); for any other key
 * (narrow rows, reserved keys, malformed input) the whole length. The HBase
 * backend splits composite keys back into (row, qualifier) with it. */
gsize ab_codec_wide_row_length (const guint8 *key, gsize len);
/* The same split with the row's record type and group/cache code: FALSE for
 * a key that is not a Group or Cache key (or is malformed). */
gboolean ab_codec_wide_parts (const guint8 *key, gsize len, AbRowType *type, gint32 *code,
                              gsize *row_len);

/* Sidecar cells (docs/storage-format.md §6.1): cells the engine's lock
 * waves keep beside a narrow Lock or Count row on a store without
 * transactions (HBase), under the key row || 0xFF || tag || id. HBase stores
 * one as qualifier 0xFF || tag || id of the row itself, so it shares the
 * row's atomicity and goes when the row is deleted whole; reads of the row's
 * own cell (f:e) and scans never see it. The intent of a Lock row (tag 'i')
 * holds the rows a write is making; a receipt on a Count row (tag 'r', id =
 * the write) says that write's increment of the row was applied. */
#define AB_SIDECAR_MARK 0xFF
#define AB_SIDECAR_INTENT 'i'
#define AB_SIDECAR_RECEIPT 'r'
/* The length of the row part of a sidecar key (a Lock or Count key followed
 * by 0xFF and at least a tag), or 0 when key is not one. */
gsize ab_codec_sidecar_row_length (const guint8 *key, gsize len);
/* row || 0xFF || tag || id appended to out. */
void ab_codec_sidecar_key (GByteArray *out, const guint8 *row, gsize row_len, guint8 tag,
                           const guint8 *id, gsize id_len);

/* A parsed key: the common prefix, and where the type-specific rest begins. */
typedef struct {
  guint32 salt;
  AbValue source; /* owned: clear with ab_codec_key_parts_clear */
  gint32 table_code;
  AbRowType type;
  gsize rest; /* offset of the first byte after the type element */
} AbKeyParts;

gboolean ab_codec_parse_key (const guint8 *key, gsize len, AbKeyParts *out, GError **error);
void ab_codec_key_parts_clear (AbKeyParts *parts);
/* The salt of a row key: its first 4 bytes, big-endian (len >= 4). */
guint32 ab_codec_key_salt (const guint8 *key);

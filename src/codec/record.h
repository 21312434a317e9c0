/* State, Index and Lock row values (docs/storage-format.md §5), at the level of property
 * codes: mapping codes to schema names is the model's business. Count values
 * are raw 8-byte big-endian longs (ab_codec_put_be64 / ab_codec_get_be64). */
#pragma once
#include <glib.h>
#include "codec/element.h"

typedef struct {
  gint32 code;
  AbValue value;  /* owned */
  gint64 version; /* State values only; 0 in Index values */
} AbCodedProp;

/* What a State value says of its key besides the properties: active, the
 * version and the timestamps (the engine's AbState holds the same). */
typedef struct {
  gboolean active;
  gint64 version;
  gboolean has_created_at;
  gint64 created_at;
  gboolean has_deleted_at;
  gint64 deleted_at;
} AbStateMeta;

typedef struct {
  AbStateMeta meta;
  GArray *props; /* AbCodedProp, with clear func set: freed with the array */
} AbStateValue;

void ab_codec_state_value_init (AbStateValue *sv);
void ab_codec_state_value_clear (AbStateValue *sv);
/* Appends a property (takes a copy of value). */
void ab_codec_state_value_add (AbStateValue *sv, gint32 code, const AbValue *value, gint64 version);

gboolean ab_codec_encode_state_value (GByteArray *out, const AbStateValue *sv, GError **error);
/* The same decoding cell by cell: head's flags, version and timestamps are
 * set, its props left alone; every other cell goes to sink, which may take
 * p->value (zero it) or leave it to be cleared. */
typedef void (*AbStateCellSink) (AbCodedProp *p, gpointer user);
gboolean ab_codec_decode_state_stream (const guint8 *buf, gsize len, AbStateValue *head,
                                       AbStateCellSink sink, gpointer user, GError **error);
/* The same layout written piece by piece into an AbBuf, for callers that
 * hold the cells elsewhere: head, then each cell, then the reserved
 * timestamp cells. On a failed cell the caller drops what it built. */
void ab_buf_state_head (AbBuf *out, const AbStateMeta *m);
gboolean ab_buf_state_cell (AbBuf *out, gint32 code, const AbValue *value, gint64 version,
                            GError **error);
void ab_buf_state_tail (AbBuf *out, const AbStateMeta *m);
/* Lifts the reserved __InsertTs__/__DeleteTs__ cells into the timestamps.
 * out must be initialised (ab_codec_state_value_init) or zero-filled; its
 * previous contents are released. On failure it is left empty but valid. */
gboolean ab_codec_decode_state_value (const guint8 *buf, gsize len, AbStateValue *out,
                                      GError **error);

/* Index value and cache cell value: version || [code || value]*. */
gboolean ab_codec_encode_index_value (GByteArray *out, gint64 version, const AbCodedProp *props,
                                      guint n, GError **error);
/* An index value piece by piece: ab_buf_put_int64 (version), then cells. */
gboolean ab_buf_index_cell (AbBuf *out, gint32 code, const AbValue *value, GError **error);
/* The same cell by cell to sink (see ab_codec_decode_state_stream); on
 * failure the cells already handed over stay handed over. */
gboolean ab_codec_decode_index_stream (const guint8 *buf, gsize len, gint64 *version,
                                       AbStateCellSink sink, gpointer user, GError **error);
/* The same with string and json values in strings (nullable), which the
 * values handed to sink borrow (ab_codec_get_value_in). */
gboolean ab_codec_decode_index_stream_in (const guint8 *buf, gsize len, gint64 *version,
                                          AbStateCellSink sink, gpointer user,
                                          GStringChunk *strings, GError **error);
/* props receives AbCodedProp (array with clear func), version into *version. */
gboolean ab_codec_decode_index_value (const guint8 *buf, gsize len, gint64 *version, GArray *props,
                                      GError **error);
GArray *ab_codec_coded_prop_array_new (void);

/* Lock value: enc_int64(ms). */
void ab_codec_encode_lock_value (GByteArray *out, gint64 now_ms);
gboolean ab_codec_decode_lock_value (const guint8 *buf, gsize len, gint64 *ms, GError **error);

/* Raw 8-byte big-endian signed (Count rows, group cells). */
void ab_codec_put_be64 (guint8 out[8], gint64 v);
gint64 ab_codec_get_be64 (const guint8 in[8]);

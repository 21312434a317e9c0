/* A bare Thrift2 client for the HBase suites and the bench baseline: one
 * connection (socket, transport, protocol, generated client) to a gateway,
 * with no pool, retries or store semantics, to read and write raw cells. */
#pragma once
#include "store/gen/hb_t_h_base_service.h"

typedef struct _AbHbRaw AbHbRaw;

/* addr "HOST:PORT"; framed/compact must match the gateway. */
AbHbRaw *ab_hb_raw_connect (const gchar *addr, gboolean framed, gboolean compact, GError **error);
void ab_hb_raw_close (AbHbRaw *r);
HbTHBaseServiceIf *ab_hb_raw_client (AbHbRaw *r);

/* f:e of row in table ("ns:name"); *value NULL when absent. */
gboolean ab_hb_raw_get (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                        GByteArray **value, GError **error);
/* f:qual of row; *value NULL when absent; *n_cells (may be NULL) counts
 * every cell the row holds. */
gboolean ab_hb_raw_get_cell (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                             const guint8 *qual, gsize qlen, GByteArray **value, guint *n_cells,
                             GError **error);
gboolean ab_hb_raw_put (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                        const guint8 *value, gsize vlen, GError **error);
/* n rows of one value in one putMultiple. */
gboolean ab_hb_raw_put_rows (AbHbRaw *r, const gchar *table, const guint8 *const *rows,
                             const gsize *rlens, guint n, const guint8 *value, gsize vlen,
                             GError **error);
/* put-if-absent of f:e / delete of the row if f:e holds value. */
gboolean ab_hb_raw_check_and_put (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                                  const guint8 *value, gsize vlen, gboolean *applied,
                                  GError **error);
gboolean ab_hb_raw_check_and_delete (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                                     const guint8 *value, gsize vlen, gboolean *applied,
                                     GError **error);
/* f:e += delta (an 8-byte counter). */
gboolean ab_hb_raw_increment (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                              gint64 delta, GError **error);

/* The rows of one rocksdb group commit: every put, delete and counter add
 * of the group's requests, the latest per key found by a hash, undone to a
 * mark when a request fails, and written as one batch in key order. */
#include "store/rocksdb/rocksdb-private.h"

#include <string.h>

typedef struct {
  const guint8 *key, *value; /* value NULL: a delete, or an add */
  gsize klen, vlen;
  gint64 delta; /* an add: value NULL and add set */
  gboolean add;
  gint prev; /* the group's earlier row of the same key, or -1 */
} GroupRow;

#define ROW(g, i) (&g_array_index ((g)->rows, GroupRow, (i)))

struct _AbRocksGroup {
  GArray *rows;        /* GroupRow, in the order written */
  GHashTable *latest;  /* GBytes (borrowing the row's key) -> index + 1 */
  GStringChunk *bytes; /* values the group made itself (counters) */
};

AbRocksGroup *
ab_rocks_group_new (void)
{
  AbRocksGroup *g = g_new0 (AbRocksGroup, 1);
  g->rows = g_array_sized_new (FALSE, FALSE, sizeof (GroupRow), 4096);
  g->latest
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  g->bytes = g_string_chunk_new (4096);
  return g;
}

void
ab_rocks_group_free (AbRocksGroup *g)
{
  if (g == NULL)
    return;
  g_array_unref (g->rows);
  g_hash_table_unref (g->latest);
  g_string_chunk_free (g->bytes);
  g_free (g);
}

void
ab_rocks_group_clear (AbRocksGroup *g)
{
  g_array_set_size (g->rows, 0);
  g_hash_table_remove_all (g->latest);
  g_string_chunk_clear (g->bytes);
}

guint
ab_rocks_group_mark (AbRocksGroup *g)
{
  return g->rows->len;
}

static GBytes *
key_of (const GroupRow *r)
{
  return g_bytes_new_static (r->key, r->klen);
}

void
ab_rocks_group_rollback (AbRocksGroup *g, guint mark)
{
  for (guint i = g->rows->len; i-- > mark;)
    {
      const GroupRow *r = &g_array_index (g->rows, GroupRow, i);
      if (r->prev >= 0)
        g_hash_table_insert (g->latest, key_of (r), GINT_TO_POINTER (r->prev + 1));
      else
        {
          g_autoptr (GBytes) k = key_of (r);
          g_hash_table_remove (g->latest, k);
        }
    }
  g_array_set_size (g->rows, mark);
}

static void
append (AbRocksGroup *g, GroupRow r)
{
  GBytes *k = key_of (&r);
  gpointer at;
  if (g_hash_table_lookup_extended (g->latest, k, NULL, &at))
    r.prev = GPOINTER_TO_INT (at) - 1;
  g_array_append_val (g->rows, r);
  g_hash_table_insert (g->latest, k, GINT_TO_POINTER ((gint) g->rows->len));
}

void
ab_rocks_group_write (AbRocksGroup *g, const guint8 *key, gsize klen, const guint8 *value,
                      gsize vlen, gboolean copy)
{
  GroupRow r = { .key = key, .klen = klen, .value = value, .vlen = vlen, .prev = -1 };
  if (value != NULL && copy)
    r.value = (const guint8 *) g_string_chunk_insert_len (g->bytes, (const gchar *) value,
                                                          (gssize) vlen);
  append (g, r);
}

void
ab_rocks_group_add (AbRocksGroup *g, const guint8 *key, gsize klen, gint64 delta)
{
  append (g, (GroupRow){ .key = key, .klen = klen, .delta = delta, .add = TRUE, .prev = -1 });
}

guint64
ab_rocks_counter_add (const guint8 *base, gint64 delta, guint8 out[8])
{
  guint64 n = 0;
  if (base != NULL)
    {
      memcpy (&n, base, 8);
      n = GUINT64_FROM_BE (n);
    }
  n += (guint64) delta; /* wraps like a Java long */
  guint64 be = GUINT64_TO_BE (n);
  memcpy (out, &be, 8);
  return n;
}

/* What the group made of the key whose latest row is rows[at]: its adds
 * folded down to its last put or delete (into buf), or, when no put or
 * delete came before them, their sum alone (FOUND_ADDS). */
static AbRocksFound
resolve (AbRocksGroup *g, gint at, const guint8 **value, gsize *vlen, gint64 *sum, guint8 buf[8])
{
  gboolean adds = FALSE;
  *sum = 0;
  for (; at >= 0; at = ROW (g, at)->prev)
    {
      const GroupRow *r = ROW (g, at);
      if (r->add)
        {
          *sum += r->delta;
          adds = TRUE;
          continue;
        }
      *value = r->value;
      *vlen = r->vlen;
      if (adds && (r->value == NULL || r->vlen == 8))
        {
          ab_rocks_counter_add (r->value, *sum, buf); /* a row that is no counter keeps its value */
          *value = buf;
          *vlen = 8;
        }
      return AB_ROCKS_FOUND_VALUE;
    }
  return AB_ROCKS_FOUND_ADDS;
}

AbRocksFound
ab_rocks_group_find (AbRocksGroup *g, const guint8 *key, gsize klen, const guint8 **value,
                     gsize *vlen, gint64 *sum, guint8 buf[8])
{
  if (g->rows->len == 0)
    return AB_ROCKS_FOUND_NONE;
  g_autoptr (GBytes) k = g_bytes_new_static (key, klen);
  gpointer at = g_hash_table_lookup (g->latest, k);
  if (at == NULL)
    return AB_ROCKS_FOUND_NONE;
  return resolve (g, GPOINTER_TO_INT (at) - 1, value, vlen, sum, buf);
}

static gint
row_cmp (gconstpointer pa, gconstpointer pb)
{
  const GroupRow *a = *(const GroupRow *const *) pa, *b = *(const GroupRow *const *) pb;
  return ab_store_key_compare (a->key, a->klen, b->key, b->klen);
}

static gboolean
in_range (const GroupRow *row, const AbScanRange *r)
{
  if (r->start != NULL && r->start_len > 0)
    {
      gint c = ab_store_key_compare (row->key, row->klen, r->start, r->start_len);
      if (c < 0 || (c == 0 && !r->start_inclusive))
        return FALSE;
    }
  if (r->stop != NULL)
    {
      gint c = ab_store_key_compare (row->key, row->klen, r->stop, r->stop_len);
      if (c > 0 || (c == 0 && !r->stop_inclusive))
        return FALSE;
    }
  return TRUE;
}

/* The latest row of every key in r (all keys: r NULL), sorted by key. */
static GPtrArray *
latest_rows (AbRocksGroup *g, const AbScanRange *r)
{
  GPtrArray *out = g_ptr_array_sized_new (g_hash_table_size (g->latest));
  GHashTableIter it;
  gpointer at;
  g_hash_table_iter_init (&it, g->latest);
  while (g_hash_table_iter_next (&it, NULL, &at))
    {
      GroupRow *row = &g_array_index (g->rows, GroupRow, GPOINTER_TO_INT (at) - 1);
      if (r == NULL || in_range (row, r))
        g_ptr_array_add (out, row);
    }
  g_ptr_array_sort (out, row_cmp);
  return out;
}

gboolean
ab_rocks_group_walk (AbRocksGroup *g, rocksdb_iterator_t *it, const AbScanRange *r,
                     AbScanVisitor visit, gpointer user, GError **error)
{
  if (g->rows->len == 0)
    return ab_rocks_walk (it, r, visit, user, error);
  g_autoptr (GPtrArray) mine = latest_rows (g, r);
  static const guint8 empty[1] = { 0 };
  guint8 buf[8];
  guint j = 0, n = 0;
  ab_rocks_seek (it, r);
  for (;;)
    {
      size_t dklen = 0, dvlen = 0;
      const guint8 *dk = NULL;
      if (rocksdb_iter_valid (it))
        {
          dk = (const guint8 *) rocksdb_iter_key (it, &dklen);
          if (!ab_rocks_before_stop (dk, dklen, r))
            dk = NULL;
        }
      const GroupRow *row = j < mine->len ? mine->pdata[j] : NULL;
      if (dk == NULL && row == NULL)
        break;
      gint c = dk == NULL    ? -1
               : row == NULL ? 1
                             : ab_store_key_compare (row->key, row->klen, dk, dklen);
      const guint8 *k = dk, *v = NULL;
      gsize klen = dklen, vlen = 0;
      const guint8 *dv = NULL;
      if (c >= 0)
        {
          dv = (const guint8 *) rocksdb_iter_value (it, &dvlen);
          v = dv != NULL ? dv : empty;
          vlen = dvlen;
        }
      if (c <= 0)
        {
          /* the group's row stands for the stored one, or adds to it */
          gint64 sum;
          j++;
          k = row->key;
          klen = row->klen;
          if (resolve (g, (gint) (row - ROW (g, 0)), &v, &vlen, &sum, buf) == AB_ROCKS_FOUND_ADDS
              && (dv == NULL || dvlen == 8))
            {
              ab_rocks_counter_add (dv, sum, buf);
              v = buf;
              vlen = 8;
            }
        }
      gboolean more = TRUE;
      if (v != NULL) /* else deleted in this group */
        {
          if (r->limit > 0 && n >= r->limit)
            break;
          n++;
          more = visit (k, klen, v, vlen, user);
        }
      if (c >= 0)
        rocksdb_iter_next (it);
      if (!more)
        break;
    }
  char *err = NULL;
  rocksdb_iter_get_error (it, &err);
  return err == NULL || ab_rocks_fail (error, err, "scan");
}

guint
ab_rocks_group_fill (AbRocksGroup *g, rocksdb_writebatch_t *wb, AbRocksFold fold, gpointer user)
{
  /* In key order, the memtable's skip list finds each row next to the one
   * before it instead of searching from its head. */
  g_autoptr (GPtrArray) rows = latest_rows (g, NULL);
  for (guint i = 0; i < rows->len; i++)
    {
      const GroupRow *row = rows->pdata[i];
      const guint8 *v = NULL;
      gsize vlen = 0;
      gint64 sum;
      guint8 buf[8];
      if (resolve (g, (gint) (row - ROW (g, 0)), &v, &vlen, &sum, buf) == AB_ROCKS_FOUND_ADDS)
        {
          if (fold (user, row->key, row->klen, sum, buf))
            rocksdb_writebatch_put (wb, (const char *) row->key, row->klen, (const char *) buf, 8);
          else
            {
              ab_rocks_counter_add (NULL, sum, buf); /* a merge operand: the database adds it */
              rocksdb_writebatch_merge (wb, (const char *) row->key, row->klen, (const char *) buf,
                                        8);
            }
        }
      else if (v != NULL)
        rocksdb_writebatch_put (wb, (const char *) row->key, row->klen, (const char *) v, vlen);
      else
        rocksdb_writebatch_delete (wb, (const char *) row->key, row->klen);
    }
  return rows->len;
}

/* The external sorter of sorter.h: records in an arena with 16-byte sort
 * entries (8-byte key prefix + offset), spilled as sorted runs to unlinked
 * temp files, merged with a binary heap; equal keys are combined on output. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <glib/gstdio.h>
#include "verify/sorter.h"
#include "verify/verify.h"
#include "store/store.h"

/* Record layout (memory and files): u32 klen, u32 vlen, u8 kind, key, value.
 * A Count record's value is its 8-byte native count. */
#define HDR 9
#define IO_BUFFER (256 * 1024)

typedef struct {
  guint64 prefix; /* first 8 key bytes, big-endian, zero padded */
  guint32 off;    /* record offset in the arena */
  guint32 unused;
} Entry;

typedef struct {
  FILE *f;
  gchar *buf;
} Run;

/* One sorted input of a merge: a run file, or the sorted arena. */
typedef struct {
  Run *run;        /* NULL: the arena */
  GByteArray *rec; /* run: its current record */
  guint pos;       /* arena: its current entry */
} Reader;

/* Combined records in key order from a heap of readers. */
typedef struct {
  AbSorter *s;
  Reader *readers;
  guint n_readers;
  guint *heap;
  guint heap_len;
  GByteArray *cur; /* the run record last returned (swapped with its reader) */
} Source;

struct _AbSorter {
  gchar *tmpdir;
  gsize run_bytes;
  guint fan_in;
  GByteArray *arena;
  GArray *entries;  /* Entry */
  gint64 recent[2]; /* arena offsets of the last two Count records, or -1 */
  guint recent_next;
  GPtrArray *runs; /* Run* */
  guint spilled;
  guint64 records;
  gboolean finished;
  Source src;
};

static guint32
rec_klen (const guint8 *r)
{
  guint32 v;
  memcpy (&v, r, 4);
  return v;
}

static guint32
rec_vlen (const guint8 *r)
{
  guint32 v;
  memcpy (&v, r + 4, 4);
  return v;
}

static gsize
rec_size (const guint8 *r)
{
  return HDR + rec_klen (r) + rec_vlen (r);
}

static gint
rec_compare (const guint8 *a, const guint8 *b)
{
  return ab_store_key_compare (a + HDR, rec_klen (a), b + HDR, rec_klen (b));
}

static gint64
rec_count (const guint8 *r)
{
  gint64 n;
  memcpy (&n, r + HDR + rec_klen (r), 8);
  return n;
}

static guint64
key_prefix (const guint8 *key, gsize klen)
{
  guint64 p = 0;
  for (guint i = 0; i < 8; i++)
    p = (p << 8) | (i < klen ? key[i] : 0);
  return p;
}

static void
run_free (Run *run)
{
  if (run->f != NULL)
    fclose (run->f);
  g_free (run->buf);
  g_free (run);
}

/* The arena is read in random order when a run is emitted: huge pages save
 * most of the TLB misses. Untouched pages of the reservation cost nothing. */
static void
hint_huge_pages (guint8 *data, gsize len)
{
#ifdef MADV_HUGEPAGE
  const guintptr huge = (guintptr) 2 << 20;
  guintptr lo = ((guintptr) data + huge - 1) & ~(huge - 1);
  guintptr hi = ((guintptr) data + len) & ~(huge - 1);
  if (hi > lo)
    madvise ((void *) lo, hi - lo, MADV_HUGEPAGE);
#endif
}

AbSorter *
ab_sorter_new (const gchar *tmpdir, gsize run_bytes)
{
  AbSorter *s = g_new0 (AbSorter, 1);
  s->tmpdir = g_strdup (tmpdir != NULL ? tmpdir : g_get_tmp_dir ());
  s->run_bytes = CLAMP (run_bytes, (gsize) 64 << 10, (gsize) 1 << 31);
  s->fan_in = AB_SORTER_FAN_IN;
  s->arena = g_byte_array_sized_new (s->run_bytes);
  hint_huge_pages (s->arena->data, s->run_bytes);
  s->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  s->recent[0] = s->recent[1] = -1;
  s->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) run_free);
  return s;
}

static void
source_clear (Source *src)
{
  for (guint i = 0; src->readers != NULL && i < src->n_readers; i++)
    if (src->readers[i].rec != NULL)
      g_byte_array_unref (src->readers[i].rec);
  g_clear_pointer (&src->readers, g_free);
  g_clear_pointer (&src->heap, g_free);
  g_clear_pointer (&src->cur, g_byte_array_unref);
}

void
ab_sorter_free (AbSorter *s)
{
  if (s == NULL)
    return;
  source_clear (&s->src);
  g_ptr_array_unref (s->runs);
  g_byte_array_unref (s->arena);
  g_array_unref (s->entries);
  g_free (s->tmpdir);
  g_free (s);
}

static gboolean
io_error (GError **error, const gchar *what)
{
  int err = errno;
  g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_IO, "verify temp file %s: %s", what,
               g_strerror (err));
  return FALSE;
}

FILE *
ab_verify_temp_file (const gchar *tmpdir, gchar **buffer, GError **error)
{
  g_autofree gchar *path
      = g_build_filename (tmpdir != NULL ? tmpdir : g_get_tmp_dir (), "ab-verify-XXXXXX", NULL);
  int fd = g_mkstemp_full (path, O_RDWR, 0600);
  FILE *f;
  if (fd < 0)
    return io_error (error, "create"), NULL;
  g_unlink (path);
  f = fdopen (fd, "w+b");
  if (f == NULL)
    {
      io_error (error, "open");
      close (fd);
      return NULL;
    }
  *buffer = g_malloc (IO_BUFFER);
  setvbuf (f, *buffer, _IOFBF, IO_BUFFER);
  return f;
}

static Run *
run_new (AbSorter *s, GError **error)
{
  gchar *buf = NULL;
  FILE *f = ab_verify_temp_file (s->tmpdir, &buf, error);
  Run *run;
  if (f == NULL)
    return NULL;
  run = g_new0 (Run, 1);
  run->f = f;
  run->buf = buf;
  return run;
}

/* ---- adding ---- */

static gboolean spill (AbSorter *s, GError **error);

static guint8 *
append_record (AbSorter *s, AbDerivedKind kind, const guint8 *key, gsize klen, gsize vlen,
               GError **error)
{
  gsize need = HDR + klen + vlen;
  guint32 k32 = (guint32) klen, v32 = (guint32) vlen;
  guint8 kind8 = (guint8) kind;
  Entry e;
  if (s->entries->len > 0
      && s->arena->len + need + (s->entries->len + 1) * sizeof (Entry) > s->run_bytes
      && !spill (s, error))
    return NULL;
  e.off = s->arena->len;
  e.prefix = key_prefix (key, klen);
  e.unused = 0;
  g_byte_array_set_size (s->arena, s->arena->len + need);
  guint8 *r = s->arena->data + e.off;
  memcpy (r, &k32, 4);
  memcpy (r + 4, &v32, 4);
  r[8] = kind8;
  memcpy (r + HDR, key, klen);
  g_array_append_val (s->entries, e);
  s->records++;
  return r + HDR + klen;
}

gboolean
ab_sorter_add_index (AbSorter *s, const guint8 *key, gsize klen, const guint8 *value, gsize vlen,
                     GError **error)
{
  guint8 *v;
  g_return_val_if_fail (!s->finished, FALSE);
  v = append_record (s, AB_DERIVED_INDEX, key, klen, vlen, error);
  if (v != NULL && vlen > 0)
    memcpy (v, value, vlen);
  return v != NULL;
}

/* The OUT Count rows of a source's adjacent State rows arrive back to back
 * (with IN rows in between): remember the last two and add in place. */
gboolean
ab_sorter_add_count (AbSorter *s, const guint8 *key, gsize klen, gint64 n, GError **error)
{
  guint8 *v;
  g_return_val_if_fail (!s->finished, FALSE);
  for (guint i = 0; i < 2; i++)
    {
      guint8 *r = s->recent[i] >= 0 ? s->arena->data + s->recent[i] : NULL;
      if (r != NULL && rec_klen (r) == klen && memcmp (r + HDR, key, klen) == 0)
        {
          gint64 sum = rec_count (r) + n;
          memcpy (r + HDR + klen, &sum, 8);
          return TRUE;
        }
    }
  v = append_record (s, AB_DERIVED_COUNT, key, klen, 8, error);
  if (v == NULL)
    return FALSE;
  memcpy (v, &n, 8);
  s->recent[s->recent_next] = (gint64) (v - HDR - klen - s->arena->data);
  s->recent_next ^= 1;
  return TRUE;
}

/* ---- sorting and sources ---- */

static gint
entry_compare (gconstpointer a, gconstpointer b, gpointer arena)
{
  const Entry *x = a, *y = b;
  if (x->prefix != y->prefix)
    return x->prefix < y->prefix ? -1 : 1;
  return rec_compare ((const guint8 *) arena + x->off, (const guint8 *) arena + y->off);
}

static void
insertion_sort (Entry *e, guint n, const guint8 *arena)
{
  for (guint i = 1; i < n; i++)
    {
      Entry x = e[i];
      guint j = i;
      for (; j > 0 && entry_compare (&e[j - 1], &x, (gpointer) arena) > 0; j--)
        e[j] = e[j - 1];
      e[j] = x;
    }
}

/* Stable: a counting sort on the first two key bytes (salts are uniform, so
 * buckets are small), then each bucket by insertion sort (merge sort when
 * large). Stability keeps the first-added record first among equal keys. */
static void
sort_arena (AbSorter *s)
{
  guint n = s->entries->len;
  Entry *in = (Entry *) s->entries->data, *out;
  guint32 *pos;
  if (n < 2)
    return;
  pos = g_new0 (guint32, 65537);
  out = g_new (Entry, n);
  for (guint i = 0; i < n; i++)
    pos[(in[i].prefix >> 48) + 1]++;
  for (guint b = 1; b <= 65536; b++)
    pos[b] += pos[b - 1];
  for (guint i = 0; i < n; i++)
    out[pos[in[i].prefix >> 48]++] = in[i];
  /* pos[b] is now the end of bucket b, the start of bucket b + 1 */
  for (guint b = 0, start = 0; b < 65536; start = pos[b++])
    {
      guint len = pos[b] - start;
      if (len > 32)
        g_qsort_with_data (out + start, len, sizeof (Entry), entry_compare, s->arena->data);
      else if (len > 1)
        insertion_sort (out + start, len, s->arena->data);
    }
  memcpy (in, out, (gsize) n * sizeof (Entry));
  g_free (out);
  g_free (pos);
}

static const guint8 *
reader_current (const Source *src, const Reader *rd)
{
  if (rd->run != NULL)
    return rd->rec->data;
  return src->s->arena->data + g_array_index (src->s->entries, Entry, rd->pos).off;
}

static const guint8 *
reader_rec (const Source *src, guint i)
{
  return reader_current (src, &src->readers[src->heap[i]]);
}

/* Equal keys come out in reader order (runs in the order their records were
 * added, the arena last), so the first Index value added wins everywhere. */
static gboolean
heap_less (const Source *src, guint a, guint b)
{
  gint c = rec_compare (reader_rec (src, a), reader_rec (src, b));
  return c < 0 || (c == 0 && src->heap[a] < src->heap[b]);
}

static void
heap_down (Source *src, guint i)
{
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < src->heap_len && heap_less (src, l, m))
        m = l;
      if (r < src->heap_len && heap_less (src, r, m))
        m = r;
      if (m == i)
        return;
      guint t = src->heap[i];
      src->heap[i] = src->heap[m];
      src->heap[m] = t;
      i = m;
    }
}

/* Loads a reader's current record; *more = FALSE past its end. */
static gboolean
reader_fill (const Source *src, Reader *rd, gboolean *more, GError **error)
{
  guint8 hdr[HDR];
  gsize n, body;
  if (rd->run == NULL)
    {
      const GArray *e = src->s->entries;
      /* Sorted order visits the arena at random: fetch a few records ahead. */
      if (rd->pos + 8 < e->len)
        __builtin_prefetch (src->s->arena->data + g_array_index (e, Entry, rd->pos + 8).off);
      *more = rd->pos < e->len;
      return TRUE;
    }
  n = fread (hdr, 1, HDR, rd->run->f);
  *more = n == HDR;
  if (n == 0 && !ferror (rd->run->f))
    return TRUE;
  if (n != HDR)
    return io_error (error, "read");
  body = rec_klen (hdr) + rec_vlen (hdr);
  g_byte_array_set_size (rd->rec, HDR + body);
  memcpy (rd->rec->data, hdr, HDR);
  if (body > 0 && fread (rd->rec->data + HDR, 1, body, rd->run->f) != body)
    return io_error (error, "read");
  return TRUE;
}

/* A heap over runs [first, first + n), plus the sorted arena if asked. */
static gboolean
source_open (Source *src, AbSorter *s, guint first, guint n, gboolean arena, GError **error)
{
  src->s = s;
  src->n_readers = n + (arena ? 1 : 0);
  src->readers = g_new0 (Reader, src->n_readers);
  src->heap = g_new0 (guint, src->n_readers);
  src->heap_len = 0;
  src->cur = g_byte_array_new ();
  for (guint i = 0; i < src->n_readers; i++)
    {
      Reader *rd = &src->readers[i];
      gboolean more;
      if (i < n)
        {
          rd->run = s->runs->pdata[first + i];
          rd->rec = g_byte_array_new ();
          if (fflush (rd->run->f) != 0 || fseek (rd->run->f, 0, SEEK_SET) != 0)
            return io_error (error, "rewind");
        }
      if (!reader_fill (src, rd, &more, error))
        return FALSE;
      if (more)
        src->heap[src->heap_len++] = i;
    }
  for (guint i = src->heap_len / 2; i-- > 0;)
    heap_down (src, i);
  return TRUE;
}

static const guint8 *
source_peek (const Source *src)
{
  return src->heap_len > 0 ? reader_rec (src, 0) : NULL;
}

static gboolean
source_advance (Source *src, GError **error)
{
  Reader *rd = &src->readers[src->heap[0]];
  gboolean more;
  if (rd->run == NULL)
    rd->pos++;
  if (!reader_fill (src, rd, &more, error))
    return FALSE;
  if (!more)
    src->heap[0] = src->heap[--src->heap_len];
  if (src->heap_len > 0)
    heap_down (src, 0);
  return TRUE;
}

/* The next record with all records of its key combined (Count records
 * summed in place). *rec = NULL at the end; it points into the arena or into
 * src->cur and stays valid until the next call. A file record is taken by
 * swapping buffers with its reader, which refills into our previous one. */
static gboolean
source_next (Source *src, const guint8 **rec, GError **error)
{
  guint8 *r = (guint8 *) source_peek (src);
  const guint8 *next;
  *rec = r;
  if (r == NULL)
    return TRUE;
  if (src->readers[src->heap[0]].run != NULL)
    {
      Reader *rd = &src->readers[src->heap[0]];
      GByteArray *mine = rd->rec;
      rd->rec = src->cur;
      src->cur = mine;
      r = mine->data;
      *rec = r;
    }
  if (!source_advance (src, error))
    return FALSE;
  while ((next = source_peek (src)) != NULL && rec_compare (next, r) == 0)
    {
      if (next[8] == AB_DERIVED_COUNT && r[8] == AB_DERIVED_COUNT)
        {
          gint64 sum = rec_count (r) + rec_count (next);
          memcpy (r + HDR + rec_klen (r), &sum, 8);
        }
      if (!source_advance (src, error))
        return FALSE;
    }
  return TRUE;
}

/* Drains a source into a new run. */
static gboolean
write_run (AbSorter *s, Source *src, GError **error)
{
  const guint8 *rec = NULL;
  Run *run = run_new (s, error);
  if (run == NULL)
    return FALSE;
  g_ptr_array_add (s->runs, run);
  while (source_next (src, &rec, error))
    {
      if (rec == NULL)
        return TRUE;
      if (fwrite (rec, 1, rec_size (rec), run->f) != rec_size (rec))
        return io_error (error, "write");
    }
  return FALSE;
}

static gboolean
spill (AbSorter *s, GError **error)
{
  Source src = { 0 };
  gboolean ok;
  sort_arena (s);
  ok = source_open (&src, s, 0, 0, TRUE, error) && write_run (s, &src, error);
  source_clear (&src);
  if (!ok)
    return FALSE;
  s->spilled++;
  g_byte_array_set_size (s->arena, 0);
  g_array_set_size (s->entries, 0);
  s->recent[0] = s->recent[1] = -1;
  return TRUE;
}

/* Merges the first fan_in runs into one until at most `limit` remain. */
static gboolean
merge_down (AbSorter *s, guint limit, GError **error)
{
  while (s->runs->len > limit)
    {
      Source src = { 0 };
      guint n = MIN (s->fan_in, s->runs->len);
      gboolean ok = source_open (&src, s, 0, n, FALSE, error) && write_run (s, &src, error);
      source_clear (&src);
      if (!ok)
        return FALSE;
      g_ptr_array_remove_range (s->runs, 0, n);
      /* The merged run holds the oldest records: it goes first. */
      g_ptr_array_insert (s->runs, 0, g_ptr_array_steal_index (s->runs, s->runs->len - 1));
      s->spilled++;
    }
  return TRUE;
}

void
ab_sorter_set_fan_in (AbSorter *s, guint fan_in)
{
  g_return_if_fail (fan_in >= 2 && !s->finished);
  s->fan_in = fan_in;
}

/* The last (partial) run is not written: it joins the final merge from
 * memory, beside at most fan_in - 1 runs. */
gboolean
ab_sorter_finish (AbSorter *s, GError **error)
{
  g_return_val_if_fail (!s->finished, FALSE);
  s->finished = TRUE;
  sort_arena (s);
  return merge_down (s, s->fan_in - 1, error)
         && source_open (&s->src, s, 0, s->runs->len, TRUE, error);
}

gboolean
ab_sorter_next (AbSorter *s, AbDerived *out, gboolean *more, GError **error)
{
  const guint8 *r;
  g_return_val_if_fail (s->finished, FALSE);
  if (!source_next (&s->src, &r, error))
    return FALSE;
  *more = r != NULL;
  if (r == NULL)
    return TRUE;
  out->kind = (AbDerivedKind) r[8];
  out->key = r + HDR;
  out->klen = rec_klen (r);
  out->value = r + HDR + out->klen;
  out->vlen = rec_vlen (r);
  out->count = out->kind == AB_DERIVED_COUNT ? rec_count (r) : 0;
  return TRUE;
}

guint
ab_sorter_spilled_runs (const AbSorter *s)
{
  return s->spilled;
}

guint64
ab_sorter_records (const AbSorter *s)
{
  return s->records;
}

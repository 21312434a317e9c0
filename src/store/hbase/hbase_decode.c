/* getScannerResults replies read by hand for whole-table reads (snapshot
 * scans: copy, backup, the verifier). The generated c_glib reader builds a
 * GObject per result and per cell and reads each field through the
 * buffered transport (an append and a remove on a GByteArray per read);
 * with a buffered transport and the binary protocol (the gateway's
 * defaults) this reads the reply straight out of the connection's receive
 * buffer (ab_hb_reader_take) and packs the cells of the page into one byte
 * array. Other stacks (framed, compact) go through the generated reader and
 * the same packing. */
#include <string.h>

#include <thrift/c_glib/protocol/thrift_binary_protocol.h>
#include <thrift/c_glib/thrift_application_exception.h>
#include <thrift/c_glib/transport/thrift_buffered_transport.h>
#include "store/hbase/hbase-private.h"

#define MAX_DEPTH 32
#define MAX_BINARY ((guint32) 1 << 30)
#define MAX_ELEMENTS ((guint32) 1 << 28)

/* ---- the packed page ---- */

void
ab_hb_page_init (AbHbPage *p)
{
  memset (p, 0, sizeof *p);
  p->cells = g_byte_array_new ();
  p->last_row = g_byte_array_new ();
}

void
ab_hb_page_clear (AbHbPage *p)
{
  g_clear_pointer (&p->cells, g_byte_array_unref);
  g_clear_pointer (&p->last_row, g_byte_array_unref);
}

/* row is the row of the page's last result that had one. */
static void
page_last_row (AbHbPage *p, const guint8 *row, gsize len)
{
  g_byte_array_set_size (p->last_row, 0);
  g_byte_array_append (p->last_row, row, (guint) len);
  p->have_last = TRUE;
}

static void
page_reset (AbHbPage *p)
{
  g_byte_array_set_size (p->cells, 0);
  g_byte_array_set_size (p->last_row, 0);
  p->ncells = 0;
  p->results = 0;
  p->have_last = FALSE;
}

/* A cell: key = row || qual (qual NULL for a narrow row's own key). */
static void
page_add (AbHbPage *p, const guint8 *row, gsize row_len, const guint8 *qual, gsize qual_len,
          const guint8 *value, gsize vlen)
{
  guint32 klen = (guint32) (row_len + qual_len), vl = (guint32) vlen;
  guint at = p->cells->len;
  g_byte_array_set_size (p->cells, at + (guint) (2 * sizeof (guint32) + klen + vlen));
  guint8 *d = p->cells->data + at;
  memcpy (d, &klen, sizeof klen);
  d += sizeof klen;
  if (row_len > 0) /* an empty row may come as NULL */
    memcpy (d, row, row_len);
  if (qual_len > 0)
    memcpy (d + row_len, qual, qual_len);
  d += klen;
  memcpy (d, &vl, sizeof vl);
  if (vlen > 0)
    memcpy (d + sizeof vl, value, vlen);
  p->ncells++;
}

gboolean
ab_hb_page_next (const AbHbPage *p, gsize *pos, const guint8 **key, gsize *klen,
                 const guint8 **value, gsize *vlen)
{
  guint32 n;
  if (*pos >= p->cells->len)
    return FALSE;
  memcpy (&n, p->cells->data + *pos, sizeof n);
  *key = p->cells->data + *pos + sizeof n;
  *klen = n;
  *pos += sizeof n + n;
  memcpy (&n, p->cells->data + *pos, sizeof n);
  *value = p->cells->data + *pos + sizeof n;
  *vlen = n;
  *pos += sizeof n + n;
  return TRUE;
}

/* One result's cells into the page, as ab_hb_result_cells picks them: a
 * narrow row gives its f:e cell, a wide row one key per cell of family f,
 * each inside range; at most cap. quals/values: the family-f cells. */
typedef struct {
  gsize qual, qual_len, value, value_len; /* offsets into the scratch */
} CellRef;

static guint
emit_row (AbHbPage *p, const AbScanRange *range, guint cap, const guint8 *row, gsize row_len,
          const guint8 *scratch, const GArray *refs)
{
  AbHbAddr a;
  guint n = 0;
  ab_hb_addr (row, row_len, &a);
  if (!a.wide)
    {
      for (guint i = 0; i < refs->len; i++)
        {
          const CellRef *c = &g_array_index (refs, CellRef, i);
          if (c->qual_len != strlen (AB_HB_QUALIFIER)
              || memcmp (scratch + c->qual, AB_HB_QUALIFIER, c->qual_len) != 0)
            continue;
          if (cap == 0 || !ab_hb_key_in_range (range, row, row_len))
            return 0;
          page_add (p, row, row_len, NULL, 0, scratch + c->value, c->value_len);
          return 1;
        }
      return 0;
    }
  g_autofree guint8 *key = NULL;
  gsize key_cap = 0;
  for (guint i = 0; i < refs->len && n < cap; i++)
    {
      const CellRef *c = &g_array_index (refs, CellRef, i);
      if (range != NULL && (range->start != NULL || range->stop != NULL))
        {
          gsize klen = row_len + c->qual_len;
          if (klen > key_cap)
            {
              key_cap = MAX (klen, key_cap * 2);
              key = g_realloc (key, key_cap);
            }
          if (row_len > 0)
            memcpy (key, row, row_len);
          if (c->qual_len > 0)
            memcpy (key + row_len, scratch + c->qual, c->qual_len);
          if (!ab_hb_key_in_range (range, key, klen))
            continue;
        }
      page_add (p, row, row_len, scratch + c->qual, c->qual_len, scratch + c->value, c->value_len);
      n++;
    }
  return n;
}

/* ---- the generated reader, packed (framed or compact stacks) ---- */

static gboolean
recv_generic (HbTHBaseServiceIf *client, const AbScanRange *range, guint cap, AbHbPage *p,
              HbTIOError **io, GError **error)
{
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GArray) kvs = ab_kv_array_new ();
  guint got = 0;
  if (!hb_t_h_base_service_client_recv_get_scanner_results (client, &results, io, error))
    return FALSE;
  p->results = results->len;
  for (guint i = 0; i < results->len; i++)
    {
      HbTResult *r = g_ptr_array_index (results, i);
      if (got < cap)
        got += ab_hb_result_cells (r, range, cap - got, kvs);
      if (r->row != NULL)
        page_last_row (p, r->row->data, r->row->len);
    }
  for (guint i = 0; i < kvs->len; i++)
    {
      AbKv *kv = &g_array_index (kvs, AbKv, i);
      gsize kl, vl;
      const guint8 *k = g_bytes_get_data (kv->key, &kl);
      const guint8 *v = g_bytes_get_data (kv->value, &vl);
      page_add (p, k, kl, NULL, 0, v, vl);
    }
  return TRUE;
}

/* ---- the hand-written reader ---- */

typedef struct {
  ThriftTransport *in;
  gboolean direct; /* in is our reader: take from its buffer */
  GByteArray *tmp; /* else: what was read through the transport */
  GError **error;
  GByteArray *scratch; /* the current result's family-f qualifiers and values */
  GArray *refs;        /* CellRef into scratch */
  GByteArray *row;
} Cur;

static gboolean
bad (Cur *c, const gchar *what)
{
  g_set_error (c->error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_INVALID_DATA,
               "getScannerResults reply: %s", what);
  return FALSE;
}

static gboolean
take (Cur *c, gsize n, const guint8 **p)
{
  if (c->direct)
    {
      *p = ab_hb_reader_take (c->in, n, c->error);
      return *p != NULL;
    }
  /* Any transport (tests, the fuzzer): read in pieces, so that a length
   * the reply claims is not allocated before its bytes arrive. */
  g_byte_array_set_size (c->tmp, 0);
  while (c->tmp->len < n)
    {
      guint have = c->tmp->len, want = (guint) MIN (n - have, (gsize) 65536);
      g_byte_array_set_size (c->tmp, have + want);
      if (thrift_transport_read_all (c->in, c->tmp->data + have, want, c->error) < 0)
        return FALSE;
    }
  *p = c->tmp->data;
  return TRUE;
}

/* Every integer of the protocol read here (byte, i16, i32) is n bytes (1,
 * 2 or 4) big-endian, read as unsigned: a negative i32 length or size then
 * lies above every limit, and field ids (all positive here) compare as
 * they are. */
static gboolean
read_be (Cur *c, guint n, guint32 *out)
{
  const guint8 *p;
  if (!take (c, n, &p))
    return FALSE;
  guint32 v = 0;
  for (guint i = 0; i < n; i++)
    v = v << 8 | p[i];
  *out = v;
  return TRUE;
}

/* A binary/string: a pointer valid until the next read. */
static gboolean
read_binary (Cur *c, const guint8 **data, guint32 *len)
{
  guint32 n;
  if (!read_be (c, 4, &n))
    return FALSE;
  if (n > MAX_BINARY)
    return bad (c, "a binary of a negative or huge length");
  *len = n;
  if (n == 0)
    {
      *data = (const guint8 *) "";
      return TRUE;
    }
  return take (c, n, data);
}

static gboolean
field_begin (Cur *c, guint32 *type, guint32 *id)
{
  if (!read_be (c, 1, type))
    return FALSE;
  if (*type == T_STOP)
    return TRUE;
  return read_be (c, 2, id);
}

/* A struct's field handler: reads field id of type ft, or skips it; FALSE
 * ends the read (c->error set). */
typedef gboolean (*FieldFn) (Cur *c, guint32 ft, guint32 id, gpointer user);

/* Reads a struct's fields up to its stop, each through fn. */
static gboolean
read_struct (Cur *c, FieldFn fn, gpointer user)
{
  for (;;)
    {
      guint32 ft, id;
      if (!field_begin (c, &ft, &id))
        return FALSE;
      if (ft == T_STOP)
        return TRUE;
      if (!fn (c, ft, id, user))
        return FALSE;
    }
}

static gboolean skip (Cur *c, guint32 type, guint depth);

/* A field of a struct being skipped (user: the struct's depth). */
static gboolean
skip_field (Cur *c, guint32 ft, guint32 id, gpointer depth)
{
  (void) id;
  return skip (c, ft, GPOINTER_TO_UINT (depth) + 1);
}

static gboolean
skip (Cur *c, guint32 type, guint depth)
{
  const guint8 *p;
  guint32 len;
  if (depth > MAX_DEPTH)
    return bad (c, "nested too deeply");
  switch (type)
    {
      case T_BOOL:
      case T_BYTE: return take (c, 1, &p);
      case T_I16: return take (c, 2, &p);
      case T_I32: return take (c, 4, &p);
      case T_I64:
      case T_DOUBLE: return take (c, 8, &p);
      case T_STRING: return read_binary (c, &p, &len);
      case T_STRUCT: return read_struct (c, skip_field, GUINT_TO_POINTER (depth));
      case T_MAP:
        {
          guint32 kt, vt, n;
          if (!read_be (c, 1, &kt) || !read_be (c, 1, &vt) || !read_be (c, 4, &n))
            return FALSE;
          if (n > MAX_ELEMENTS)
            return bad (c, "a map of a negative or huge size");
          for (guint32 i = 0; i < n; i++)
            if (!skip (c, kt, depth + 1) || !skip (c, vt, depth + 1))
              return FALSE;
          return TRUE;
        }
      case T_SET:
      case T_LIST:
        {
          guint32 et, n;
          if (!read_be (c, 1, &et) || !read_be (c, 4, &n))
            return FALSE;
          if (n > MAX_ELEMENTS)
            return bad (c, "a list of a negative or huge size");
          for (guint32 i = 0; i < n; i++)
            if (!skip (c, et, depth + 1))
              return FALSE;
          return TRUE;
        }
      default: return bad (c, "a field of an unknown type");
    }
}

/* A binary field appended to out: its offset there and its length. */
static gboolean
append_binary (Cur *c, GByteArray *out, gsize *off, gsize *len)
{
  const guint8 *d;
  guint32 n;
  if (!read_binary (c, &d, &n))
    return FALSE;
  *off = out->len;
  *len = n;
  g_byte_array_append (out, d, n);
  return TRUE;
}

/* A list's header, which must be of structs (what: its name, for the error). */
static gboolean
read_struct_list (Cur *c, guint32 *n, const gchar *what)
{
  guint32 et;
  if (!read_be (c, 1, &et) || !read_be (c, 4, n))
    return FALSE;
  if (*n > MAX_ELEMENTS || (*n > 0 && et != T_STRUCT))
    return bad (c, what);
  return TRUE;
}

/* A string field as a new string. */
static gboolean
read_string (Cur *c, gchar **out)
{
  const guint8 *d;
  guint32 n;
  if (!read_binary (c, &d, &n))
    return FALSE;
  g_free (*out);
  *out = g_strndup ((const gchar *) d, n);
  return TRUE;
}

typedef struct {
  CellRef ref;
  gboolean fam_f, has_q, has_v;
} ColumnRead;

static gboolean
column_value_field (Cur *c, guint32 ft, guint32 id, gpointer user)
{
  ColumnRead *r = user;
  if (id == 1 && ft == T_STRING)
    {
      const guint8 *d;
      guint32 n;
      if (!read_binary (c, &d, &n))
        return FALSE;
      r->fam_f = n == strlen (AB_HB_FAMILY) && memcmp (d, AB_HB_FAMILY, n) == 0;
      return TRUE;
    }
  if (id == 2 && ft == T_STRING)
    return r->has_q = append_binary (c, c->scratch, &r->ref.qual, &r->ref.qual_len);
  if (id == 3 && ft == T_STRING)
    return r->has_v = append_binary (c, c->scratch, &r->ref.value, &r->ref.value_len);
  return skip (c, ft, 1);
}

/* TColumnValue {1: family, 2: qualifier, 3: value, 4: timestamp, 5: tags,
 * 6: type}: kept when its family is f and it has a qualifier and a value. */
static gboolean
read_column_value (Cur *c)
{
  gsize mark = c->scratch->len;
  ColumnRead r = { 0 };
  if (!read_struct (c, column_value_field, &r))
    return FALSE;
  if (r.fam_f && r.has_q && r.has_v)
    g_array_append_val (c->refs, r.ref);
  else
    g_byte_array_set_size (c->scratch, (guint) mark);
  return TRUE;
}

typedef struct {
  gboolean has_row, has_cells;
} ResultRead;

static gboolean
result_field (Cur *c, guint32 ft, guint32 id, gpointer user)
{
  ResultRead *r = user;
  if (id == 1 && ft == T_STRING)
    {
      gsize off, len;
      g_byte_array_set_size (c->row, 0);
      return r->has_row = append_binary (c, c->row, &off, &len);
    }
  if (id == 2 && ft == T_LIST)
    {
      guint32 n;
      if (!read_struct_list (c, &n, "columnValues is not a list of structs"))
        return FALSE;
      for (guint32 i = 0; i < n; i++)
        if (!read_column_value (c))
          return FALSE;
      return r->has_cells = TRUE;
    }
  return skip (c, ft, 1);
}

/* TResult {1: row, 2: columnValues, 3: stale, 4: partial}. */
static gboolean
read_result (Cur *c, const AbScanRange *range, guint cap, AbHbPage *p)
{
  ResultRead r = { 0 };
  g_byte_array_set_size (c->scratch, 0);
  g_array_set_size (c->refs, 0);
  if (!read_struct (c, result_field, &r))
    return FALSE;
  p->results++;
  if (!r.has_row)
    return TRUE;
  if (r.has_cells && p->ncells < cap)
    emit_row (p, range, cap - p->ncells, c->row->data, c->row->len, c->scratch->data, c->refs);
  page_last_row (p, c->row->data, c->row->len);
  return TRUE;
}

static gboolean
io_error_field (Cur *c, guint32 ft, guint32 id, gpointer user)
{
  HbTIOError *e = user;
  if (id == 1 && ft == T_STRING)
    return e->__isset_message = read_string (c, &e->message);
  if (id == 2 && ft == T_BOOL)
    {
      guint32 b;
      if (!read_be (c, 1, &b))
        return FALSE;
      e->canRetry = b != 0;
      return e->__isset_canRetry = TRUE;
    }
  return skip (c, ft, 1);
}

/* TIOError {1: message, 2: canRetry}, as the generated reader makes it. */
static gboolean
read_io_error (Cur *c, HbTIOError **io)
{
  HbTIOError *e = g_object_new (HB_TYPE_T_I_O_ERROR, NULL);
  if (!read_struct (c, io_error_field, e))
    {
      g_object_unref (e);
      return FALSE;
    }
  g_clear_object (io);
  *io = e;
  return TRUE;
}

typedef struct {
  gchar *message;
  guint32 type;
} AppException;

static gboolean
app_exception_field (Cur *c, guint32 ft, guint32 id, gpointer user)
{
  AppException *x = user;
  if (id == 1 && ft == T_STRING)
    return read_string (c, &x->message);
  if (id == 2 && ft == T_I32)
    return read_be (c, 4, &x->type);
  return skip (c, ft, 1);
}

/* TApplicationException {1: message, 2: type}: the error the generated
 * client sets. */
static gboolean
read_app_exception (Cur *c)
{
  AppException x = { 0 };
  if (read_struct (c, app_exception_field, &x))
    g_set_error (c->error, THRIFT_APPLICATION_EXCEPTION_ERROR, (gint) x.type,
                 "application error: %s", x.message != NULL ? x.message : "");
  g_free (x.message);
  return FALSE;
}

typedef struct {
  const AbScanRange *range;
  guint cap;
  AbHbPage *p;
  HbTIOError **io;
} ReplyRead;

/* getScannerResults_result {0: success (list<TResult>), 1: io (TIOError)}. */
static gboolean
reply_field (Cur *c, guint32 ft, guint32 id, gpointer user)
{
  ReplyRead *r = user;
  if (id == 0 && ft == T_LIST)
    {
      guint32 n;
      if (!read_struct_list (c, &n, "the results are not a list of structs"))
        return FALSE;
      for (guint32 i = 0; i < n; i++)
        if (!read_result (c, r->range, r->cap, r->p))
          return FALSE;
      return TRUE;
    }
  if (id == 1 && ft == T_STRUCT)
    return read_io_error (c, r->io);
  return skip (c, ft, 1);
}

#define NAME "getScannerResults"

static gboolean
recv_fast (ThriftTransport *in, gboolean direct, const AbScanRange *range, guint cap, AbHbPage *p,
           HbTIOError **io, GError **error)
{
  g_autoptr (GByteArray) scratch = g_byte_array_new ();
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (CellRef));
  g_autoptr (GByteArray) row = g_byte_array_new ();
  g_autoptr (GByteArray) tmp = g_byte_array_new ();
  Cur c = { .in = in,
            .direct = direct,
            .tmp = tmp,
            .error = error,
            .scratch = scratch,
            .refs = refs,
            .row = row };
  guint32 head, mtype, seqid;
  const guint8 *name;
  guint32 name_len;
  /* The message header, strict (a version word: the sign bit set) or not
   * (the name's length first). */
  if (!read_be (&c, 4, &head))
    return FALSE;
  gboolean strict = (head & 0x80000000u) != 0;
  if (strict)
    {
      if ((head & 0xffff0000u) != 0x80010000u)
        return bad (&c, "a bad protocol version");
      mtype = head & 0xff;
      if (!read_binary (&c, &name, &name_len))
        return FALSE;
    }
  else
    {
      if (!take (&c, head, &name))
        return FALSE;
      name_len = head;
    }
  gboolean ours = name_len == strlen (NAME) && memcmp (name, NAME, name_len) == 0;
  if (!strict && !read_be (&c, 1, &mtype))
    return FALSE;
  if (!read_be (&c, 4, &seqid))
    return FALSE;
  if (mtype == T_EXCEPTION)
    return read_app_exception (&c);
  if (mtype != T_REPLY || !ours)
    return bad (&c, "not the reply of getScannerResults");
  ReplyRead r = { range, cap, p, io };
  if (!read_struct (&c, reply_field, &r))
    return FALSE;
  if (*io != NULL)
    {
      g_set_error (error, HB_T_I_O_ERROR_ERROR, HB_T_I_O_ERROR_ERROR_CODE, "TIOError");
      return FALSE;
    }
  return TRUE;
}

/* The receive buffer the reply can be read from directly: a binary protocol
 * over a buffered transport that holds nothing back, over our reader. */
static ThriftTransport *
direct_input (HbTHBaseServiceIf *client)
{
  ThriftProtocol *proto = HB_T_H_BASE_SERVICE_CLIENT (client)->input_protocol;
  if (!THRIFT_IS_BINARY_PROTOCOL (proto) || !THRIFT_IS_BUFFERED_TRANSPORT (proto->transport))
    return NULL;
  ThriftBufferedTransport *bt = THRIFT_BUFFERED_TRANSPORT (proto->transport);
  if (bt->r_buf->len != 0 || !G_TYPE_CHECK_INSTANCE_TYPE (bt->transport, AB_TYPE_HB_READER))
    return NULL;
  return bt->transport;
}

gboolean
ab_hb_scanner_results (HbTHBaseServiceIf *client, const GByteArray *table, const HbTScan *tscan,
                       gint32 rows, const AbScanRange *range, guint cap, AbHbPage *p,
                       HbTIOError **io, GError **error)
{
  page_reset (p);
  if (!hb_t_h_base_service_client_send_get_scanner_results (client, table, tscan, rows, error))
    return FALSE;
  ThriftTransport *in = direct_input (client);
  if (in == NULL)
    return recv_generic (client, range, cap, p, io, error);
  return recv_fast (in, TRUE, range, cap, p, io, error);
}

gboolean
ab_hb_decode_scanner_results (ThriftTransport *in, const AbScanRange *range, guint cap, AbHbPage *p,
                              HbTIOError **io, GError **error)
{
  page_reset (p);
  return recv_fast (in, FALSE, range, cap, p, io, error);
}

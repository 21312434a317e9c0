/* HBase Thrift2 reply decoding: the regression inputs of tests/fuzz/fuzz_hbase
 * replayed through the fuzz target itself (linked in, no libFuzzer), its seed
 * corpus, and replies with unknown fields of every type (skipped, not fatal). */
#include <check.h>
#include <string.h>
#include <thrift/c_glib/protocol/thrift_binary_protocol.h>
#include <thrift/c_glib/protocol/thrift_compact_protocol.h>
#include <thrift/c_glib/transport/thrift_memory_buffer.h>
#include "../../fuzz/fuzz.h"
#include "store/hbase/hbase-private.h"
#include "ab_check.h"

void hb_types_ensure (void);

/* A get/getScannerResults reply whose method name is empty: the generated
 * client compared a NULL name with strncmp (thrift/decode-guards.awk). */
static const guint8 empty_name_binary[] = {
  0x00,                   /* binary protocol, recv get */
  0x80, 0x01, 0x00, 0x02, /* strict version, T_REPLY */
  0x00, 0x00, 0x00, 0x00, /* method name: "" */
  0x00, 0x00, 0x00, 0x00, /* seqid */
  0x00,                   /* result struct: stop */
};
static const guint8 empty_name_compact[] = {
  0x05,                   /* compact protocol, recv getScannerResults */
  0x82, 0x41, 0x00, 0x00, /* protocol id, T_REPLY|version, seqid 0, name "" */
  0x00,
};
/* The input the fuzzer found (binary, getScannerResults). */
static const guint8 found_2a1c491e[] = {
  0x18, 0x02, 0x76, 0x31, 0x00, 0x82, 0x41, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e,
  0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x29, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e,
  0x6e, 0x6e, 0x00, 0x03, 0x67, 0x65, 0x2c, 0x18, 0x02, 0x6b, 0x31, 0x19, 0x1c, 0x18,
  0x01, 0x66, 0x18, 0x01, 0x65, 0x18, 0x02, 0x74, 0x0c, 0x00, 0x19, 0x00, 0x00,
};

/* A getScannerResults reply (compact) whose first TResult carries its row
 * twice (field 1 repeated): the generated reader freed the first GByteArray
 * with g_free (thrift/decode-guards.awk). */
static const guint8 found_edb8a0a6[] = {
  0x05, 0x82, 0x41, 0x00, 0x11, 0x67, 0x65, 0x74, 0x53, 0x63, 0x61, 0x6e, 0x6e, 0x65, 0x72,
  0x52, 0x65, 0x73, 0x75, 0x6c, 0x74, 0x73, 0x09, 0x00, 0x2c, 0x18, 0x02, 0x6b, 0x31, 0x02,
  0x00, 0x18, 0x01, 0x66, 0x18, 0x01, 0x65, 0x18, 0x02, 0x76, 0x31, 0x00, 0x00, 0x18, 0x02,
  0x6b, 0x32, 0x19, 0x1c, 0x18, 0x01, 0x66, 0x18, 0x01, 0x65, 0x18, 0x00, 0x00, 0x00, 0x00,
};

/* A get reply (compact) whose unknown field holds a string cut short:
 * libthrift_c_glib's skip freed an uninitialised pointer (src/store/hbase/hbase_wire.c). */
static const guint8 found_91f85a23[] = {
  0x01, 0x82, 0x41, 0x00, 0x03, 0x67, 0x65, 0x74, 0x0c, 0x00, 0x6b, 0x30,
  0x19, 0x1c, 0x18, 0x01, 0x66, 0x18, 0x01, 0x65, 0x09, 0x82, 0x18,
};

START_TEST (test_skip_of_truncated_string)
{
  ck_assert_int_eq (LLVMFuzzerTestOneInput (found_91f85a23, sizeof found_91f85a23), 0);
}
END_TEST

/* A get reply (binary) whose unknown field 9 is a list of lists 100k deep:
 * skipping it must stop at a depth limit, not overflow the stack. */
START_TEST (test_skip_of_deep_nesting)
{
  static const guint8 head[] = { 0x00, 0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 'g',
                                 'e',  't',  0x00, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x09 };
  static const guint8 level[] = { 0x0f, 0x00, 0x00, 0x00, 0x01 };
  g_autoptr (GByteArray) reply = g_byte_array_new ();
  g_byte_array_append (reply, head, sizeof head);
  for (guint i = 0; i < 100000; i++)
    g_byte_array_append (reply, level, sizeof level);
  ck_assert_int_eq (LLVMFuzzerTestOneInput (reply->data, reply->len), 0);
}
END_TEST

/* A T_EXCEPTION reply: the library's ThriftApplicationException leaked 32
 * bytes each (LeakSanitizer at the end of this forked test). */
/* A getMultiple reply (compact) whose method name claims 0xffffffff bytes:
 * the library sign-extended it into a g_malloc0 of exabytes (abort). */
static const guint8 found_8847b5c8[] = {
  0x03, 0x82, 0x41, 0x00, 0xff, 0xff, 0xff, 0xff, 0x67, 0x65, 0x74, 0x53, 0x63, 0x61, 0x6e, 0x6e,
  0x65, 0x72, 0x52, 0x65, 0x73, 0x31, 0x19, 0x1c, 0x18, 0x02, 0x6b, 0x31, 0x01, 0x00, 0x00,
};

START_TEST (test_huge_string_length)
{
  ck_assert_int_eq (LLVMFuzzerTestOneInput (found_8847b5c8, sizeof found_8847b5c8), 0);
  /* the same as a field value: binary protocol, get, TResult.row of 2 GiB - 1 */
  static const guint8 big_row[] = {
    0x00, 0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 'g',  'e',  't',  0x00, 0x00,
    0x00, 0x00, 0x0c, 0x00, 0x00, 0x0b, 0x00, 0x01, 0x7f, 0xff, 0xff, 0xff, 'k',
  };
  ck_assert_int_eq (LLVMFuzzerTestOneInput (big_row, sizeof big_row), 0);
}
END_TEST

/* A T_EXCEPTION reply (compact) whose exception holds a string cut short:
 * the library's exception reader skipped it with the faulty skip. */
static const guint8 found_e534521f[] = {
  0x01, 0x82, 0x61, 0x00, 0x00, 0x03, 0x18, 0x01, 0x66, 0x03, 0x18, 0x01, 0x66, 0x18,
};

START_TEST (test_exception_reply)
{
  ck_assert_int_eq (LLVMFuzzerTestOneInput (found_e534521f, sizeof found_e534521f), 0);
  static const guint8 reply[] = {
    0x00, 0x80, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x03, 'g', 'e', 't', 0x00, 0x00,
    0x00, 0x00, 0x0b, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 'b', 'o', 'o', 'm', /* message */
    0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06,                                 /* type */
    0x00,
  };
  for (guint i = 0; i < 100; i++)
    ck_assert_int_eq (LLVMFuzzerTestOneInput (reply, sizeof reply), 0);
}
END_TEST

/* One input of the seed corpus, by name, through the fuzz target. */
static void
replay_corpus_file (const gchar *name)
{
  g_autofree gchar *here = g_path_get_dirname (__FILE__);
  g_autofree gchar *path
      = g_build_filename (here, "..", "..", "fuzz", "corpus", "hbase", name, NULL);
  g_autofree gchar *data = NULL;
  gsize len = 0;
  ck_assert_msg (g_file_get_contents (path, &data, &len, NULL), "no %s", path);
  ck_assert_int_eq (LLVMFuzzerTestOneInput ((const uint8_t *) data, len), 0);
}

/* getScannerResults replies (binary) whose columnValues list claims an
 * element type nobody knows (crash-316bd189), and with a map of unknown key
 * and value types skipped as an unknown field (crash-51179f2f): the
 * library's list header set an error and returned success, so the skip
 * that followed set another over it; its map header set its error twice
 * (GLib warnings, findings of the fuzz target). */
START_TEST (test_unknown_element_types)
{
  replay_corpus_file ("crash-316bd189");
  replay_corpus_file ("crash-51179f2f");
}
END_TEST

/* A getScannerResults reply (binary) whose first result has an empty row
 * and cells (crash-c8dd022e): the hand-written reader copied the row from a
 * NULL pointer (UBSan: null passed as memcpy's source, in hbase_decode.c). */
START_TEST (test_scan_reader_empty_row)
{
  replay_corpus_file ("crash-c8dd022e");
}
END_TEST

/* ---- unknown fields are skipped, known ones still decode ---- */

#define W(call) ck_assert_int_ge ((call), 0)

static void
write_bin (ThriftProtocol *p, const gchar *name, gint16 id, const gchar *text)
{
  W (thrift_protocol_write_field_begin (p, name, T_STRING, id, NULL));
  W (thrift_protocol_write_binary (p, (gpointer) text, (guint32) strlen (text), NULL));
  W (thrift_protocol_write_field_end (p, NULL));
}

/* Field id of a struct nobody knows: one value of every type. */
static void
write_unknown_struct (ThriftProtocol *p, gint16 id)
{
  W (thrift_protocol_write_field_begin (p, "x", T_STRUCT, id, NULL));
  W (thrift_protocol_write_struct_begin (p, "X", NULL));
  W (thrift_protocol_write_field_begin (p, "m", T_MAP, 1, NULL));
  W (thrift_protocol_write_map_begin (p, T_STRING, T_LIST, 1, NULL));
  W (thrift_protocol_write_string (p, "a", NULL));
  W (thrift_protocol_write_list_begin (p, T_I64, 2, NULL));
  W (thrift_protocol_write_i64 (p, 1, NULL));
  W (thrift_protocol_write_i64 (p, G_MININT64, NULL));
  W (thrift_protocol_write_list_end (p, NULL));
  W (thrift_protocol_write_map_end (p, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_begin (p, "s", T_SET, 2, NULL));
  W (thrift_protocol_write_set_begin (p, T_DOUBLE, 1, NULL));
  W (thrift_protocol_write_double (p, 1.5, NULL));
  W (thrift_protocol_write_set_end (p, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_begin (p, "b", T_BOOL, 3, NULL));
  W (thrift_protocol_write_bool (p, TRUE, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_begin (p, "y", T_BYTE, 4, NULL));
  W (thrift_protocol_write_byte (p, -1, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_begin (p, "h", T_I16, 5, NULL));
  W (thrift_protocol_write_i16 (p, 300, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_begin (p, "i", T_I32, 6, NULL));
  W (thrift_protocol_write_i32 (p, -7, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_stop (p, NULL));
  W (thrift_protocol_write_struct_end (p, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
}

/* get's reply: an unknown field before success, and unknown fields inside
 * the TResult and its TColumnValue, as a newer gateway might send. */
static void
write_get_reply (ThriftProtocol *p)
{
  W (thrift_protocol_write_message_begin (p, "get", T_REPLY, 0, NULL));
  W (thrift_protocol_write_struct_begin (p, "get_result", NULL));
  write_unknown_struct (p, 7);
  W (thrift_protocol_write_field_begin (p, "success", T_STRUCT, 0, NULL));
  W (thrift_protocol_write_struct_begin (p, "TResult", NULL));
  write_bin (p, "row", 1, "k");
  write_unknown_struct (p, 40);
  W (thrift_protocol_write_field_begin (p, "columnValues", T_LIST, 2, NULL));
  W (thrift_protocol_write_list_begin (p, T_STRUCT, 1, NULL));
  W (thrift_protocol_write_struct_begin (p, "TColumnValue", NULL));
  write_bin (p, "family", 1, "f");
  write_unknown_struct (p, 41);
  write_bin (p, "qualifier", 2, "e");
  write_bin (p, "value", 3, "v1");
  W (thrift_protocol_write_field_stop (p, NULL));
  W (thrift_protocol_write_struct_end (p, NULL));
  W (thrift_protocol_write_list_end (p, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_stop (p, NULL));
  W (thrift_protocol_write_struct_end (p, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_stop (p, NULL));
  W (thrift_protocol_write_struct_end (p, NULL));
  W (thrift_protocol_write_message_end (p, NULL));
}

START_TEST (test_unknown_fields_skipped)
{
  hb_types_ensure ();
  ab_hb_thrift_fix_classes ();
  GType protocols[] = { THRIFT_TYPE_BINARY_PROTOCOL, THRIFT_TYPE_COMPACT_PROTOCOL };
  for (guint k = 0; k < G_N_ELEMENTS (protocols); k++)
    {
      ThriftMemoryBuffer *buf = g_object_new (THRIFT_TYPE_MEMORY_BUFFER, "buf_size", 4096, NULL);
      ThriftProtocol *p = g_object_new (protocols[k], "transport", buf, NULL);
      write_get_reply (p);
      GObject *client = g_object_new (HB_TYPE_T_H_BASE_SERVICE_CLIENT, "input_protocol", p,
                                      "output_protocol", p, NULL);
      HbTResult *r = g_object_new (HB_TYPE_T_RESULT, NULL);
      HbTIOError *io = NULL;
      g_autoptr (GError) error = NULL;
      ck_assert_msg (
          hb_t_h_base_service_client_recv_get (HB_T_H_BASE_SERVICE_IF (client), &r, &io, &error),
          "protocol %u: %s", k, error != NULL ? error->message : "");
      GByteArray *v = ab_hb_result_value (r);
      ck_assert_ptr_nonnull (v);
      ck_assert_int_eq (v->len, 2);
      ck_assert_int_eq (memcmp (v->data, "v1", 2), 0);
      ck_assert_int_eq (r->row->len, 1);
      g_object_unref (r);
      g_object_unref (client);
      g_object_unref (p);
      g_object_unref (buf);
    }
}
END_TEST

START_TEST (test_repeated_binary_field)
{
  ck_assert_int_eq (LLVMFuzzerTestOneInput (found_edb8a0a6, sizeof found_edb8a0a6), 0);
}
END_TEST

START_TEST (test_empty_method_name)
{
  ck_assert_int_eq (LLVMFuzzerTestOneInput (empty_name_binary, sizeof empty_name_binary), 0);
  ck_assert_int_eq (LLVMFuzzerTestOneInput (empty_name_compact, sizeof empty_name_compact), 0);
  ck_assert_int_eq (LLVMFuzzerTestOneInput (found_2a1c491e, sizeof found_2a1c491e), 0);
}
END_TEST

/* ---- the hand-written reader of getScannerResults (hbase_decode.c) ---- */

static void
write_cell (ThriftProtocol *p, const gchar *family, const gchar *qual, const gchar *value,
            gboolean extras)
{
  W (thrift_protocol_write_struct_begin (p, "TColumnValue", NULL));
  if (extras)
    write_unknown_struct (p, 41);
  write_bin (p, "qualifier", 2, qual); /* out of id order: any order decodes */
  write_bin (p, "family", 1, family);
  write_bin (p, "value", 3, value);
  W (thrift_protocol_write_field_begin (p, "timestamp", T_I64, 4, NULL));
  W (thrift_protocol_write_i64 (p, 1234, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  if (extras)
    {
      write_bin (p, "tags", 5, "t");
      W (thrift_protocol_write_field_begin (p, "type", T_BYTE, 6, NULL));
      W (thrift_protocol_write_byte (p, 4, NULL));
      W (thrift_protocol_write_field_end (p, NULL));
    }
  W (thrift_protocol_write_field_stop (p, NULL));
  W (thrift_protocol_write_struct_end (p, NULL));
}

/* A reply of n results: narrow rows (f:e, plus a cell of another family
 * and another qualifier), a row without cells, a result without a row, and
 * unknown fields in the result, the cells and the reply. */
static void
write_scan_reply (ThriftProtocol *p, guint n)
{
  W (thrift_protocol_write_message_begin (p, "getScannerResults", T_REPLY, 0, NULL));
  W (thrift_protocol_write_struct_begin (p, "getScannerResults_result", NULL));
  write_unknown_struct (p, 7);
  W (thrift_protocol_write_field_begin (p, "success", T_LIST, 0, NULL));
  W (thrift_protocol_write_list_begin (p, T_STRUCT, (gint32) n, NULL));
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *row = g_strdup_printf ("row-%04u", i);
      g_autofree gchar *value = g_strdup_printf ("value %u", i * 7);
      W (thrift_protocol_write_struct_begin (p, "TResult", NULL));
      if (i % 5 != 4)
        write_bin (p, "row", 1, row);
      if (i % 3 == 0)
        write_unknown_struct (p, 40);
      W (thrift_protocol_write_field_begin (p, "columnValues", T_LIST, 2, NULL));
      guint cells = i % 5 == 3 ? 0 : 3;
      W (thrift_protocol_write_list_begin (p, T_STRUCT, (gint32) cells, NULL));
      if (cells > 0)
        {
          write_cell (p, "g", "e", "other family", i % 2 == 0);
          write_cell (p, "f", "x", "other qualifier", FALSE);
          write_cell (p, "f", "e", value, i % 2 == 1);
        }
      W (thrift_protocol_write_list_end (p, NULL));
      W (thrift_protocol_write_field_end (p, NULL));
      W (thrift_protocol_write_field_begin (p, "partial", T_BOOL, 4, NULL));
      W (thrift_protocol_write_bool (p, FALSE, NULL));
      W (thrift_protocol_write_field_end (p, NULL));
      W (thrift_protocol_write_field_stop (p, NULL));
      W (thrift_protocol_write_struct_end (p, NULL));
    }
  W (thrift_protocol_write_list_end (p, NULL));
  W (thrift_protocol_write_field_end (p, NULL));
  W (thrift_protocol_write_field_stop (p, NULL));
  W (thrift_protocol_write_struct_end (p, NULL));
  W (thrift_protocol_write_message_end (p, NULL));
}

static GByteArray *
scan_reply_bytes (guint n)
{
  ThriftMemoryBuffer *buf = g_object_new (THRIFT_TYPE_MEMORY_BUFFER, "buf_size", 1 << 20, NULL);
  ThriftProtocol *p = g_object_new (THRIFT_TYPE_BINARY_PROTOCOL, "transport", buf, NULL);
  write_scan_reply (p, n);
  GByteArray *out = g_byte_array_new ();
  g_byte_array_append (out, buf->buf->data, buf->buf->len);
  g_object_unref (p);
  g_object_unref (buf);
  return out;
}

/* The generated reader and ab_hb_result_cells, packed as a page: the
 * reference for the hand-written one. */
static void
decode_generated (const GByteArray *reply, const AbScanRange *range, guint cap, GArray *out,
                  guint *results)
{
  ThriftMemoryBuffer *buf = g_object_new (THRIFT_TYPE_MEMORY_BUFFER, "buf_size", 1 << 20, NULL);
  g_byte_array_append (buf->buf, reply->data, reply->len);
  ThriftProtocol *p = g_object_new (THRIFT_TYPE_BINARY_PROTOCOL, "transport", buf, NULL);
  GObject *client = g_object_new (HB_TYPE_T_H_BASE_SERVICE_CLIENT, "input_protocol", p,
                                  "output_protocol", p, NULL);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  HbTIOError *io = NULL;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (hb_t_h_base_service_client_recv_get_scanner_results (
                     HB_T_H_BASE_SERVICE_IF (client), &rows, &io, &error),
                 "generated: %s", error != NULL ? error->message : "");
  guint got = 0;
  for (guint i = 0; i < rows->len && got < cap; i++)
    got += ab_hb_result_cells (g_ptr_array_index (rows, i), range, cap - got, out);
  *results = rows->len;
  g_object_unref (client);
  g_object_unref (p);
  g_object_unref (buf);
}

START_TEST (test_scan_reader_matches_generated)
{
  hb_types_ensure ();
  ab_hb_thrift_fix_classes ();
  g_autoptr (GByteArray) reply = scan_reply_bytes (40);
  const gchar *lo = "row-0010", *hi = "row-0030";
  AbScanRange ranges[] = {
    { 0 },
    { (const guint8 *) lo, strlen (lo), FALSE, (const guint8 *) hi, strlen (hi), TRUE, 0 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (ranges); k++)
    for (guint cap = 1; cap <= 40; cap += 13)
      {
        g_autoptr (GArray) want = ab_kv_array_new ();
        guint results = 0;
        decode_generated (reply, &ranges[k], cap, want, &results);
        ThriftMemoryBuffer *buf
            = g_object_new (THRIFT_TYPE_MEMORY_BUFFER, "buf_size", 1 << 20, NULL);
        g_byte_array_append (buf->buf, reply->data, reply->len);
        AbHbPage page;
        HbTIOError *io = NULL;
        g_autoptr (GError) error = NULL;
        ab_hb_page_init (&page);
        ck_assert_msg (ab_hb_decode_scanner_results (THRIFT_TRANSPORT (buf), &ranges[k], cap, &page,
                                                     &io, &error),
                       "range %u cap %u: %s", k, cap, error != NULL ? error->message : "");
        ck_assert_uint_eq (buf->buf->len, 0); /* read to its end */
        ck_assert_uint_eq (page.results, results);
        ck_assert_uint_eq (page.ncells, want->len);
        ck_assert (page.have_last);
        ck_assert_int_eq (memcmp (page.last_row->data, "row-0038", 8), 0);
        gsize pos = 0, kl, vl;
        const guint8 *key, *value;
        for (guint i = 0; i < want->len; i++)
          {
            AbKv *kv = &g_array_index (want, AbKv, i);
            ck_assert (ab_hb_page_next (&page, &pos, &key, &kl, &value, &vl));
            ck_assert_uint_eq (kl, g_bytes_get_size (kv->key));
            ck_assert_uint_eq (vl, g_bytes_get_size (kv->value));
            ck_assert_int_eq (memcmp (key, g_bytes_get_data (kv->key, NULL), kl), 0);
            ck_assert_int_eq (memcmp (value, g_bytes_get_data (kv->value, NULL), vl), 0);
          }
        ck_assert (!ab_hb_page_next (&page, &pos, &key, &kl, &value, &vl));
        ab_hb_page_clear (&page);
        g_object_unref (buf);
      }
}
END_TEST

/* Cut anywhere, the reply is an error, never a crash or a short page taken
 * for a whole one; so are an exception and a reply to another call. */
START_TEST (test_scan_reader_truncated)
{
  hb_types_ensure ();
  ab_hb_thrift_fix_classes ();
  g_autoptr (GByteArray) reply = scan_reply_bytes (6);
  for (guint cut = 0; cut < reply->len; cut++)
    {
      guint8 input[1 + 4096];
      ck_assert_uint_lt (cut, sizeof input - 1);
      input[0] = 2 << 1; /* the fuzz target: binary protocol, getScannerResults */
      memcpy (input + 1, reply->data, cut);
      ck_assert_int_eq (LLVMFuzzerTestOneInput (input, cut + 1), 0);
    }
  static const guint8 exception[] = {
    0x80, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x11, 'g',  'e',  't',  'S',  'c',  'a',  'n',  'n',
    'e',  'r',  'R',  'e',  's',  'u',  'l',  't',  's',  0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x04, 'b',  'o',  'o',  'm',  0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06, 0x00,
  };
  ThriftMemoryBuffer *buf = g_object_new (THRIFT_TYPE_MEMORY_BUFFER, "buf_size", 4096, NULL);
  g_byte_array_append (buf->buf, exception, sizeof exception);
  AbHbPage page;
  HbTIOError *io = NULL;
  g_autoptr (GError) error = NULL;
  ab_hb_page_init (&page);
  ck_assert (
      !ab_hb_decode_scanner_results (THRIFT_TRANSPORT (buf), NULL, G_MAXUINT, &page, &io, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_ptr_nonnull (strstr (error->message, "boom"));
  ab_hb_page_clear (&page);
  g_object_unref (buf);
}
END_TEST

/* Every seed still decodes without a finding (the corpus sits next to the
 * sources; the suite runs from the build directory). */
START_TEST (test_seed_corpus)
{
  g_autofree gchar *here = g_path_get_dirname (__FILE__);
  g_autofree gchar *dir = g_build_filename (here, "..", "..", "fuzz", "corpus", "hbase", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "no corpus at %s", dir);
  const gchar *name;
  guint n = 0;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      replay_corpus_file (name);
      n++;
    }
  ck_assert_uint_gt (n, 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("hbase_replies");
  TCase *tc = tcase_create ("replies");
  tcase_add_test (tc, test_empty_method_name);
  tcase_add_test (tc, test_repeated_binary_field);
  tcase_add_test (tc, test_skip_of_truncated_string);
  tcase_add_test (tc, test_skip_of_deep_nesting);
  tcase_add_test (tc, test_exception_reply);
  tcase_add_test (tc, test_huge_string_length);
  tcase_add_test (tc, test_unknown_fields_skipped);
  tcase_add_test (tc, test_seed_corpus);
  tcase_add_test (tc, test_scan_reader_matches_generated);
  tcase_add_test (tc, test_scan_reader_truncated);
  tcase_add_test (tc, test_unknown_element_types);
  tcase_add_test (tc, test_scan_reader_empty_row);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}

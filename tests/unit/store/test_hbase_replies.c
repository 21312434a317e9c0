/* Regression inputs of tests/fuzz/fuzz_hbase, replayed through the fuzz
 * target itself (linked in, no libFuzzer): HBase Thrift2 replies that once
 * crashed the decoder, and the target's whole seed corpus. */
#include <check.h>
#include "../../fuzz/fuzz.h"

/* A get/getScannerResults reply whose method name is empty: the generated
 * client compared a NULL name with strncmp (thrift/decode-guards.awk). */
static const guint8 empty_name_binary[] = {
  0x00,                                     /* binary protocol, recv get */
  0x80, 0x01, 0x00, 0x02,                   /* strict version, T_REPLY */
  0x00, 0x00, 0x00, 0x00,                   /* method name: "" */
  0x00, 0x00, 0x00, 0x00,                   /* seqid */
  0x00,                                     /* result struct: stop */
};
static const guint8 empty_name_compact[] = {
  0x05,                                     /* compact protocol, recv getScannerResults */
  0x82, 0x41, 0x00, 0x00,                   /* protocol id, T_REPLY|version, seqid 0, name "" */
  0x00,
};
/* The input the fuzzer found (binary, getScannerResults). */
static const guint8 found_2a1c491e[] = {
  0x18, 0x02, 0x76, 0x31, 0x00, 0x82, 0x41, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e,
  0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x29, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x6e, 0x00, 0x03,
  0x67, 0x65, 0x2c, 0x18, 0x02, 0x6b, 0x31, 0x19, 0x1c, 0x18, 0x01, 0x66, 0x18, 0x01, 0x65, 0x18,
  0x02, 0x74, 0x0c, 0x00, 0x19, 0x00, 0x00,
};

/* A getScannerResults reply (compact) whose first TResult carries its row
 * twice (field 1 repeated): the generated reader freed the first GByteArray
 * with g_free (thrift/decode-guards.awk). */
static const guint8 found_edb8a0a6[] = {
  0x05, 0x82, 0x41, 0x00, 0x11, 0x67, 0x65, 0x74, 0x53, 0x63, 0x61, 0x6e,
  0x6e, 0x65, 0x72, 0x52, 0x65, 0x73, 0x75, 0x6c, 0x74, 0x73, 0x09, 0x00,
  0x2c, 0x18, 0x02, 0x6b, 0x31, 0x02, 0x00, 0x18, 0x01, 0x66, 0x18, 0x01,
  0x65, 0x18, 0x02, 0x76, 0x31, 0x00, 0x00, 0x18, 0x02, 0x6b, 0x32, 0x19,
  0x1c, 0x18, 0x01, 0x66, 0x18, 0x01, 0x65, 0x18, 0x00, 0x00, 0x00, 0x00,
};

/* A get reply (compact) whose unknown field holds a string cut short:
 * libthrift_c_glib's skip freed an uninitialised pointer (src/store/hbase_wire.c). */
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
  static const guint8 head[] = { 0x00, 0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 'g', 'e',
                                 't', 0x00, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x09 };
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
START_TEST (test_exception_reply)
{
  static const guint8 reply[] = {
    0x00, 0x80, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x03, 'g', 'e', 't', 0x00, 0x00, 0x00, 0x00,
    0x0b, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 'b', 'o', 'o', 'm',   /* message */
    0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x06,                       /* type */
    0x00,
  };
  for (guint i = 0; i < 100; i++)
    ck_assert_int_eq (LLVMFuzzerTestOneInput (reply, sizeof reply), 0);
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
      g_autofree gchar *path = g_build_filename (dir, name, NULL);
      g_autofree gchar *data = NULL;
      gsize len = 0;
      ck_assert (g_file_get_contents (path, &data, &len, NULL));
      ck_assert_int_eq (LLVMFuzzerTestOneInput ((const uint8_t *) data, len), 0);
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
  tcase_add_test (tc, test_seed_corpus);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

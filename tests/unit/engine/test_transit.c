/* State-level acceptance scenarios 1-16 of docs/data-model.md §16 on fixture F,
 * driven through ab_state_transit, plus the stored-value round trip and the
 * IDLE/CREATED/UPDATED/DELETED status rule of the plan. */
#include "engine_fixture.h"
#include "codec/keys.h"
#include "ab_check.h"

static const gchar *F
    = "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\",\"indexes\":[],"
      "\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"age\",\"type\":\"int\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"email\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"comment\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}]}";

enum { NAME, AGE, EMAIL, COMMENT };
static AbSchema *schema;

static void
setup (void)
{
  schema = ab_test_schema (F);
}
static void
teardown (void)
{
  ab_schema_free (schema);
}

/* Applies "I@1" style steps: I insert, A age, E email, C comment, N comment
 * null, D delete, P purge, each followed by @version. */
static void
apply (AbState *st, const gchar *steps, gboolean merge)
{
  g_auto (GStrv) parts = g_strsplit (steps, ";", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const gchar *p = g_strstrip (parts[i]);
      gint64 v = g_ascii_strtoll (p + 2, NULL, 10);
      AbEvent *ev = NULL;
      switch (p[0])
        {
          case 'I':
            ev = ab_test_event (schema, AB_OP_INSERT, v, "{\"name\":\"n\",\"age\":7}");
            break;
          case 'A': ev = ab_test_event (schema, AB_OP_UPDATE, v, "{\"age\":8}"); break;
          case 'E': ev = ab_test_event (schema, AB_OP_UPDATE, v, "{\"email\":\"e\"}"); break;
          case 'C': ev = ab_test_event (schema, AB_OP_UPDATE, v, "{\"comment\":\"c\"}"); break;
          case 'N': ev = ab_test_event (schema, AB_OP_UPDATE, v, "{\"comment\":null}"); break;
          case 'D': ev = ab_test_event (schema, AB_OP_DELETE, v, NULL); break;
          case 'P': ev = ab_test_event (schema, AB_OP_PURGE, v, NULL); break;
          default: ck_abort_msg ("bad step %s", p);
        }
      ab_state_transit (st, ev, merge);
      ab_test_event_free (ev);
    }
}

static void
run (AbState *st, const gchar *steps, gboolean merge)
{
  ab_state_init (st, schema->fields->len);
  apply (st, steps, merge);
}

static void
assert_slot_str (const AbState *st, guint f, const gchar *s, gint64 version)
{
  ck_assert_int_eq (st->slots[f].kind, AB_SLOT_VALUE);
  ck_assert_int_eq (st->slots[f].value.kind, AB_VALUE_STRING);
  ck_assert_str_eq (st->slots[f].value.u.s.data, s);
  ck_assert_int_eq (st->slots[f].version, version);
}

static void
assert_slot_int (const AbState *st, guint f, gint64 i, gint64 version)
{
  ck_assert_int_eq (st->slots[f].kind, AB_SLOT_VALUE);
  ck_assert_int_eq (st->slots[f].value.u.i, i);
  ck_assert_int_eq (st->slots[f].version, version);
}

static void
assert_slot_kind (const AbState *st, guint f, AbSlotKind kind, gint64 version)
{
  ck_assert_int_eq (st->slots[f].kind, kind);
  ck_assert_int_eq (st->slots[f].version, version);
}

static void
assert_times (const AbState *st, gboolean active, gint64 version, gint64 c, gint64 d)
{
  ck_assert_int_eq (st->meta.active, active);
  ck_assert_int_eq (st->meta.version, version);
  ck_assert_int_eq (st->meta.has_created_at, c >= 0);
  if (c >= 0)
    ck_assert_int_eq (st->meta.created_at, c);
  ck_assert_int_eq (st->meta.has_deleted_at, d >= 0);
  if (d >= 0)
    ck_assert_int_eq (st->meta.deleted_at, d);
}

START_TEST (s01_insert_on_empty)
{
  AbState st;
  run (&st, "I@1", FALSE);
  assert_times (&st, TRUE, 1, 1, -1);
  assert_slot_str (&st, NAME, "n", 1);
  assert_slot_int (&st, AGE, 7, 1);
  assert_slot_kind (&st, EMAIL, AB_SLOT_UNSET, 1);
  assert_slot_kind (&st, COMMENT, AB_SLOT_UNSET, 1);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s02_delete_on_empty)
{
  AbState st;
  run (&st, "D@1", FALSE);
  assert_times (&st, FALSE, 1, -1, 1);
  for (guint f = 0; f < 4; f++)
    assert_slot_kind (&st, f, AB_SLOT_DELETED, 1);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s03_insert_then_delete_same_version)
{
  AbState st;
  run (&st, "I@1; D@1", FALSE);
  assert_times (&st, FALSE, 1, -1, 1);
  for (guint f = 0; f < 4; f++)
    assert_slot_kind (&st, f, AB_SLOT_DELETED, 1);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s04_delete_then_insert_same_version)
{
  AbState st;
  run (&st, "D@1; I@1", FALSE);
  assert_times (&st, TRUE, 1, 1, -1);
  assert_slot_str (&st, NAME, "n", 1);
  assert_slot_int (&st, AGE, 7, 1);
  assert_slot_kind (&st, EMAIL, AB_SLOT_UNSET, 1);
  assert_slot_kind (&st, COMMENT, AB_SLOT_UNSET, 1);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s05_equal_version_update_order)
{
  AbState st;
  run (&st, "A@1; I@1", FALSE);
  assert_slot_int (&st, AGE, 7, 1);
  ab_state_clear (&st);
  run (&st, "I@1; A@1", FALSE);
  assert_slot_int (&st, AGE, 8, 1);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s06_newer_insert_resets_older_updates)
{
  static const gchar *orders[] = { "I@2; A@1; E@1; C@1", "A@1; I@2; E@1; C@1", "A@1; E@1; C@1; I@2",
                                   "C@1; E@1; I@2; A@1", "E@1; I@2; C@1; A@1" };
  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      AbState st;
      run (&st, orders[i], FALSE);
      assert_times (&st, TRUE, 2, 2, -1);
      assert_slot_str (&st, NAME, "n", 2);
      assert_slot_int (&st, AGE, 7, 2);
      assert_slot_kind (&st, EMAIL, AB_SLOT_UNSET, 2);
      assert_slot_kind (&st, COMMENT, AB_SLOT_UNSET, 2);
      ab_state_clear (&st);
    }
}
END_TEST

START_TEST (s07_null_update_unsets)
{
  static const gchar *orders[] = { "I@1; C@2; N@3", "N@3; C@2; I@1", "C@2; N@3; I@1",
                                   "I@1; N@3; C@2", "N@3; I@1; C@2", "C@2; I@1; N@3" };
  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      AbState st;
      run (&st, orders[i], FALSE);
      ck_assert_int_eq (st.meta.version, 3);
      assert_slot_kind (&st, COMMENT, AB_SLOT_UNSET, 3);
      ab_state_clear (&st);
    }
}
END_TEST

START_TEST (s08_updates_apply_to_inactive)
{
  AbState st;
  run (&st, "I@1; D@1; A@1; E@1; C@1", FALSE);
  ck_assert (!st.meta.active);
  assert_slot_kind (&st, NAME, AB_SLOT_DELETED, 1);
  assert_slot_int (&st, AGE, 8, 1);
  assert_slot_str (&st, EMAIL, "e", 1);
  assert_slot_str (&st, COMMENT, "c", 1);
  ab_state_clear (&st);
}
END_TEST

/* Encoded equality is the IDLE test the plan uses. */
static gboolean
same_bytes (const AbState *a, const AbState *b)
{
  g_autoptr (GByteArray) x = g_byte_array_new ();
  g_autoptr (GByteArray) y = g_byte_array_new ();
  ck_assert (ab_state_encode (schema, a, x, NULL));
  ck_assert (ab_state_encode (schema, b, y, NULL));
  return x->len == y->len && memcmp (x->data, y->data, x->len) == 0;
}

START_TEST (s09_older_insert_is_idle)
{
  AbState st, before;
  run (&st, "I@5; C@10", FALSE);
  assert_times (&st, TRUE, 10, 5, -1);
  ab_state_copy (&before, &st);
  apply (&st, "I@3", FALSE);
  assert_times (&st, TRUE, 10, 5, -1);
  ck_assert (same_bytes (&before, &st));
  ab_state_clear (&st);
  ab_state_clear (&before);
}
END_TEST

START_TEST (s10_reinsert_after_delete)
{
  AbState st;
  run (&st, "I@3; D@7; A@8", FALSE);
  assert_times (&st, FALSE, 8, 3, 7);
  apply (&st, "I@15", FALSE);
  assert_times (&st, TRUE, 15, 15, 7);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s11_insert_at_delete_version)
{
  AbState st;
  run (&st, "I@3; D@5", FALSE);
  assert_times (&st, FALSE, 5, 3, 5);
  apply (&st, "I@5", FALSE);
  assert_times (&st, TRUE, 5, 5, -1);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s12_delete_at_state_version)
{
  AbState st;
  run (&st, "I@3; C@5", FALSE);
  assert_times (&st, TRUE, 5, 3, -1);
  apply (&st, "D@5", FALSE);
  assert_times (&st, FALSE, 5, 3, 5);
  for (guint f = 0; f < 4; f++)
    assert_slot_kind (&st, f, AB_SLOT_DELETED, 5);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s13_update_on_empty)
{
  AbState st;
  ab_state_init (&st, schema->fields->len);
  AbEvent *ev = ab_test_event (schema, AB_OP_UPDATE, 5, "{\"name\":\"x\",\"age\":1}");
  ab_state_transit (&st, ev, FALSE);
  ab_test_event_free (ev);
  assert_times (&st, FALSE, 5, -1, -1);
  guint n = 0;
  for (guint f = 0; f < 4; f++)
    n += st.slots[f].kind != AB_SLOT_ABSENT;
  ck_assert_int_eq (n, 2);
  ck_assert (ab_state_check_valid (schema, &st, NULL)); /* inactive: never validated */
  ab_state_clear (&st);
}
END_TEST

START_TEST (s14_active_without_required_is_invalid)
{
  AbState st;
  ab_state_init (&st, schema->fields->len);
  AbEvent *ev = ab_test_event (schema, AB_OP_INSERT, 1, "{\"name\":\"x\"}");
  ab_state_transit (&st, ev, FALSE);
  ab_test_event_free (ev);
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_state_check_valid (schema, &st, &error));
  ck_assert_str_eq (error->message, "age must be provided");
  ab_state_clear (&st);
}
END_TEST

START_TEST (s15_insert_merge_keeps_fields)
{
  AbState st;
  ab_state_init (&st, schema->fields->len);
  AbEvent *a = ab_test_event (schema, AB_OP_INSERT, 3, "{\"name\":\"n\",\"age\":7}");
  AbEvent *b = ab_test_event (
      schema, AB_OP_UPDATE, 5,
      "{\"name\":\"Alice\",\"age\":30,\"email\":\"alice@x\",\"comment\":\"Nice\"}");
  AbEvent *c = ab_test_event (schema, AB_OP_INSERT, 10, "{\"name\":\"Bob\"}");
  ab_state_transit (&st, a, FALSE);
  ab_state_transit (&st, b, FALSE);
  ab_state_transit (&st, c, TRUE);
  assert_times (&st, TRUE, 10, 10, -1);
  assert_slot_str (&st, NAME, "Bob", 10);
  assert_slot_int (&st, AGE, 30, 5);
  assert_slot_str (&st, EMAIL, "alice@x", 5);
  assert_slot_str (&st, COMMENT, "Nice", 5);
  ab_test_event_free (a);
  ab_test_event_free (b);
  ab_test_event_free (c);
  ab_state_clear (&st);
}
END_TEST

START_TEST (s16_insert_merge_order)
{
  AbState st;
  run (&st, "I@2; C@1", TRUE);
  assert_slot_str (&st, COMMENT, "c", 1);
  ab_state_clear (&st);
  run (&st, "C@1; I@2", TRUE);
  assert_slot_str (&st, COMMENT, "c", 1);
  ab_state_clear (&st);
  run (&st, "I@2; C@1", FALSE); /* snapshot mode gives UNSET */
  assert_slot_kind (&st, COMMENT, AB_SLOT_UNSET, 2);
  ab_state_clear (&st);
}
END_TEST

START_TEST (round_trip_keeps_presence)
{
  AbState st, back;
  run (&st, "I@1; E@2", FALSE);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  ck_assert (ab_state_encode (schema, &st, bytes, NULL));
  ck_assert (ab_state_decode (schema, bytes->data, bytes->len, &back, NULL));
  assert_times (&back, TRUE, 2, 1, -1);
  assert_slot_str (&back, EMAIL, "e", 2);
  ck_assert (!ab_slot_present (&back.slots[COMMENT])); /* UNSET -> null */
  ck_assert_int_eq (back.slots[COMMENT].version, 1);
  ck_assert (same_bytes (&st, &back));
  ab_state_clear (&st);
  ab_state_clear (&back);
}
END_TEST

/* §2.5: a PURGE returns any state, active or deleted, to the initial state,
 * whatever its version; what follows folds onto that. */
START_TEST (purge_returns_to_initial)
{
  AbState st;
  run (&st, "I@5; E@6; P@1", FALSE);
  ck_assert (ab_state_is_initial (&st));
  ab_state_clear (&st);
  run (&st, "I@5; D@9; P@100", FALSE);
  ck_assert (ab_state_is_initial (&st));
  ab_state_clear (&st);
  run (&st, "I@5; P@9; I@3", FALSE); /* older than anything purged: created */
  assert_times (&st, TRUE, 3, 3, -1);
  assert_slot_str (&st, NAME, "n", 3);
  ab_state_clear (&st);
}
END_TEST

static AbEvent *
seq_event (AbOpType type, gint64 version, guint seq)
{
  AbEvent *ev = ab_test_event (schema, type, version,
                               type == AB_OP_INSERT ? "{\"name\":\"n\",\"age\":7}" : NULL);
  ev->seq = seq;
  return ev;
}

/* The last PURGE in request order splits a key's events; the event folded
 * last is the highest-version one after it (the later on a tie), else the
 * PURGE itself. */
START_TEST (last_purge_and_last_folded)
{
  g_autoptr (GPtrArray) evs = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_test_event_free);
  g_ptr_array_add (evs, seq_event (AB_OP_INSERT, 50, 0));
  g_ptr_array_add (evs, seq_event (AB_OP_INSERT, 7, 3));
  g_ptr_array_add (evs, seq_event (AB_OP_PURGE, 90, 1));
  g_ptr_array_add (evs, seq_event (AB_OP_UPDATE, 7, 4));
  g_ptr_array_add (evs, seq_event (AB_OP_PURGE, 1, 2));
  ck_assert_uint_eq (ab_events_last_purge (evs)->seq, 2);
  ck_assert_uint_eq (ab_events_last_folded (evs)->seq, 4); /* 7@3 and 7@4: the later */
  g_ptr_array_add (evs, seq_event (AB_OP_PURGE, 0, 5));
  ck_assert_uint_eq (ab_events_last_purge (evs)->seq, 5);
  ck_assert_uint_eq (ab_events_last_folded (evs)->seq, 5);
  g_ptr_array_set_size (evs, 2);
  ck_assert_ptr_null (ab_events_last_purge (evs));
  ck_assert_uint_eq (ab_events_last_folded (evs)->seq, 0); /* the highest version */
}
END_TEST

/* Names of ops and key statuses, and "UNKNOWN" (no read out of bounds) for a
 * value past either table. */
START_TEST (op_and_status_names)
{
  ck_assert_str_eq (ab_op_name (AB_OP_DELETE), "DELETE");
  ck_assert_str_eq (ab_op_name (AB_OP_PURGE), "PURGE");
  ck_assert_str_eq (ab_op_name ((AbOpType) (AB_OP_PURGE + 1)), "UNKNOWN");
  AbOpType op = AB_OP_INSERT;
  ck_assert (ab_op_parse ("PURGE", &op) && op == AB_OP_PURGE);
  ck_assert (!ab_op_parse ("purge", &op));
  ck_assert_str_eq (ab_op_name ((AbOpType) -1), "UNKNOWN");
  ck_assert_str_eq (ab_key_status_name (AB_STATUS_INVALID), "INVALID");
  ck_assert_str_eq (ab_key_status_name ((AbKeyStatus) (AB_STATUS_INVALID + 1)), "UNKNOWN");
  ck_assert_str_eq (ab_key_status_name ((AbKeyStatus) 1000), "UNKNOWN");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("engine-transit");
  TCase *tc = tcase_create ("scenarios");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, s01_insert_on_empty);
  tcase_add_test (tc, s02_delete_on_empty);
  tcase_add_test (tc, s03_insert_then_delete_same_version);
  tcase_add_test (tc, s04_delete_then_insert_same_version);
  tcase_add_test (tc, s05_equal_version_update_order);
  tcase_add_test (tc, s06_newer_insert_resets_older_updates);
  tcase_add_test (tc, s07_null_update_unsets);
  tcase_add_test (tc, s08_updates_apply_to_inactive);
  tcase_add_test (tc, s09_older_insert_is_idle);
  tcase_add_test (tc, s10_reinsert_after_delete);
  tcase_add_test (tc, s11_insert_at_delete_version);
  tcase_add_test (tc, s12_delete_at_state_version);
  tcase_add_test (tc, s13_update_on_empty);
  tcase_add_test (tc, s14_active_without_required_is_invalid);
  tcase_add_test (tc, s15_insert_merge_keeps_fields);
  tcase_add_test (tc, s16_insert_merge_order);
  tcase_add_test (tc, round_trip_keeps_presence);
  tcase_add_test (tc, op_and_status_names);
  tcase_add_test (tc, purge_returns_to_initial);
  tcase_add_test (tc, last_purge_and_last_folded);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}

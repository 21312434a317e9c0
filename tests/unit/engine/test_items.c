/* The typed mutation entry (ab_engine_mutate_items, the library's data path)
 * against the JSON one (REST): the same random events, shuffled versions,
 * nulls, deletes and casts through both, on memory and lmdb, give the same
 * per-key results and byte-identical data rows; bad items fail the same way. */
#include <string.h>
#include "engine_fixture.h"
#include "catalog/catalog.h"
#include "ab_check.h"

static const gchar *TABLE
    = "{\"table\":\"t\",\"storage\":\"datastore://d/t\",\"comment\":\"\",\"schema\":{\"type\":"
      "\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"\"},\"direction\":\"BOTH\",\"properties\":["
      "{\"name\":\"at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"w\",\"type\":\"short\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"tag\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"by_at\",\"fields\":[{\"field\":\"at\",\"order\":\"DESC\"}]},"
      "{\"index\":\"by_w\",\"fields\":[{\"field\":\"w\",\"order\":\"ASC\"}]}],"
      "\"groups\":[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"tag\"}],"
      "\"directions\":[\"OUT\"]}]}}";

typedef struct {
  AbOpType op;
  gint64 version;
  gint64 source;
  gchar *target;
  gint64 at;
  gint w;     /* -1: null, -2: absent */
  gchar *tag; /* NULL: absent */
  gboolean w_as_text;
} Ev;

static GArray *
random_events (guint n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  GArray *evs = g_array_new (FALSE, TRUE, sizeof (Ev));
  for (guint i = 0; i < n; i++)
    {
      Ev e = { .op = (AbOpType) g_rand_int_range (r, 0, 3),
               .version = g_rand_int_range (r, 1, 50),
               .source = g_rand_int_range (r, 1, 4),
               .target = g_strdup_printf ("x%d", g_rand_int_range (r, 0, 6)),
               .at = g_rand_int_range (r, 0, 1000),
               .w = g_rand_int_range (r, -2, 30),
               .tag
               = g_rand_boolean (r) ? g_strdup_printf ("k%d", g_rand_int_range (r, 0, 3)) : NULL,
               .w_as_text = g_rand_boolean (r) };
      g_array_append_val (evs, e);
    }
  g_rand_free (r);
  return evs;
}

static void
events_free (GArray *evs)
{
  for (guint i = 0; i < evs->len; i++)
    {
      g_free (g_array_index (evs, Ev, i).target);
      g_free (g_array_index (evs, Ev, i).tag);
    }
  g_array_unref (evs);
}

static gchar *
as_json (GArray *evs, guint from, guint n)
{
  static const gchar *ops[] = { "INSERT", "UPDATE", "DELETE" };
  GString *s = g_string_new ("{\"mutations\":[");
  for (guint i = from; i < from + n; i++)
    {
      const Ev *e = &g_array_index (evs, Ev, i);
      g_string_append_printf (s,
                              "%s{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                              ",\"source\":%" G_GINT64_FORMAT
                              ",\"target\":\"%s\",\"properties\":{\"at\":%" G_GINT64_FORMAT,
                              i > from ? "," : "", ops[e->op], e->version, e->source, e->target,
                              e->at);
      if (e->w == -1)
        g_string_append (s, ",\"w\":null");
      else if (e->w >= 0)
        g_string_append_printf (s, e->w_as_text ? ",\"w\":\"%d\"" : ",\"w\":%d", e->w);
      if (e->tag != NULL)
        g_string_append_printf (s, ",\"tag\":\"%s\"", e->tag);
      g_string_append (s, "}}}");
    }
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

/* The same events as typed items; values live in *store (cleared by caller). */
static AbMutationItem *
as_items (GArray *evs, guint from, guint n, GArray *store)
{
  static const gchar *const names[] = { "at", "w", "tag" };
  AbMutationItem *items = g_new0 (AbMutationItem, n);
  g_array_set_size (store, n * 3);
  for (guint i = 0; i < n; i++)
    {
      const Ev *e = &g_array_index (evs, Ev, from + i);
      AbValue *v = &g_array_index (store, AbValue, i * 3);
      guint k = 0;
      const gchar **nm = g_new0 (const gchar *, 3);
      ab_value_set_int (&v[k], AB_VALUE_INT64, e->at);
      nm[k++] = names[0];
      if (e->w == -1)
        nm[k++] = names[1]; /* explicit null: v[k] stays null */
      else if (e->w >= 0)
        {
          if (e->w_as_text)
            {
              g_autofree gchar *t = g_strdup_printf ("%d", e->w);
              ab_value_set_string (&v[k], AB_VALUE_STRING, t, strlen (t));
            }
          else
            ab_value_set_int (&v[k], AB_VALUE_INT32, e->w);
          nm[k++] = names[1];
        }
      if (e->tag != NULL)
        {
          ab_value_set_string (&v[k], AB_VALUE_STRING, e->tag, strlen (e->tag));
          nm[k++] = names[2];
        }
      items[i].type = e->op;
      items[i].version = e->version;
      ab_value_set_int (&items[i].source, AB_VALUE_INT64, e->source);
      ab_value_set_string (&items[i].target, AB_VALUE_STRING, e->target, strlen (e->target));
      items[i].n_props = k;
      items[i].names = nm;
      items[i].values = v;
    }
  return items;
}

static void
items_free (AbMutationItem *items, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      ab_value_clear (&items[i].source);
      ab_value_clear (&items[i].target);
      g_free ((gpointer) items[i].names);
    }
  g_free (items);
}

static GArray *
data_rows (AbEngine *engine)
{
  GArray *rows = ab_kv_array_new ();
  AbScanRange all = { 0 };
  ck_assert (ab_store_scan (engine->store, &all, rows, NULL));
  for (guint i = 0; i < rows->len; i++)
    {
      gsize klen;
      const guint8 *k = g_bytes_get_data (g_array_index (rows, AbKv, i).key, &klen);
      g_autofree gchar *db = NULL;
      if (ab_catalog_key_database (k, klen, &db))
        g_array_remove_index (rows, i--);
    }
  return rows;
}

START_TEST (typed_equals_json)
{
  AbTestEnv a, b;
  ab_test_env_open (&a, _i);
  ab_test_env_open (&b, _i);
  ab_test_create_table (&a, "d", TABLE);
  ab_test_create_table (&b, "d", TABLE);
  GArray *evs = random_events (400, 7 + _i);
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "d";
  o.table = "t";
  for (guint from = 0; from < evs->len; from += 50)
    {
      g_autofree gchar *body = as_json (evs, from, 50);
      g_autoptr (GArray) ra = ab_test_mutate (&a, "d", "t", body);
      g_autoptr (GArray) store = g_array_new (FALSE, TRUE, sizeof (AbValue));
      g_array_set_clear_func (store, (GDestroyNotify) ab_value_clear);
      AbMutationItem *items = as_items (evs, from, 50, store);
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) rb = ab_engine_mutate_items (b.engine, &o, items, 50, &error);
      items_free (items, 50);
      ck_assert_msg (rb != NULL, "%s", error ? error->message : "");
      ck_assert_uint_eq (ra->len, rb->len);
      for (guint i = 0; i < ra->len; i++)
        {
          const AbKeyResult *x = &g_array_index (ra, AbKeyResult, i);
          const AbKeyResult *y = &g_array_index (rb, AbKeyResult, i);
          ck_assert (ab_value_equal (&x->source, &y->source));
          ck_assert (ab_value_equal (&x->target, &y->target));
          ck_assert_int_eq (x->status, y->status);
          ck_assert_uint_eq (x->count, y->count);
        }
    }
  g_autoptr (GArray) rows_a = data_rows (a.engine);
  g_autoptr (GArray) rows_b = data_rows (b.engine);
  ck_assert_uint_gt (rows_a->len, 20);
  ck_assert_uint_eq (rows_a->len, rows_b->len);
  for (guint i = 0; i < rows_a->len; i++)
    {
      const AbKv *x = &g_array_index (rows_a, AbKv, i), *y = &g_array_index (rows_b, AbKv, i);
      ck_assert_msg (g_bytes_equal (x->key, y->key), "row %u: keys differ", i);
      ck_assert_msg (g_bytes_equal (x->value, y->value), "row %u: values differ", i);
    }
  events_free (evs);
  ab_test_env_close (&a);
  ab_test_env_close (&b);
}
END_TEST

START_TEST (typed_bad_items)
{
  AbTestEnv env;
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "d", TABLE);
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "d";
  o.table = "t";
  AbValue v[2] = { AB_VALUE_INIT, AB_VALUE_INIT };
  const gchar *names[2] = { "at", "w" };
  AbMutationItem it
      = { .type = AB_OP_INSERT, .version = 1, .n_props = 2, .names = names, .values = v };
  ab_value_set_int (&it.source, AB_VALUE_INT64, 1);
  ab_value_set_string (&it.target, AB_VALUE_STRING, "x", 1);
  ab_value_set_int (&v[0], AB_VALUE_INT64, 5);
  ab_value_set_int (&v[1], AB_VALUE_INT64, 70000); /* beyond short */
  g_autoptr (GError) error = NULL;
  ck_assert (ab_engine_mutate_items (env.engine, &o, &it, 1, &error) == NULL);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  ck_assert_msg (strstr (error->message, "mutations[0]") && strstr (error->message, "w"), "%s",
                 error->message);
  g_clear_error (&error);
  names[1] = "nope";
  ck_assert (ab_engine_mutate_items (env.engine, &o, &it, 1, &error) == NULL);
  ck_assert_msg (strstr (error->message, "nope") != NULL, "%s", error->message);
  g_clear_error (&error);
  it.n_props = 0; /* INSERT without the required `at` */
  ck_assert (ab_engine_mutate_items (env.engine, &o, &it, 1, &error) == NULL);
  ck_assert_msg (strstr (error->message, "'at'") != NULL, "%s", error->message);
  g_clear_error (&error);
  it.n_props = 1;
  it.type = (AbOpType) 9;
  ck_assert (ab_engine_mutate_items (env.engine, &o, &it, 1, &error) == NULL);
  g_clear_error (&error);
  it.type = AB_OP_INSERT;
  ab_value_clear (&it.target); /* no target */
  ck_assert (ab_engine_mutate_items (env.engine, &o, &it, 1, &error) == NULL);
  ck_assert_msg (strstr (error->message, "target is required") != NULL, "%s", error->message);
  g_clear_error (&error);
  ck_assert_int_eq (ab_test_count (&env, "d", "t", "1", AB_QDIR_OUT), 0);
  ab_value_clear (&it.source);
  ab_value_clear (&v[0]);
  ab_value_clear (&v[1]);
  ab_test_env_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("items");
  TCase *tc = tcase_create ("typed");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, typed_equals_json, 0, 2);
  tcase_add_loop_test (tc, typed_bad_items, 0, 2);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}

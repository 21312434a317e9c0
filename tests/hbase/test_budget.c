/* The call budgets of docs/hbase-adapter.md §9 against the real gateway named
 * by AB_HBASE_ADDR (skipped, exit 77, without it): the doc's table is parsed and
 * each operation, run alone on a fresh table, must make exactly its row's calls. */
#include <string.h>

#include "../unit/engine/engine_fixture.h"
#include "ab_check.h"
#include "hbase_test_uri.h"
#include "store/store.h"

#define DB "budget"

/* The Thrift methods of the table's columns, as ab_store_rpc_counts names them. */
static const gchar *const METHODS[] = { "get",         "getMultiple",  "put",
                                        "putMultiple", "deleteSingle", "deleteMultiple",
                                        "increment",   "checkAndPut",  "checkAndDelete" };
#define N_METHODS G_N_ELEMENTS (METHODS)

/* ---- the tables the operations run on ---- */

typedef struct {
  const gchar *name;
  const gchar *create; /* v3 create request */
  gboolean multi_edge; /* written through /multi-edges */
} Table;

/* Create requests: tables with one index on `at`, as README's likes (kept in
 * both directions, BOTH); `extra` adds to the schema (an id, groups). */
#define STRING "{\"type\":\"string\",\"comment\":\"\"}"
#define PROP(name, type) \
  "{\"name\":\"" name "\",\"type\":\"" type "\",\"nullable\":false,\"comment\":\"\"}"
#define CREATE(name, kind, dir, props, extra)                                                     \
  "{\"table\":\"" name "\",\"storage\":\"datastore://" DB "/" name "\",\"comment\":\"\","         \
  "\"schema\":{\"type\":\"" kind "\",\"source\":" STRING ",\"target\":" STRING                    \
  ",\"direction\":\"" dir "\",\"properties\":[" props "],"                                        \
  "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"at\",\"order\":\"DESC\"}]}]" extra \
  "}}"
/* A COUNT group of the source's edges by kind, kept OUT (docs/data-model.md §17). */
#define BY_KIND(extra)                                                                \
  ",\"groups\":[{\"group\":\"by_kind\",\"type\":\"COUNT\",\"directionType\":\"OUT\"," \
  "\"fields\":[{\"name\":\"kind\"}]" extra "}]"
#define AT PROP ("at", "long")
#define AT_KIND AT "," PROP ("kind", "string")

static const Table LIKES = { "likes", CREATE ("likes", "EDGE", "BOTH", AT, ""), FALSE };
/* Edges known by an id (docs/data-model.md §9). */
static const Table ORDERS
    = { "orders", CREATE ("orders", "MULTI_EDGE", "BOTH", AT, ",\"id\":" STRING), TRUE };
static const Table KINDS
    = { "kinds", CREATE ("kinds", "EDGE", "BOTH", AT_KIND, BY_KIND ("")), FALSE };
static const Table EXPIRING
    = { "expiring", CREATE ("expiring", "EDGE", "BOTH", AT_KIND, BY_KIND (",\"ttl\":86400000")),
        FALSE };
/* Index rows only, one direction: no State, Lock or Count rows
 * (docs/data-model.md §10). */
static const Table EVENTS = { "events", CREATE ("events", "IMMUTABLE_EDGE", "OUT", AT, ""), FALSE };
/* A top-K over the group (docs/data-model.md §17.1): the ranked field is the
 * group's only one, so an entry is one cell, without a score row. */
static const Table RANKED
    = { "ranked",
        CREATE ("ranked", "EDGE", "BOTH", AT_KIND,
                BY_KIND (",\"aggregations\":{\"topk\":[{\"topk\":\"top\"}]}")),
        FALSE };

/* ---- the operations: one row of the doc's table each ---- */

#define MUTATIONS(items) "{\"mutations\":[" items "]}"
#define EDGE(type, v, s, t, props)                                                           \
  "{\"type\":\"" type "\",\"edge\":{\"version\":" #v ",\"source\":\"" s "\",\"target\":\"" t \
  "\",\"properties\":{" props "}}}"
/* Alice -> t0 ... t9 */
#define TO(i) EDGE ("INSERT", 1, "Alice", "t" #i, "\"at\":1" #i)
#define TO_2(a, b) TO (a) "," TO (b)
#define TEN_EDGES TO_2 (0, 1) "," TO_2 (2, 3) "," TO_2 (4, 5) "," TO_2 (6, 7) "," TO_2 (8, 9)

/* The warm-up write: an edge of other nodes, so the table exists and the
 * connections are open before the request is counted. */
#define WARM EDGE ("INSERT", 1, "warm", "up", "\"at\":1")
#define WARM_KIND EDGE ("INSERT", 1, "warm", "up", "\"at\":1,\"kind\":\"y\"")
#define WARM_ID                                                                    \
  "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":\"w\",\"source\":\"warm\"," \
  "\"target\":\"up\",\"properties\":{\"at\":1}}}"

typedef struct {
  const gchar *name; /* its row in the doc's table */
  const Table *table;
  const gchar *setup;   /* the warm-up and what the request needs, not counted */
  const gchar *request; /* counted */
  AbKeyStatus status;   /* every key of the request answers this */
} Op;

static const Op OPS[] = {
  { "INSERT, new edge", &LIKES, MUTATIONS (WARM),
    MUTATIONS (EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10")), AB_STATUS_CREATED },
  { "INSERT, edge exists (its index rows move)", &LIKES,
    MUTATIONS (WARM "," EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10")),
    MUTATIONS (EDGE ("INSERT", 2, "Alice", "Phone", "\"at\":20")), AB_STATUS_UPDATED },
  { "DELETE", &LIKES, MUTATIONS (WARM "," EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10")),
    MUTATIONS (EDGE ("DELETE", 2, "Alice", "Phone", "")), AB_STATUS_DELETED },
  { "batch: INSERT of 10 new edges, one source", &LIKES, MUTATIONS (WARM), MUTATIONS (TEN_EDGES),
    AB_STATUS_CREATED },
  { "multi-edge INSERT, new id", &ORDERS, MUTATIONS (WARM_ID),
    MUTATIONS ("{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":\"o1\",\"source\":\"Alice\","
               "\"target\":\"Phone\",\"properties\":{\"at\":10}}}"),
    AB_STATUS_CREATED },
  { "INSERT, immutable table", &EVENTS, MUTATIONS (WARM),
    MUTATIONS (EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10")), AB_STATUS_CREATED },
  { "INSERT, new edge, table with a group", &KINDS, MUTATIONS (WARM_KIND),
    MUTATIONS (EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10,\"kind\":\"x\"")),
    AB_STATUS_CREATED },
  { "INSERT, new edge, group with a ttl", &EXPIRING, MUTATIONS (WARM_KIND),
    MUTATIONS (EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10,\"kind\":\"x\"")),
    AB_STATUS_CREATED },
  { "INSERT, new edge, group with a top-K", &RANKED, MUTATIONS (WARM_KIND),
    MUTATIONS (EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":10,\"kind\":\"x\"")),
    AB_STATUS_CREATED },
  { "INSERT, new edge, its top-K entry already ranked", &RANKED,
    MUTATIONS (WARM_KIND "," EDGE ("INSERT", 1, "Alice", "Laptop", "\"at\":10,\"kind\":\"x\"")),
    MUTATIONS (EDGE ("INSERT", 1, "Alice", "Phone", "\"at\":20,\"kind\":\"x\"")),
    AB_STATUS_CREATED },
};

/* ---- the doc's table ---- */

typedef struct {
  gchar *name;
  gint64 calls[N_METHODS];
  gint64 total;
} Budget;

static void
budget_free (gpointer p)
{
  Budget *b = p;
  g_free (b->name);
  g_free (b);
}

/* The cells of a markdown table line "| a | b |", trimmed. */
static GPtrArray *
cells_of (const gchar *line)
{
  g_auto (GStrv) parts = g_strsplit (line, "|", -1);
  GPtrArray *cells = g_ptr_array_new_with_free_func (g_free);
  guint n = g_strv_length (parts);
  for (guint i = 1; i + 1 < n; i++) /* the text before the first and after the last bar */
    g_ptr_array_add (cells, g_strstrip (g_strdup (parts[i])));
  return cells;
}

static gint64
number_of (const gchar *cell, const gchar *row)
{
  gint64 v = -1;
  ck_assert_msg (g_ascii_string_to_signed (cell, 10, 0, 100000, &v, NULL),
                 "§9 row \"%s\": \"%s\" is not a number of calls", row, cell);
  return v;
}

/* The rows of the first table under "## 9 Call budgets". */
static GPtrArray *
budgets_from_doc (void)
{
  g_autofree gchar *text = NULL;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (g_file_get_contents (AB_DOCS_DIR "/hbase-adapter.md", &text, NULL, &error), "%s",
                 error ? error->message : "");
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint i = 0;
  while (lines[i] != NULL && !g_str_has_prefix (lines[i], "## 9 Call budgets"))
    i++;
  ck_assert_msg (lines[i] != NULL, "docs/hbase-adapter.md has no \"## 9 Call budgets\"");
  for (i++; lines[i] != NULL && lines[i][0] != '|' && !g_str_has_prefix (lines[i], "## "); i++)
    ;
  ck_assert_msg (lines[i] != NULL && lines[i][0] == '|', "§9 has no table");
  g_autoptr (GPtrArray) head = cells_of (lines[i]);
  gint col[N_METHODS], total = -1;
  for (guint m = 0; m < N_METHODS; m++)
    col[m] = -1;
  for (guint c = 1; c < head->len; c++)
    {
      const gchar *h = head->pdata[c];
      gboolean known = g_str_equal (h, "total");
      if (known)
        total = (gint) c;
      for (guint m = 0; m < N_METHODS; m++)
        if (g_str_equal (h, METHODS[m]))
          col[m] = (gint) c, known = TRUE;
      ck_assert_msg (known, "§9 column \"%s\" is not a method the test counts", h);
    }
  for (guint m = 0; m < N_METHODS; m++)
    ck_assert_msg (col[m] > 0, "§9 has no column %s", METHODS[m]);
  ck_assert_msg (total > 0, "§9 has no column total");
  ck_assert_msg (lines[i + 1] != NULL && g_str_has_prefix (lines[i + 1], "|-"),
                 "§9 table: no separator line under the header");
  GPtrArray *rows = g_ptr_array_new_with_free_func (budget_free);
  for (i += 2; lines[i] != NULL && lines[i][0] == '|'; i++)
    {
      g_autoptr (GPtrArray) cells = cells_of (lines[i]);
      ck_assert_msg (cells->len == head->len, "§9 row \"%s\": %u cells, the header has %u",
                     lines[i], cells->len, head->len);
      Budget *b = g_new0 (Budget, 1);
      b->name = g_strdup (cells->pdata[0]);
      gint64 sum = 0;
      for (guint m = 0; m < N_METHODS; m++)
        sum += b->calls[m] = number_of (cells->pdata[col[m]], b->name);
      b->total = number_of (cells->pdata[total], b->name);
      ck_assert_msg (b->total == sum,
                     "§9 row \"%s\": total %" G_GINT64_FORMAT
                     ", its cells add up to %" G_GINT64_FORMAT,
                     b->name, b->total, sum);
      g_ptr_array_add (rows, b);
    }
  ck_assert_msg (rows->len > 0, "§9 table has no rows");
  return rows;
}

static const Budget *
budget_of (GPtrArray *rows, const gchar *name)
{
  for (guint i = 0; i < rows->len; i++)
    if (g_str_equal (((Budget *) rows->pdata[i])->name, name))
      return rows->pdata[i];
  return NULL;
}

/* Every row of the doc is an operation this suite runs, and the reverse. */
START_TEST (test_rows_match_operations)
{
  g_autoptr (GPtrArray) rows = budgets_from_doc ();
  for (guint i = 0; i < rows->len; i++)
    {
      const gchar *name = ((Budget *) rows->pdata[i])->name;
      gboolean known = FALSE;
      for (guint o = 0; o < G_N_ELEMENTS (OPS); o++)
        known = known || g_str_equal (OPS[o].name, name);
      ck_assert_msg (known, "§9 row \"%s\" is no operation of tests/hbase/test_budget.c", name);
    }
  for (guint o = 0; o < G_N_ELEMENTS (OPS); o++)
    ck_assert_msg (budget_of (rows, OPS[o].name) != NULL, "§9 has no row \"%s\"", OPS[o].name);
}
END_TEST

/* ---- running one operation ---- */

static GArray *
mutate (AbTestEnv *env, const Op *op, const gchar *body)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = DB;
  o.table = op->table->name;
  o.multi_edge = op->table->multi_edge;
  g_autoptr (JsonNode) n = ab_test_json (body);
  g_autoptr (GError) error = NULL;
  GArray *r = ab_engine_mutate (env->engine, &o, n, &error);
  ck_assert_msg (r != NULL, "%s: %s", op->name, error ? error->message : "");
  return r;
}

static guint64
calls_in (const AbStoreRpcCount *c, guint n, const gchar *name)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (c[i].name, name))
      return c[i].calls;
  ck_abort_msg ("the hbase store counts no method %s", name);
  return 0;
}

/* The number of items of a mutation request. */
static guint
items_of (const gchar *body)
{
  guint n = 0;
  for (const gchar *p = body; (p = strstr (p, "\"edge\":")) != NULL; p++)
    n++;
  return n;
}

START_TEST (test_budget)
{
  const Op *op = &OPS[_i];
  g_autoptr (GPtrArray) rows = budgets_from_doc ();
  const Budget *want = budget_of (rows, op->name);
  ck_assert_msg (want != NULL, "§9 has no row \"%s\"", op->name);

  /* Alone on a fresh table: no background work (sweeps, trims) either. */
  AbTestEnv env = { 0 };
  AbEngineConfig cfg;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *uri = ab_hbase_test_uri ("budget", 1);
  ab_engine_config_init (&cfg);
  cfg.cache_prune_ms = 0;
  cfg.ttl_sweep_ms = 0;
  cfg.heal_sweep_ms = 0; /* its calls would land among the counted ones */
  env.engine = ab_engine_open (uri, &cfg, &error);
  ck_assert_msg (env.engine != NULL, "open %s: %s", uri, error ? error->message : "");
  ab_test_create_table (&env, DB, op->table->create);
  g_autoptr (GArray) warm = mutate (&env, op, op->setup);
  ab_engine_heal_flush (env.engine); /* the warm-up's receipts, not counted */

  AbStore *store = ab_engine_store (env.engine);
  AbStoreRpcCount before[AB_STORE_RPC_MAX], after[AB_STORE_RPC_MAX];
  guint n = ab_store_rpc_counts (store, before, AB_STORE_RPC_MAX);
  g_autoptr (GArray) res = mutate (&env, op, op->request);
  ab_engine_heal_flush (env.engine); /* its receipts' deletes, queued (heal.c) */
  ck_assert_uint_eq (ab_store_rpc_counts (store, after, AB_STORE_RPC_MAX), n);

  ck_assert_uint_eq (res->len, items_of (op->request));
  for (guint i = 0; i < res->len; i++)
    ck_assert_msg (g_array_index (res, AbKeyResult, i).status == op->status,
                   "%s: key %u answered %s", op->name, i,
                   ab_key_status_name (g_array_index (res, AbKeyResult, i).status));
  g_autoptr (GString) got = g_string_new (NULL);
  gboolean same = TRUE;
  gint64 total = 0;
  for (guint m = 0; m < N_METHODS; m++)
    {
      gint64 d = (gint64) (calls_in (after, n, METHODS[m]) - calls_in (before, n, METHODS[m]));
      g_string_append_printf (got, " %s=%" G_GINT64_FORMAT, METHODS[m], d);
      same = same && d == want->calls[m];
      total += d;
    }
  ck_assert_msg (same && total == want->total,
                 "\"%s\" made%s (total %" G_GINT64_FORMAT "), not what §9 says", op->name, got->str,
                 total);
  /* nothing else: the table's columns are every call a mutation makes
   * (connects are not calls) */
  for (guint i = 0; i < n; i++)
    {
      gboolean column = g_str_equal (after[i].name, "connect");
      for (guint m = 0; m < N_METHODS; m++)
        column = column || g_str_equal (after[i].name, METHODS[m]);
      ck_assert_msg (column || after[i].calls == before[i].calls,
                     "\"%s\" made %" G_GUINT64_FORMAT " %s calls, a method §9 has no column for",
                     op->name, after[i].calls - before[i].calls, after[i].name);
    }
  ab_test_env_close (&env);
}
END_TEST

int
main (void)
{
  const gchar *addr = g_getenv ("AB_HBASE_ADDR");
  if (addr == NULL || *addr == '\0')
    {
      g_printerr ("SKIP: AB_HBASE_ADDR is not set (no HBase gateway in this run)\n");
      return 77;
    }
  Suite *suite = suite_create ("budget");
  TCase *tc = tcase_create ("budget");
  tcase_add_test (tc, test_rows_match_operations);
  tcase_add_loop_test (tc, test_budget, 0, G_N_ELEMENTS (OPS));
  tcase_set_timeout (tc, 180);
  suite_add_tcase (suite, tc);
  return ab_check_run (suite);
}

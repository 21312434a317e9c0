/* REST suite porting upstream's top-K server tests (TopkApiContractE2ETest,
 * TopkDeclarationTest, MetadataAggControllerE2ETest) and the data-plane,
 * probe and tokens-off cases of TokenAuthenticationFilterTest; every store. */
#include "rest_harness.h"

#define DAY_MS G_GINT64_CONSTANT (86400000)
#define TABLE "purchases"
#define RANK "purchases__topk"
#define RANK2 "purchases__topk_moved"
#define TOPK "top_purchased"
#define TOPK2 "top_watched"
#define WINDOW "purchasedAt:bt:now-365d,now"
#define PARTITIONS 4
/* 2026-01-01T14:32:00Z: upstream's purchase time, kept where a due date is
 * asserted (a due date does not depend on today). Elsewhere a purchase is
 * made now, as upstream's clock stands at the purchase when it buys, so its
 * windows are judged the same on any date. */
#define PURCHASED_AT G_GINT64_CONSTANT (1767277920000)
/* The day bucket every group here declares on purchasedAt. */
#define DAY_BUCKET                                                                             \
  "{\"type\":\"date\",\"name\":\"purchasedAt\",\"unit\":\"MILLISECOND\",\"timezone\":\"UTC\"," \
  "\"format\":\"yyyy-MM-dd\"}"
#define NO_ROW G_MININT64
#define TOKEN "secret"

static AbServer srv;
static gint64 next_id;       /* purchase ids, per test */
static GHashTable *prepared; /* "database|topk|split" -> prepared query id */

static void
setup (void)
{
  next_id = 1;
  prepared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ab_server_start (&srv, NULL, NULL);
}
static void
teardown (void)
{
  ab_server_destroy (&srv);
  g_clear_pointer (&prepared, g_hash_table_unref);
}

static JsonNode *
ok (const gchar *method, const gchar *path, const gchar *body)
{
  return ab_http_ok (&srv, method, path, body);
}

static gint64
now_ms (void)
{
  return g_get_real_time () / 1000;
}

/* ---- upstream's top-K fixture (TopkFixture, TopkDeclaration) over HTTP ---- */

/* One declaration of the source table's top-K, and its rank table. */
typedef struct {
  const gchar *database;
  const gchar *window;        /* the bucket's range in `ranges`; NULL: none */
  gint64 refresh_after;       /* refreshAfterMillis */
  const gchar *direction;     /* the group's directionType */
  const gchar *entity;        /* the entity of TOPK */
  const gchar *dimension;     /* what the rankings rank */
  const gchar *split;         /* the plain field they are split by; NULL: none */
  gboolean second_topk;       /* TOPK2 on the same group too */
  const gchar *second_entity; /* TOPK2 on the same group with this entity */
  gboolean second_group;      /* a second group declaring TOPK2 */
  gboolean declared;          /* FALSE: the group declares no top-K */
  gboolean indexed_rank;      /* the rank table has metric_desc */
  const gchar *rank;          /* the rank table */
} Decl;

/* A day bucket in UTC, a 365-day window, items ranked per buyer and split by
 * category (upstream's DAY), on database. */
static Decl
day (const gchar *database)
{
  return (Decl){ .database = database,
                 .window = WINDOW,
                 .refresh_after = 365 * DAY_MS,
                 .direction = "OUT",
                 .entity = "source",
                 .dimension = "target",
                 .split = "category",
                 .declared = TRUE,
                 .indexed_rank = TRUE,
                 .rank = RANK };
}

/* The group field pinning the ranked value: `_target` for `target`. */
static gchar *
pin_field (const Decl *d)
{
  if (g_strcmp0 (d->dimension, "brand") == 0 || d->dimension[0] == '_')
    return g_strdup (d->dimension);
  return g_strconcat ("_", d->dimension, NULL);
}

/* The pin is declared unless it is the end the direction already implies. */
static gboolean
pin_declared (const Decl *d, const gchar *pin)
{
  return g_strcmp0 (pin, g_strcmp0 (d->direction, "IN") == 0 ? "_target" : "_source") != 0;
}

static gchar *
ranges (const Decl *d)
{
  g_autofree gchar *pin = pin_field (d);
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  if (pin_declared (d, pin))
    g_ptr_array_add (parts, g_strdup_printf ("%s:eq:{%s}", pin, pin));
  if (d->split != NULL)
    g_ptr_array_add (parts, g_strdup_printf ("%s:eq:{%s}", d->split, d->split));
  if (d->window != NULL)
    g_ptr_array_add (parts, g_strdup (d->window));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (";", (gchar **) parts->pdata);
}

static void
append_topk (GString *s, const Decl *d, const gchar *name, const gchar *entity)
{
  g_autofree gchar *r = ranges (d);
  g_string_append_printf (s,
                          "{\"topk\":\"%s\",\"entity\":\"%s\",\"dimension\":\"%s\",\"ranges\":"
                          "\"%s\",\"refreshAfterMillis\":%" G_GINT64_FORMAT ",\"rank\":\"%s.%s\","
                          "\"additionalProperties\":[\"category\"]}",
                          name, entity, d->dimension, r, d->refresh_after, d->database, d->rank);
}

static gchar *
source_schema (const Decl *d)
{
  g_autofree gchar *pin = pin_field (d);
  GString *s = g_string_new (
      "{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"long\",\"comment\":\"purchase id\"},"
      "\"source\":{\"type\":\"string\",\"comment\":\"user\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"item\"},\"properties\":[{\"name\":\"category\",\"type\":\"string\","
      "\"comment\":\"item category\",\"nullable\":true},{\"name\":\"brand\",\"type\":"
      "\"string\",\"comment\":\"item brand\",\"nullable\":true},{\"name\":\"purchasedAt\","
      "\"type\":\"long\",\"comment\":\"purchase time ms\",\"nullable\":false}],\"direction\":"
      "\"BOTH\",\"indexes\":[],\"groups\":[{\"group\":\"purchased_count\",\"type\":\"COUNT\","
      "\"fields\":[");
  if (pin_declared (d, pin))
    g_string_append_printf (s, "{\"name\":\"%s\"},", pin);
  if (d->split != NULL)
    g_string_append_printf (s, "{\"name\":\"%s\"},", d->split);
  g_string_append_printf (s,
                          "{\"name\":\"purchasedAt\",\"bucket\":" DAY_BUCKET "}],\"directionType\":"
                          "\"%s\",\"aggregations\":{\"topk\":[",
                          d->direction);
  if (d->declared)
    {
      append_topk (s, d, TOPK, d->entity);
      if (d->second_topk || d->second_entity != NULL)
        {
          g_string_append_c (s, ',');
          append_topk (s, d, TOPK2, d->second_entity != NULL ? d->second_entity : d->entity);
        }
    }
  g_string_append (s, "]}}");
  if (d->second_group)
    g_string_append_printf (
        s,
        ",{\"group\":\"purchased_total\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"%s\"},{"
        "\"name\":\"purchasedAt\",\"bucket\":" DAY_BUCKET "}],\"directionType\":\"%s\","
        "\"aggregations\":{\"topk\":[{\"topk\":\"" TOPK2 "\",\"entity\":\"%s\",\"dimension\":"
        "\"%s\",\"ranges\":\"%s:eq:{%s};%s\",\"refreshAfterMillis\":%" G_GINT64_FORMAT
        ",\"rank\":\"%s." RANK "\",\"additionalProperties\":[]}]}}",
        pin, d->direction, d->entity, d->dimension, pin, pin, d->window, d->refresh_after,
        d->database);
  g_string_append (s, "],\"caches\":[]}");
  return g_string_free (s, FALSE);
}

static void
create_database (const gchar *database)
{
  g_autofree gchar *body = g_strdup_printf ("{\"database\":\"%s\",\"comment\":\"test\"}", database);
  g_autoptr (JsonNode) n = ok ("POST", "/graph/v3/databases", body);
}

/* The queue topk/refresh the aggregations put their refreshes on. */
static void
create_refresh_queue (void)
{
  create_database ("topk");
  g_autoptr (JsonNode) q = ok ("POST", "/queue/v1/namespaces/topk/queues",
                               "{\"queue\":\"refresh\",\"storage\":\"datastore://test_namespace/"
                               "refresh\",\"partitions\":" G_STRINGIFY (PARTITIONS) "}");
}

/* A rank table: metric (and the carried properties when `carried`), with
 * the metric_desc index when `indexed`. */
static void
create_rank_table (const gchar *database, const gchar *table, gboolean indexed, gboolean carried)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"table\":\"%s\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\","
      "\"comment\":\"topk|entity|dimensionValues\"},\"target\":{\"type\":\"string\",\"comment\":"
      "\"ranked value\"},\"properties\":[{\"name\":\"metric\",\"type\":\"long\",\"comment\":"
      "\"aggregated metric\",\"nullable\":false}%s],\"direction\":\"OUT\",\"indexes\":[%s],"
      "\"groups\":[],\"caches\":[]},\"storage\":\"datastore://test_namespace/%s_%s\",\"mode\":"
      "\"SYNC\",\"comment\":\"materialized rankings\"}",
      table,
      carried ? ",{\"name\":\"additionalProperties\",\"type\":\"string\",\"comment\":\"carried "
                "properties\",\"nullable\":true}"
              : "",
      indexed ? "{\"index\":\"metric_desc\",\"fields\":[{\"field\":\"metric\",\"order\":"
                "\"DESC\"}]}"
              : "",
      database, table);
  g_autofree gchar *path = g_strdup_printf ("/graph/v3/databases/%s/tables", database);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
}

static void
declare (const Decl *d)
{
  create_database (d->database);
  create_rank_table (d->database, d->rank, d->indexed_rank, TRUE);
  g_autofree gchar *schema = source_schema (d);
  g_autofree gchar *body = g_strdup_printf (
      "{\"table\":\"" TABLE "\",\"schema\":%s,\"storage\":\"datastore://test_namespace/%s_" TABLE
      "\",\"mode\":\"SYNC\",\"comment\":\"user-to-item purchase edges\"}",
      schema, d->database);
  g_autofree gchar *path = g_strdup_printf ("/graph/v3/databases/%s/tables", d->database);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
}

/* A declaration changes by a PUT of the whole schema. */
static void
alter (const Decl *d)
{
  g_autofree gchar *schema = source_schema (d);
  g_autofree gchar *body = g_strdup_printf ("{\"schema\":%s}", schema);
  g_autofree gchar *path = g_strdup_printf ("/graph/v3/databases/%s/tables/" TABLE, d->database);
  g_autoptr (JsonNode) n = ok ("PUT", path, body);
}

static void
mutate (const gchar *database, const gchar *table, const gchar *mutations)
{
  g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s]}", mutations);
  g_autofree gchar *path
      = g_strdup_printf ("/graph/v3/databases/%s/tables/%s/multi-edges", database, table);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
}

static void
aggregate_items (const gchar *items)
{
  g_autofree gchar *body = g_strdup_printf ("{\"items\":[%s]}", items);
  g_autoptr (JsonNode) n = ok ("POST", "/aggregations/v1/aggregate", body);
}

/* One aggregate item (or the edge of a purchase with `id` >= 0) at `at`. */
static gchar *
purchase_json (const Decl *d, gint64 id, const gchar *user, const gchar *item,
               const gchar *category, const gchar *brand, gint64 at)
{
  g_autofree gchar *id_member
      = id >= 0 ? g_strdup_printf ("\"id\":%" G_GINT64_FORMAT ",", id) : g_strdup ("");
  g_autofree gchar *edge = g_strdup_printf (
      "\"version\":%" G_GINT64_FORMAT ",%s\"source\":\"%s\",\"target\":\"%s\",\"properties\":{"
      "\"category\":\"%s\",\"brand\":\"%s\",\"purchasedAt\":%" G_GINT64_FORMAT "}",
      at, id_member, user, item, category, brand, at);
  if (id >= 0)
    return g_strdup_printf ("{\"type\":\"INSERT\",\"edge\":{%s}}", edge);
  return g_strdup_printf ("{\"database\":\"%s\",\"table\":\"" TABLE "\",\"edge\":{%s,"
                          "\"context\":{}}}",
                          d->database, edge);
}

/* What a CDC consumer does per purchase event: aggregate its values. */
static void
aggregate (const Decl *d, const gchar *user, const gchar *item, const gchar *category, gint64 at)
{
  g_autofree gchar *it = purchase_json (d, -1, user, item, category, "", at);
  aggregate_items (it);
}

/* A purchase at `at`: the edge written, then aggregated. */
static void
buy (const Decl *d, const gchar *user, const gchar *item, const gchar *category, const gchar *brand,
     gint64 at)
{
  g_autofree gchar *m = purchase_json (d, next_id++, user, item, category, brand, at);
  mutate (d->database, TABLE, m);
  g_autofree gchar *it = purchase_json (d, -1, user, item, category, brand, at);
  aggregate_items (it);
}

/* The prepared read of a ranking, registered once per shape; `split` NULL
 * reads the unsplit key. */
static const gchar *
prepared_read (const Decl *d, const gchar *topk, const gchar *split)
{
  g_autofree gchar *key = g_strdup_printf ("%s|%s|%s", d->database, topk, split ? split : "");
  const gchar *id = g_hash_table_lookup (prepared, key);
  if (id != NULL)
    return id;
  g_autofree gchar *dims
      = split != NULL ? g_strdup_printf ("{\"%s\":\"{dimensionValue}\"}", split) : g_strdup ("{}");
  g_autofree gchar *body = g_strdup_printf (
      "{\"comment\":\"read the %s ranking\",\"arguments\":[{\"name\":\"entity\",\"type\":"
      "\"string\",\"comment\":\"whose ranking\"},{\"name\":\"limit\",\"type\":\"int\","
      "\"comment\":\"how many ranked rows to read\"}%s],\"fetch\":[{\"type\":\"TOPK\",\"name\":"
      "\"ranked\",\"database\":\"%s\",\"table\":\"" TABLE "\",\"topk\":\"%s\",\"entity\":{"
      "\"type\":\"VALUE\",\"value\":[\"{entity}\"]},\"dimensionValues\":%s,\"limit\":"
      "\"{limit}\",\"include\":true}]}",
      topk,
      split != NULL ? ",{\"name\":\"dimensionValue\",\"type\":\"string\",\"comment\":\"the value "
                      "the ranking is split on\"}"
                    : "",
      d->database, topk, dims);
  g_autoptr (JsonNode) reg = ok ("POST", "/graph/v3/prepared-queries", body);
  gchar *new_id = g_strdup (ab_json_str (reg, "id"));
  g_hash_table_insert (prepared, g_steal_pointer (&key), new_id);
  return new_id;
}

/* The arguments of a read of entity's ranking split by `category` (NULL:
 * unsplit). */
static gchar *
read_body (const gchar *entity, const gchar *category)
{
  return g_strdup_printf ("{\"arguments\":{\"entity\":\"%s\",\"limit\":10%s%s%s}}", entity,
                          category != NULL ? ",\"dimensionValue\":\"" : "",
                          category != NULL ? category : "", category != NULL ? "\"" : "");
}

/* The metric of `value` in entity's ranking by the prepared read, NO_ROW when
 * no row holds it. */
static gint64
metric (const Decl *d, const gchar *entity, const gchar *value, const gchar *category,
        const gchar *topk)
{
  const gchar *split = category != NULL ? d->split : NULL;
  g_autofree gchar *path = g_strdup_printf ("/graph/v3/query/%s", prepared_read (d, topk, split));
  g_autofree gchar *body = read_body (entity, split != NULL ? category : NULL);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
  gint64 found = NO_ROW;
  for (guint i = 0; i < ab_json_len (n, "items"); i++)
    {
      g_autofree gchar *name = g_strdup_printf ("items.%u.name", i);
      if (g_strcmp0 (ab_json_str (n, name), "ranked") != 0)
        continue;
      g_autofree gchar *data = g_strdup_printf ("items.%u.data", i);
      JsonArray *rows = json_node_get_array (ab_json_at (n, data));
      for (guint j = 0; j < json_array_get_length (rows); j++)
        {
          JsonObject *row = json_array_get_object_element (rows, j);
          if (g_strcmp0 (json_object_get_string_member (row, "target"), value) != 0)
            continue;
          ck_assert_msg (found == NO_ROW, "more than one row for %s", value);
          found = json_object_get_int_member (row, "metric");
        }
    }
  return found;
}

/* The read of a top-K by the prepared query, refused with 400 for `why`
 * (upstream asserts the status only). */
static void
read_refused (const Decl *d, const gchar *topk, const gchar *entity, const gchar *why)
{
  g_autofree gchar *path
      = g_strdup_printf ("/graph/v3/query/%s", prepared_read (d, topk, d->split));
  g_autofree gchar *body = read_body (entity, "fruit");
  ab_expect_error (&srv, "POST", path, body, 400, why);
}

/* The refresh messages queued for user's rankings on database, from
 * every partition of topk/refresh (the key decides the partition). */
static GPtrArray *
refresh_messages (const gchar *database, const gchar *user)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  for (guint p = 0; p < PARTITIONS; p++)
    {
      g_autofree gchar *path = g_strdup_printf (
          "/queue/v1/namespaces/topk/queues/refresh/partitions/%u/poll?limit=100", p);
      g_autoptr (JsonNode) page = ok ("GET", path, NULL);
      JsonArray *msgs = json_node_get_array (ab_json_at (page, "messages"));
      for (guint i = 0; i < json_array_get_length (msgs); i++)
        {
          JsonNode *m = json_array_get_element (msgs, i);
          if (g_strcmp0 (ab_json_str (m, "value.item.database"), database) == 0
              && g_strcmp0 (ab_json_str (m, "value.item.source"), user) == 0)
            g_ptr_array_add (out, json_node_copy (m));
        }
    }
  return out;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar *const *) a, *(const gchar *const *) b);
}

/* The due times of user's refreshes, sorted, as "2027-01-02T00:00:00Z,…". */
static gchar *
refresh_at (const Decl *d, const gchar *user)
{
  g_autoptr (GPtrArray) msgs = refresh_messages (d->database, user);
  g_autoptr (GPtrArray) due = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < msgs->len; i++)
    {
      gint64 seq = ab_json_int (msgs->pdata[i], "seq");
      g_autoptr (GDateTime) t = g_date_time_new_from_unix_utc (seq / 1000);
      g_ptr_array_add (due, g_date_time_format (t, "%Y-%m-%dT%H:%M:%SZ"));
    }
  g_ptr_array_sort (due, compare_strings);
  g_ptr_array_add (due, NULL);
  return g_strjoinv (",", (gchar **) due->pdata);
}

/* Sweeps the first message queued for user's TOPK ranking of `item` (split
 * by `category`); returns the sweep's answer. */
static JsonNode *
sweep (const Decl *d, const gchar *user, const gchar *item, const gchar *category)
{
  g_autoptr (GPtrArray) msgs = refresh_messages (d->database, user);
  const gchar *dims = d->split != NULL ? category : "";
  for (guint i = 0; i < msgs->len; i++)
    {
      JsonNode *m = msgs->pdata[i];
      if (g_strcmp0 (ab_json_str (m, "value.item.topk"), TOPK) != 0
          || g_strcmp0 (ab_json_str (m, "value.item.topkDimensionValue"), item) != 0
          || g_strcmp0 (ab_json_str (m, "value.item.dimensionValues"), dims) != 0)
        continue;
      g_autofree gchar *value = json_to_string (ab_json_at (m, "value"), FALSE);
      g_autofree gchar *body = g_strdup_printf ("{\"items\":[%s]}", value);
      return ok ("POST", "/aggregations/v1/sweep", body);
    }
  ck_abort_msg ("no refresh queued for %s's %s", user, item);
  return NULL;
}

/* The metrics of the rank rows of entity's TOPK ranking split by category,
 * scanned from the rank table itself, as "1,…". */
static gchar *
rank_rows (const Decl *d, const gchar *entity, const gchar *category)
{
  g_autofree gchar *src
      = g_strdup_printf ("%s|" TABLE "|" TOPK "|%s|%s", d->database, entity, category);
  g_autofree gchar *start = g_uri_escape_string (src, NULL, FALSE);
  g_autofree gchar *path = g_strdup_printf (
      "/graph/v3/databases/%s/tables/%s/edges/scan/metric_desc?start=%s&direction=OUT", d->database,
      d->rank, start);
  g_autoptr (JsonNode) n = ok ("GET", path, NULL);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ab_json_len (n, "edges"); i++)
    {
      g_autofree gchar *at = g_strdup_printf ("edges.%u.properties.metric", i);
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "," : "", ab_json_int (n, at));
    }
  return g_string_free (s, FALSE);
}

/* ---- TopkApiContractE2ETest ---- */

/* The contract cases' fixture: the refresh queue and DAY declared. */
static Decl
contract_fixture (void)
{
  create_refresh_queue ();
  Decl d = day ("topk_day");
  declare (&d);
  return d;
}

/* TopkApiContractE2ETest `a per-entity ranking read with no entity comes back empty` */
START_TEST (read_without_entity_is_empty)
{
  Decl d = contract_fixture ();
  buy (&d, "alice", "apple", "contract", "", now_ms ());
  ck_assert (metric (&d, "", "apple", "contract", TOPK) == NO_ROW);
}
END_TEST

/* TopkApiContractE2ETest `a ranking read without the value it is split by comes back empty` */
START_TEST (read_without_split_value_is_empty)
{
  Decl d = contract_fixture ();
  buy (&d, "alice", "pear", "contract", "", now_ms ());
  ck_assert (metric (&d, "alice", "pear", NULL, TOPK) == NO_ROW);
}
END_TEST

/* TopkApiContractE2ETest `a top-K the table never declared is refused` */
START_TEST (undeclared_topk_read_refused)
{
  Decl d = contract_fixture ();
  read_refused (&d, "top_undeclared", "alice", "Unknown topk `top_undeclared`");
}
END_TEST

/* TopkApiContractE2ETest `the ranking endpoint refuses a top-K the table never declared` */
START_TEST (ranking_endpoint_refuses_undeclared)
{
  Decl d = contract_fixture ();
  g_autofree gchar *path = g_strdup_printf (
      "/aggregations/v1/databases/%s/tables/" TABLE "/topks/top_undeclared", d.database);
  ab_expect_error (&srv, "POST", path,
                   "{\"entity\":\"alice\",\"dimensionValues\":{\"category\":\"fruit\"}}", 400,
                   "Unknown topk `top_undeclared`");
}
END_TEST

/* TopkApiContractE2ETest `a rank table without the metric index cannot be read back` */
START_TEST (rank_table_without_index_unreadable)
{
  contract_fixture ();
  Decl noindex = day ("topk_noindex");
  noindex.indexed_rank = FALSE;
  declare (&noindex);
  buy (&noindex, "alice", "plum", "fruit", "", now_ms ());
  read_refused (&noindex, TOPK, "alice", "has no index `metric_desc`");
}
END_TEST

/* ---- TopkDeclarationTest (each declaration on a database of its own) ---- */

/* TopkDeclarationTest `a global ranking counts every buyer, whoever is named when it is read` */
START_TEST (global_ranking_counts_every_buyer)
{
  create_refresh_queue ();
  Decl g = day ("topk_global");
  g.direction = "IN";
  g.entity = "__GLOBAL__";
  declare (&g);
  gint64 at = now_ms ();
  buy (&g, "alice", "apple", "fruit", "", at);
  buy (&g, "bob", "apple", "fruit", "", at);
  ck_assert_int_eq (metric (&g, "alice", "apple", "fruit", TOPK), 2);
  ck_assert_int_eq (metric (&g, "nobody_at_all", "apple", "fruit", TOPK), 2);
}
END_TEST

/* TopkDeclarationTest `declaring a top-K over data already there fills nothing in until
 * something recomputes` */
START_TEST (declaring_over_existing_data_fills_nothing)
{
  create_refresh_queue ();
  Decl b = day ("topk_backfill");
  b.declared = FALSE;
  declare (&b);
  gint64 at = now_ms ();
  buy (&b, "backfiller", "apple", "fruit", "", at);
  buy (&b, "backfiller", "apple", "fruit", "", at);
  b.declared = TRUE;
  alter (&b);
  ck_assert (metric (&b, "backfiller", "apple", "fruit", TOPK) == NO_ROW);
  aggregate (&b, "backfiller", "apple", "fruit", at);
  ck_assert_int_eq (metric (&b, "backfiller", "apple", "fruit", TOPK), 2);
}
END_TEST

/* TopkDeclarationTest `shortening the window drops what no longer fits on the next recompute`;
 * upstream buys at a time and 10 days later, its clock left at the later one: here the later
 * purchase is an hour ago on the real clock and the first 10 days before it. */
START_TEST (shortening_window_drops_on_recompute)
{
  create_refresh_queue ();
  Decl d = day ("topk_alterwindow");
  declare (&d);
  gint64 later = now_ms () - 3600 * 1000;
  buy (&d, "window_changer", "apple", "fruit", "", later - 10 * DAY_MS);
  buy (&d, "window_changer", "apple", "fruit", "", later);
  ck_assert_int_eq (metric (&d, "window_changer", "apple", "fruit", TOPK), 2);
  d.window = "purchasedAt:bt:now-5d,now";
  alter (&d);
  aggregate (&d, "window_changer", "apple", "fruit", later);
  ck_assert_int_eq (metric (&d, "window_changer", "apple", "fruit", TOPK), 1);
}
END_TEST

/* TopkDeclarationTest `changing refreshAfterMillis only moves the due time of what is enqueued
 * after it` */
START_TEST (refresh_change_moves_only_later_due_times)
{
  create_refresh_queue ();
  Decl d = day ("topk_alterrefresh");
  declare (&d);
  buy (&d, "refresh_changer", "apple", "fruit", "", PURCHASED_AT);
  d.refresh_after = DAY_MS;
  alter (&d);
  buy (&d, "refresh_changer", "apple", "fruit", "", PURCHASED_AT);
  g_autofree gchar *due = refresh_at (&d, "refresh_changer");
  ck_assert_str_eq (due, "2026-01-03T00:00:00Z,2027-01-02T00:00:00Z");
}
END_TEST

/* TopkDeclarationTest `dropping the declaration refuses the read and makes a sweep skip` */
START_TEST (dropped_declaration_refuses_read_and_skips_sweep)
{
  create_refresh_queue ();
  Decl d = day ("topk_dropdecl");
  declare (&d);
  buy (&d, "dropper", "apple", "fruit", "", now_ms ());
  d.declared = FALSE;
  alter (&d);
  read_refused (&d, TOPK, "dropper", "Unknown topk `" TOPK "`");
  g_autoptr (JsonNode) s = sweep (&d, "dropper", "apple", "fruit");
  ck_assert_uint_eq (ab_json_len (s, "items"), 1);
  ck_assert_str_eq (ab_json_str (s, "items.0.status"), "SKIPPED");
}
END_TEST

/* TopkDeclarationTest `pointing the declaration at another rank table leaves the rows already
 * written behind` */
START_TEST (moved_rank_table_leaves_old_rows)
{
  create_refresh_queue ();
  Decl d = day ("topk_moverank");
  declare (&d);
  gint64 at = now_ms ();
  buy (&d, "rank_mover", "apple", "fruit", "", at);
  Decl moved = d;
  moved.rank = RANK2;
  create_rank_table (moved.database, moved.rank, TRUE, TRUE);
  alter (&moved);
  buy (&d, "rank_mover", "apple", "fruit", "", at);
  ck_assert_int_eq (metric (&moved, "rank_mover", "apple", "fruit", TOPK), 2);
  g_autofree gchar *old = rank_rows (&d, "rank_mover", "fruit");
  ck_assert_str_eq (old, "1");
}
END_TEST

/* TopkDeclarationTest `two top-Ks on one group both get written` */
START_TEST (two_topks_on_one_group)
{
  create_refresh_queue ();
  Decl d = day ("topk_two");
  d.second_topk = TRUE;
  declare (&d);
  buy (&d, "two_topk", "apple", "fruit", "", now_ms ());
  ck_assert_int_eq (metric (&d, "two_topk", "apple", "fruit", TOPK), 1);
  ck_assert_int_eq (metric (&d, "two_topk", "apple", "fruit", TOPK2), 1);
}
END_TEST

/* TopkDeclarationTest `two groups each declaring a top-K both get written` */
START_TEST (two_groups_each_with_a_topk)
{
  create_refresh_queue ();
  Decl d = day ("topk_groups");
  d.second_group = TRUE;
  declare (&d);
  buy (&d, "two_groups", "apple", "fruit", "", now_ms ());
  ck_assert_int_eq (metric (&d, "two_groups", "apple", "fruit", TOPK), 1);
  ck_assert_int_eq (metric (&d, "two_groups", "apple", NULL, TOPK2), 1);
}
END_TEST

/* TopkDeclarationTest `a per-entity and a global ranking on one group are both written` */
START_TEST (per_entity_and_global_on_one_group)
{
  create_refresh_queue ();
  Decl d = day ("topk_globalplus");
  d.direction = "IN";
  d.second_entity = "__GLOBAL__";
  declare (&d);
  gint64 at = now_ms ();
  buy (&d, "alice", "apple", "fruit", "", at);
  buy (&d, "bob", "apple", "fruit", "", at);
  ck_assert_int_eq (metric (&d, "apple", "apple", "fruit", TOPK), 2);
  ck_assert_int_eq (metric (&d, "whoever", "apple", "fruit", TOPK2), 2);
}
END_TEST

/* TopkDeclarationTest `an IN group ranks the buyers of an item` */
START_TEST (in_group_ranks_buyers)
{
  create_refresh_queue ();
  Decl d = day ("topk_in");
  d.direction = "IN";
  d.entity = "target";
  d.dimension = "source";
  declare (&d);
  buy (&d, "in_buyer", "apple", "fruit", "", now_ms ());
  ck_assert_int_eq (metric (&d, "apple", "in_buyer", "fruit", TOPK), 1);
}
END_TEST

/* TopkDeclarationTest `a declaration decides what its ranking holds` (rows 51, 52, 53): the
 * declaration `d`, a purchase of an apple of `brand`, and the ranking's row for `value` read
 * split by `split` (NULL: unsplit) holds 1. */
static void
declaration_decides (const Decl *d, gint row, const gchar *brand, const gchar *value,
                     const gchar *split)
{
  create_refresh_queue ();
  declare (d);
  g_autofree gchar *buyer = g_strdup_printf ("buyer_%d", row);
  buy (d, buyer, "apple", "fruit", brand, now_ms ());
  ck_assert_int_eq (metric (d, buyer, value, split, TOPK), 1);
}

/* TopkDeclarationTest `a declaration decides what its ranking holds`, 51 `a group with nothing
 * to split by keeps one` */
START_TEST (nothing_to_split_by)
{
  Decl d = day ("topk_nodim");
  d.split = NULL;
  declaration_decides (&d, 51, "", "apple", NULL);
}
END_TEST

/* TopkDeclarationTest `a declaration decides what its ranking holds`, 52 `a dimension that is a
 * plain property ranks it` */
START_TEST (dimension_is_a_plain_property)
{
  Decl d = day ("topk_brand");
  d.dimension = "brand";
  declaration_decides (&d, 52, "acme", "acme", "fruit");
}
END_TEST

/* TopkDeclarationTest `a declaration decides what its ranking holds`, 53 `a dimension may be
 * written with an underscore` */
START_TEST (dimension_with_underscore)
{
  Decl d = day ("topk_underscore");
  d.dimension = "_target";
  declaration_decides (&d, 53, "", "apple", "fruit");
}
END_TEST

/* TopkDeclarationTest `an upper bound of now plus a day still holds today` */
START_TEST (upper_bound_now_plus_a_day)
{
  create_refresh_queue ();
  Decl d = day ("topk_upper");
  d.window = "purchasedAt:bt:now-365d,now+1d";
  declare (&d);
  buy (&d, "upper_buyer", "apple", "fruit", "", now_ms ());
  ck_assert_int_eq (metric (&d, "upper_buyer", "apple", "fruit", TOPK), 1);
}
END_TEST

/* TopkDeclarationTest `two aggregations of one ranking in a single request settle on the next
 * recompute` */
START_TEST (two_aggregations_in_one_request_settle)
{
  create_refresh_queue ();
  Decl d = day ("topk_day");
  declare (&d);
  gint64 at = now_ms ();
  g_autofree gchar *m1 = purchase_json (&d, next_id++, "bulk_buyer", "apple", "fruit", "", at);
  g_autofree gchar *m2 = purchase_json (&d, next_id++, "bulk_buyer", "apple", "fruit", "", at);
  g_autofree gchar *both = g_strdup_printf ("%s,%s", m1, m2);
  mutate (d.database, TABLE, both);
  g_autofree gchar *it = purchase_json (&d, -1, "bulk_buyer", "apple", "fruit", "", at);
  g_autofree gchar *items = g_strdup_printf ("%s,%s", it, it);
  aggregate_items (items);
  g_autoptr (JsonNode) s = sweep (&d, "bulk_buyer", "apple", "fruit");
  ck_assert_int_eq (metric (&d, "bulk_buyer", "apple", "fruit", TOPK), 2);
}
END_TEST

/* TopkDeclarationTest `a refresh falls due after what the declaration asked for` (rows 70, 71):
 * a purchase at PURCHASED_AT under `d` is due at `due` alone. */
static void
falls_due (const Decl *d, gint row, const gchar *due)
{
  create_refresh_queue ();
  declare (d);
  g_autofree gchar *buyer = g_strdup_printf ("buyer_%d", row);
  buy (d, buyer, "apple", "fruit", "", PURCHASED_AT);
  g_autofree gchar *got = refresh_at (d, buyer);
  ck_assert_str_eq (got, due);
}

/* TopkDeclarationTest `a refresh falls due after what the declaration asked for`, 70 `a refresh
 * shorter than the window falls due early` */
START_TEST (refresh_shorter_than_window_due_early)
{
  Decl d = day ("topk_shortrefresh");
  d.refresh_after = DAY_MS;
  falls_due (&d, 70, "2026-01-03T00:00:00Z");
}
END_TEST

/* TopkDeclarationTest `a refresh falls due after what the declaration asked for`, 71 `a longer
 * one falls due after the purchase left` */
START_TEST (refresh_longer_than_window_due_after)
{
  Decl d = day ("topk_longrefresh");
  d.refresh_after = 730 * DAY_MS;
  falls_due (&d, 71, "2028-01-02T00:00:00Z");
}
END_TEST

/* ---- MetadataAggControllerE2ETest (its tables in the schema-nested v3 form) ---- */

#define REFRESH_AFTER G_GINT64_CONSTANT (3600000)

/* commerce.purchases ranking a buyer's items over 365 days, refreshed an
 * hour after a purchase's day; the refresh queue. */
static void
commerce_fixture (void)
{
  create_database ("commerce");
  create_rank_table ("commerce", RANK, TRUE, FALSE);
  g_autoptr (JsonNode) t = ok (
      "POST", "/graph/v3/databases/commerce/tables",
      "{\"table\":\"" TABLE "\",\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"long\","
      "\"comment\":\"purchase id\"},\"source\":{\"type\":\"string\",\"comment\":\"user\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"item\"},\"properties\":[{\"name\":"
      "\"purchasedAt\",\"type\":\"long\",\"comment\":\"purchase time ms\",\"nullable\":false}],"
      "\"direction\":\"BOTH\",\"indexes\":[],\"groups\":[{\"group\":\"purchased_count\","
      "\"type\":\"COUNT\",\"fields\":[{\"name\":\"_target\"},{\"name\":\"purchasedAt\","
      "\"bucket\":" DAY_BUCKET "}],\"directionType\":\"OUT\",\"aggregations\":{\"topk\":[{"
      "\"topk\":\"" TOPK "\",\"entity\":\"source\",\"ranges\":\"_target:eq:{_target};" WINDOW
      "\",\"dimension\":\"target\",\"refreshAfterMillis\":3600000,\"rank\":\"commerce." RANK
      "\"}]}}],\"caches\":[]},\"storage\":\"datastore://test_namespace/" TABLE "\",\"mode\":"
      "\"SYNC\",\"comment\":\"user-to-item purchase edges\"}");
  create_refresh_queue ();
}

/* MetadataAggControllerE2ETest `listing aggregations returns the tables that declare a topk
 * aggregation` */
START_TEST (listing_returns_tables_declaring_topk)
{
  commerce_fixture ();
  g_autoptr (JsonNode) n = ok ("GET", "/aggregations/v1/metadata", NULL);
  JsonNode *source = NULL;
  JsonArray *items = json_node_get_array (ab_json_at (n, "items"));
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *item = json_array_get_element (items, i);
      if (g_strcmp0 (ab_json_str (item, "database"), "commerce") == 0
          && g_strcmp0 (ab_json_str (item, "table"), TABLE) == 0)
        source = item;
    }
  ck_assert_msg (source != NULL, "commerce." TABLE " is not listed");
  ck_assert_str_eq (ab_json_str (source, "type"), "TOPK");
  ck_assert_str_eq (ab_json_str (source, "database"), "commerce");
  ck_assert_str_eq (ab_json_str (source, "table"), TABLE);
  g_autofree gchar *listed = json_to_string (source, FALSE);
  ck_assert_msg (ab_json_at (source, "dedupeFields") != NULL, "no dedupeFields in %s", listed);
  ck_assert_uint_eq (ab_json_len (source, "dedupeFields"), 2);
  ck_assert_str_eq (ab_json_str (source, "dedupeFields.0"), "source");
  ck_assert_str_eq (ab_json_str (source, "dedupeFields.1"), "_target");
}
END_TEST

/* MetadataAggControllerE2ETest `sweep recomputes the ranking and re-writes the rank row` */
START_TEST (sweep_recomputes_and_rewrites_rank_row)
{
  commerce_fixture ();
  create_database ("commerce_sweep");
  create_rank_table ("commerce_sweep", "orders__topk", TRUE, FALSE);
  g_autoptr (JsonNode) t = ok (
      "POST", "/graph/v3/databases/commerce_sweep/tables",
      "{\"table\":\"orders\",\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"long\","
      "\"comment\":\"order id\"},\"source\":{\"type\":\"string\",\"comment\":\"user\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"item\"},\"properties\":[],\"direction\":"
      "\"OUT\",\"indexes\":[],\"groups\":[{\"group\":\"purchased_count\",\"type\":\"COUNT\","
      "\"fields\":[{\"name\":\"_target\"}],\"directionType\":\"OUT\",\"aggregations\":{\"topk\":"
      "[{\"topk\":\"" TOPK "\",\"entity\":\"source\",\"ranges\":\"_target:eq:{_target}\","
      "\"dimension\":\"target\",\"rank\":\"commerce_sweep.orders__topk\"}]}}],\"caches\":[]},"
      "\"storage\":\"datastore://test_namespace/orders\",\"mode\":\"SYNC\",\"comment\":"
      "\"orders\"}");
  mutate ("commerce_sweep", "orders",
          "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":1,\"source\":\"user1\",\"target\":"
          "\"item1\",\"properties\":{}}}");
  g_autoptr (JsonNode) s = ok (
      "POST", "/aggregations/v1/sweep",
      "{\"items\":[{\"type\":\"TOPK\",\"item\":{\"database\":\"commerce_sweep\",\"table\":"
      "\"orders\",\"topk\":\"" TOPK "\",\"source\":\"user1\",\"target\":\"item1\",\"direction\":"
      "\"OUT\",\"ranges\":\"_target:eq:item1\",\"entity\":\"user1\",\"topkDimensionValue\":"
      "\"item1\",\"dimensionValues\":\"\",\"refreshAt\":123}}]}");
  ck_assert_uint_eq (ab_json_len (s, "items"), 1);
  ck_assert_str_eq (ab_json_str (s, "items.0.database"), "commerce_sweep");
  ck_assert_str_eq (ab_json_str (s, "items.0.table"), "orders");
  ck_assert_str_eq (ab_json_str (s, "items.0.topk"), TOPK);
  ck_assert_str_eq (ab_json_str (s, "items.0.entity"), "user1");
  ck_assert_str_eq (ab_json_str (s, "items.0.status"), "SUCCESS");
  g_autoptr (JsonNode) scan
      = ok ("GET",
            "/graph/v3/databases/commerce_sweep/tables/orders__topk/edges/scan/metric_desc"
            "?start=commerce_sweep%7Corders%7C" TOPK "%7Cuser1&direction=OUT",
            NULL);
  ck_assert_int_eq (ab_json_int (scan, "count"), 1);
  ck_assert_uint_eq (ab_json_len (scan, "edges"), 1);
  ck_assert_str_eq (ab_json_str (scan, "edges.0.target"), "item1");
}
END_TEST

/* MetadataAggControllerE2ETest `running a topk aggregation enqueues a refresh message when
 * refreshAfterMillis is set`; every partition is polled for the one message */
START_TEST (aggregation_enqueues_refresh)
{
  commerce_fixture ();
  gint64 at = now_ms ();
  g_autofree gchar *m = g_strdup_printf (
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":1,\"source\":\"user1\",\"target\":"
      "\"item1\",\"properties\":{\"purchasedAt\":%" G_GINT64_FORMAT "}}}",
      at);
  mutate ("commerce", TABLE, m);
  g_autofree gchar *it = g_strdup_printf (
      "{\"database\":\"commerce\",\"table\":\"" TABLE "\",\"edge\":{\"version\":1,\"source\":"
      "\"user1\",\"target\":\"item1\",\"properties\":{\"purchasedAt\":%" G_GINT64_FORMAT "},"
      "\"context\":{}}}",
      at);
  aggregate_items (it);
  g_autoptr (GPtrArray) msgs = refresh_messages ("commerce", "user1");
  ck_assert_uint_eq (msgs->len, 1);
  JsonNode *msg = msgs->pdata[0];
  gint64 due = at - at % DAY_MS + REFRESH_AFTER + DAY_MS;
  ck_assert_int_eq (ab_json_int (msg, "seq"), due);
  ck_assert_str_eq (ab_json_str (msg, "value.type"), "TOPK");
  ck_assert_str_eq (ab_json_str (msg, "value.item.database"), "commerce");
  ck_assert_str_eq (ab_json_str (msg, "value.item.table"), TABLE);
  ck_assert_str_eq (ab_json_str (msg, "value.item.topk"), TOPK);
  ck_assert_str_eq (ab_json_str (msg, "value.item.source"), "user1");
  ck_assert_str_eq (ab_json_str (msg, "value.item.target"), "item1");
  ck_assert_str_eq (ab_json_str (msg, "value.item.direction"), "OUT");
  ck_assert_str_eq (ab_json_str (msg, "value.item.entity"), "user1");
  ck_assert_str_eq (ab_json_str (msg, "value.item.topkDimensionValue"), "item1");
  ck_assert_str_eq (ab_json_str (msg, "value.item.dimensionValues"), "");
  ck_assert_int_eq (ab_json_int (msg, "value.item.refreshAt"), due);
}
END_TEST

/* ---- TokenAuthenticationFilterTest (the key is ACTIONBASE_ADMIN_KEY) ---- */

/* The server of this test started again with tokens on. */
static void
restart_with_tokens (void)
{
  static const gchar *const args[] = { "--auth", NULL };
  ab_server_destroy (&srv);
  g_setenv ("ACTIONBASE_ADMIN_KEY", TOKEN, TRUE);
  ab_server_start (&srv, NULL, args);
  g_unsetenv ("ACTIONBASE_ADMIN_KEY");
}

/* The status of a GET sent without a token (a 401 is the JSON error). */
static guint
get_status (const gchar *path)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, "%s", path);
  guint status = r.status;
  if (status == 401)
    ab_assert_error_reply (&r, 401);
  ab_reply_clear (&r);
  return status;
}

/* TokenAuthenticationFilterTest `the data plane needs a token` */
START_TEST (data_plane_needs_a_token)
{
  restart_with_tokens ();
  ck_assert_uint_eq (get_status ("/graph/v2/service"), 401);
  ck_assert_uint_eq (get_status ("/graph/v3/databases"), 401);
}
END_TEST

/* TokenAuthenticationFilterTest `probes need no token` */
START_TEST (probes_need_no_token)
{
  restart_with_tokens ();
  ck_assert_uint_eq (get_status ("/graph/health"), 200);
  ck_assert_uint_eq (get_status ("/graph/health/liveness"), 200);
  ck_assert_uint_eq (get_status ("/"), 200);
}
END_TEST

/* TokenAuthenticationFilterTest `nothing is protected when tokens are off` (its
 * /control/topology is not served here) */
START_TEST (nothing_protected_when_tokens_off)
{
  ck_assert_uint_eq (get_status ("/graph/v3/databases"), 200);
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, read_without_entity_is_empty);
  tcase_add_test (tc, read_without_split_value_is_empty);
  tcase_add_test (tc, undeclared_topk_read_refused);
  tcase_add_test (tc, ranking_endpoint_refuses_undeclared);
  tcase_add_test (tc, rank_table_without_index_unreadable);
  tcase_add_test (tc, global_ranking_counts_every_buyer);
  tcase_add_test (tc, declaring_over_existing_data_fills_nothing);
  tcase_add_test (tc, shortening_window_drops_on_recompute);
  tcase_add_test (tc, refresh_change_moves_only_later_due_times);
  tcase_add_test (tc, dropped_declaration_refuses_read_and_skips_sweep);
  tcase_add_test (tc, moved_rank_table_leaves_old_rows);
  tcase_add_test (tc, two_topks_on_one_group);
  tcase_add_test (tc, two_groups_each_with_a_topk);
  tcase_add_test (tc, per_entity_and_global_on_one_group);
  tcase_add_test (tc, in_group_ranks_buyers);
  tcase_add_test (tc, nothing_to_split_by);
  tcase_add_test (tc, dimension_is_a_plain_property);
  tcase_add_test (tc, dimension_with_underscore);
  tcase_add_test (tc, upper_bound_now_plus_a_day);
  tcase_add_test (tc, two_aggregations_in_one_request_settle);
  tcase_add_test (tc, refresh_shorter_than_window_due_early);
  tcase_add_test (tc, refresh_longer_than_window_due_after);
  tcase_add_test (tc, listing_returns_tables_declaring_topk);
  tcase_add_test (tc, sweep_recomputes_and_rewrites_rank_row);
  tcase_add_test (tc, aggregation_enqueues_refresh);
  tcase_add_test (tc, data_plane_needs_a_token);
  tcase_add_test (tc, probes_need_no_token);
  tcase_add_test (tc, nothing_protected_when_tokens_off);
}

int
main (void)
{
  return ab_rest_main_stores ("upstream_topk", add_tests, setup, teardown, 120);
}

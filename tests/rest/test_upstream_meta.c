/* REST suite porting upstream's metadata tests (kakao/actionbase, server/src/test/kotlin/
 * com/kakao/actionbase/server/api/graph/v3/metadata/: V2V3CompatibilityTest, AliasControllerTest,
 * V3NameValidatorTest through the routes), the same requests and answers, on every store. */
#include "rest_harness.h"

#define DATABASES "/graph/v3/databases"

static AbServer srv;

static void
setup (void)
{
  ab_server_start (&srv, NULL, NULL);
}
static void
teardown (void)
{
  ab_server_destroy (&srv);
}

/* ---- helpers ---- */

/* A JSON object of string members: key, value, key, value, ..., NULL. */
static gchar *
strings_object (const gchar *key, ...)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  va_list ap;
  va_start (ap, key);
  for (const gchar *k = key; k != NULL; k = va_arg (ap, const gchar *))
    {
      json_builder_set_member_name (b, k);
      json_builder_add_string_value (b, va_arg (ap, const gchar *));
    }
  va_end (ap);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

/* Whether got holds want the way upstream's `.json(expected)` compares:
 * every expected member present and alike (more members allowed), arrays
 * of the same length alike element by element, values equal. On a
 * difference `at` ends with the path to it. */
static gboolean
holds (JsonNode *got, JsonNode *want, GString *at)
{
  if (got == NULL || JSON_NODE_TYPE (got) != JSON_NODE_TYPE (want))
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (want))
    {
      JsonObject *w = json_node_get_object (want), *g = json_node_get_object (got);
      g_autoptr (GList) members = json_object_get_members (w);
      for (GList *m = members; m != NULL; m = m->next)
        {
          gsize len = at->len;
          g_string_append_printf (at, ".%s", (const gchar *) m->data);
          if (!holds (json_object_get_member (g, m->data), json_object_get_member (w, m->data), at))
            return FALSE;
          g_string_truncate (at, len);
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (want))
    {
      JsonArray *w = json_node_get_array (want), *g = json_node_get_array (got);
      if (json_array_get_length (w) != json_array_get_length (g))
        return FALSE;
      for (guint i = 0; i < json_array_get_length (w); i++)
        {
          gsize len = at->len;
          g_string_append_printf (at, ".%u", i);
          if (!holds (json_array_get_element (g, i), json_array_get_element (w, i), at))
            return FALSE;
          g_string_truncate (at, len);
        }
      return TRUE;
    }
  return json_node_equal (got, want);
}

static void
expect_json (const gchar *what, JsonNode *got, const gchar *want_text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) want = json_from_string (want_text, &error);
  ck_assert_msg (want != NULL, "bad expected JSON %s: %s", want_text, error->message);
  g_autoptr (GString) at = g_string_new ("$");
  g_autofree gchar *text = json_to_string (got, FALSE);
  ck_assert_msg (holds (got, want, at), "%s: differs at %s; want %s, got %s", what, at->str,
                 want_text, text);
}

/* A request that must answer 200 with JSON holding `expected`. */
static void
expect_ok (const gchar *method, const gchar *path, const gchar *body, const gchar *expected)
{
  g_autoptr (JsonNode) n = ab_http_ok (&srv, method, path, body);
  expect_json (path, n, expected);
}

/* A request that must answer 200; the answer is not read. */
static void
ok (const gchar *method, const gchar *path, const gchar *body)
{
  g_autoptr (JsonNode) n = ab_http_ok (&srv, method, path, body);
}

static void
expect_status (const gchar *method, const gchar *path, const gchar *body, guint status)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, method, body, "%s", path);
  ck_assert_msg (r.status == status, "%s %s -> %u (want %u) %s", method, path, r.status, status,
                 r.body);
  ab_reply_clear (&r);
}

static void
create_database (const gchar *name, const gchar *comment)
{
  g_autofree gchar *body = strings_object ("database", name, "comment", comment, NULL);
  ok ("POST", DATABASES, body);
}

/* ---- table shapes, written in both dialects ---- */

typedef struct {
  const gchar *suffix;        /* of the names: <prefix>_<suffix> */
  const gchar *comment;       /* v3 comment = v2 desc */
  const gchar *direction;     /* v3 direction = v2 dirType */
  const gchar *v2_key;        /* both keys' type in v2 (STRING, LONG) */
  const gchar *v3_key;        /* the same in v3 (string, long) */
  const gchar *source;        /* the source key's comment */
  const gchar *target;        /* the target key's comment */
  const gchar *id;            /* a multi-edge's id comment (v2: the `_id` field); NULL: an edge */
  const gchar *v2_fields;     /* the properties as v2 `fields` items */
  const gchar *v3_properties; /* the same as v3 `properties` items */
} Shape;

#define NO_PROPERTIES "", ""

static const Shape edges[] = {
  { "out", "direction out", "OUT", "STRING", "string", "source", "target", NULL, NO_PROPERTIES },
  { "in", "direction in", "IN", "STRING", "string", "source", "target", NULL, NO_PROPERTIES },
  { "both", "direction both", "BOTH", "STRING", "string", "source", "target", NULL, NO_PROPERTIES },
  { "props", "with props", "OUT", "STRING", "string", "user", "item", NULL,
    "{\"name\":\"rating\",\"type\":\"INT\",\"nullable\":true,\"desc\":\"rating\"},"
    "{\"name\":\"createdat\",\"type\":\"LONG\",\"nullable\":true,\"desc\":\"time\"}",
    "{\"name\":\"rating\",\"type\":\"int\",\"comment\":\"rating\",\"nullable\":true},"
    "{\"name\":\"createdat\",\"type\":\"long\",\"comment\":\"time\",\"nullable\":true}" },
  { "long", "long keys", "OUT", "LONG", "long", "uid", "iid", NULL, NO_PROPERTIES },
};

static const Shape multi_edges[] = {
  { "basic", "basic multiedge", "BOTH", "LONG", "long", "sender", "receiver", "order id",
    NO_PROPERTIES },
  { "props", "multiedge with props", "BOTH", "LONG", "long", "user", "item", "txn id",
    "{\"name\":\"amount\",\"type\":\"INT\",\"nullable\":false,\"desc\":\"purchase amount\"},"
    "{\"name\":\"timestamp\",\"type\":\"LONG\",\"nullable\":false,\"desc\":\"txn time\"}",
    "{\"name\":\"amount\",\"type\":\"int\",\"comment\":\"purchase amount\",\"nullable\":false},"
    "{\"name\":\"timestamp\",\"type\":\"long\",\"comment\":\"txn time\",\"nullable\":false}" },
  { "string", "string key multiedge", "OUT", "STRING", "string", "from", "to", "msg id",
    NO_PROPERTIES },
};

/* The v2 label's schema, dirType and storage members. */
static gchar *
v2_schema (const Shape *s, const gchar *name)
{
  g_autofree gchar *id
      = s->id == NULL ? g_strdup ("")
                      : g_strdup_printf ("{\"name\":\"_id\",\"type\":\"LONG\",\"nullable\":false,"
                                         "\"desc\":\"%s\"}%s",
                                         s->id, s->v2_fields[0] != '\0' ? "," : "");
  return g_strdup_printf ("\"schema\":{\"src\":{\"type\":\"%s\",\"desc\":\"%s\"},\"tgt\":{\"type\":"
                          "\"%s\",\"desc\":\"%s\"},\"fields\":[%s%s]},\"dirType\":\"%s\","
                          "\"storage\":\"datastore://test_namespace/%s\"",
                          s->v2_key, s->source, s->v2_key, s->target, id, s->v2_fields,
                          s->direction, name);
}

/* What upstream's v2 test sends to create the label `name`. */
static gchar *
v2_label_request (const Shape *s, const gchar *name)
{
  g_autofree gchar *schema = v2_schema (s, name);
  return s->id == NULL
             ? g_strdup_printf ("{\"desc\":\"%s\",\"type\":\"INDEXED\",%s}", s->comment, schema)
             : g_strdup_printf ("{\"desc\":\"%s\",\"type\":\"MULTI_EDGE\",%s,"
                                "\"readOnly\":true}",
                                s->comment, schema);
}

/* What upstream expects GET of the v2 label db.name to hold. */
static gchar *
v2_label_answer (const Shape *s, const gchar *db, const gchar *name)
{
  g_autofree gchar *schema = v2_schema (s, name);
  return g_strdup_printf ("{\"name\":\"%s.%s\",\"desc\":\"%s\",%s,\"active\":true}", db, name,
                          s->comment, schema);
}

/* The v3 schema's members: the id of a multi-edge, keys, properties, direction. */
static gchar *
v3_schema (const Shape *s)
{
  g_autofree gchar *id
      = s->id == NULL ? g_strdup ("")
                      : g_strdup_printf ("\"id\":{\"type\":\"long\",\"comment\":\"%s\"},", s->id);
  return g_strdup_printf ("%s\"source\":{\"type\":\"%s\",\"comment\":\"%s\"},\"target\":{\"type\":"
                          "\"%s\",\"comment\":\"%s\"},\"properties\":[%s],\"direction\":\"%s\"",
                          id, s->v3_key, s->source, s->v3_key, s->target, s->v3_properties,
                          s->direction);
}

/* A v3 table create body: schema.type `type`, on datastore://test_namespace/storage. */
static gchar *
v3_table_request (const Shape *s, const gchar *type, const gchar *table, const gchar *storage)
{
  g_autofree gchar *schema = v3_schema (s);
  return g_strdup_printf ("{\"table\":\"%s\",\"schema\":{\"type\":\"%s\",%s,\"indexes\":[],"
                          "\"groups\":[]},\"storage\":\"datastore://test_namespace/%s\","
                          "\"mode\":\"SYNC\",\"comment\":\"%s\"}",
                          table, type, schema, storage, s->comment);
}

/* What upstream expects GET of the v3 table `name` to hold. */
static gchar *
v3_table_answer (const Shape *s, const gchar *name)
{
  g_autofree gchar *schema = v3_schema (s);
  const gchar *type = s->id == NULL ? "edge" : "multiEdge";
  return g_strdup_printf ("{%s\"table\":\"%s\",\"comment\":\"%s\",\"schema\":{\"type\":\"%s\",%s},"
                          "\"storage\":\"datastore://test_namespace/%s\",\"active\":true}",
                          s->id == NULL ? "" : "\"type\":\"multiEdge\",", name, s->comment, type,
                          schema, name);
}

/* Each shape created as the v2 label <prefix>_<suffix> of db, then read as a v3 table. */
static void
v2_labels_read_as_v3 (const gchar *db, const gchar *prefix, const Shape *shapes, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("%s_%s", prefix, shapes[i].suffix);
      g_autofree gchar *create = v2_label_request (&shapes[i], name);
      g_autofree gchar *label = g_strdup_printf ("/graph/v2/service/%s/label/%s", db, name);
      ok ("POST", label, create);
      g_autofree gchar *table = g_strdup_printf (DATABASES "/%s/tables/%s", db, name);
      g_autofree gchar *expected = v3_table_answer (&shapes[i], name);
      expect_ok ("GET", table, NULL, expected);
    }
}

/* Each shape created as the v3 table <prefix>_<suffix> of db (schema.type
 * `type`), then read as a v2 label. */
static void
v3_tables_read_as_v2 (const gchar *db, const gchar *prefix, const gchar *type, const Shape *shapes,
                      guint n)
{
  g_autofree gchar *tables = g_strdup_printf (DATABASES "/%s/tables", db);
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("%s_%s", prefix, shapes[i].suffix);
      g_autofree gchar *create = v3_table_request (&shapes[i], type, name, name);
      ok ("POST", tables, create);
      g_autofree gchar *label = g_strdup_printf ("/graph/v2/service/%s/label/%s", db, name);
      g_autofree gchar *expected = v2_label_answer (&shapes[i], db, name);
      expect_ok ("GET", label, NULL, expected);
    }
}

/* ---- V2V3CompatibilityTest: created through one API version, read through the other ---- */

typedef struct {
  const gchar *name;
  const gchar *comment;
} Named;

/* V2V3CompatibilityTest DatabaseCompatibilityTest `V2 create - V3 get` */
START_TEST (v2_service_read_as_v3_database)
{
  static const Named cases[] = { { "db_v2v3_basic", "test database" },
                                 { "db_v2v3_empty", "" },
                                 { "db_v2v3_special", "test @#$%" } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *service = g_strdup_printf ("/graph/v2/service/%s", cases[i].name);
      g_autofree gchar *create = strings_object ("desc", cases[i].comment, NULL);
      ok ("POST", service, create);
      g_autofree gchar *database = g_strdup_printf (DATABASES "/%s", cases[i].name);
      g_autofree gchar *expected
          = g_strdup_printf ("{\"database\":\"%s\",\"comment\":\"%s\",\"active\":true}",
                             cases[i].name, cases[i].comment);
      expect_ok ("GET", database, NULL, expected);
    }
}
END_TEST

/* V2V3CompatibilityTest DatabaseCompatibilityTest `V3 create - V2 get` */
START_TEST (v3_database_read_as_v2_service)
{
  static const Named cases[] = { { "db_v3v2_basic", "test database" },
                                 { "db_v3v2_empty", "" },
                                 { "db_v3v2_special", "test @#$%" } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      create_database (cases[i].name, cases[i].comment);
      g_autofree gchar *service = g_strdup_printf ("/graph/v2/service/%s", cases[i].name);
      g_autofree gchar *expected = g_strdup_printf (
          "{\"name\":\"%s\",\"desc\":\"%s\",\"active\":true}", cases[i].name, cases[i].comment);
      expect_ok ("GET", service, NULL, expected);
    }
}
END_TEST

/* V2V3CompatibilityTest TableCompatibilityTest `V2 create - V3 get` */
START_TEST (v2_label_read_as_v3_table)
{
  create_database ("tbl_compat_db", "test db");
  v2_labels_read_as_v3 ("tbl_compat_db", "tbl_v2v3", edges, G_N_ELEMENTS (edges));
}
END_TEST

/* V2V3CompatibilityTest TableCompatibilityTest `V3 create - V2 get` */
START_TEST (v3_table_read_as_v2_label)
{
  create_database ("tbl_compat_db", "test db");
  v3_tables_read_as_v2 ("tbl_compat_db", "tbl_v3v2", "edge", edges, G_N_ELEMENTS (edges));
}
END_TEST

/* The table aliases point at in both alias tests. */
static const Shape alias_target
    = { NULL, "target table", "OUT", NULL, "string", "src", "tgt", NULL, NO_PROPERTIES };

/* The database db ("test db") with the alias target `table` (schema.type `type`). */
static void
alias_database (const gchar *db, const gchar *type, const gchar *table, const gchar *storage)
{
  create_database (db, "test db");
  g_autofree gchar *body = v3_table_request (&alias_target, type, table, storage);
  g_autofree gchar *path = g_strdup_printf (DATABASES "/%s/tables", db);
  ok ("POST", path, body);
}

/* AliasCompatibilityTest's setup. */
static void
alias_compat_setup (void)
{
  alias_database ("als_compat_db", "edge", "als_target", "als_target_storage");
}

static const Named alias_comments[]
    = { { "basic", "test alias" }, { "empty", "" }, { "special", "alias @#" } };

/* V2V3CompatibilityTest AliasCompatibilityTest `V2 create - V3 get` */
START_TEST (v2_alias_read_as_v3_alias)
{
  alias_compat_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (alias_comments); i++)
    {
      const Named *c = &alias_comments[i];
      g_autofree gchar *path
          = g_strdup_printf ("/graph/v2/service/als_compat_db/alias/als_v2v3_%s", c->name);
      g_autofree gchar *create
          = strings_object ("desc", c->comment, "target", "als_compat_db.als_target", NULL);
      ok ("POST", path, create);
      g_autofree gchar *alias
          = g_strdup_printf (DATABASES "/als_compat_db/aliases/als_v2v3_%s", c->name);
      g_autofree gchar *expected
          = g_strdup_printf ("{\"alias\":\"als_v2v3_%s\",\"table\":\"als_target\",\"comment\":"
                             "\"%s\",\"active\":true}",
                             c->name, c->comment);
      expect_ok ("GET", alias, NULL, expected);
    }
}
END_TEST

/* V2V3CompatibilityTest AliasCompatibilityTest `V3 create - V2 get` */
START_TEST (v3_alias_read_as_v2_alias)
{
  alias_compat_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (alias_comments); i++)
    {
      const Named *c = &alias_comments[i];
      g_autofree gchar *name = g_strdup_printf ("als_v3v2_%s", c->name);
      g_autofree gchar *create
          = strings_object ("alias", name, "table", "als_target", "comment", c->comment, NULL);
      ok ("POST", DATABASES "/als_compat_db/aliases", create);
      g_autofree gchar *path = g_strdup_printf ("/graph/v2/service/als_compat_db/alias/%s", name);
      g_autofree gchar *expected
          = g_strdup_printf ("{\"name\":\"als_compat_db.%s\",\"target\":\"als_compat_db."
                             "als_target\",\"desc\":\"%s\",\"active\":true}",
                             name, c->comment);
      expect_ok ("GET", path, NULL, expected);
    }
}
END_TEST

/* V2V3CompatibilityTest MultiEdgeCompatibilityTest `V2 create - V3 get` */
START_TEST (v2_multi_edge_label_read_as_v3_table)
{
  create_database ("me_compat_db", "multiedge test db");
  v2_labels_read_as_v3 ("me_compat_db", "me_v2v3", multi_edges, G_N_ELEMENTS (multi_edges));
}
END_TEST

/* V2V3CompatibilityTest MultiEdgeCompatibilityTest `V3 create - V2 get` */
START_TEST (v3_multi_edge_table_read_as_v2_label)
{
  create_database ("me_compat_db", "multiedge test db");
  v3_tables_read_as_v2 ("me_compat_db", "me_v3v2", "MULTI_EDGE", multi_edges,
                        G_N_ELEMENTS (multi_edges));
}
END_TEST

/* ---- AliasControllerTest: v3 alias CRUD, the status filter, validation ---- */

#define ALIAS_DB "v3_alias_test_db"
#define ALIAS_TABLE "v3_alias_target_table"
#define ALIASES DATABASES "/" ALIAS_DB "/aliases"

/* The database and the table the aliases point at (AliasControllerTest setup). */
static void
alias_setup (void)
{
  alias_database (ALIAS_DB, "EDGE", ALIAS_TABLE, "alias_test_hbase_table");
}

/* POST of the alias `name` on the target table; returns the answer. */
static JsonNode *
create_alias (const gchar *name, const gchar *comment)
{
  g_autofree gchar *body
      = strings_object ("alias", name, "table", ALIAS_TABLE, "comment", comment, NULL);
  return ab_http_ok (&srv, "POST", ALIASES, body);
}

/* PUT `body` on the alias `name`, expecting 200 and an answer holding `expected`. */
static void
update_alias (const gchar *name, const gchar *body, const gchar *expected)
{
  g_autofree gchar *path = g_strdup_printf (ALIASES "/%s", name);
  expect_ok ("PUT", path, body, expected);
}

#define DEACTIVATE "{\"active\":false}"
#define REACTIVATE "{\"active\":true}"

static gchar *
active_answer (const gchar *name, gboolean active)
{
  return g_strdup_printf ("{\"alias\":\"%s\",\"active\":%s}", name, active ? "true" : "false");
}

/* AliasControllerTest CrudTest `create alias` */
START_TEST (alias_create_answers_and_reads_back)
{
  static const Named cases[] = { { "v3_alias_basic", "test alias" },
                                 { "v3_alias_empty", "" },
                                 { "v3_alias_special", "alias @#" } };
  alias_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *expected
          = g_strdup_printf ("{\"alias\":\"%s\",\"table\":\"" ALIAS_TABLE "\",\"comment\":\"%s\","
                             "\"active\":true}",
                             cases[i].name, cases[i].comment);
      g_autoptr (JsonNode) created = create_alias (cases[i].name, cases[i].comment);
      expect_json (ALIASES, created, expected);
      g_autofree gchar *path = g_strdup_printf (ALIASES "/%s", cases[i].name);
      expect_ok ("GET", path, NULL, expected);
    }
}
END_TEST

/* AliasControllerTest CrudTest `update alias` */
START_TEST (alias_comment_update)
{
  static const struct {
    const gchar *name, *comment, *update;
  } cases[] = { { "v3_alias_upd_basic", "test alias", "updated comment" },
                { "v3_alias_upd_empty", "", "updated empty" },
                { "v3_alias_upd_special", "alias @#", "updated special" } };
  alias_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) created = create_alias (cases[i].name, cases[i].comment);
      g_autofree gchar *body = strings_object ("comment", cases[i].update, NULL);
      g_autofree gchar *expected = g_strdup_printf (
          "{\"alias\":\"%s\",\"comment\":\"%s\",\"active\":true}", cases[i].name, cases[i].update);
      update_alias (cases[i].name, body, expected);
    }
}
END_TEST

static const Named deactivated[] = { { "v3_alias_deact_basic", "test alias" },
                                     { "v3_alias_deact_empty", "" },
                                     { "v3_alias_deact_special", "alias @#" } };

/* AliasControllerTest CrudTest `deactivate alias` */
START_TEST (alias_deactivate)
{
  alias_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (deactivated); i++)
    {
      g_autoptr (JsonNode) created = create_alias (deactivated[i].name, deactivated[i].comment);
      g_autofree gchar *expected = active_answer (deactivated[i].name, FALSE);
      update_alias (deactivated[i].name, DEACTIVATE, expected);
    }
}
END_TEST

/* AliasControllerTest CrudTest `reactivate alias` */
START_TEST (alias_reactivate)
{
  static const Named cases[]
      = { { "v3_alias_react_basic", "test alias" }, { "v3_alias_react_empty", "" } };
  alias_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) created = create_alias (cases[i].name, cases[i].comment);
      g_autofree gchar *off = active_answer (cases[i].name, FALSE);
      update_alias (cases[i].name, DEACTIVATE, off);
      g_autofree gchar *on = active_answer (cases[i].name, TRUE);
      update_alias (cases[i].name, REACTIVATE, on);
    }
}
END_TEST

/* AliasControllerTest CrudTest `delete alias` */
START_TEST (alias_delete_after_deactivate)
{
  static const Named cases[] = { { "v3_alias_del_basic", "test alias" },
                                 { "v3_alias_del_empty", "" },
                                 { "v3_alias_del_special", "alias @#" } };
  alias_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) created = create_alias (cases[i].name, cases[i].comment);
      g_autofree gchar *off = active_answer (cases[i].name, FALSE);
      update_alias (cases[i].name, DEACTIVATE, off);
      g_autofree gchar *path = g_strdup_printf (ALIASES "/%s", cases[i].name);
      expect_status ("DELETE", path, NULL, 204);
    }
}
END_TEST

#define FILTERED "v3_alias_status_filter"

/* StatusFilterTest's setup: the alias FILTERED, deactivated. */
static void
status_filter_setup (void)
{
  alias_setup ();
  g_autoptr (JsonNode) created = create_alias (FILTERED, "status filter test");
  g_autofree gchar *off = active_answer (FILTERED, FALSE);
  update_alias (FILTERED, DEACTIVATE, off);
}

/* How many entries of the alias list ALIASES`query` are the alias FILTERED. */
static guint
listed_filtered (const gchar *query)
{
  g_autofree gchar *path = g_strdup_printf (ALIASES "%s", query);
  g_autoptr (JsonNode) list = ab_http_ok (&srv, "GET", path, NULL);
  guint n = 0;
  for (guint i = 0; i < ab_json_len (list, ""); i++)
    {
      g_autofree gchar *at = g_strdup_printf ("%u.alias", i);
      n += g_str_equal (ab_json_str (list, at), FILTERED);
    }
  return n;
}

/* AliasControllerTest StatusFilterTest `default status excludes inactive aliases` */
START_TEST (alias_list_default_hides_inactive)
{
  status_filter_setup ();
  ck_assert_uint_eq (listed_filtered (""), 0);
}
END_TEST

/* AliasControllerTest StatusFilterTest `status=ACTIVE excludes inactive aliases` */
START_TEST (alias_list_active_hides_inactive)
{
  status_filter_setup ();
  ck_assert_uint_eq (listed_filtered ("?status=ACTIVE"), 0);
}
END_TEST

/* AliasControllerTest StatusFilterTest `status=INACTIVE returns only inactive aliases` */
START_TEST (alias_list_inactive_shows_inactive)
{
  status_filter_setup ();
  ck_assert_uint_eq (listed_filtered ("?status=INACTIVE"), 1);
}
END_TEST

/* AliasControllerTest StatusFilterTest `status=ALL returns both active and inactive aliases` */
START_TEST (alias_list_all_shows_inactive)
{
  status_filter_setup ();
  ck_assert_uint_eq (listed_filtered ("?status=ALL"), 1);
}
END_TEST

/* AliasControllerTest ValidationTest `invalid status value returns 400` */
START_TEST (alias_list_unknown_status_refused)
{
  alias_setup ();
  ab_expect_error (&srv, "GET", ALIASES "?status=BOGUS", NULL, 400, "status");
}
END_TEST

/* AliasControllerTest ValidationTest `lowercase status value returns 400` */
START_TEST (alias_list_lower_case_status_refused)
{
  alias_setup ();
  ab_expect_error (&srv, "GET", ALIASES "?status=active", NULL, 400, "status");
}
END_TEST

/* AliasControllerTest ValidationTest `get non-existent alias returns 404` */
START_TEST (alias_get_missing_is_404)
{
  alias_setup ();
  expect_status ("GET", ALIASES "/non_existent", NULL, 404);
}
END_TEST

/* AliasControllerTest ValidationTest `invalid alias name returns 400` */
START_TEST (alias_name_with_digit_first_refused)
{
  alias_setup ();
  ab_expect_error (&srv, "POST", ALIASES,
                   "{\"alias\":\"123invalid\",\"table\":\"valid_table\",\"comment\":\"\"}", 400,
                   "Invalid alias");
}
END_TEST

/* AliasControllerTest ValidationTest `alias name with dot returns 400` */
START_TEST (alias_name_with_dot_refused)
{
  alias_setup ();
  ab_expect_error (&srv, "POST", ALIASES,
                   "{\"alias\":\"alias.injection\",\"table\":\"valid_table\",\"comment\":\"\"}",
                   400, "Invalid alias");
}
END_TEST

/* ---- V3NameValidatorTest: upstream calls the validator; here the same
 * names go through the create routes that apply it ---- */

static void
database_accepted (const gchar *name)
{
  g_autofree gchar *body = strings_object ("database", name, "comment", "", NULL);
  g_autoptr (JsonNode) n = ab_http_ok (&srv, "POST", DATABASES, body);
  ck_assert_str_eq (ab_json_str (n, "database"), name);
}

static void
database_refused (const gchar *name, const gchar *needle)
{
  g_autofree gchar *body = strings_object ("database", name, "comment", "", NULL);
  ab_expect_error (&srv, "POST", DATABASES, body, 400, needle);
}

/* V3NameValidatorTest ValidNamesTest `valid names should pass validation` */
START_TEST (name_valid_forms_accepted)
{
  static const gchar *const names[] = { "mydb", "MyDB", "my-db", "my_db", "db123", "a", "A" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    database_accepted (names[i]);
}
END_TEST

/* V3NameValidatorTest ValidNamesTest `max length name should pass` */
START_TEST (name_of_64_characters_accepted)
{
  g_autofree gchar *bs = g_strnfill (63, 'b');
  g_autofree gchar *name = g_strconcat ("a", bs, NULL);
  database_accepted (name);
}
END_TEST

/* V3NameValidatorTest InvalidNamesTest `name starting with non-letter should fail` */
START_TEST (name_not_starting_with_letter_refused)
{
  static const gchar *const names[] = { "123db", "1", "-db", "_db" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    database_refused (names[i], "must start with a letter");
}
END_TEST

/* V3NameValidatorTest InvalidNamesTest `name with invalid characters should fail` */
START_TEST (name_with_invalid_characters_refused)
{
  static const gchar *const names[] = { "db.name", "db:name", "db/name", "db\\name", "db name" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    database_refused (names[i], "Invalid database");
}
END_TEST

/* V3NameValidatorTest InvalidNamesTest `empty name should fail` */
START_TEST (name_empty_refused)
{
  database_refused ("", "database");
}
END_TEST

/* V3NameValidatorTest InvalidNamesTest `name exceeding max length should fail` */
START_TEST (name_of_65_characters_refused)
{
  g_autofree gchar *bs = g_strnfill (64, 'b');
  g_autofree gchar *name = g_strconcat ("a", bs, NULL);
  database_refused (name, "Invalid database");
}
END_TEST

/* V3NameValidatorTest InvalidNamesTest `injection attempt with dot should fail` */
START_TEST (name_with_dotted_table_refused)
{
  database_refused ("mydb.othertable", "Invalid database");
}
END_TEST

/* The names of FieldNameVariantsTest: the newest version's, then the
 * older version's (ObjectSource) extra. */
static const gchar *const bad_names[] = { "123invalid", ".dotname" };

/* V3NameValidatorTest FieldNameVariantsTest `validateTable returns correct field name in error` */
START_TEST (name_error_of_a_table_says_table)
{
  static const Shape any = { NULL, "", "OUT", NULL, "string", "", "", NULL, NO_PROPERTIES };
  create_database ("mydb", "");
  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      g_autofree gchar *body = v3_table_request (&any, "EDGE", bad_names[i], "x");
      ab_expect_error (&srv, "POST", DATABASES "/mydb/tables", body, 400, "Invalid table");
    }
}
END_TEST

/* V3NameValidatorTest FieldNameVariantsTest `validateAlias returns correct field name in error` */
START_TEST (name_error_of_an_alias_says_alias)
{
  create_database ("mydb", "");
  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      g_autofree gchar *body
          = strings_object ("alias", bad_names[i], "table", "t", "comment", "", NULL);
      ab_expect_error (&srv, "POST", DATABASES "/mydb/aliases", body, 400, "Invalid alias");
    }
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, v2_service_read_as_v3_database);
  tcase_add_test (tc, v3_database_read_as_v2_service);
  tcase_add_test (tc, v2_label_read_as_v3_table);
  tcase_add_test (tc, v3_table_read_as_v2_label);
  tcase_add_test (tc, v2_alias_read_as_v3_alias);
  tcase_add_test (tc, v3_alias_read_as_v2_alias);
  tcase_add_test (tc, v2_multi_edge_label_read_as_v3_table);
  tcase_add_test (tc, v3_multi_edge_table_read_as_v2_label);
  tcase_add_test (tc, alias_create_answers_and_reads_back);
  tcase_add_test (tc, alias_comment_update);
  tcase_add_test (tc, alias_deactivate);
  tcase_add_test (tc, alias_reactivate);
  tcase_add_test (tc, alias_delete_after_deactivate);
  tcase_add_test (tc, alias_list_default_hides_inactive);
  tcase_add_test (tc, alias_list_active_hides_inactive);
  tcase_add_test (tc, alias_list_inactive_shows_inactive);
  tcase_add_test (tc, alias_list_all_shows_inactive);
  tcase_add_test (tc, alias_list_unknown_status_refused);
  tcase_add_test (tc, alias_list_lower_case_status_refused);
  tcase_add_test (tc, alias_get_missing_is_404);
  tcase_add_test (tc, alias_name_with_digit_first_refused);
  tcase_add_test (tc, alias_name_with_dot_refused);
  tcase_add_test (tc, name_valid_forms_accepted);
  tcase_add_test (tc, name_of_64_characters_accepted);
  tcase_add_test (tc, name_not_starting_with_letter_refused);
  tcase_add_test (tc, name_with_invalid_characters_refused);
  tcase_add_test (tc, name_empty_refused);
  tcase_add_test (tc, name_of_65_characters_refused);
  tcase_add_test (tc, name_with_dotted_table_refused);
  tcase_add_test (tc, name_error_of_a_table_says_table);
  tcase_add_test (tc, name_error_of_an_alias_says_alias);
}

int
main (void)
{
  return ab_rest_main_stores ("upstream_meta", add_tests, setup, teardown, 60);
}

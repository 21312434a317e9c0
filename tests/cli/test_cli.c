/* Console suite, non-interactive: the quick start through `actionbase -c`
 * with the printed text expected in the upstream console's formats (docs/rest-api.md
 * Appendix A), create/show/desc/use/mutate, vertex tables, load files, every command's
 * error path carrying the server's own message, and the flags. */
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>
#include "cli_harness.h"
#include "ab_check.h"

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

/* Runs commands and asserts the exit status. */
static void
run_ok (const gchar *commands, AbRun *r)
{
  ab_cli_run (&srv, NULL, commands, r);
  ck_assert_msg (r->status == 0, "`%s` exited %d\nstdout:\n%s\nstderr:\n%s", commands, r->status,
                 r->out, r->err);
}

/* The version the preset stamped on Alice -> Phone, read over REST. */
static gchar *
preset_version (void)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL,
           "/graph/v3/databases/likes/tables/likes/edges/get?source=Alice&target=Phone");
  ck_assert_uint_eq (r.status, 200);
  gchar *v = g_strdup_printf ("%" G_GINT64_FORMAT, ab_json_int (r.json, "edges.0.version"));
  ab_reply_clear (&r);
  ck_assert_msg (strlen (v) == 13, "a millisecond timestamp, got %s", v);
  return v;
}

START_TEST (quick_start)
{
  AbRun r;
  run_ok ("load preset likes; use database likes; "
          "get likes --source Alice --target Phone; "
          "scan likes --index created_at_desc --start Alice --direction OUT; "
          "count likes --start Alice --direction OUT",
          &r);
  g_autofree gchar *v = preset_version ();
  /* Appendix A: load prints each step's description and result, then the
   * summary "<n> edges of '<table>' are mutated (total: .., failed: ..)";
   * get "The edge is found: [s -> t]" + VERSION|SOURCE|TARGET|PROPERTIES;
   * scan "The N edges found (offset: -, hasNext: false)" + the # column;
   * count "The count of N edges found" + start|direction|count. */
  g_autofree gchar *expected
      = g_strdup_printf ("/* Create likes database */\n"
                         "Database 'likes' is created\n"
                         "/* Create likes table with schema */\n"
                         "Table 'likes' is created\n"
                         "/* Insert 3 edges with metadata */\n"
                         "3 edges of 'likes' are mutated (total: 3, failed: 0)\n"
                         "The database is changed to 'likes'\n"
                         "The edge is found: [Alice -> Phone]\n"
                         "|---------------|--------|--------|---------------------------|\n"
                         "| VERSION       | SOURCE | TARGET | PROPERTIES                |\n"
                         "|---------------|--------|--------|---------------------------|\n"
                         "| %s | Alice  | Phone  | created_at: %s |\n"
                         "|---------------|--------|--------|---------------------------|\n"
                         "The 2 edges found (offset: -, hasNext: false)\n"
                         "|---|---------------|--------|--------|---------------------------|\n"
                         "| # | VERSION       | SOURCE | TARGET | PROPERTIES                |\n"
                         "|---|---------------|--------|--------|---------------------------|\n"
                         "| 1 | %s | Alice  | Laptop | created_at: %s |\n"
                         "| 2 | %s | Alice  | Phone  | created_at: %s |\n"
                         "|---|---------------|--------|--------|---------------------------|\n"
                         "The count of 2 edges found\n"
                         "|---|-------|-----------|-------|\n"
                         "| # | START | DIRECTION | COUNT |\n"
                         "|---|-------|-----------|-------|\n"
                         "| 1 | Alice | OUT       | 2     |\n"
                         "|---|-------|-----------|-------|\n",
                         v, v, v, v, v, v);
  ck_assert_str_eq (r.out, expected);
  ck_assert_str_eq (r.err, "");
  ab_run_clear (&r);
}
END_TEST

START_TEST (create_show_desc_use)
{
  AbRun r;
  run_ok (
      "create database --name shop --comment 'Shop data'; use database shop; "
      "create table --name views --comment 'Item views' --type INDEXED --direction OUT "
      "--storage datastore://shop/views "
      "--schema '{\"src\":{\"type\":\"STRING\",\"desc\":\"user\"},"
      "\"tgt\":{\"type\":\"LONG\",\"desc\":\"item\"},"
      "\"fields\":[{\"name\":\"weight\",\"type\":\"DOUBLE\",\"desc\":\"score\",\"nullable\":true}]}"
      "' "
      "--indices '[{\"name\":\"by_weight\",\"fields\":[{\"name\":\"weight\",\"order\":\"DESC\"}],"
      "\"desc\":\"heaviest first\"}]'; "
      "create alias --table views --name recent --comment 'alias of views'; "
      "show tables; show aliases; use alias recent; "
      "mutate --type INSERT --source u1 --target 7 --version 10 --properties '{\"weight\": 3.7}'; "
      "mutate --type INSERT --source u1 --target 8 --version 11 --properties '{\"weight\": -2.5}'; "
      "scan --index by_weight --start u1 --direction OUT --limit 1; "
      "desc table views; show indices",
      &r);
  const gchar *expected = "The database 'shop' is created\n"
                          "The database is changed to 'shop'\n"
                          "The table 'views' is created\n"
                          "The alias 'recent' is created\n"
                          "1 Tables in database\n"
                          "|---|--------|------------|------------|---------|\n"
                          "| # | ACTIVE | NAME       | DESC       | TYPE    |\n"
                          "|---|--------|------------|------------|---------|\n"
                          "| 1 | true   | shop.views | Item views | INDEXED |\n"
                          "|---|--------|------------|------------|---------|\n"
                          "1 Aliases in 'shop'\n"
                          "|---|-------------|----------------|------------|--------|\n"
                          "| # | NAME        | DESC           | TARGET     | ACTIVE |\n"
                          "|---|-------------|----------------|------------|--------|\n"
                          "| 1 | shop.recent | alias of views | shop.views | true   |\n"
                          "|---|-------------|----------------|------------|--------|\n"
                          "The Alias is changed to 'shop:recent' (table 'views')\n"
                          "INSERT is done (updated: 1, failed: 0)\n"
                          "INSERT is done (updated: 1, failed: 0)\n";
  ck_assert_msg (g_str_has_prefix (r.out, expected), "got:\n%s", r.out);
  /* Floats print truncated toward zero (3.7 -> 3); the first page of one
   * edge has a next page and an offset token. */
  ab_assert_contains (r.out, "| 1 | 10      | u1     | 7      | weight: 3  |\n");
  ck_assert_msg (strstr (r.out, "The 1 edges found (offset: -, hasNext: true)") == NULL,
                 "a page with more rows carries an offset:\n%s", r.out);
  ab_assert_contains (r.out, "hasNext: true)\n");
  ab_assert_contains (
      r.out, "| shop.views | Item views | INDEXED | OUT     | false | false    | SYNC |\n");
  ab_assert_contains (r.out, "[Source]\n|--------|------|\n| TYPE   | DESC |\n|--------|------|\n"
                             "| STRING | user |\n");
  ab_assert_contains (r.out, "[Target]\n|------|------|\n| TYPE | DESC |\n|------|------|\n"
                             "| LONG | item |\n");
  ab_assert_contains (r.out, "[Fields (1)]\n");
  ab_assert_contains (r.out, "| 1 | weight | DOUBLE | true     | score |\n");
  ab_assert_contains (r.out, "1 Indices in views\n");
  ab_assert_contains (r.out,
                      "| # | NAME      | DESC           | FIELDS[] NAME | FIELDS[] ORDER |\n");
  ab_assert_contains (r.out,
                      "| 1 | by_weight | heaviest first | weight        | DESC           |\n");
  ab_run_clear (&r);
  run_ok ("use database shop; scan views --index by_weight --start u1 --direction OUT; "
          "show databases; create storage --name s1 --comment 'hbase tables' --storageType HBASE "
          "--hbaseNamespace ns --hbaseTable t1; show storages",
          &r);
  ab_assert_contains (r.out, "The 2 edges found (offset: -, hasNext: false)\n");
  ab_assert_contains (r.out, "| 2 | 11      | u1     | 8      | weight: -2 |\n");
  ab_assert_contains (r.out, "Available databases (1)\n");
  ab_assert_contains (r.out, "| 1 | shop | Shop data | true   |\n");
  ab_assert_contains (r.out, "The storage 's1' is created\n");
  ab_assert_contains (r.out, "| 1 | true   | s1   | hbase tables | HBASE |");
  ab_run_clear (&r);
}
END_TEST

/* ---- error paths: the console shows the server's own message ---- */

typedef struct {
  const gchar *command; /* run after `use database likes` */
  const gchar *method;  /* the same request, made directly */
  const gchar *path;
  const gchar *body;
} ErrorCase;

static const ErrorCase error_cases[] = {
  { "create database --name likes --comment again", "POST", "/graph/v2/service/likes",
    "{\"desc\":\"again\"}" },
  { "create table --database nodb --name t --comment c --type INDEXED --direction OUT "
    "--storage datastore://x/y --schema "
    "'{\"src\":{\"type\":\"STRING\"},\"tgt\":{\"type\":\"STRING\"},\"fields\":[]}'",
    "POST", "/graph/v2/service/nodb/label/t",
    "{\"desc\":\"c\",\"type\":\"INDEXED\",\"schema\":{\"src\":{\"type\":\"STRING\"},"
    "\"tgt\":{\"type\":\"STRING\"},\"fields\":[]},\"indices\":[],\"groups\":[],\"dirType\":\"OUT\","
    "\"storage\":\"datastore://x/y\",\"event\":false,\"readOnly\":false,\"mode\":\"SYNC\"}" },
  { "create alias --table nope --name a1 --comment c", "POST", "/graph/v2/service/likes/alias/a1",
    "{\"target\":\"likes.nope\",\"desc\":\"c\"}" },
  { "use database nope", "GET", "/graph/v2/service/nope", NULL },
  { "use table nope", "GET", "/graph/v2/service/likes/label/nope", NULL },
  { "use alias nope", "GET", "/graph/v2/service/likes/alias/nope", NULL },
  { "desc table nope", "GET", "/graph/v2/service/likes/label/nope", NULL },
  { "desc alias nope", "GET", "/graph/v2/service/likes/alias/nope", NULL },
  { "show indices --table nope", "GET", "/graph/v2/service/likes/label/nope", NULL },
  { "show groups --table nope", "GET", "/graph/v2/service/likes/label/nope", NULL },
  { "get nope --source a --target b", "GET",
    "/graph/v3/databases/likes/tables/nope/edges/get?source=a&target=b", NULL },
  { "scan likes --index nope --start Alice --direction OUT", "GET",
    "/graph/v3/databases/likes/tables/likes/edges/scan/nope?start=Alice&direction=OUT&limit=25",
    NULL },
  { "scan likes --index created_at_desc --start Alice --direction SIDEWAYS", "GET",
    "/graph/v3/databases/likes/tables/likes/edges/scan/"
    "created_at_desc?start=Alice&direction=SIDEWAYS&limit=25",
    NULL },
  { "count nope --start a --direction OUT", "GET",
    "/graph/v3/databases/likes/tables/nope/edges/counts?start=a&direction=OUT", NULL },
  { "mutate likes --type INSERT --source a --target b --version 1 --properties '{}'", "POST",
    "/graph/v3/databases/likes/tables/likes/edges",
    "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\",\"target\":"
    "\"b\","
    "\"properties\":{}}}]}" },
  { "mutate likes --type JUMP --source a --target b --version 1 --properties '{\"created_at\":1}'",
    "POST", "/graph/v3/databases/likes/tables/likes/edges",
    "{\"mutations\":[{\"type\":\"JUMP\",\"edge\":{\"version\":1,\"source\":\"a\",\"target\":\"b\","
    "\"properties\":{\"created_at\":1}}}]}" },
};

/* A vertex table: created with --type VERTEX, written with mutate --id
 * (POST …/vertices), read with get --id (GET …/vertices/get); the edge form
 * on it fails with the server's message. */
START_TEST (vertex_table)
{
  AbRun r;
  run_ok ("create database --name shop --comment 'Shop'; use database shop; "
          "create table --name users --comment 'profiles' --type VERTEX --direction OUT "
          "--storage datastore://shop/users "
          "--schema '{\"src\":{\"type\":\"STRING\",\"desc\":\"user id\"},"
          "\"tgt\":{\"type\":\"STRING\",\"desc\":\"\"},"
          "\"fields\":[{\"name\":\"name\",\"type\":\"STRING\",\"desc\":\"\",\"nullable\":true}]}'; "
          "use table users; "
          "mutate --type INSERT --id alice --version 10 --properties '{\"name\": \"Alice\"}'; "
          "get --id alice; get --id bob",
          &r);
  ab_assert_contains (r.out, "The table 'users' is created\n");
  ab_assert_contains (r.out, "INSERT is done (updated: 1, failed: 0)\n"
                             "The vertex is found: [alice]\n"
                             "|---------|-------|-------------|\n"
                             "| VERSION | ID    | PROPERTIES  |\n"
                             "|---------|-------|-------------|\n"
                             "| 10      | alice | name: Alice |\n"
                             "|---------|-------|-------------|\n"
                             "No results found: [bob]\n");
  ab_run_clear (&r);
  /* what the server says about the table, over REST */
  AbReply t = { 0 };
  ab_http (&srv, &t, "GET", NULL, "/graph/v3/databases/shop/tables/users");
  ck_assert_str_eq (ab_json_str (t.json, "type"), "vertex");
  ck_assert_str_eq (ab_json_str (t.json, "schema.id.comment"), "user id");
  ab_reply_clear (&t);
  ab_cli_run (&srv, NULL,
              "use database shop; mutate users --type INSERT --source a --target b --version 1 "
              "--properties '{}'",
              &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "Table shop.users is a vertex table: use the /vertices endpoints.");
  ab_run_clear (&r);
  ab_cli_run (&srv, NULL, "use database shop; get users --id alice --source a", &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "--id <id>");
  ab_run_clear (&r);
}
END_TEST

START_TEST (errors_carry_server_message)
{
  AbRun r;
  run_ok ("load preset likes", &r);
  ab_run_clear (&r);
  for (guint i = 0; i < G_N_ELEMENTS (error_cases); i++)
    {
      const ErrorCase *c = &error_cases[i];
      AbReply direct = { 0 };
      ab_http (&srv, &direct, c->method, c->body, "%s", c->path);
      ck_assert_msg (direct.status >= 400, "case %u: %s answered %u", i, c->path, direct.status);
      const gchar *message = ab_json_str (direct.json, "message");
      ck_assert_str_ne (message, "");
      g_autofree gchar *commands = g_strdup_printf ("use database likes; %s", c->command);
      ab_cli_run (&srv, NULL, commands, &r);
      ck_assert_msg (r.status == 1, "case %u `%s` exited %d", i, c->command, r.status);
      ck_assert_msg (strstr (r.err, message) != NULL, "case %u `%s`: '%s' not in:\n%s", i,
                     c->command, message, r.err);
      ab_run_clear (&r);
      ab_reply_clear (&direct);
    }
}
END_TEST

START_TEST (load_files)
{
  g_autofree gchar *dir = g_dir_make_tmp ("ab-cli-XXXXXX", NULL);
  g_autofree gchar *yaml = g_build_filename (dir, "music.yaml", NULL);
  g_autofree gchar *text = g_build_filename (dir, "more.txt", NULL);
  g_autofree gchar *bad = g_build_filename (dir, "bad.txt", NULL);
  ck_assert (g_file_set_contents (
      yaml,
      "- name: db\n  description: Make the music database\n  command: |\n"
      "    create database --name music --data '{\"desc\": \"songs\"}'\n"
      "- name: table\n  command: |\n    create table --database music --name plays\n"
      "    --data '{\"desc\": \"plays\", \"type\": \"INDEXED\", \"schema\": {\"src\": {\"type\": "
      "\"STRING\"},\n"
      "      \"tgt\": {\"type\": \"STRING\"}, \"fields\": [{\"name\": \"at\", \"type\": \"LONG\", "
      "\"nullable\": false}]},\n"
      "      \"dirType\": \"OUT\", \"indices\": [{\"name\": \"recent\", \"fields\": [{\"name\": "
      "\"at\", \"order\": \"DESC\"}]}],\n"
      "      \"storage\": \"datastore://music/plays\"}'\n",
      -1, NULL));
  ck_assert (g_file_set_contents (
      text,
      "load edges --database music --table plays --data '{\"mutations\": [\n"
      "  {\"type\": \"INSERT\", \"edge\": {\"version\": __CURRENT_TIMESTAMP__, \"source\": "
      "\"ann\", \"target\": \"song; one\",\n"
      "   \"properties\": {\"at\": __CURRENT_TIMESTAMP__}}},\n"
      "  {\"type\": \"INSERT\", \"edge\": {\"version\": 5, \"source\": \"ann\", \"target\": "
      "\"s2\", \"properties\": {\"at\": 5}}}]}';\n"
      "create edges --database music --table plays --data '{\"mutations\": []}';\n",
      -1, NULL));
  ck_assert (g_file_set_contents (bad,
                                  "create database --name music --data '{\"desc\": \"x\"}';\n"
                                  "create database --name never --data '{\"desc\": \"x\"}';\n",
                                  -1, NULL));
  gint64 before = g_get_real_time () / 1000;
  AbRun r;
  g_autofree gchar *cmds = g_strdup_printf ("load file %s; load file %s", yaml, text);
  run_ok (cmds, &r);
  gint64 after = g_get_real_time () / 1000;
  ck_assert_str_eq (r.out, "/* Make the music database */\n"
                           "Database 'music' is created\n"
                           "Table 'plays' is created\n"
                           "2 edges of 'plays' are mutated (total: 2, failed: 0)\n"
                           "0 edges of 'plays' are mutated (total: 0, failed: 0)\n");
  ab_run_clear (&r);
  AbReply g = { 0 };
  ab_http (&srv, &g, "GET", NULL,
           "/graph/v3/databases/music/tables/plays/edges/get?source=ann&target=song%%3B%%20one");
  ck_assert_uint_eq (ab_json_len (g.json, "edges"), 1);
  gint64 v = ab_json_int (g.json, "edges.0.version");
  ck_assert_msg (v >= before && v <= after, "__CURRENT_TIMESTAMP__ became %" G_GINT64_FORMAT, v);
  ab_reply_clear (&g);
  g_autofree gchar *bad_cmd = g_strdup_printf ("load file %s", bad);
  ab_cli_run (&srv, NULL, bad_cmd, &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "Failed to create database 'music': ");
  ab_assert_contains (r.err,
                      "Failed to execute command. Please check your command syntax or system log");
  ab_run_clear (&r);
  ab_cli_run (&srv, NULL, "load file /nonexistent/x.yaml; show databases", &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "Failed to load '/nonexistent/x.yaml'");
  ck_assert_msg (strstr (r.out, "Available databases") == NULL, "-c went on after a failure");
  ab_run_clear (&r);
  ab_cli_run (&srv, NULL, "load preset nope", &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "No preset 'nope' (shipped presets: ");
  ab_assert_contains (r.err, "likes");
  ab_assert_contains (r.err, "social");
  ab_run_clear (&r);
  g_remove (yaml);
  g_remove (text);
  g_remove (bad);
  g_rmdir (dir);
}
END_TEST

START_TEST (social_preset)
{
  AbRun r;
  run_ok (
      "load preset social; use database social; "
      "count user_likes --start 2 --direction IN; count user_posts --start em3s --direction OUT; "
      "scan user_posts --index created_at_desc --start em3s --direction OUT --limit 2",
      &r);
  ab_assert_contains (r.out, "4 edges of 'user_likes' are mutated (total: 4, failed: 0)\n");
  ab_assert_contains (r.out, "5 edges of 'user_posts' are mutated (total: 5, failed: 0)\n");
  ab_assert_contains (r.out, "The count of 3 edges found\n");
  ab_assert_contains (r.out, "| 1 | 2     | IN        | 3     |\n");
  ab_assert_contains (r.out, "| 1 | em3s  | OUT       | 3     |\n");
  ab_assert_contains (r.out, "The 2 edges found (offset: ");
  ab_assert_contains (r.out, ", hasNext: true)\n");
  ab_run_clear (&r);
  /* BOTH asks both directions; the sentence sums them. */
  run_ok ("load preset likes; use database likes; count likes --start Phone --direction BOTH", &r);
  ab_assert_contains (r.out, "The count of 2 edges found\n"
                             "|---|-------|-----------|-------|\n"
                             "| # | START | DIRECTION | COUNT |\n"
                             "|---|-------|-----------|-------|\n"
                             "| 1 | Phone | OUT       | 0     |\n"
                             "| 2 | Phone | IN        | 2     |\n"
                             "|---|-------|-----------|-------|\n");
  ab_run_clear (&r);
}
END_TEST

/* ---- flags, against a fake server that records what it is sent ---- */

static gchar *seen_auth;

static void
fake_handler (SoupServer *s, SoupServerMessage *msg, const char *path, GHashTable *q, gpointer d)
{
  const gchar *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                    "Authorization");
  g_free (seen_auth);
  seen_auth = g_strdup (auth);
  const gchar *body = g_str_equal (path, "/graph/v3") ? "{}" : "this is not JSON";
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_COPY, body, strlen (body));
}

START_TEST (flags_and_bad_answers)
{
  AbRun r;
  ab_cli_run (&srv, (const gchar *const[]){ "--version", NULL }, NULL, &r);
  ck_assert_int_eq (r.status, 0);
  ck_assert (g_str_has_prefix (r.out, "actionbase (actionbase-c) "));
  ab_run_clear (&r);
  ab_cli_run (&srv, (const gchar *const[]){ "--help", NULL }, NULL, &r);
  ab_assert_contains (r.out, "--authKey");
  ab_assert_contains (r.out, "--proxy");
  ab_assert_contains (r.out, "scan [TABLE] --index I --start S --direction OUT|IN");
  ab_run_clear (&r);
  /* a proxy port must be 0-65535, in either form */
  ab_cli_run (&srv, (const gchar *const[]){ "--proxy=65536", NULL }, "show databases", &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "--proxy: invalid port '65536'");
  ab_run_clear (&r);
  ab_cli_run (&srv, (const gchar *const[]){ "--proxy", "9x", NULL }, "show databases", &r);
  ck_assert_int_eq (r.status, 1);
  ab_assert_contains (r.err, "--proxy: invalid port '9x'");
  ab_run_clear (&r);
  ab_cli_run (&srv, (const gchar *const[]){ "--debug", NULL }, "show databases", &r);
  ck_assert_int_eq (r.status, 0);
  ab_assert_contains (r.err, "[DEBUG]");
  g_autofree gchar *line = g_strdup_printf ("'GET %s/graph/v2/service'", srv.base);
  ab_assert_contains (r.err, line);
  ab_run_clear (&r);

  g_autoptr (GMainContext) ctx = g_main_context_new ();
  g_main_context_push_thread_default (ctx);
  g_autoptr (SoupServer) fake = soup_server_new (NULL, NULL);
  soup_server_add_handler (fake, NULL, fake_handler, NULL, NULL);
  ck_assert (soup_server_listen_local (fake, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, NULL));
  GSList *uris = soup_server_get_uris (fake);
  g_autofree gchar *base = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  const gchar *argv[]
      = { ab_cli_bin (), "--host",         base, "--plain", "--authKey", "secret-key",
          "-c",          "show databases", NULL };
  g_autoptr (GSubprocess) p = g_subprocess_newv (
      argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, NULL);
  /* The child watch lives on GLib's worker thread: poll while serving. */
  while (g_subprocess_get_identifier (p) != NULL)
    if (!g_main_context_iteration (ctx, FALSE))
      g_usleep (2000);
  g_autofree gchar *err = NULL;
  g_autoptr (GInputStream) es = g_object_ref (g_subprocess_get_stderr_pipe (p));
  gchar buf[4096] = { 0 };
  g_input_stream_read_all (es, buf, sizeof buf - 1, NULL, NULL, NULL);
  ck_assert_int_eq (g_subprocess_get_exit_status (p), 1);
  ck_assert_str_eq (seen_auth, "secret-key");
  ab_assert_contains (buf, "Failed to get databases: the server answered 200 without a JSON body");
  g_main_context_pop_thread_default (ctx);
  g_clear_pointer (&seen_auth, g_free);

  const gchar *down[] = { ab_cli_bin (), "--host", "http://127.0.0.1:1", "-c", "help", NULL };
  g_autoptr (GSubprocess) q = g_subprocess_newv (down, G_SUBPROCESS_FLAGS_STDERR_PIPE, NULL);
  g_autofree gchar *qerr = NULL;
  ck_assert (g_subprocess_communicate_utf8 (q, NULL, NULL, NULL, &qerr, NULL));
  ck_assert_int_eq (g_subprocess_get_exit_status (q), 1);
  ab_assert_contains (qerr,
                      "Failed to connect to http://127.0.0.1:1. Check if the server is available");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cli");
  TCase *tc = tcase_create ("commands");
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, quick_start);
  tcase_add_test (tc, create_show_desc_use);
  tcase_add_test (tc, vertex_table);
  tcase_add_test (tc, errors_carry_server_message);
  tcase_add_test (tc, load_files);
  tcase_add_test (tc, social_preset);
  tcase_add_test (tc, flags_and_bad_answers);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}

/* REST suite that executes docs/rest-api.md: every ```http request block and
 * the ```json status=N (or ```text status=N) block that follows it run in
 * document order against one real server; answers are subset-matched. */
#include <string.h>
#include "rest_harness.h"
#include "ab_check.h"

#ifndef AB_DOCS_DIR
#define AB_DOCS_DIR "docs"
#endif

/* The server runs with access control on; requests without an Authorization
 * header of their own carry this bootstrap admin key. */
#define ADMIN_KEY "doc-admin-key"
/* Fewer executed examples than this means the parser lost its way. */
#define MIN_EXAMPLES 100
/* Failures reported in full before the rest are only counted. */
#define MAX_REPORTED 20

typedef struct {
  guint line;  /* 1-based line of the opening fence */
  gchar *info; /* the info string, trimmed */
  gchar *text; /* the content, without the fences */
} Block;

typedef struct {
  guint line;
  gboolean is_block;
  Block block; /* is_block */
  gchar *args; /* a directive: the words after "doc-test: restart" */
} Step;

typedef struct {
  AbServer *srv;
  GHashTable *vars; /* name -> JsonNode (bound from answers) */
  GString *failures;
  guint n_failures;
  guint n_examples;
  const gchar *doc; /* file name for messages */
} Run;

static void
step_clear (gpointer p)
{
  Step *s = p;
  g_free (s->block.info);
  g_free (s->block.text);
  g_free (s->args);
}

static void doc_fail (Run *run, guint line, const gchar *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
doc_fail (Run *run, guint line, const gchar *fmt, ...)
{
  va_list ap;
  run->n_failures++;
  if (run->n_failures > MAX_REPORTED)
    return;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_string_append_printf (run->failures, "\n%s:%u: %s", run->doc, line, msg);
}

/* ---- reading the document ---- */

/* Fenced blocks and `<!-- doc-test: restart ARGS -->` directives, in order. */
static GArray *
read_steps (const gchar *text)
{
  GArray *steps = g_array_new (FALSE, TRUE, sizeof (Step));
  g_array_set_clear_func (steps, step_clear);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  Step *open = NULL;
  GString *content = NULL;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree gchar *trimmed = g_strstrip (g_strdup (lines[i]));
      if (open != NULL)
        {
          if (g_str_equal (trimmed, "```"))
            {
              open->block.text = g_string_free (g_steal_pointer (&content), FALSE);
              open = NULL;
            }
          else
            g_string_append_printf (content, "%s\n", lines[i]);
          continue;
        }
      if (g_str_has_prefix (trimmed, "```"))
        {
          Step s = { .line = i + 1, .is_block = TRUE };
          s.block.line = i + 1;
          s.block.info = g_strstrip (g_strdup (trimmed + 3));
          g_array_append_val (steps, s);
          open = &g_array_index (steps, Step, steps->len - 1);
          content = g_string_new (NULL);
          continue;
        }
      const gchar *directive = "<!-- doc-test: restart";
      if (g_str_has_prefix (trimmed, directive) && g_str_has_suffix (trimmed, "-->"))
        {
          gsize n = strlen (trimmed) - strlen (directive) - 3;
          Step s = { .line = i + 1, .is_block = FALSE };
          s.args = g_strstrip (g_strndup (trimmed + strlen (directive), n));
          g_array_append_val (steps, s);
        }
    }
  if (content != NULL)
    g_string_free (content, TRUE);
  return steps;
}

/* ---- variables: ${name} ---- */

static gboolean
var_name_at (const gchar *p, gchar **name, const gchar **end)
{
  if (p[0] != '$' || p[1] != '{')
    return FALSE;
  const gchar *close = strchr (p + 2, '}');
  if (close == NULL || close == p + 2)
    return FALSE;
  for (const gchar *c = p + 2; c < close; c++)
    if (!g_ascii_isalnum (*c) && *c != '_')
      return FALSE;
  *name = g_strndup (p + 2, (gsize) (close - p - 2));
  *end = close + 1;
  return TRUE;
}

typedef enum { IN_PATH, IN_HEADER, IN_JSON, IN_TEXT } Where;

/* The text a bound value stands for: strings bare (JSON-escaped inside a JSON
 * string, percent-encoded in a path), other values as JSON. */
static gchar *
var_text (JsonNode *value, Where where)
{
  gboolean is_string
      = JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING;
  g_autofree gchar *json = json_to_string (value, FALSE);
  if (!is_string)
    return g_steal_pointer (&json);
  const gchar *s = json_node_get_string (value);
  switch (where)
    {
      case IN_PATH: return g_uri_escape_string (s, NULL, FALSE);
      case IN_JSON: return g_strndup (json + 1, strlen (json) - 2);
      default: return g_strdup (s);
    }
}

/* text with every ${name} replaced; NULL (and a failure) for an unbound name. */
static gchar *
substitute (Run *run, guint line, const gchar *text, Where where)
{
  GString *out = g_string_new (NULL);
  for (const gchar *p = text; *p != '\0';)
    {
      g_autofree gchar *name = NULL;
      const gchar *end;
      if (!var_name_at (p, &name, &end))
        {
          g_string_append_c (out, *p++);
          continue;
        }
      JsonNode *value = g_hash_table_lookup (run->vars, name);
      if (value == NULL)
        {
          doc_fail (run, line, "${%s} is used before an answer bound it", name);
          g_string_free (out, TRUE);
          return NULL;
        }
      g_autofree gchar *v = var_text (value, where);
      g_string_append (out, v);
      p = end;
    }
  return g_string_free (out, FALSE);
}

/* ---- matching ---- */

static gchar *
node_text (JsonNode *n)
{
  return n != NULL ? json_to_string (n, FALSE) : g_strdup ("(missing)");
}

static gboolean
scalars_equal (JsonNode *want, JsonNode *got)
{
  GType wt = json_node_get_value_type (want), gt = json_node_get_value_type (got);
  gboolean wnum = wt == G_TYPE_INT64 || wt == G_TYPE_DOUBLE;
  gboolean gnum = gt == G_TYPE_INT64 || gt == G_TYPE_DOUBLE;
  if (wnum && gnum)
    {
      if (wt == G_TYPE_INT64 && gt == G_TYPE_INT64)
        return json_node_get_int (want) == json_node_get_int (got);
      return json_node_get_double (want) == json_node_get_double (got);
    }
  if (wt != gt)
    return FALSE;
  if (wt == G_TYPE_STRING)
    return g_str_equal (json_node_get_string (want), json_node_get_string (got));
  if (wt == G_TYPE_BOOLEAN)
    return json_node_get_boolean (want) == json_node_get_boolean (got);
  return FALSE;
}

/* Subset match of got against want; on a mismatch *why says where. */
static gboolean
match (Run *run, guint line, JsonNode *want, JsonNode *got, const gchar *at, gchar **why)
{
  if (JSON_NODE_HOLDS_VALUE (want) && json_node_get_value_type (want) == G_TYPE_STRING)
    {
      const gchar *s = json_node_get_string (want);
      g_autofree gchar *name = NULL;
      const gchar *end;
      if (var_name_at (s, &name, &end) && *end == '\0')
        {
          if (got == NULL)
            {
              *why = g_strdup_printf ("%s: missing (expected a value for ${%s})", at, name);
              return FALSE;
            }
          if (g_str_equal (name, "_"))
            return TRUE;
          JsonNode *bound = g_hash_table_lookup (run->vars, name);
          if (bound == NULL)
            {
              g_hash_table_insert (run->vars, g_strdup (name), json_node_copy (got));
              return TRUE;
            }
          if (json_node_equal (bound, got))
            return TRUE;
          g_autofree gchar *b = node_text (bound), *g = node_text (got);
          *why = g_strdup_printf ("%s: expected ${%s} = %s, got %s", at, name, b, g);
          return FALSE;
        }
      if (strstr (s, "${") != NULL)
        {
          g_autofree gchar *expanded = substitute (run, line, s, IN_TEXT);
          if (expanded == NULL)
            {
              *why = g_strdup_printf ("%s: unbound variable", at);
              return FALSE;
            }
          g_autoptr (JsonNode) w = json_node_new (JSON_NODE_VALUE);
          json_node_set_string (w, expanded);
          return match (run, line, w, got, at, why);
        }
    }
  if (got == NULL)
    {
      *why = g_strdup_printf ("%s: missing", at);
      return FALSE;
    }
  if (JSON_NODE_HOLDS_OBJECT (want))
    {
      if (!JSON_NODE_HOLDS_OBJECT (got))
        {
          g_autofree gchar *g = node_text (got);
          *why = g_strdup_printf ("%s: expected an object, got %s", at, g);
          return FALSE;
        }
      JsonObject *w = json_node_get_object (want), *g = json_node_get_object (got);
      g_autoptr (GList) names = json_object_get_members (w);
      for (GList *m = names; m != NULL; m = m->next)
        {
          g_autofree gchar *sub = g_strdup_printf ("%s.%s", at, (const gchar *) m->data);
          if (!match (run, line, json_object_get_member (w, m->data),
                      json_object_get_member (g, m->data), sub, why))
            return FALSE;
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (want))
    {
      if (!JSON_NODE_HOLDS_ARRAY (got))
        {
          g_autofree gchar *g = node_text (got);
          *why = g_strdup_printf ("%s: expected an array, got %s", at, g);
          return FALSE;
        }
      JsonArray *w = json_node_get_array (want), *g = json_node_get_array (got);
      guint wn = json_array_get_length (w), gn = json_array_get_length (g);
      if (wn != gn)
        {
          g_autofree gchar *t = node_text (got);
          *why = g_strdup_printf ("%s: expected %u elements, got %u: %s", at, wn, gn, t);
          return FALSE;
        }
      for (guint i = 0; i < wn; i++)
        {
          g_autofree gchar *sub = g_strdup_printf ("%s[%u]", at, i);
          if (!match (run, line, json_array_get_element (w, i), json_array_get_element (g, i), sub,
                      why))
            return FALSE;
        }
      return TRUE;
    }
  if (JSON_NODE_HOLDS_NULL (want))
    {
      if (JSON_NODE_HOLDS_NULL (got))
        return TRUE;
      g_autofree gchar *g = node_text (got);
      *why = g_strdup_printf ("%s: expected null, got %s", at, g);
      return FALSE;
    }
  if (JSON_NODE_HOLDS_VALUE (got) && scalars_equal (want, got))
    return TRUE;
  g_autofree gchar *w = node_text (want), *g = node_text (got);
  *why = g_strdup_printf ("%s: expected %s, got %s", at, w, g);
  return FALSE;
}

/* ---- one example ---- */

typedef struct {
  gchar *method;
  gchar *path;
  GPtrArray *headers; /* name, value, ..., NULL-terminated */
  gchar *body;        /* NULL: none */
  gboolean send_auth;
} Request;

static void
request_clear (Request *r)
{
  g_free (r->method);
  g_free (r->path);
  g_clear_pointer (&r->headers, g_ptr_array_unref);
  g_free (r->body);
}

static gboolean
header_line (const gchar *line, gchar **name, gchar **value)
{
  const gchar *colon = strchr (line, ':');
  if (colon == NULL || colon == line)
    return FALSE;
  for (const gchar *c = line; c < colon; c++)
    if (!g_ascii_isalnum (*c) && *c != '-')
      return FALSE;
  *name = g_strndup (line, (gsize) (colon - line));
  *value = g_strstrip (g_strdup (colon + 1));
  return TRUE;
}

/* "METHOD /path", header lines, an optional blank line, then the body. */
static gboolean
parse_request (Run *run, const Block *b, Request *r)
{
  g_auto (GStrv) lines = g_strsplit (b->text, "\n", -1);
  g_auto (GStrv) first = lines[0] != NULL ? g_strsplit (g_strstrip (lines[0]), " ", 2) : NULL;
  if (first == NULL || first[0] == NULL || first[1] == NULL || first[1][0] != '/')
    {
      doc_fail (run, b->line, "an http block must start with `METHOD /path`");
      return FALSE;
    }
  r->method = g_strdup (first[0]);
  r->path = substitute (run, b->line, g_strstrip (first[1]), IN_PATH);
  r->headers = g_ptr_array_new_with_free_func (g_free);
  r->send_auth = TRUE;
  guint i = 1;
  for (; lines[i] != NULL; i++)
    {
      gchar *name, *value;
      if (!header_line (lines[i], &name, &value))
        break;
      if (g_ascii_strcasecmp (name, "Authorization") == 0)
        r->send_auth = FALSE;
      if (value[0] == '\0')
        {
          g_free (name);
          g_free (value);
          continue;
        }
      g_autofree gchar *expanded = substitute (run, b->line, value, IN_HEADER);
      g_free (value);
      g_ptr_array_add (r->headers, name);
      g_ptr_array_add (r->headers, expanded != NULL ? g_steal_pointer (&expanded) : g_strdup (""));
    }
  if (r->send_auth)
    {
      g_ptr_array_add (r->headers, g_strdup ("Authorization"));
      g_ptr_array_add (r->headers, g_strdup (ADMIN_KEY));
    }
  g_ptr_array_add (r->headers, NULL);
  g_autofree gchar *rest = g_strjoinv ("\n", lines + i);
  g_strstrip (rest);
  if (rest[0] != '\0')
    r->body = substitute (run, b->line, rest, IN_JSON);
  return r->path != NULL && (rest[0] == '\0' || r->body != NULL);
}

/* "json status=200" -> kind "json", 200. */
static gboolean
parse_expect_info (const gchar *info, gchar **kind, guint *status)
{
  g_auto (GStrv) words = g_strsplit (info, " ", -1);
  if (words[0] == NULL || (!g_str_equal (words[0], "json") && !g_str_equal (words[0], "text")))
    return FALSE;
  for (guint i = 1; words[i] != NULL; i++)
    if (g_str_has_prefix (words[i], "status="))
      {
        guint64 v;
        if (!g_ascii_string_to_unsigned (words[i] + 7, 10, 100, 599, &v, NULL))
          return FALSE;
        *kind = g_strdup (words[0]);
        *status = (guint) v;
        return TRUE;
      }
  return FALSE;
}

static gboolean
has_line (const gchar *body, const gchar *want)
{
  g_auto (GStrv) lines = g_strsplit (body, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_equal (g_strchomp (lines[i]), want))
      return TRUE;
  return FALSE;
}

static void
check_text (Run *run, const Block *e, const gchar *what, const AbReply *reply)
{
  g_auto (GStrv) lines = g_strsplit (e->text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      if (lines[i][0] != '\0' && !has_line (reply->body, lines[i]))
        doc_fail (run, e->line, "%s: the answer has no line `%s`", what, lines[i]);
    }
}

static void
check_json (Run *run, const Block *e, const gchar *what, const AbReply *reply, guint status)
{
  g_autofree gchar *want_text = g_strstrip (g_strdup (e->text));
  if (want_text[0] == '\0')
    {
      if (reply->body != NULL && reply->body[0] != '\0')
        doc_fail (run, e->line, "%s: expected an empty body, got %s", what, reply->body);
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) want = json_from_string (want_text, &error);
  if (want == NULL)
    {
      doc_fail (run, e->line, "the expected answer is not JSON: %s", error->message);
      return;
    }
  if (reply->json == NULL)
    {
      doc_fail (run, e->line, "%s: the answer is not JSON: %s", what, reply->body);
      return;
    }
  g_autofree gchar *why = NULL;
  if (!match (run, e->line, want, reply->json, "$", &why))
    doc_fail (run, e->line, "%s: %s", what, why);
  /* every error answer has the §13 body, timestamp included; a probe's 503
   * is its verdict, not an error (§12.1) */
  gboolean probe = strstr (what, " /health") != NULL || strstr (what, " /graph/health") != NULL;
  if (status >= 400 && !probe && JSON_NODE_HOLDS_OBJECT (reply->json))
    {
      JsonNode *ts = json_object_get_member (json_node_get_object (reply->json), "timestamp");
      if (ts == NULL || !JSON_NODE_HOLDS_VALUE (ts)
          || json_node_get_value_type (ts) != G_TYPE_INT64)
        doc_fail (run, e->line, "%s: an error answer without an integer timestamp: %s", what,
                  reply->body);
    }
}

static void
run_example (Run *run, const Block *req_block, const Block *expect)
{
  g_autofree gchar *kind = NULL;
  guint status = 0;
  if (expect == NULL || !parse_expect_info (expect->info, &kind, &status))
    {
      doc_fail (run, req_block->line,
                "an http block must be followed by a ```json status=N or "
                "```text status=N block");
      return;
    }
  Request r = { 0 };
  if (!parse_request (run, req_block, &r))
    {
      request_clear (&r);
      return;
    }
  run->n_examples++;
  g_autoptr (GBytes) body = r.body != NULL ? g_bytes_new (r.body, strlen (r.body)) : NULL;
  AbReply reply = { 0 };
  ab_http_raw (run->srv, &reply, r.method, body, r.path, (const gchar *const *) r.headers->pdata);
  g_autofree gchar *what = g_strdup_printf ("%s %s", r.method, r.path);
  if (reply.status != status)
    doc_fail (run, expect->line, "%s: expected status %u, got %u: %s", what, status, reply.status,
              reply.body);
  else if (g_str_equal (kind, "text"))
    check_text (run, expect, what, &reply);
  else
    check_json (run, expect, what, &reply, status);
  ab_reply_clear (&reply);
  request_clear (&r);
}

/* ---- the suite ---- */

static const gchar *const base_args[] = { "--auth", NULL };
static AbServer srv;

static void
setup (void)
{
  /* the examples of §12.5 restart the server: its data must outlive that */
  if (g_strcmp0 (g_getenv ("AB_REST_STORE"), "memory") == 0)
    g_unsetenv ("AB_REST_STORE");
  g_setenv ("ACTIONBASE_ADMIN_KEY", ADMIN_KEY, TRUE);
  ab_server_start (&srv, NULL, base_args);
}

static void
teardown (void)
{
  ab_server_destroy (&srv);
}

static void
restart (Run *run, const gchar *args)
{
  g_auto (GStrv) extra = g_strsplit_set (args, " \t", -1);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  for (guint i = 0; base_args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) base_args[i]);
  for (guint i = 0; extra[i] != NULL; i++)
    if (extra[i][0] != '\0')
      g_ptr_array_add (argv, extra[i]);
  g_ptr_array_add (argv, NULL);
  ab_server_stop (run->srv);
  ab_server_restart (run->srv, (const gchar *const *) argv->pdata);
}

START_TEST (rest_api_examples)
{
  const gchar *dir = g_getenv ("AB_DOCS_DIR") != NULL ? g_getenv ("AB_DOCS_DIR") : AB_DOCS_DIR;
  g_autofree gchar *path = g_build_filename (dir, "rest-api.md", NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, &error), "%s: %s", path,
                 error != NULL ? error->message : "");
  g_autoptr (GArray) steps = read_steps (text);
  Run run = { .srv = &srv, .doc = "docs/rest-api.md" };
  run.vars
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_node_unref);
  run.failures = g_string_new (NULL);
  for (guint i = 0; i < steps->len; i++)
    {
      Step *s = &g_array_index (steps, Step, i);
      if (!s->is_block)
        {
          restart (&run, s->args);
          continue;
        }
      if (g_str_equal (s->block.info, "http"))
        {
          Step *next = i + 1 < steps->len ? &g_array_index (steps, Step, i + 1) : NULL;
          run_example (&run, &s->block, next != NULL && next->is_block ? &next->block : NULL);
          i += next != NULL && next->is_block ? 1 : 0;
        }
      else
        {
          g_autofree gchar *kind = NULL;
          guint status;
          if (parse_expect_info (s->block.info, &kind, &status))
            doc_fail (&run, s->line, "an expected answer without an http block before it");
        }
    }
  g_print ("%s: %u examples executed, %u failed\n", run.doc, run.n_examples, run.n_failures);
  if (run.n_failures > MAX_REPORTED)
    g_string_append_printf (run.failures, "\n... and %u more", run.n_failures - MAX_REPORTED);
  guint n_failures = run.n_failures, n_examples = run.n_examples;
  g_autofree gchar *report = g_string_free (run.failures, FALSE);
  g_hash_table_unref (run.vars);
  ck_assert_msg (n_failures == 0, "%u example(s) of docs/rest-api.md failed:%s", n_failures,
                 report);
  ck_assert_msg (n_examples >= MIN_EXAMPLES, "only %u examples found in %s (at least %u expected)",
                 n_examples, path, MIN_EXAMPLES);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rest-docs");
  TCase *tc = tcase_create ("docs");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, rest_api_examples);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}

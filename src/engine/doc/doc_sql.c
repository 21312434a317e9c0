/* SQL transform steps of the query document: one read-only SELECT run by
 * SQLite over the rows of earlier steps, each loaded into a temporary table
 * of its name; one in-memory connection and statement cache per thread. */
#include <string.h>
#include <sqlite3.h>
#include "engine/doc/doc.h"
#include "engine/core/core.h"

#define STMT_CACHE_MAX 128  /* statements kept per connection before a reset */
#define PROGRESS_STEPS 1000 /* VM steps between two deadline checks */

typedef struct {
  sqlite3 *db;
  GHashTable *stmts;  /* SQL text -> sqlite3_stmt* (reset, unbound) */
  GHashTable *tables; /* step name -> its column list ("a\x1fb\x1f") as loaded */
  gboolean user;      /* the authorizer confines the statement being prepared */
  gint64 deadline;    /* monotonic µs; 0 = none */
} Conn;

static void
conn_free (gpointer p)
{
  Conn *c = p;
  g_hash_table_unref (c->stmts);
  g_hash_table_unref (c->tables);
  sqlite3_close_v2 (c->db);
  g_free (c);
}

static GPrivate conn_key = G_PRIVATE_INIT (conn_free);

/* Statements a user writes may read tables and call functions, nothing else:
 * no write, no PRAGMA, no ATTACH, no transaction control. */
static int
authorize (void *user, int action, const char *a, const char *b, const char *db,
           const char *trigger)
{
  (void) a, (void) b, (void) db, (void) trigger;
  const Conn *c = user;
  if (!c->user)
    return SQLITE_OK;
  switch (action)
    {
      case SQLITE_SELECT:
      case SQLITE_READ:
      case SQLITE_FUNCTION:
      case SQLITE_RECURSIVE: return SQLITE_OK;
      default: return SQLITE_DENY;
    }
}

static int
progress (void *user)
{
  const Conn *c = user;
  return c->deadline != 0 && g_get_monotonic_time () > c->deadline;
}

static void
stmt_finalize (gpointer s)
{
  sqlite3_finalize (s);
}

static Conn *
conn_get (GError **error)
{
  Conn *c = g_private_get (&conn_key);
  if (c != NULL)
    return c;
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2 (":memory:", &db,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
                                | SQLITE_OPEN_PRIVATECACHE,
                            NULL);
  if (rc != SQLITE_OK)
    {
      ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "SQL transforms are unavailable: %s",
                      db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      sqlite3_close_v2 (db);
      return NULL;
    }
  c = g_new0 (Conn, 1);
  c->db = db;
  c->stmts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, stmt_finalize);
  c->tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  sqlite3_set_authorizer (db, authorize, c);
  sqlite3_progress_handler (db, PROGRESS_STEPS, progress, c);
  sqlite3_limit (db, SQLITE_LIMIT_ATTACHED, 0);
  g_private_set (&conn_key, c);
  return c;
}

static gchar *
quoted (const gchar *name)
{
  g_autoptr (GString) s = g_string_new ("\"");
  for (const gchar *p = name; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
sql_fail (Conn *c, const gchar *what, GError **error)
{
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s: %s", what,
                         sqlite3_errmsg (c->db));
}

static gboolean
exec (Conn *c, const gchar *sql, GError **error)
{
  char *msg = NULL;
  if (sqlite3_exec (c->db, sql, NULL, NULL, &msg) == SQLITE_OK)
    return TRUE;
  ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s", msg != NULL ? msg : "SQL failed");
  sqlite3_free (msg);
  return FALSE;
}

/* A cached statement for sql (internal ones and users' alike), reset. user:
 * prepared under the authorizer, and refused unless it is exactly one
 * read-only statement. */
static sqlite3_stmt *
stmt_get (Conn *c, const gchar *sql, gboolean user, GError **error)
{
  sqlite3_stmt *s = g_hash_table_lookup (c->stmts, sql);
  if (s != NULL)
    return s;
  if (g_hash_table_size (c->stmts) >= STMT_CACHE_MAX)
    g_hash_table_remove_all (c->stmts);
  const char *tail = NULL;
  c->user = user;
  int rc = sqlite3_prepare_v3 (c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, &tail);
  c->user = FALSE;
  if (rc != SQLITE_OK)
    return sql_fail (c, "the SQL does not compile", error), NULL;
  if (s == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "the SQL holds no statement"), NULL;
  while (tail != NULL && (g_ascii_isspace (*tail) || *tail == ';'))
    tail++;
  if (user && tail != NULL && *tail != '\0')
    {
      sqlite3_finalize (s);
      return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                             "the SQL must be one SELECT statement; more follows at \"%.40s\"",
                             tail),
             NULL;
    }
  if (user && !sqlite3_stmt_readonly (s))
    {
      sqlite3_finalize (s);
      return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                             "the SQL must be one SELECT statement: it may not write"),
             NULL;
    }
  g_hash_table_insert (c->stmts, g_strdup (sql), s);
  return s;
}

static void
stmt_done (sqlite3_stmt *s)
{
  sqlite3_reset (s);
  sqlite3_clear_bindings (s);
}

static int
bind_value (sqlite3_stmt *s, int at, const AbValue *v)
{
  switch (v->kind)
    {
      case AB_VALUE_NULL: return sqlite3_bind_null (s, at);
      case AB_VALUE_BOOL: return sqlite3_bind_int (s, at, v->u.b ? 1 : 0);
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: return sqlite3_bind_int64 (s, at, v->u.i);
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64: return sqlite3_bind_double (s, at, v->u.f);
      case AB_VALUE_STRING:
      case AB_VALUE_JSON:
        return sqlite3_bind_text (s, at, v->u.s.data, (int) v->u.s.len, SQLITE_STATIC);
    }
  return sqlite3_bind_null (s, at);
}

static gchar *
signature (const AbRows *r)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < r->columns->len; i++)
    g_string_append_printf (s, "%s\x1f", (const gchar *) r->columns->pdata[i]);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The table `name` holds exactly r's rows: created (or re-created when its
 * columns changed) and refilled. */
static gboolean
load_table (Conn *c, const gchar *name, const AbRows *r, GError **error)
{
  g_autofree gchar *q = quoted (name);
  g_autofree gchar *sig = signature (r);
  const gchar *had = g_hash_table_lookup (c->tables, name);
  g_autoptr (GString) sql = g_string_new (NULL);
  if (had != NULL && g_str_equal (had, sig))
    g_string_printf (sql, "DELETE FROM temp.%s", q);
  else
    {
      if (had != NULL)
        g_string_printf (sql, "DROP TABLE temp.%s;", q);
      g_string_append_printf (sql, "CREATE TEMP TABLE %s (", q);
      for (guint i = 0; i < r->columns->len; i++)
        {
          g_autofree gchar *col = quoted (r->columns->pdata[i]);
          g_string_append_printf (sql, "%s%s", i > 0 ? ", " : "", col);
        }
      g_string_append (sql, ")");
      g_hash_table_remove (c->tables, name);
    }
  if (!exec (c, sql->str, error))
    return g_prefix_error (error, "step `%s` as a SQL table: ", name), FALSE;
  g_hash_table_replace (c->tables, g_strdup (name), g_steal_pointer (&sig));
  if (r->rows->len == 0 || r->columns->len == 0)
    return TRUE;
  g_string_printf (sql, "INSERT INTO temp.%s VALUES (", q);
  for (guint i = 0; i < r->columns->len; i++)
    g_string_append (sql, i > 0 ? ", ?" : "?");
  g_string_append (sql, ")");
  sqlite3_stmt *ins = stmt_get (c, sql->str, FALSE, error);
  if (ins == NULL)
    return FALSE;
  for (guint i = 0; i < r->rows->len; i++)
    {
      GArray *row = r->rows->pdata[i];
      for (guint k = 0; k < r->columns->len; k++)
        bind_value (ins, (int) k + 1, &g_array_index (row, AbValue, k));
      int rc = sqlite3_step (ins);
      sqlite3_reset (ins);
      if (rc != SQLITE_DONE)
        return sql_fail (c, "loading a step's rows failed", error);
    }
  sqlite3_clear_bindings (ins);
  return TRUE;
}

/* Drops the tables of an earlier run that this run does not load, so a
 * statement naming a step the query does not have fails as it should. */
static gboolean
drop_others (Conn *c, GHashTable *steps, GError **error)
{
  g_autoptr (GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter it;
  gpointer name;
  g_hash_table_iter_init (&it, c->tables);
  while (g_hash_table_iter_next (&it, &name, NULL))
    if (!g_hash_table_contains (steps, name))
      g_ptr_array_add (gone, g_strdup (name));
  for (guint i = 0; i < gone->len; i++)
    {
      g_autofree gchar *q = quoted (gone->pdata[i]);
      g_autofree gchar *sql = g_strdup_printf ("DROP TABLE temp.%s", q);
      g_hash_table_remove (c->tables, gone->pdata[i]);
      if (!exec (c, sql, error))
        return FALSE;
    }
  return TRUE;
}

static void
column_value (sqlite3_stmt *s, int k, AbValue *out)
{
  switch (sqlite3_column_type (s, k))
    {
      case SQLITE_INTEGER:
        ab_value_set_int (out, AB_VALUE_INT64, sqlite3_column_int64 (s, k));
        break;
      case SQLITE_FLOAT:
        ab_value_set_float (out, AB_VALUE_FLOAT64, sqlite3_column_double (s, k));
        break;
      case SQLITE_TEXT:
      case SQLITE_BLOB:
        {
          const gchar *t = (const gchar *) sqlite3_column_text (s, k);
          gsize n = (gsize) sqlite3_column_bytes (s, k);
          /* a value holding U+0000 is cut there: AbValue strings never hold one */
          ab_value_set_string (out, AB_VALUE_STRING, t, t != NULL ? strnlen (t, n) : 0);
          break;
        }
      default: break;
    }
}

static AbRows *
collect (Conn *c, sqlite3_stmt *s, const AbSqlLimits *lim, GError **error)
{
  int n = sqlite3_column_count (s);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (int k = 0; k < n; k++)
    g_ptr_array_add (names, (gpointer) sqlite3_column_name (s, k));
  g_autoptr (AbRows) out = ab_rows_new ((const gchar *const *) names->pdata, names->len);
  int rc;
  while ((rc = sqlite3_step (s)) == SQLITE_ROW)
    {
      if (out->rows->len >= lim->max_rows)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "the SQL answers more than %u rows", lim->max_rows),
               NULL;
      GArray *row = ab_rows_add (out);
      for (int k = 0; k < n; k++)
        column_value (s, k, &g_array_index (row, AbValue, k));
    }
  if (rc == SQLITE_INTERRUPT)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "the SQL ran longer than %" G_GINT64_FORMAT " ms", lim->max_us / 1000),
           NULL;
  if (rc != SQLITE_DONE)
    return sql_fail (c, "the SQL failed", error), NULL;
  return g_steal_pointer (&out);
}

AbRows *
ab_doc_sql_run (GHashTable *done, const gchar *sql, GArray *params, const AbSqlLimits *lim,
                GError **error)
{
  Conn *c = conn_get (error);
  if (c == NULL || !drop_others (c, done, error))
    return NULL;
  GHashTableIter it;
  gpointer name, rows;
  g_hash_table_iter_init (&it, done);
  while (g_hash_table_iter_next (&it, &name, &rows))
    if (!load_table (c, name, rows, error))
      return NULL;
  sqlite3_stmt *s = stmt_get (c, sql, TRUE, error);
  if (s == NULL)
    return NULL;
  guint n_params = params != NULL ? params->len : 0;
  if ((guint) sqlite3_bind_parameter_count (s) != n_params)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "the SQL takes %d parameters; %u were bound",
                           sqlite3_bind_parameter_count (s), n_params),
           NULL;
  for (guint i = 0; i < n_params; i++)
    bind_value (s, (int) i + 1, &g_array_index (params, AbValue, i));
  c->deadline = lim->max_us > 0 ? g_get_monotonic_time () + lim->max_us : 0;
  AbRows *out = collect (c, s, lim, error);
  c->deadline = 0;
  stmt_done (s);
  return out;
}

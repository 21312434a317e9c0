/* The console proxy: a SoupServer on a private GMainContext thread. POST /
 * (or /api/command) with {"command": "..."} runs the line in the console's
 * context and answers {success, result, error, elapsed}; anything else is
 * forwarded asynchronously to --host and the answer relayed as it came. */
#include <stdio.h>
#include <string.h>
#include "cli/proxy.h"
#include "cli/repl.h"

struct _AbProxy {
  AbConsole *console;
  GThread *thread;
  GMainContext *context;
  GMainLoop *loop;
  SoupServer *server;
  SoupSession *forward; /* used only on the proxy thread */
  gchar *bind;
  guint port;
  GMutex lock;
  GCond ready;
  gboolean started;
  GError *error;
};

static void
cors (SoupServerMessage *msg)
{
  SoupMessageHeaders *h = soup_server_message_get_response_headers (msg);
  soup_message_headers_replace (h, "Access-Control-Allow-Origin", "*");
  soup_message_headers_replace (h, "Access-Control-Allow-Headers", "Content-Type, Authorization");
  soup_message_headers_replace (h, "Access-Control-Allow-Methods",
                                "GET, POST, PUT, DELETE, OPTIONS");
}

static void
answer_json (SoupServerMessage *msg, guint status, JsonNode *node)
{
  gsize len = 0;
  gchar *text = json_to_string (node, FALSE);
  len = strlen (text);
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, text, len);
}

static void
add_text (JsonObject *o, const gchar *name, const gchar *text)
{
  if (text != NULL)
    json_object_set_string_member (o, name, text);
  else
    json_object_set_null_member (o, name);
}

static void
command_failed (SoupServerMessage *msg, guint status, const gchar *error)
{
  g_autoptr (JsonNode) n = json_node_new (JSON_NODE_OBJECT);
  JsonObject *o = json_object_new ();
  json_object_set_boolean_member (o, "success", FALSE);
  add_text (o, "result", NULL);
  add_text (o, "error", error);
  add_text (o, "elapsed", NULL);
  json_node_take_object (n, o);
  answer_json (msg, status, n);
}

/* The command named by the request body, or NULL after answering 400. */
static gchar *
read_command (SoupServerMessage *msg)
{
  g_autoptr (GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  gsize len = 0;
  const gchar *data = g_bytes_get_data (body, &len);
  g_autofree gchar *text = g_strndup (data != NULL ? data : "", len);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) n = json_from_string (text, &error);
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      g_autofree gchar *why = g_strdup_printf (
          "Invalid request: %s", error != NULL ? error->message : "expected a JSON object");
      command_failed (msg, 400, why);
      return NULL;
    }
  const gchar *cmd
      = json_object_get_string_member_with_default (json_node_get_object (n), "command", "");
  g_autofree gchar *trimmed = g_strstrip (g_strdup (cmd != NULL ? cmd : ""));
  if (trimmed[0] == '\0')
    {
      command_failed (msg, 400, "Command is required");
      return NULL;
    }
  return g_steal_pointer (&trimmed);
}

static void
run_command (AbProxy *p, SoupServerMessage *msg)
{
  g_autofree gchar *cmd = read_command (msg);
  if (cmd == NULL)
    return;
  g_autofree gchar *prompt = ab_console_prompt (p->console, FALSE);
  printf ("\n%s%s (via proxy)\n", prompt, cmd);
  AbResult r;
  ab_result_init (&r);
  gint64 start = g_get_monotonic_time ();
  gboolean ok = !g_str_equal (cmd, "exit") && !g_str_equal (cmd, "quit")
                && ab_console_exec (p->console, cmd, FALSE, FALSE, &r);
  if (g_str_equal (cmd, "exit") || g_str_equal (cmd, "quit"))
    {
      r.ok = FALSE;
      r.error = g_strdup ("exit is only available in the console itself");
    }
  gdouble secs = (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  ab_repl_print (p->console, &r, FALSE);
  g_autoptr (JsonNode) n = json_node_new (JSON_NODE_OBJECT);
  JsonObject *o = json_object_new ();
  g_autofree gchar *elapsed = g_strdup_printf ("%.4f seconds", secs);
  json_object_set_boolean_member (o, "success", ok);
  add_text (o, "result", r.out->len > 0 || ok ? r.out->str : NULL);
  add_text (o, "error", ok ? NULL : r.error);
  add_text (o, "elapsed", elapsed);
  json_node_take_object (n, o);
  answer_json (msg, ok ? 200 : 500, n);
  ab_result_clear (&r);
}

/* ---- forwarding ---- */

typedef struct {
  AbProxy *proxy;
  SoupServerMessage *msg;
  SoupMessage *out;
} Forward;

static gboolean
hop_by_hop (const gchar *name)
{
  static const gchar *const skip[]
      = { "Host",    "Connection",       "Keep-Alive", "Transfer-Encoding", "Content-Length",
          "Upgrade", "Proxy-Connection", "TE",         "Trailer",           "Accept-Encoding",
          NULL };
  for (guint i = 0; skip[i] != NULL; i++)
    if (g_ascii_strcasecmp (name, skip[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
copy_headers (SoupMessageHeaders *from, SoupMessageHeaders *to)
{
  SoupMessageHeadersIter it;
  const char *name, *value;
  soup_message_headers_iter_init (&it, from);
  while (soup_message_headers_iter_next (&it, &name, &value))
    if (!hop_by_hop (name))
      soup_message_headers_append (to, name, value);
}

static void
forwarded (GObject *source, GAsyncResult *res, gpointer data)
{
  Forward *f = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), res, &error);
  if (body == NULL)
    {
      g_autofree gchar *why = g_strdup_printf ("proxy: cannot reach %s: %s",
                                               f->proxy->console->client->base, error->message);
      g_autoptr (JsonNode) n = json_node_new (JSON_NODE_OBJECT);
      JsonObject *o = json_object_new ();
      json_object_set_int_member (o, "timestamp", g_get_real_time () / 1000);
      json_object_set_int_member (o, "status", 502);
      json_object_set_string_member (o, "error", "Bad Gateway");
      json_object_set_string_member (o, "message", why);
      json_node_take_object (n, o);
      answer_json (f->msg, 502, n);
    }
  else
    {
      soup_server_message_set_status (f->msg, soup_message_get_status (f->out), NULL);
      copy_headers (soup_message_get_response_headers (f->out),
                    soup_server_message_get_response_headers (f->msg));
      cors (f->msg);
      gsize len = 0;
      const gchar *data_ptr = g_bytes_get_data (body, &len);
      SoupMessageBody *mb = soup_server_message_get_response_body (f->msg);
      soup_message_body_append (mb, SOUP_MEMORY_COPY, data_ptr != NULL ? data_ptr : "", len);
    }
  soup_server_message_unpause (f->msg);
  g_object_unref (f->msg);
  g_object_unref (f->out);
  g_free (f);
}

static void
forward (AbProxy *p, SoupServerMessage *msg)
{
  GUri *uri = soup_server_message_get_uri (msg);
  const gchar *query = g_uri_get_query (uri);
  g_autofree gchar *url
      = g_strdup_printf ("%s%s%s%s", p->console->client->base, g_uri_get_path (uri),
                         query != NULL ? "?" : "", query != NULL ? query : "");
  SoupMessage *out = soup_message_new (soup_server_message_get_method (msg), url);
  if (out == NULL)
    return command_failed (msg, 400, "cannot forward this request");
  copy_headers (soup_server_message_get_request_headers (msg),
                soup_message_get_request_headers (out));
  g_autoptr (GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  if (g_bytes_get_size (body) > 0)
    soup_message_set_request_body_from_bytes (
        out,
        soup_message_headers_get_content_type (soup_server_message_get_request_headers (msg), NULL),
        body);
  Forward *f = g_new0 (Forward, 1);
  f->proxy = p;
  f->msg = g_object_ref (msg);
  f->out = out;
  soup_server_message_pause (msg);
  soup_session_send_and_read_async (p->forward, out, G_PRIORITY_DEFAULT, NULL, forwarded, f);
}

static void
handle (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
        gpointer data)
{
  AbProxy *p = data;
  const gchar *method = soup_server_message_get_method (msg);
  cors (msg);
  if (g_str_equal (method, "OPTIONS"))
    return soup_server_message_set_status (msg, 204, NULL);
  if (g_str_equal (method, "POST")
      && (g_str_equal (path, "/") || g_str_equal (path, "/api/command")))
    return run_command (p, msg);
  forward (p, msg);
}

/* ---- the thread ---- */

static gboolean
listen_on (AbProxy *p)
{
  g_autoptr (GInetAddress) addr = g_inet_address_new_from_string (p->bind);
  if (addr == NULL)
    {
      g_set_error (&p->error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "--proxy-bind: '%s' is not an IP address", p->bind);
      return FALSE;
    }
  g_autoptr (GSocketAddress) sa = g_inet_socket_address_new (addr, (guint16) p->port);
  if (!soup_server_listen (p->server, sa, 0, &p->error))
    return FALSE;
  GSList *uris = soup_server_get_uris (p->server);
  if (uris != NULL)
    p->port = (guint) g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return TRUE;
}

static gpointer
serve (gpointer data)
{
  AbProxy *p = data;
  g_main_context_push_thread_default (p->context);
  p->server = soup_server_new ("server-header", "actionbase-console-proxy", NULL);
  p->forward = soup_session_new_with_options ("timeout", 300, NULL);
  soup_server_add_handler (p->server, NULL, handle, p, NULL);
  gboolean ok = listen_on (p);
  g_mutex_lock (&p->lock);
  p->started = TRUE;
  g_cond_signal (&p->ready);
  g_mutex_unlock (&p->lock);
  if (ok)
    g_main_loop_run (p->loop);
  soup_server_disconnect (p->server);
  g_clear_object (&p->server);
  g_clear_object (&p->forward);
  while (g_main_context_iteration (p->context, FALSE))
    ;
  g_main_context_pop_thread_default (p->context);
  return NULL;
}

static void
proxy_free (AbProxy *p)
{
  g_main_loop_unref (p->loop);
  g_main_context_unref (p->context);
  g_clear_error (&p->error);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->ready);
  g_free (p->bind);
  g_free (p);
}

AbProxy *
ab_proxy_start (AbConsole *c, const gchar *bind, guint port, GError **error)
{
  AbProxy *p = g_new0 (AbProxy, 1);
  p->console = c;
  p->bind = g_strdup (bind != NULL ? bind : "127.0.0.1");
  p->port = port;
  p->context = g_main_context_new ();
  p->loop = g_main_loop_new (p->context, FALSE);
  g_mutex_init (&p->lock);
  g_cond_init (&p->ready);
  p->thread = g_thread_new ("ab-proxy", serve, p);
  g_mutex_lock (&p->lock);
  while (!p->started)
    g_cond_wait (&p->ready, &p->lock);
  g_mutex_unlock (&p->lock);
  if (p->error != NULL)
    {
      g_thread_join (p->thread);
      g_propagate_prefixed_error (error, g_steal_pointer (&p->error), "proxy %s:%u: ", p->bind,
                                  port);
      proxy_free (p);
      return NULL;
    }
  c->proxy_port = p->port;
  return p;
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
ab_proxy_stop (AbProxy *p)
{
  if (p == NULL)
    return;
  g_main_context_invoke (p->context, quit_loop, p->loop);
  g_thread_join (p->thread);
  p->console->proxy_port = 0;
  proxy_free (p);
}

/* Console HTTP client: synchronous libsoup 3 requests (safe to send from the
 * REPL thread and the proxy thread alike since libsoup 3.2), debug logging of
 * the traffic, and the reduction of every failure to one readable sentence. */
#include <stdio.h>
#include <string.h>
#include "cli/client.h"

AbClient *
ab_client_new (const gchar *base, const gchar *auth_key, guint timeout_s)
{
  AbClient *c = g_new0 (AbClient, 1);
  gsize n = strlen (base);
  while (n > 0 && base[n - 1] == '/')
    n--;
  c->base = g_strndup (base, n);
  c->auth_key = g_strdup (auth_key != NULL ? auth_key : "");
  c->session
      = soup_session_new_with_options ("timeout", timeout_s, "idle-timeout", 30, "user-agent",
                                       "actionbase-console/" PACKAGE_VERSION, NULL);
  return c;
}

void
ab_client_free (AbClient *c)
{
  if (c == NULL)
    return;
  g_clear_object (&c->session);
  g_free (c->base);
  g_free (c->auth_key);
  g_free (c);
}

void
ab_response_clear (AbResponse *r)
{
  g_clear_pointer (&r->json, json_node_unref);
  g_clear_pointer (&r->error, g_free);
  r->status = 0;
}

gchar *
ab_client_escape (const gchar *text)
{
  return g_uri_escape_string (text != NULL ? text : "", NULL, FALSE);
}

JsonNode *
ab_response_member (const AbResponse *r, const gchar *name)
{
  if (r->json == NULL || !JSON_NODE_HOLDS_OBJECT (r->json))
    return NULL;
  return json_object_get_member (json_node_get_object (r->json), name);
}

static void
debug_log (const gchar *what, const gchar *line, const gchar *body)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree gchar *stamp = g_date_time_format (now, "%Y-%m-%d %H:%M:%S");
  fprintf (stderr, "[DEBUG][%s] %s %s\n", stamp, what, line);
  if (body != NULL && body[0] != '\0')
    fprintf (stderr, "> %s\n", body);
  fflush (stderr);
}

/* The server's own sentence when the body carries one. */
static const gchar *
body_message (JsonNode *json)
{
  if (json == NULL || !JSON_NODE_HOLDS_OBJECT (json))
    return NULL;
  JsonNode *m = json_object_get_member (json_node_get_object (json), "message");
  if (m == NULL || !JSON_NODE_HOLDS_VALUE (m) || json_node_get_value_type (m) != G_TYPE_STRING)
    return NULL;
  const gchar *s = json_node_get_string (m);
  return s != NULL && s[0] != '\0' ? s : NULL;
}

static gboolean
is_ddl_error (JsonNode *json)
{
  if (json == NULL || !JSON_NODE_HOLDS_OBJECT (json))
    return FALSE;
  JsonObject *o = json_node_get_object (json);
  if (!json_object_has_member (o, "result") || !json_object_has_member (o, "status"))
    return FALSE;
  JsonNode *s = json_object_get_member (o, "status");
  return JSON_NODE_HOLDS_VALUE (s) && json_node_get_value_type (s) == G_TYPE_STRING
         && g_strcmp0 (json_node_get_string (s), "ERROR") == 0;
}

/* Fills out->json / out->error from a received answer. */
static gboolean
judge_answer (AbResponse *out, const gchar *data, gsize len, const gchar *reason)
{
  if (len > 0)
    out->json = json_from_string (data, NULL);
  const gchar *msg = body_message (out->json);
  if (!SOUP_STATUS_IS_SUCCESSFUL (out->status))
    {
      out->error = msg != NULL
                       ? g_strdup (msg)
                       : g_strdup_printf ("HTTP %u %s", out->status, reason != NULL ? reason : "");
      return FALSE;
    }
  if (out->json == NULL)
    {
      out->error = g_strdup_printf ("the server answered %u without a JSON body", out->status);
      return FALSE;
    }
  if (is_ddl_error (out->json))
    {
      out->error = g_strdup (msg != NULL ? msg : "the server answered status ERROR");
      return FALSE;
    }
  return TRUE;
}

gboolean
ab_client_call (AbClient *c, const gchar *method, const gchar *path, JsonNode *body,
                AbResponse *out)
{
  memset (out, 0, sizeof *out);
  g_autofree gchar *url = g_strconcat (c->base, path, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new (method, url);
  if (msg == NULL)
    {
      out->error = g_strdup_printf ("invalid URL '%s'", url);
      return FALSE;
    }
  SoupMessageHeaders *h = soup_message_get_request_headers (msg);
  soup_message_headers_replace (h, "Authorization", c->auth_key);
  g_autofree gchar *text = body != NULL ? json_to_string (body, FALSE) : NULL;
  if (text != NULL)
    {
      g_autoptr (GBytes) b = g_bytes_new (text, strlen (text));
      soup_message_set_request_body_from_bytes (msg, "application/json", b);
    }
  else
    soup_message_headers_replace (h, "Content-Type", "application/json");
  if (c->debug)
    {
      g_autofree gchar *line = g_strdup_printf ("'%s %s'", method, url);
      debug_log ("Trying to call", line, text);
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) reply = soup_session_send_and_read (c->session, msg, NULL, &error);
  if (reply == NULL)
    {
      out->error = g_strdup_printf ("cannot reach %s: %s", c->base, error->message);
      return FALSE;
    }
  out->status = soup_message_get_status (msg);
  gsize len = 0;
  const gchar *data = g_bytes_get_data (reply, &len);
  g_autofree gchar *copy = g_strndup (data != NULL ? data : "", len);
  if (c->debug)
    {
      g_autofree gchar *line
          = g_strdup_printf ("%u %s", out->status, soup_message_get_reason_phrase (msg));
      debug_log ("Answer", line, copy);
    }
  return judge_answer (out, copy, len, soup_message_get_reason_phrase (msg));
}

gboolean
ab_client_callf (AbClient *c, const gchar *method, JsonNode *body, AbResponse *out,
                 const gchar *path_fmt, ...)
{
  va_list ap;
  va_start (ap, path_fmt);
  g_autofree gchar *path = g_strdup_vprintf (path_fmt, ap);
  va_end (ap);
  return ab_client_call (c, method, path, body, out);
}

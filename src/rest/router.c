/* The router (method + path pattern -> handler, literal segments preferred over
 * {params}), URL decoding of path segments and query strings, and the helpers
 * handlers use to read requests and build responses, JSON error body included. */
#include <string.h>
#include "rest/router.h"
#include "model/jsonw.h"

typedef struct {
  gchar *method;
  gchar *pattern;
  gchar **segments; /* literal text, or the param name for a param */
  gboolean *is_param;
  guint n_segments;
  AbRouteFlags flags;
  AbRouteHandler handler;
  gpointer user_data;
} AbRoute;

struct _AbRouter {
  GPtrArray *routes;
  GPtrArray *taken; /* route user data the router frees (ab_router_take) */
  AbRouteGuard guard;
  gpointer guard_data;
};

/* ---- decoding ---- */

static gint
hex_value (gchar c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

gchar *
ab_http_percent_decode (const gchar *s, gssize len, gboolean plus_as_space)
{
  gsize n = len < 0 ? strlen (s) : (gsize) len;
  GString *out = g_string_sized_new (n);

  for (gsize i = 0; i < n; i++)
    {
      gint hi, lo;
      if (s[i] == '%' && i + 2 < n && (hi = hex_value (s[i + 1])) >= 0
          && (lo = hex_value (s[i + 2])) >= 0 && (hi | lo) != 0)
        {
          /* %00 stays verbatim: a NUL would silently cut the C string. */
          g_string_append_c (out, (gchar) ((hi << 4) | lo));
          i += 2;
        }
      else if (s[i] == '+' && plus_as_space)
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, s[i]);
    }
  if (!g_utf8_validate (out->str, out->len, NULL))
    {
      gchar *valid = g_utf8_make_valid (out->str, out->len);
      g_string_free (out, TRUE);
      return valid;
    }
  return g_string_free (out, FALSE);
}

static void
query_add (GHashTable *table, gchar *name, gchar *value)
{
  GPtrArray *values = g_hash_table_lookup (table, name);
  if (values == NULL)
    {
      values = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (table, name, values);
    }
  else
    g_free (name);
  g_ptr_array_add (values, value);
}

GHashTable *
ab_http_query_parse (const gchar *query)
{
  GHashTable *table
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  const gchar *p = query;

  while (p != NULL && *p != '\0')
    {
      const gchar *end = strchr (p, '&');
      gsize len = end != NULL ? (gsize) (end - p) : strlen (p);
      const gchar *eq = memchr (p, '=', len);
      if (len > 0)
        {
          gsize name_len = eq != NULL ? (gsize) (eq - p) : len;
          gchar *name = ab_http_percent_decode (p, name_len, TRUE);
          gchar *value = eq != NULL ? ab_http_percent_decode (eq + 1, len - name_len - 1, TRUE)
                                    : g_strdup ("");
          query_add (table, name, value);
        }
      p = end != NULL ? end + 1 : NULL;
    }
  return table;
}

/* ---- router ---- */

/* "/a/b/" -> ["a", "b"]; "/" -> []. One trailing slash is tolerated. */
static gchar **
split_path (const gchar *path, guint *n_out)
{
  gsize len;
  while (*path == '/')
    path++;
  len = strlen (path);
  if (len > 0 && path[len - 1] == '/')
    len--;
  if (len == 0)
    {
      *n_out = 0;
      return g_new0 (gchar *, 1);
    }
  g_autofree gchar *trimmed = g_strndup (path, len);
  gchar **parts = g_strsplit (trimmed, "/", -1);
  *n_out = g_strv_length (parts);
  return parts;
}

static void
route_free (gpointer data)
{
  AbRoute *route = data;
  g_free (route->method);
  g_free (route->pattern);
  g_strfreev (route->segments);
  g_free (route->is_param);
  g_free (route);
}

AbRouter *
ab_router_new (void)
{
  AbRouter *router = g_new0 (AbRouter, 1);
  router->routes = g_ptr_array_new_with_free_func (route_free);
  router->taken = g_ptr_array_new_with_free_func (g_free);
  return router;
}

void
ab_router_free (AbRouter *router)
{
  if (router == NULL)
    return;
  g_ptr_array_unref (router->routes);
  g_ptr_array_unref (router->taken);
  g_free (router);
}

gpointer
ab_router_take (AbRouter *router, gpointer data)
{
  g_ptr_array_add (router->taken, data);
  return data;
}

void
ab_router_add (AbRouter *router, const gchar *method, const gchar *pattern, AbRouteFlags flags,
               AbRouteHandler handler, gpointer user_data)
{
  AbRoute *route = g_new0 (AbRoute, 1);

  g_return_if_fail (router != NULL && method != NULL && pattern != NULL);
  route->method = g_ascii_strup (method, -1);
  route->pattern = g_strdup (pattern);
  route->segments = split_path (pattern, &route->n_segments);
  route->is_param = g_new0 (gboolean, route->n_segments + 1);
  for (guint i = 0; i < route->n_segments; i++)
    {
      gchar *seg = route->segments[i];
      gsize len = strlen (seg);
      if (len >= 2 && seg[0] == '{' && seg[len - 1] == '}')
        {
          route->is_param[i] = TRUE;
          memmove (seg, seg + 1, len - 2);
          seg[len - 2] = '\0';
        }
    }
  route->flags = flags;
  route->handler = handler;
  route->user_data = user_data;
  g_ptr_array_add (router->routes, route);
}

void
ab_router_foreach (AbRouter *router, AbRouteVisit visit, gpointer data)
{
  for (guint i = 0; i < router->routes->len; i++)
    {
      const AbRoute *route = g_ptr_array_index (router->routes, i);
      visit (route->method, route->pattern, data);
    }
}

static gboolean
route_matches_path (const AbRoute *route, gchar **segs, guint n)
{
  if (route->n_segments != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!route->is_param[i] && strcmp (route->segments[i], segs[i]) != 0)
      return FALSE;
  return TRUE;
}

/* TRUE when a is more specific than b: at the first position where one has a
 * literal and the other a param, the literal wins. */
static gboolean
route_more_specific (const AbRoute *a, const AbRoute *b)
{
  for (guint i = 0; i < a->n_segments; i++)
    if (a->is_param[i] != b->is_param[i])
      return !a->is_param[i];
  return FALSE;
}

/* Splits path and percent-decodes each segment (after splitting, so an
 * encoded '/' stays inside its segment). */
static gchar **
decoded_segments (const gchar *path, guint *n)
{
  gchar **segs = split_path (path, n);
  for (guint i = 0; i < *n; i++)
    {
      gchar *dec = ab_http_percent_decode (segs[i], -1, FALSE);
      g_free (segs[i]);
      segs[i] = dec;
    }
  return segs;
}

static GHashTable *
route_params (const AbRoute *route, gchar **segs)
{
  GHashTable *params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < route->n_segments; i++)
    if (route->is_param[i])
      g_hash_table_replace (params, g_strdup (route->segments[i]), g_strdup (segs[i]));
  return params;
}

AbRouteMatch
ab_router_match (AbRouter *router, const gchar *method, const gchar *path, AbRouteHandler *handler,
                 AbRouteFlags *flags, gpointer *user_data, const gchar **pattern,
                 GHashTable **params)
{
  guint n = 0;
  g_auto (GStrv) segs = decoded_segments (path, &n);
  const AbRoute *best = NULL;
  gboolean path_matched = FALSE;
  gboolean head = g_ascii_strcasecmp (method, "HEAD") == 0;

  for (guint i = 0; i < router->routes->len; i++)
    {
      const AbRoute *route = g_ptr_array_index (router->routes, i);
      if (!route_matches_path (route, segs, n))
        continue;
      path_matched = TRUE;
      /* HEAD is answered by the GET route (the transport drops the body). */
      if (g_ascii_strcasecmp (route->method, method) != 0
          && !(head && g_str_equal (route->method, "GET")))
        continue;
      if (best == NULL || route_more_specific (route, best))
        best = route;
    }
  if (best == NULL)
    return path_matched ? AB_ROUTE_NO_METHOD : AB_ROUTE_NO_PATH;
  if (handler != NULL)
    *handler = best->handler;
  if (flags != NULL)
    *flags = best->flags;
  if (user_data != NULL)
    *user_data = best->user_data;
  if (pattern != NULL)
    *pattern = best->pattern;
  if (params != NULL)
    *params = route_params (best, segs);
  return AB_ROUTE_FOUND;
}

gchar *
ab_router_allowed_methods (AbRouter *router, const gchar *path)
{
  guint n = 0;
  g_auto (GStrv) segs = decoded_segments (path, &n);
  GString *out = NULL;

  for (guint i = 0; i < router->routes->len; i++)
    {
      const AbRoute *route = g_ptr_array_index (router->routes, i);
      if (!route_matches_path (route, segs, n))
        continue;
      if (out == NULL)
        out = g_string_new (route->method);
      else if (strstr (out->str, route->method) == NULL)
        g_string_append_printf (out, ", %s", route->method);
    }
  return out != NULL ? g_string_free (out, FALSE) : NULL;
}

/* ---- request helpers ---- */

GPtrArray *
ab_http_query_all (const AbHttpRequest *req, const gchar *name)
{
  if (req->query == NULL)
    return NULL;
  return g_hash_table_lookup (req->query, name);
}

const gchar *
ab_http_query_get (const AbHttpRequest *req, const gchar *name)
{
  GPtrArray *values = ab_http_query_all (req, name);
  return values != NULL && values->len > 0 ? g_ptr_array_index (values, 0) : NULL;
}

const gchar *
ab_http_header_get (const AbHttpRequest *req, const gchar *name)
{
  return req->headers != NULL ? g_hash_table_lookup (req->headers, name) : NULL;
}

const gchar *
ab_http_param (const AbHttpRequest *req, const gchar *name)
{
  return req->params != NULL ? g_hash_table_lookup (req->params, name) : NULL;
}

/* ---- response helpers ---- */

void
ab_http_response_init (AbHttpResponse *resp)
{
  resp->status = 200;
  resp->content_type = NULL;
  resp->body = NULL;
  resp->headers = g_ptr_array_new_with_free_func (g_free);
  resp->resume = NULL;
  resp->resume_token = NULL;
  resp->deferred = NULL;
}

AbHttpResponse *
ab_http_response_defer (AbHttpResponse *resp)
{
  if (resp->resume == NULL || resp->deferred == NULL)
    return NULL;
  *resp->deferred = TRUE;
  resp->deferred = NULL; /* the flag lives on the transport's stack */
  return resp;
}

void
ab_http_response_resume (AbHttpResponse *resp)
{
  resp->resume (resp->resume_token);
}

void
ab_http_response_clear (AbHttpResponse *resp)
{
  g_clear_pointer (&resp->content_type, g_free);
  g_clear_pointer (&resp->body, g_bytes_unref);
  g_clear_pointer (&resp->headers, g_ptr_array_unref);
}

void
ab_http_response_bytes (AbHttpResponse *resp, guint status, const gchar *content_type, GBytes *body)
{
  resp->status = status;
  g_free (resp->content_type);
  resp->content_type = g_strdup (content_type);
  if (resp->body != NULL)
    g_bytes_unref (resp->body);
  resp->body = body;
}

void
ab_http_response_json (AbHttpResponse *resp, guint status, JsonNode *node)
{
  GBytes *body = NULL;
  if (node != NULL)
    {
      /* Our writer, not json_to_string: json-glib leaves U+001F unescaped,
       * which is not JSON (found by Schemathesis, tests/rest/check-openapi.sh). */
      AbJsonw w;
      ab_jsonw_init (&w, 256);
      ab_jsonw_node (&w, node);
      body = ab_jsonw_finish (&w);
      json_node_unref (node);
    }
  ab_http_response_bytes (resp, status, "application/json", body);
}

void
ab_http_response_empty (AbHttpResponse *resp, guint status)
{
  ab_http_response_bytes (resp, status, NULL, NULL);
}

GBytes *
ab_http_error_body (guint status, const gchar *message)
{
  AbJsonw w;
  ab_jsonw_init (&w, 96 + (message != NULL ? strlen (message) : 0));
  ab_jsonw_begin_object (&w);
  ab_jsonw_member_int (&w, "timestamp", g_get_real_time () / 1000);
  ab_jsonw_member_int (&w, "status", status);
  ab_jsonw_member_string (&w, "error", ab_http_reason_phrase (status));
  ab_jsonw_member_string (&w, "message", message != NULL ? message : "");
  ab_jsonw_end_object (&w);
  return ab_jsonw_finish (&w);
}

void
ab_http_response_error (AbHttpResponse *resp, guint status, const gchar *message)
{
  ab_http_response_bytes (resp, status, "application/json", ab_http_error_body (status, message));
}

void
ab_http_response_add_header (AbHttpResponse *resp, const gchar *name, const gchar *value)
{
  if (resp->headers == NULL)
    resp->headers = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (resp->headers, g_strdup (name));
  g_ptr_array_add (resp->headers, g_strdup (value));
}

const gchar *
ab_http_reason_phrase (guint status)
{
  switch (status)
    {
      case 100: return "Continue";
      case 200: return "OK";
      case 201: return "Created";
      case 202: return "Accepted";
      case 204: return "No Content";
      case 301: return "Moved Permanently";
      case 302: return "Found";
      case 304: return "Not Modified";
      case 400: return "Bad Request";
      case 401: return "Unauthorized";
      case 403: return "Forbidden";
      case 404: return "Not Found";
      case 405: return "Method Not Allowed";
      case 406: return "Not Acceptable";
      case 408: return "Request Timeout";
      case 409: return "Conflict";
      case 410: return "Gone";
      case 411: return "Length Required";
      case 412: return "Precondition Failed";
      case 413: return "Payload Too Large";
      case 414: return "URI Too Long";
      case 415: return "Unsupported Media Type";
      case 422: return "Unprocessable Entity";
      case 429: return "Too Many Requests";
      case 500: return "Internal Server Error";
      case 501: return "Not Implemented";
      case 502: return "Bad Gateway";
      case 503: return "Service Unavailable";
      case 504: return "Gateway Timeout";
      default: break;
    }
  if (status >= 500)
    return "Server Error";
  if (status >= 400)
    return "Client Error";
  return "Unknown";
}

void
ab_router_set_guard (AbRouter *router, AbRouteGuard guard, gpointer user_data)
{
  router->guard = guard;
  router->guard_data = user_data;
}

gboolean
ab_router_check_guard (AbRouter *router, const AbHttpRequest *req, AbHttpResponse *resp)
{
  return router->guard == NULL || router->guard (req, resp, router->guard_data);
}

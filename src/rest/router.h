/* Transport-neutral HTTP request/response structs and the router: routes are
 * method + path pattern ("/graph/v3/databases/{database}") + handler, each
 * marked inline (never blocks) or blocking (run on the worker pool). */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct {
  const gchar *method;     /* "GET", "POST", ... */
  const gchar *path;       /* decoded path, no query string */
  GHashTable *params;      /* path params {name} -> decoded value */
  GHashTable *query;       /* name -> GPtrArray of decoded values (repeatable) */
  GHashTable *headers;     /* lower-case name -> value */
  GBytes *body;            /* never NULL (may be empty) */
  const gchar *request_id; /* X-Request-ID or generated */
  const gchar *route;      /* the matched pattern, for logs and metrics */
} AbHttpRequest;

typedef struct {
  guint status;        /* default 200 */
  gchar *content_type; /* default "application/json" */
  GBytes *body;        /* NULL = empty */
  GPtrArray *headers;  /* alternating name, value (owned strings) */
  /* Set by the transport when this response may be finished after the
   * handler returns (see ab_http_response_defer); NULL otherwise. */
  void (*resume) (gpointer token);
  gpointer resume_token;
  gboolean *deferred; /* the transport's flag, set by ab_http_response_defer */
} AbHttpResponse;

typedef void (*AbRouteHandler) (const AbHttpRequest *req, AbHttpResponse *resp, gpointer user_data);

typedef enum {
  AB_ROUTE_INLINE = 0,        /* cheap unless the store can block: on the HTTP loop when
                          * AbHttpConfig.inline_reads, else on the worker pool */
  AB_ROUTE_BLOCKING = 1,      /* may block: run on the worker pool */
  AB_ROUTE_ALWAYS_INLINE = 2, /* never blocks, whatever the store (/health, /metrics):
                               * on the HTTP loop, so it answers while every worker is stuck */
} AbRouteFlags;

typedef struct _AbRouter AbRouter;

AbRouter *ab_router_new (void);
void ab_router_free (AbRouter *router);
/* Pattern segments in braces capture one path segment. */
void ab_router_add (AbRouter *router, const gchar *method, const gchar *pattern, AbRouteFlags flags,
                    AbRouteHandler handler, gpointer user_data);
/* Route user data made for the router (g_malloc'd): freed with it. Returns data. */
gpointer ab_router_take (AbRouter *router, gpointer data);

/* Every route in the order added (actionbased --routes, docs/openapi.yaml's test). */
typedef void (*AbRouteVisit) (const gchar *method, const gchar *pattern, gpointer data);
void ab_router_foreach (AbRouter *router, AbRouteVisit visit, gpointer data);

typedef enum { AB_ROUTE_FOUND, AB_ROUTE_NO_PATH, AB_ROUTE_NO_METHOD } AbRouteMatch;
/* On FOUND fills handler/flags/user_data/pattern and params (caller owns
 * params, created with g_str_hash, owned keys and values). */
AbRouteMatch ab_router_match (AbRouter *router, const gchar *method, const gchar *path,
                              AbRouteHandler *handler, AbRouteFlags *flags, gpointer *user_data,
                              const gchar **pattern, GHashTable **params);

/* A guard runs before every routed handler (on the HTTP loop, so it must
 * not block); returning FALSE means it answered (401/403) and the handler
 * does not run. */
typedef gboolean (*AbRouteGuard) (const AbHttpRequest *req, AbHttpResponse *resp,
                                  gpointer user_data);
void ab_router_set_guard (AbRouter *router, AbRouteGuard guard, gpointer user_data);
gboolean ab_router_check_guard (AbRouter *router, const AbHttpRequest *req, AbHttpResponse *resp);

/* Helpers for handlers. */
const gchar *ab_http_query_get (const AbHttpRequest *req,
                                const gchar *name); /* first value or NULL */
GPtrArray *ab_http_query_all (const AbHttpRequest *req, const gchar *name); /* borrowed or NULL */
const gchar *ab_http_header_get (const AbHttpRequest *req, const gchar *name); /* lower-case name */
const gchar *ab_http_param (const AbHttpRequest *req, const gchar *name);
void ab_http_response_json (AbHttpResponse *resp, guint status, JsonNode *node); /* takes node */
void ab_http_response_empty (AbHttpResponse *resp, guint status);
/* {timestamp, status, error: reason phrase, message}. */
void ab_http_response_error (AbHttpResponse *resp, guint status, const gchar *message);
void ab_http_response_add_header (AbHttpResponse *resp, const gchar *name, const gchar *value);
const gchar *ab_http_reason_phrase (guint status);

/* Answering later, without holding the thread: a handler calls defer and,
 * when it returns non-NULL, the transport sends nothing when the handler
 * returns; the handler (or whoever it hands the response to) fills it later,
 * from any thread, and calls ab_http_response_resume exactly once. The
 * request and the response stay valid until then and not after. NULL: this
 * transport or route cannot defer (inline routes): answer before returning. */
AbHttpResponse *ab_http_response_defer (AbHttpResponse *resp);
void ab_http_response_resume (AbHttpResponse *resp);

/* --- Additions (transport helpers; see router.c) --- */

/* Response life cycle: init sets status 200, no body, an empty header array;
 * clear frees what the response owns (fields left NULL). */
void ab_http_response_init (AbHttpResponse *resp);
void ab_http_response_clear (AbHttpResponse *resp);
/* Raw body with an explicit content type (NULL = application/json); takes body. */
void ab_http_response_bytes (AbHttpResponse *resp, guint status, const gchar *content_type,
                             GBytes *body);
/* The JSON error document, serialised: {timestamp, status, error, message}. */
GBytes *ab_http_error_body (guint status, const gchar *message);

/* Percent-decodes len bytes of s (len < 0: NUL-terminated); with plus_as_space
 * '+' becomes ' ' (query strings). Malformed escapes are kept verbatim; the
 * result is always valid UTF-8 (invalid sequences become U+FFFD). */
gchar *ab_http_percent_decode (const gchar *s, gssize len, gboolean plus_as_space);
/* Parses "a=1&b=2&a=3" into name -> GPtrArray of values (in order), the shape
 * of AbHttpRequest.query. query may be NULL (empty table). */
GHashTable *ab_http_query_parse (const gchar *query);

/* Comma-separated methods whose routes match path ("GET, POST"), for the
 * Allow header of a 405; NULL when no route matches the path. */
gchar *ab_router_allowed_methods (AbRouter *router, const gchar *path);

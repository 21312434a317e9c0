/* The h2o transport's request side and server object (with http_loop.c the
 * only files that see h2o): request translation to AbHttpRequest, inline and
 * worker-pool dispatch resumed through h2o's multithread queue, TLS with ALPN
 * (h2, http/1.1), the connection cap's 503, graceful stop. */
#define G_LOG_DOMAIN "ab-http"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <h2o.h>
#include <h2o/http1.h>
#include <h2o/http2.h>
#include "rest/http_h2o.h"

typedef struct {
  h2o_handler_t super;
  AbHttpServer *server;
} AbCatchAll;

typedef struct {
  h2o_filter_t super;
  AbHttpServer *server;
} AbErrorFilter;

/* A blocking request: owned by the loop until pushed, then by the worker until
 * sent back; req and watch are only ever touched on the loop thread. */
typedef struct _AbReqWatch AbReqWatch;
typedef struct {
  h2o_multithread_message_t super;
  AbHttpLoop *loop;
  h2o_req_t *req; /* NULL once h2o disposed the request */
  AbReqWatch *watch;
  AbHttpRequest request;
  AbHttpResponse response;
  AbRouteHandler handler;
  gpointer user_data;
  gint64 t0;
} AbHttpJob;

/* Lives in the request's pool; its destructor tells the job the request is gone. */
struct _AbReqWatch {
  AbHttpJob *job;
};

/* ---- request translation ---- */

static gchar *
request_id_for (h2o_req_t *req)
{
  ssize_t i = h2o_find_header_by_str (&req->headers, H2O_STRLIT ("x-request-id"), -1);
  if (i < 0)
    return ab_http_request_id (NULL, 0);
  return ab_http_request_id (req->headers.entries[i].value.base, req->headers.entries[i].value.len);
}

static GHashTable *
headers_table (h2o_req_t *req)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (size_t i = 0; i < req->headers.size; i++)
    {
      const h2o_header_t *h = &req->headers.entries[i];
      g_autofree gchar *name = g_ascii_strdown (h->name->base, h->name->len);
      g_autofree gchar *value = g_utf8_validate (h->value.base, h->value.len, NULL)
                                    ? g_strndup (h->value.base, h->value.len)
                                    : g_utf8_make_valid (h->value.base, h->value.len);
      const gchar *prev = g_hash_table_lookup (t, name);
      gchar *joined
          = prev != NULL ? g_strconcat (prev, ", ", value, NULL) : g_steal_pointer (&value);
      g_hash_table_replace (t, g_steal_pointer (&name), joined);
    }
  if (req->authority.len > 0 && !g_hash_table_contains (t, "host"))
    g_hash_table_insert (t, g_strdup ("host"), g_strndup (req->authority.base, req->authority.len));
  return t;
}

static gsize
path_length (h2o_req_t *req)
{
  return req->query_at != SIZE_MAX ? req->query_at : req->path.len;
}

/* Fills everything but route and params. The body is always copied: a handler
 * may keep a reference past the h2o request's lifetime. */
static void
request_fill (AbHttpRequest *r, h2o_req_t *req, gchar *request_id)
{
  gsize plen = path_length (req);
  memset (r, 0, sizeof *r);
  r->method = g_strndup (req->method.base, req->method.len);
  r->path = ab_http_percent_decode (req->path.base, plen, FALSE);
  if (req->query_at != SIZE_MAX)
    {
      g_autofree gchar *qs = g_strndup (req->path.base + plen + 1, req->path.len - plen - 1);
      r->query = ab_http_query_parse (qs);
    }
  else
    r->query = ab_http_query_parse (NULL);
  r->headers = headers_table (req);
  if (req->entity.base == NULL)
    r->body = g_bytes_new_static ("", 0);
  else
    r->body = g_bytes_new (req->entity.base, req->entity.len);
  r->request_id = request_id;
}

/* ---- responses ---- */

static void
log_request (AbHttpServer *s, const gchar *method, const gchar *route, guint status, gint64 t0,
             const gchar *request_id, gboolean delivered)
{
  ab_http_log_request (&s->cfg, method, route, status, t0, request_id, delivered);
}

static void
add_header (h2o_req_t *req, const gchar *name, const gchar *value)
{
  h2o_iovec_t n = h2o_strdup (&req->pool, name, strlen (name));
  h2o_iovec_t v = h2o_strdup (&req->pool, value, strlen (value));
  h2o_strtolower (n.base, n.len);
  h2o_add_header_by_str (&req->pool, &req->res.headers, n.base, n.len, 1, NULL, v.base, v.len);
}

/* A handler's out-of-range status is sent (and counted) as a 500. */
static guint
effective_status (const AbHttpResponse *resp)
{
  return resp->status >= 100 && resp->status <= 599 ? resp->status : 500;
}

static void
send_response (h2o_req_t *req, const AbHttpResponse *resp, const gchar *request_id)
{
  gsize len = 0;
  const gchar *body = resp->body != NULL ? g_bytes_get_data (resp->body, &len) : NULL;
  guint status = effective_status (resp);

  req->res.status = (int) status;
  req->res.reason = ab_http_reason_phrase (status);
  if (body != NULL || resp->content_type != NULL)
    add_header (req, "content-type",
                resp->content_type != NULL ? resp->content_type : "application/json");
  add_header (req, "x-request-id", request_id);
  for (guint i = 0; resp->headers != NULL && i + 1 < resp->headers->len; i += 2)
    add_header (req, g_ptr_array_index (resp->headers, i),
                g_ptr_array_index (resp->headers, i + 1));
  req->res.content_length = len;
  h2o_send_inline (req, body != NULL ? body : "", len);
}

/* Answers a transport-level error (400/404/405/413/503) on the loop, with one
 * optional extra header (header NULL: none). */
static void
send_error (AbHttpServer *s, h2o_req_t *req, guint status, const gchar *message,
            const gchar *header, const gchar *value, const gchar *request_id, const gchar *method,
            gint64 t0)
{
  AbHttpResponse resp;
  ab_http_response_init (&resp);
  ab_http_response_error (&resp, status, message);
  if (header != NULL && value != NULL)
    ab_http_response_add_header (&resp, header, value);
  log_request (s, method, "-", status, t0, request_id, TRUE);
  send_response (req, &resp, request_id);
  ab_http_response_clear (&resp);
}

/* ---- blocking dispatch ---- */

static void
in_flight_done (AbHttpServer *s)
{
  if ((atomic_fetch_sub (&s->in_flight, 1) == 1))
    {
      g_mutex_lock (&s->drain_lock);
      g_cond_broadcast (&s->drain_cond);
      g_mutex_unlock (&s->drain_lock);
    }
}

static void
job_free (AbHttpJob *job)
{
  ab_http_request_clear (&job->request);
  ab_http_response_clear (&job->response);
  g_free (job);
}

static void
on_watch_dispose (void *data)
{
  AbReqWatch *watch = data;
  if (watch->job != NULL)
    {
      watch->job->req = NULL;
      watch->job->watch = NULL;
    }
}

/* Worker thread: run the handler, then hand the job back to its loop. */
static void
job_resume (gpointer data)
{
  AbHttpJob *job = data;
  h2o_multithread_send_message (&job->loop->job_receiver, &job->super);
}

/* Worker thread: run the handler, then hand the job back to its loop,
 * unless the handler deferred its answer (job_resume sends it then; the job
 * may be gone by the time the handler returns). */
static void
worker_run (gpointer data, gpointer user_data)
{
  AbHttpJob *job = data;
  gboolean deferred = FALSE;
  job->response.resume = job_resume;
  job->response.resume_token = job;
  job->response.deferred = &deferred;
  job->handler (&job->request, &job->response, job->user_data);
  if (deferred)
    return;
  job->response.deferred = NULL;
  job_resume (job);
}

/* Loop thread: results of finished jobs. */
void
ab_http_jobs_done (h2o_multithread_receiver_t *receiver, h2o_linklist_t *messages)
{
  AbHttpLoop *l = H2O_STRUCT_FROM_MEMBER (AbHttpLoop, job_receiver, receiver);
  while (!h2o_linklist_is_empty (messages))
    {
      AbHttpJob *job = H2O_STRUCT_FROM_MEMBER (AbHttpJob, super.link, messages->next);
      h2o_linklist_unlink (&job->super.link);
      l->outstanding--;
      gboolean delivered = job->req != NULL;
      /* Counted before sending, so a client that got its answer sees it in /metrics. */
      log_request (l->server, job->request.method, job->request.route,
                   effective_status (&job->response), job->t0, job->request.request_id, delivered);
      if (delivered)
        {
          job->watch->job = NULL;
          send_response (job->req, &job->response, job->request.request_id);
        }
      job_free (job);
      in_flight_done (l->server);
    }
}

static void
dispatch_blocking (AbHttpLoop *l, h2o_req_t *req, AbHttpJob *job)
{
  AbHttpServer *s = l->server;
  AbReqWatch *watch = h2o_mem_alloc_shared (&req->pool, sizeof *watch, on_watch_dispose);

  watch->job = job;
  job->watch = watch;
  job->req = req;
  job->loop = l;
  l->outstanding++;
  atomic_fetch_add (&s->in_flight, 1);
  /* The pool is exclusive (threads made up front): the push cannot fail. */
  g_thread_pool_push (s->pool, job, NULL);
}

/* ---- the catch-all handler ---- */

static void
run_route (AbHttpLoop *l, h2o_req_t *req, AbHttpRequest *r, AbRouteHandler handler,
           AbRouteFlags flags, gpointer user_data, gint64 t0)
{
  AbHttpResponse denied;
  ab_http_response_init (&denied);
  if (!ab_router_check_guard (l->server->router, r, &denied))
    {
      log_request (l->server, r->method, r->route, effective_status (&denied), t0, r->request_id,
                   TRUE);
      send_response (req, &denied, r->request_id);
      ab_http_response_clear (&denied);
      ab_http_request_clear (r);
      return;
    }
  ab_http_response_clear (&denied);
  if (flags == AB_ROUTE_BLOCKING || (flags == AB_ROUTE_INLINE && !l->server->cfg.inline_reads))
    {
      AbHttpJob *job = g_new0 (AbHttpJob, 1);
      job->request = *r; /* moved: the job owns it from here */
      ab_http_response_init (&job->response);
      job->handler = handler;
      job->user_data = user_data;
      job->t0 = t0;
      dispatch_blocking (l, req, job);
      return;
    }
  AbHttpResponse resp;
  ab_http_response_init (&resp);
  handler (r, &resp, user_data);
  log_request (l->server, r->method, r->route, effective_status (&resp), t0, r->request_id, TRUE);
  send_response (req, &resp, r->request_id);
  ab_http_response_clear (&resp);
  ab_http_request_clear (r);
}

static gboolean
reject_unrouted (AbHttpServer *s, h2o_req_t *req, AbRouteMatch m, const gchar *method,
                 const gchar *raw_path, const gchar *request_id, gint64 t0)
{
  if (m == AB_ROUTE_NO_PATH)
    {
      g_autofree gchar *msg = g_strdup_printf ("no route for %s %s", method, raw_path);
      send_error (s, req, 404, msg, NULL, NULL, request_id, method, t0);
      return TRUE;
    }
  if (m == AB_ROUTE_NO_METHOD)
    {
      g_autofree gchar *allow = ab_router_allowed_methods (s->router, raw_path);
      g_autofree gchar *msg = g_strdup_printf ("method %s is not supported for %s (allowed: %s)",
                                               method, raw_path, allow != NULL ? allow : "-");
      send_error (s, req, 405, msg, "allow", allow, request_id, method, t0);
      return TRUE;
    }
  if (s->cfg.read_only && ab_http_is_write (method, raw_path))
    {
      g_autofree gchar *msg = g_strdup_printf ("Write operation not allowed in read-only mode: "
                                               "%s %s",
                                               method, raw_path);
      send_error (s, req, 403, msg, NULL, NULL, request_id, method, t0);
      return TRUE;
    }
  if (req->entity.len > s->cfg.max_body)
    {
      g_autofree gchar *msg
          = g_strdup_printf ("request body exceeds %" G_GSIZE_FORMAT " bytes", s->cfg.max_body);
      send_error (s, req, 413, msg, NULL, NULL, request_id, method, t0);
      return TRUE;
    }
  return FALSE;
}

/* ---- connection cap, URI check ---- */
/* A connection accepted over the cap answers 503 (and closes, on HTTP/1) as
 * long as the server is still over it; once under, it is served as usual. */
static gboolean
shed_load (AbHttpServer *s, h2o_req_t *req, const gchar *method, const gchar *request_id, gint64 t0)
{
  AbConn *c = ab_http_conn_of (req);
  if (c == NULL || !c->shed)
    return FALSE;
  if ((guint) atomic_load (&s->n_conns) <= s->cfg.max_connections)
    {
      c->shed = FALSE;
      return FALSE;
    }
  g_autofree gchar *msg = g_strdup_printf ("the server is at its connection limit (%u); "
                                           "retry later",
                                           s->cfg.max_connections);
  req->http1_is_persistent = 0;
  send_error (s, req, 503, msg, "retry-after", "1", request_id, method, t0);
  return TRUE;
}

static gboolean
reject_early (AbHttpServer *s, h2o_req_t *req, const gchar *method, const gchar *request_id,
              gint64 t0)
{
  const gchar *why = NULL;
  if (shed_load (s, req, method, request_id, t0))
    return TRUE;
  if (ab_http_target_check (req->path.base, req->path.len, &why))
    return FALSE;
  send_error (s, req, 400, why, NULL, NULL, request_id, method, t0);
  return TRUE;
}

static int
on_req (h2o_handler_t *self, h2o_req_t *req)
{
  AbHttpServer *s = ((AbCatchAll *) self)->server;
  AbHttpLoop *l = H2O_STRUCT_FROM_MEMBER (AbHttpLoop, ctx, req->conn->ctx);
  gint64 t0 = g_get_monotonic_time ();
  g_autofree gchar *method = g_strndup (req->method.base, req->method.len);
  g_autofree gchar *raw_path = g_strndup (req->path.base, path_length (req));
  gchar *request_id = request_id_for (req);
  AbRouteHandler handler = NULL;
  AbRouteFlags flags = AB_ROUTE_INLINE;
  gpointer user_data = NULL;
  const gchar *route = NULL;
  GHashTable *params = NULL;

  if (reject_early (s, req, method, request_id, t0))
    {
      g_free (request_id);
      return 0;
    }
  AbRouteMatch m = ab_router_match (s->router, method, raw_path, &handler, &flags, &user_data,
                                    &route, &params);
  if (reject_unrouted (s, req, m, method, raw_path, request_id, t0))
    {
      g_clear_pointer (&params, g_hash_table_unref);
      g_free (request_id);
      return 0;
    }
  AbHttpRequest r;
  request_fill (&r, req, request_id);
  r.params = params;
  r.route = route;
  run_route (l, req, &r, handler, flags, user_data, t0);
  return 0;
}

/* ---- h2o's own error responses (413 on Content-Length, bad chunking) -> JSON ---- */

typedef struct {
  h2o_ostream_t super;
  h2o_iovec_t body;
  gboolean sent;
} AbJsonOstream;

static void
json_ostream_send (h2o_ostream_t *self, h2o_req_t *req, h2o_iovec_t *bufs, size_t n,
                   h2o_send_state_t state)
{
  AbJsonOstream *os = (AbJsonOstream *) self;
  if (!os->sent)
    {
      os->sent = TRUE;
      h2o_ostream_send_next (self, req, &os->body, 1, state);
    }
  else
    h2o_ostream_send_next (self, req, NULL, 0, state);
}

static void
on_setup_ostream (h2o_filter_t *self, h2o_req_t *req, h2o_ostream_t **slot)
{
  AbHttpServer *s = ((AbErrorFilter *) self)->server;
  gboolean ours = h2o_find_header_by_str (&req->res.headers, H2O_STRLIT ("x-request-id"), -1) >= 0;
  gboolean head = h2o_memis (req->method.base, req->method.len, H2O_STRLIT ("HEAD"));

  if (req->res.status >= 400 && !ours && !head)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autofree gchar *rid = request_id_for (req);
      g_autofree gchar *method = g_strndup (req->method.base, req->method.len);
      g_autofree gchar *msg
          = req->res.status == 413
                ? g_strdup_printf ("request body exceeds %" G_GSIZE_FORMAT " bytes",
                                   s->cfg.max_body)
                : g_strdup (req->res.reason != NULL ? req->res.reason : "invalid request");
      g_autoptr (GBytes) json = ab_http_error_body ((guint) req->res.status, msg);
      gsize len = 0;
      const gchar *data = g_bytes_get_data (json, &len);
      AbJsonOstream *os = (AbJsonOstream *) h2o_add_ostream (req, sizeof *os, slot);

      os->super.do_send = json_ostream_send;
      os->body = h2o_strdup (&req->pool, data, len);
      os->sent = FALSE;
      req->res.content_length = len;
      req->res.reason = ab_http_reason_phrase ((guint) req->res.status);
      h2o_set_header (&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE,
                      H2O_STRLIT ("application/json"), 1);
      add_header (req, "x-request-id", rid);
      log_request (s, method, "-", (guint) req->res.status, t0, rid, TRUE);
      slot = &os->super.next;
    }
  h2o_setup_next_ostream (req, slot);
}

/* ---- server ---- */

static void
globalconf_setup (AbHttpServer *s)
{
  h2o_config_init (&s->globalconf);
  s->globalconf.server_name = h2o_iovec_init (H2O_STRLIT ("actionbase-c"));
  s->globalconf.max_request_entity_size = s->cfg.max_body;
  /* Plain connections speak HTTP/1.1 only (no h2c upgrade, no prior
   * knowledge); HTTP/2 is negotiated by ALPN on TLS connections. */
  s->globalconf.http1.upgrade_to_http2 = 0;
  s->globalconf.http1.req_timeout = s->cfg.request_timeout_ms;
  s->globalconf.http2.idle_timeout = s->cfg.request_timeout_ms;
  s->globalconf.handshake_timeout = s->cfg.request_timeout_ms;
  h2o_hostconf_t *host
      = h2o_config_register_host (&s->globalconf, h2o_iovec_init (H2O_STRLIT ("default")), 65535);
  h2o_pathconf_t *path = h2o_config_register_path (host, "/", 0);
  AbCatchAll *handler = (AbCatchAll *) h2o_create_handler (path, sizeof *handler);
  handler->super.on_req = on_req;
  handler->server = s;
  h2o_pathconf_t *confs[] = { path, &host->fallback_path };
  for (guint i = 0; i < G_N_ELEMENTS (confs); i++)
    {
      AbErrorFilter *f = (AbErrorFilter *) h2o_create_filter (confs[i], sizeof *f);
      f->super.on_setup_ostream = on_setup_ostream;
      f->server = s;
    }
}

AbHttpServer *
ab_http_server_new (AbRouter *router, const AbHttpConfig *cfg, GError **error)
{
  AbHttpServer *s = g_new0 (AbHttpServer, 1);

  s->router = router;
  s->cfg = *cfg;
  s->cfg.host = g_strdup (cfg->host != NULL ? cfg->host : "127.0.0.1");
  s->cfg.tls_cert = g_strdup (cfg->tls_cert);
  s->cfg.tls_key = g_strdup (cfg->tls_key);
  s->cfg.request_timeout_ms = MAX (100, cfg->request_timeout_ms);
  s->cfg.http_threads = MAX (1, cfg->http_threads);
  s->cfg.workers = MAX (1, cfg->workers);
  s->port = cfg->port;
  s->n_loops = s->cfg.http_threads;
  s->loops = g_new0 (AbHttpLoop, s->n_loops);
  for (guint i = 0; i < s->n_loops; i++)
    {
      s->loops[i].server = s;
      s->loops[i].listen_fd = -1;
    }
  g_mutex_init (&s->drain_lock);
  g_cond_init (&s->drain_cond);
  globalconf_setup (s);
  g_autofree int *fds = g_new (int, s->n_loops);
  if (s->cfg.tls_cert != NULL || s->cfg.tls_key != NULL)
    {
      s->ssl_ctx = ab_http_tls_context_new (s->cfg.tls_cert, s->cfg.tls_key, error);
      if (s->ssl_ctx == NULL)
        {
          ab_http_server_free (s);
          return NULL;
        }
      h2o_ssl_register_alpn_protocols (s->ssl_ctx, h2o_http2_alpn_protocols);
    }
  if (!ab_http_bind_listeners (s->cfg.host, s->cfg.port, fds, s->n_loops, &s->port, error))
    {
      ab_http_server_free (s);
      return NULL;
    }
  for (guint i = 0; i < s->n_loops; i++)
    s->loops[i].listen_fd = fds[i];
  return s;
}

gboolean
ab_http_server_start (AbHttpServer *s, GError **error)
{
  if (s->started)
    {
      g_set_error (error, AB_HTTP_ERROR, AB_HTTP_ERROR_STATE, "server already started");
      return FALSE;
    }
  s->pool = g_thread_pool_new (worker_run, s, (gint) s->cfg.workers, TRUE, error);
  if (s->pool == NULL)
    return FALSE;
  s->started = TRUE;
  for (guint i = 0; i < s->n_loops; i++)
    {
      AbHttpLoop *l = &s->loops[i];
      g_autofree gchar *name = g_strdup_printf ("ab-http-%u", i);
      /* g_thread_new aborts on failure; a server without its loops is no use. */
      l->thread = g_thread_new (name, ab_http_loop_thread, l);
    }
  /* Control messages need the loops' receivers: wait until they exist. */
  g_mutex_lock (&s->drain_lock);
  while (s->loops_ready < s->n_loops)
    g_cond_wait (&s->drain_cond, &s->drain_lock);
  g_mutex_unlock (&s->drain_lock);
  gboolean v6 = strchr (s->cfg.host, ':') != NULL;
  fprintf (stderr, "listening on %s%s%s:%u\n", v6 ? "[" : "", s->cfg.host, v6 ? "]" : "", s->port);
  fflush (stderr);
  return TRUE;
}

static void
drain (AbHttpServer *s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) s->cfg.drain_timeout_ms * 1000;
  g_mutex_lock (&s->drain_lock);
  while (atomic_load (&s->in_flight) > 0)
    if (!g_cond_wait_until (&s->drain_cond, &s->drain_lock, deadline))
      break;
  g_mutex_unlock (&s->drain_lock);
  gint left = atomic_load (&s->in_flight);
  if (left > 0)
    g_warning ("stopping with %d request(s) still running; their responses are dropped", left);
}

void
ab_http_server_stop (AbHttpServer *s)
{
  if (!s->started || s->stopped)
    return;
  s->stopped = TRUE;
  for (guint i = 0; i < s->n_loops; i++)
    ab_http_loop_send_ctl (&s->loops[i], AB_CTL_STOP_ACCEPT);
  drain (s);
  for (guint i = 0; i < s->n_loops; i++)
    ab_http_loop_send_ctl (&s->loops[i], AB_CTL_QUIT);
  /* A loop exits only once all its jobs came back, so joining the loops
   * leaves the pool idle. */
  for (guint i = 0; i < s->n_loops; i++)
    g_clear_pointer (&s->loops[i].thread, g_thread_join);
  g_thread_pool_free (g_steal_pointer (&s->pool), FALSE, TRUE);
}

void
ab_http_server_free (AbHttpServer *s)
{
  if (s == NULL)
    return;
  ab_http_server_stop (s);
  for (guint i = 0; i < s->n_loops; i++)
    if (s->loops[i].listen_fd >= 0)
      close (s->loops[i].listen_fd);
  h2o_config_dispose (&s->globalconf);
  if (s->ssl_ctx != NULL)
    SSL_CTX_free (s->ssl_ctx);
  g_mutex_clear (&s->drain_lock);
  g_cond_clear (&s->drain_cond);
  g_free (s->loops);
  ab_http_config_clear (&s->cfg);
  g_free (s);
}

guint16
ab_http_server_get_port (AbHttpServer *s)
{
  return s->port;
}

guint
ab_http_server_in_flight (AbHttpServer *s)
{
  return (guint) atomic_load (&s->in_flight);
}

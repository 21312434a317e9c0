/* The HTTP server: N h2o event loops sharing one port (SO_REUSEPORT) that
 * dispatch requests through an AbRouter, blocking routes on a worker pool,
 * with a graceful stop. No h2o type appears in this header. */
#pragma once
#include <glib.h>
#include "rest/router.h"
#include "rest/metrics.h"
#include "store/cpus.h" /* ab_usable_cpus: the default of http_threads and workers */

#define AB_HTTP_ERROR (ab_http_error_quark ())
GQuark ab_http_error_quark (void);

typedef enum {
  AB_HTTP_ERROR_ADDRESS, /* bad or unresolvable listen address */
  AB_HTTP_ERROR_BIND,    /* socket/bind/listen failed */
  AB_HTTP_ERROR_THREAD,  /* could not start threads */
  AB_HTTP_ERROR_STATE,   /* start/stop called in the wrong state */
  AB_HTTP_ERROR_TLS,     /* certificate or key unusable */
} AbHttpError;

typedef struct {
  gchar *host;            /* listen address, default "127.0.0.1" (numeric or name) */
  guint16 port;           /* 0 = pick a free port; see ab_http_server_get_port */
  guint http_threads;     /* event loops, default = ab_usable_cpus () */
  guint workers;          /* worker pool for blocking routes, default max(64, 2*usable cpus) */
  gsize max_body;         /* request body limit in bytes, default 10 MiB -> 413 */
  guint drain_timeout_ms; /* graceful stop: wait this long for in-flight, default 10000 */
  gboolean access_log;    /* one g_info line per request, default TRUE */
  /* Where access lines go instead of g_info (the server's log writer): the
   * line without its stamp, level and domain; NULL = g_info. */
  void (*access_writer) (const gchar *domain, const gchar *line, gsize len);
  AbMetrics *metrics; /* borrowed, may be NULL */
  gchar *tls_cert;    /* PEM chain: with tls_key, serve HTTPS (HTTP/1.1 and h2 by ALPN) */
  gchar *tls_key;     /* PEM private key; both NULL = plain HTTP/1.1 */
  guint
      max_connections; /* open connections beyond this get 503 + close; 0 = no cap, default 10000 */
  guint
      request_timeout_ms; /* a request's headers and body must arrive within this, default 10000 */
  gboolean inline_reads;  /* AB_ROUTE_INLINE routes run on the loop (TRUE, default) or, when
                             * the store can block, on the worker pool (FALSE) */
  gboolean read_only;     /* every write answers 403 (ab_http_is_write), default FALSE */
} AbHttpConfig;

/* A request that changes something: any method but GET, HEAD and OPTIONS,
 * except the POST reads (paths ending /edges/get, /multi-edges/ids, /query
 * as upstream's read-only filter, and our /edges/multihop). */
gboolean ab_http_is_write (const gchar *method, const gchar *path);

/* Fills defaults; host is a newly allocated string (ab_http_config_clear
 * frees it and the TLS paths). */
void ab_http_config_init (AbHttpConfig *cfg);
void ab_http_config_clear (AbHttpConfig *cfg);

typedef struct _AbHttpServer AbHttpServer;

/* Binds the listening sockets (so the port is known before start); the router
 * is borrowed and must not change once the server is started. */
AbHttpServer *ab_http_server_new (AbRouter *router, const AbHttpConfig *cfg, GError **error);
/* Starts the loop threads and the worker pool, then prints
 * "listening on HOST:PORT" on stderr (flushed). The program ignores SIGPIPE
 * (its main): a peer that resets mid-write must cost an EPIPE, not the process. */
gboolean ab_http_server_start (AbHttpServer *server, GError **error);
/* Graceful stop: stop accepting, wait for in-flight requests (bounded by
 * drain_timeout_ms), close idle and finished connections, wait for handlers
 * still running (they cannot be cancelled; their responses are dropped if the
 * connection is gone), join the loop threads. Idempotent; blocks the caller;
 * never call it from a route handler. */
void ab_http_server_stop (AbHttpServer *server);
/* Stops if needed, then frees. */
void ab_http_server_free (AbHttpServer *server);
guint16 ab_http_server_get_port (AbHttpServer *server);
/* Requests dispatched to the worker pool and not yet answered. */
guint ab_http_server_in_flight (AbHttpServer *server);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbHttpServer, ab_http_server_free)

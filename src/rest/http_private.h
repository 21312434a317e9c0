/* Pieces of the HTTP server that need no h2o: listening sockets, request ids,
 * the access log line, request cleanup. Private to src/rest/http*.c; kept out
 * of http.c so that the h2o glue stays one readable file. */
#pragma once
#include <glib.h>
#include "rest/http.h"

/* Binds n sockets with SO_REUSEPORT on host:port (port 0: the first bind picks
 * it and the others join); fills fds[0..n) and *bound_port. On error every
 * socket opened so far is closed. */
gboolean ab_http_bind_listeners (const gchar *host, guint16 port, int *fds, guint n,
                                 guint16 *bound_port, GError **error);
/* The client's X-Request-ID when it is 1..128 printable ASCII characters,
 * else 16 random hex characters. candidate may be NULL. */
gchar *ab_http_request_id (const gchar *candidate, gsize len);
/* Metrics observation plus, when access_log, one g_info line. */
void ab_http_log_request (AbMetrics *metrics, gboolean access_log, const gchar *method,
                          const gchar *route, guint status, gint64 t0_us,
                          const gchar *request_id, gboolean delivered);
/* Frees what the transport allocated in an AbHttpRequest. */
void ab_http_request_clear (AbHttpRequest *r);

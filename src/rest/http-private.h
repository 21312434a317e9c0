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
/* Metrics observation plus, when cfg->access_log, one access line (through
 * cfg->access_writer, else g_info). */
void ab_http_log_request (const AbHttpConfig *cfg, const gchar *method, const gchar *route,
                          guint status, gint64 t0_us, const gchar *request_id, gboolean delivered);
/* Path and query as sent (len bytes): FALSE with *why (static text) when a
 * percent escape decodes to NUL or the decoded bytes are not UTF-8. The router
 * would keep %00 verbatim and replace bad UTF-8, silently altering a key;
 * the transport answers 400 instead. */
gboolean ab_http_target_check (const gchar *target, gsize len, const gchar **why);
/* An OpenSSL server context for cert (PEM chain) and key (PEM): TLS 1.2+,
 * no compression or renegotiation, AEAD suites only (HTTP/2 needs them).
 * ALPN is registered by the caller (http.c owns the h2o side). */
struct ssl_ctx_st *ab_http_tls_context_new (const gchar *cert, const gchar *key, GError **error);
/* Frees what the transport allocated in an AbHttpRequest. */
void ab_http_request_clear (AbHttpRequest *r);

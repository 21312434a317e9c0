/* The h2o-free half of the HTTP server: configuration defaults, listening
 * sockets, request ids, access log and metrics per request. */
#define G_LOG_DOMAIN "ab-http"
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "rest/http-private.h"

G_DEFINE_QUARK (ab - http - error - quark, ab_http_error)

void
ab_http_config_init (AbHttpConfig *cfg)
{
  guint cores = ab_usable_cpus ();
  memset (cfg, 0, sizeof *cfg);
  cfg->host = g_strdup ("127.0.0.1");
  cfg->port = 8080;
  cfg->http_threads = cores;
  /* Blocking requests mostly wait (LMDB group commit, HBase round trips):
   * many workers let concurrent writes share one commit. */
  cfg->workers = MAX (64, 2 * cores);
  cfg->max_body = 10 * 1024 * 1024;
  cfg->drain_timeout_ms = 10000;
  cfg->access_log = TRUE;
  cfg->max_connections = 10000;
  cfg->request_timeout_ms = 10000;
  cfg->inline_reads = TRUE;
}

void
ab_http_config_clear (AbHttpConfig *cfg)
{
  g_clear_pointer (&cfg->host, g_free);
  g_clear_pointer (&cfg->tls_cert, g_free);
  g_clear_pointer (&cfg->tls_key, g_free);
}

static gint
hex_digit (gchar c)
{
  return g_ascii_isxdigit (c) ? g_ascii_xdigit_value (c) : -1;
}

gboolean
ab_http_target_check (const gchar *target, gsize len, const gchar **why)
{
  g_autoptr (GString) raw = g_string_sized_new (len);
  for (gsize i = 0; i < len; i++)
    {
      gint hi, lo;
      if (target[i] == '%' && i + 2 < len && (hi = hex_digit (target[i + 1])) >= 0
          && (lo = hex_digit (target[i + 2])) >= 0)
        {
          if ((hi | lo) == 0)
            {
              *why = "Request URI contains an encoded NUL (%00)";
              return FALSE;
            }
          g_string_append_c (raw, (gchar) ((hi << 4) | lo));
          i += 2;
        }
      else
        g_string_append_c (raw, target[i]);
    }
  if (!g_utf8_validate_len (raw->str, raw->len, NULL))
    {
      *why = "Request URI is not valid UTF-8 once percent-decoded";
      return FALSE;
    }
  return TRUE;
}

gchar *
ab_http_request_id (const gchar *candidate, gsize len)
{
  gboolean ok = candidate != NULL && len > 0 && len <= 128;
  for (gsize k = 0; ok && k < len; k++)
    ok = candidate[k] > 0x20 && candidate[k] < 0x7f;
  if (ok)
    return g_strndup (candidate, len);
  return g_strdup_printf ("%08x%08x", g_random_int (), g_random_int ());
}

/* "method=M route=R status=S duration_ms=D.DDD request_id=I[ client=gone]",
 * written by hand into a per-thread buffer: printf and GLib's log dispatch
 * were most of the access log's cost. */
static void
line_free (gpointer line)
{
  g_string_free (line, TRUE);
}

static GPrivate access_line = G_PRIVATE_INIT (line_free);

static void
append_uint (GString *out, guint64 v)
{
  gchar digits[20];
  guint n = 0;
  do
    digits[n++] = (gchar) ('0' + v % 10);
  while ((v /= 10) > 0);
  while (n > 0)
    g_string_append_c (out, digits[--n]);
}

void
ab_http_log_request (const AbHttpConfig *cfg, const gchar *method, const gchar *route, guint status,
                     gint64 t0_us, const gchar *request_id, gboolean delivered)
{
  gint64 us = MAX (0, g_get_monotonic_time () - t0_us);
  if (cfg->metrics != NULL)
    ab_metrics_observe (cfg->metrics, route, method, status, (gdouble) us / G_USEC_PER_SEC);
  if (!cfg->access_log)
    return;
  GString *line = g_private_get (&access_line);
  if (line == NULL)
    g_private_set (&access_line, line = g_string_sized_new (256));
  g_string_truncate (line, 0);
  g_string_append_len (line, "method=", 7);
  g_string_append (line, method);
  g_string_append_len (line, " route=", 7);
  g_string_append (line, route);
  g_string_append_len (line, " status=", 8);
  append_uint (line, status);
  g_string_append_len (line, " duration_ms=", 13);
  append_uint (line, (guint64) us / 1000);
  gchar frac[4] = { '.', (gchar) ('0' + us % 1000 / 100), (gchar) ('0' + us % 100 / 10),
                    (gchar) ('0' + us % 10) };
  g_string_append_len (line, frac, sizeof frac);
  g_string_append_len (line, " request_id=", 12);
  g_string_append (line, request_id);
  if (!delivered)
    g_string_append_len (line, " client=gone", 12);
  if (cfg->access_writer != NULL)
    cfg->access_writer (G_LOG_DOMAIN, line->str, line->len);
  else
    g_info ("%s", line->str);
}

void
ab_http_request_clear (AbHttpRequest *r)
{
  g_free ((gchar *) r->method);
  g_free ((gchar *) r->path);
  g_free ((gchar *) r->request_id);
  g_clear_pointer (&r->params, g_hash_table_unref);
  g_clear_pointer (&r->query, g_hash_table_unref);
  g_clear_pointer (&r->headers, g_hash_table_unref);
  g_clear_pointer (&r->body, g_bytes_unref);
}

/* ---- listening sockets ---- */

static int
bind_one (const struct addrinfo *ai, GError **error)
{
  int one = 1;
  int fd = socket (ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0)
    {
      g_set_error (error, AB_HTTP_ERROR, AB_HTTP_ERROR_BIND, "socket: %s", g_strerror (errno));
      return -1;
    }
  if (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0
      || setsockopt (fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0
      || bind (fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen (fd, SOMAXCONN) != 0)
    {
      int saved = errno;
      close (fd);
      g_set_error (error, AB_HTTP_ERROR, AB_HTTP_ERROR_BIND, "cannot listen: %s",
                   g_strerror (saved));
      return -1;
    }
  return fd;
}

static guint16
bound_port_of (int fd)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  if (getsockname (fd, (struct sockaddr *) &ss, &len) != 0)
    return 0;
  if (ss.ss_family == AF_INET6)
    return ntohs (((struct sockaddr_in6 *) &ss)->sin6_port);
  return ntohs (((struct sockaddr_in *) &ss)->sin_port);
}

/* SO_REUSEPORT would let a second server with the same uid share a port that
 * is already served: a plain bind first makes that an error, as it should be. */
static gboolean
port_is_free (const struct addrinfo *ai, GError **error)
{
  int one = 1;
  int fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0)
    return TRUE; /* the real bind reports socket errors */
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  gboolean ok = bind (fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno != EADDRINUSE;
  close (fd);
  if (!ok)
    g_set_error (error, AB_HTTP_ERROR, AB_HTTP_ERROR_BIND, "address already in use");
  return ok;
}

static int
listen_on (const gchar *host, guint16 port, gboolean probe, GError **error)
{
  struct addrinfo hints = { 0 }, *res = NULL;
  g_autofree gchar *service = g_strdup_printf ("%u", port);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int rc = getaddrinfo (host, service, &hints, &res);
  if (rc != 0)
    {
      g_set_error (error, AB_HTTP_ERROR, AB_HTTP_ERROR_ADDRESS, "cannot resolve %s: %s", host,
                   gai_strerror (rc));
      return -1;
    }
  int fd = probe && !port_is_free (res, error) ? -1 : bind_one (res, error);
  freeaddrinfo (res);
  if (fd < 0)
    g_prefix_error (error, "%s:%u: ", host, port);
  return fd;
}

gboolean
ab_http_bind_listeners (const gchar *host, guint16 port, int *fds, guint n, guint16 *bound_port,
                        GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      fds[i] = listen_on (host, port, i == 0 && port != 0, error);
      if (fds[i] < 0)
        {
          while (i-- > 0)
            close (fds[i]);
          return FALSE;
        }
      if (i == 0)
        port = *bound_port = bound_port_of (fds[0]);
    }
  return TRUE;
}

gboolean
ab_http_is_write (const gchar *method, const gchar *path)
{
  static const gchar *const read_posts[]
      = { "/edges/get", "/multi-edges/ids", "/query", "/edges/multihop" };
  if (g_str_equal (method, "GET") || g_str_equal (method, "HEAD")
      || g_str_equal (method, "OPTIONS"))
    return FALSE;
  g_autofree gchar *bare = g_strndup (path, strcspn (path, "?"));
  /* a ranking read with its parameters in a body */
  if (g_str_has_prefix (bare, "/aggregations/v1/databases/") && strstr (bare, "/topks/") != NULL)
    return FALSE;
  /* draining a node is not a write */
  if (g_str_equal (bare, "/graph/health/readiness"))
    return FALSE;
  /* a prepared query run by id reads, as a query document does */
  if (g_str_has_prefix (bare, "/graph/v3/query/") && strchr (bare + 16, '/') == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (read_posts); i++)
    if (g_str_has_suffix (bare, read_posts[i]))
      return FALSE;
  return TRUE;
}

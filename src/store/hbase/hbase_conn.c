/* The hbase backend's connections: one Thrift client stack per connection
 * (socket, transport, protocol, client), a pool of idle ones, the call
 * wrapper with its retry rules and error mapping, and parallel jobs. */
#include "store/hbase/hbase-private.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>
#include <thrift/c_glib/protocol/thrift_binary_protocol.h>
#include <thrift/c_glib/protocol/thrift_compact_protocol.h>
#include <thrift/c_glib/thrift_application_exception.h>
#include <thrift/c_glib/transport/thrift_buffered_transport.h>
#include <thrift/c_glib/transport/thrift_framed_transport.h>
#include <thrift/c_glib/transport/thrift_socket.h>

/* The client owns none of the lower objects (docs/hbase-adapter.md §7.4): keep
 * all four and drop them client first. */
struct _AbHbConn {
  ThriftSocket *socket;
  ThriftTransport *reader; /* buffers the socket's reads (hbase_reader.c) */
  ThriftTransport *transport;
  ThriftProtocol *protocol;
  HbTHBaseServiceIf *client;
  guint generation;
};

static const gchar *const rpc_names[AB_HB_RPC_COUNT] = {
  "get",          "getMultiple", "putMultiple", "deleteMultiple",         "put",
  "deleteSingle", "increment",   "checkAndPut", "checkAndDelete",         "getScannerResults",
  "exists",       "tableExists", "createTable", "getNamespaceDescriptor", "createNamespace",
  "connect",
};

const gchar *
ab_hb_rpc_name (AbHbRpc rpc)
{
  return rpc < AB_HB_RPC_COUNT ? rpc_names[rpc] : "?";
}

static void
conn_free (AbHbConn *c)
{
  if (c == NULL)
    return;
  g_clear_object (&c->client);
  g_clear_object (&c->protocol);
  g_clear_object (&c->transport);
  g_clear_object (&c->reader);
  g_clear_object (&c->socket); /* closes the descriptor */
  g_free (c);
}

/* ---- connecting (ThriftSocket has no timeouts and no TCP_NODELAY) ---- */

static gboolean
wait_connected (int fd, guint timeout_ms, GError **error)
{
  struct pollfd p = { .fd = fd, .events = POLLOUT };
  int err = 0, r;
  socklen_t len = sizeof err;
  do
    r = poll (&p, 1, (int) timeout_ms);
  while (r < 0 && errno == EINTR);
  if (r == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "connect timed out");
      return FALSE;
    }
  if (r < 0 || getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
    err = errno;
  if (err != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (err), g_strerror (err));
      return FALSE;
    }
  return TRUE;
}

/* Send and receive timeouts of the call about to run: what is left of its
 * budget (never 0, which would mean no timeout). */
static void
arm_socket (int fd, guint timeout_ms)
{
  timeout_ms = MAX (1, timeout_ms);
  struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static void
tune_socket (int fd)
{
  int one = 1;
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt (fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
}

gboolean
ab_hb_self_connected (int fd)
{
  struct sockaddr_storage local, peer;
  socklen_t llen = sizeof local, plen = sizeof peer;
  if (getsockname (fd, (struct sockaddr *) &local, &llen) != 0
      || getpeername (fd, (struct sockaddr *) &peer, &plen) != 0
      || local.ss_family != peer.ss_family)
    return FALSE;
  if (local.ss_family == AF_INET)
    {
      const struct sockaddr_in *l = (const void *) &local, *p = (const void *) &peer;
      return l->sin_port == p->sin_port && l->sin_addr.s_addr == p->sin_addr.s_addr;
    }
  if (local.ss_family == AF_INET6)
    {
      const struct sockaddr_in6 *l = (const void *) &local, *p = (const void *) &peer;
      return l->sin6_port == p->sin6_port
             && memcmp (&l->sin6_addr, &p->sin6_addr, sizeof l->sin6_addr) == 0;
    }
  return FALSE;
}

/* A connected, tuned descriptor within timeout_ms, or -1 with error set. */
static int
connect_fd (const AbHbConfig *cfg, guint timeout_ms, GError **error)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
  gchar port[8];
  int fd = -1, rc;
  GError *last = NULL;
  g_snprintf (port, sizeof port, "%u", cfg->port);
  rc = getaddrinfo (cfg->host, port, &hints, &res);
  if (rc != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND, "%s", gai_strerror (rc));
      return -1;
    }
  for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
    {
      fd = socket (ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0)
        continue;
      g_clear_error (&last);
      if ((connect (fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS)
          && wait_connected (fd, MAX (1, timeout_ms), &last))
        {
          if (!ab_hb_self_connected (fd))
            break;
          g_set_error (&last, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED,
                       "connection refused: nothing listens on port %u (the connect reached "
                       "its own socket)",
                       cfg->port);
        }
      if (last == NULL)
        g_set_error_literal (&last, G_IO_ERROR, g_io_error_from_errno (errno), g_strerror (errno));
      close (fd);
      fd = -1;
    }
  freeaddrinfo (res);
  if (fd < 0)
    {
      g_propagate_error (
          error, last ? last : g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "no address"));
      return -1;
    }
  g_clear_error (&last);
  tune_socket (fd);
  return fd;
}

static AbHbConn *
conn_open (AbHbStore *h, guint timeout_ms, GError **error)
{
  const AbHbConfig *cfg = &h->cfg;
  AbHbConn *c;
  int fd = connect_fd (cfg, timeout_ms, error);
  if (fd < 0)
    return NULL;
  c = g_new0 (AbHbConn, 1);
  c->generation = atomic_load (&h->generation);
  /* The socket is never opened through Thrift: it adopts our descriptor. */
  c->socket = g_object_new (THRIFT_TYPE_SOCKET, "hostname", cfg->host, "port", cfg->port, NULL);
  c->socket->sd = fd;
  c->reader = ab_hb_reader_new (c->socket);
  c->transport
      = g_object_new (cfg->framed ? THRIFT_TYPE_FRAMED_TRANSPORT : THRIFT_TYPE_BUFFERED_TRANSPORT,
                      "transport", c->reader, "r_buf_size", 65536, "w_buf_size", 65536, NULL);
  c->protocol
      = g_object_new (cfg->compact ? THRIFT_TYPE_COMPACT_PROTOCOL : THRIFT_TYPE_BINARY_PROTOCOL,
                      "transport", c->transport, NULL);
  c->client = g_object_new (HB_TYPE_T_H_BASE_SERVICE_CLIENT, "input_protocol", c->protocol,
                            "output_protocol", c->protocol, NULL);
  return c;
}

/* ---- the pool ---- */

static void worker (gpointer data, gpointer user_data);

void
ab_hb_pool_init (AbHbStore *h)
{
  h->idle = g_async_queue_new_full ((GDestroyNotify) conn_free);
  atomic_init (&h->open_conns, 0);
  atomic_init (&h->generation, 0);
  h->workers = g_thread_pool_new (worker, h, (gint) h->cfg.pool, FALSE, NULL);
}

/* After every call has returned: joins the workers, closes the connections. */
void
ab_hb_pool_clear (AbHbStore *h)
{
  AbHbConn *c;
  if (h->workers != NULL)
    g_thread_pool_free (g_steal_pointer (&h->workers), FALSE, TRUE);
  if (h->idle == NULL)
    return;
  while ((c = g_async_queue_try_pop (h->idle)) != NULL)
    conn_free (c);
  g_clear_pointer (&h->idle, g_async_queue_unref);
}

static void
drop (AbHbStore *h, AbHbConn *c)
{
  conn_free (c);
  atomic_fetch_sub (&h->open_conns, 1);
}

/* An idle connection whose peer hung up (gateway restart, idle timeout) is
 * readable: nothing else is expected on a socket between calls (nor left
 * unread in its buffer). */
static gboolean
conn_usable (AbHbStore *h, AbHbConn *c)
{
  struct pollfd p = { .fd = c->socket->sd, .events = POLLIN | POLLRDHUP };
  if (c->generation != atomic_load (&h->generation) || ab_hb_reader_pending (c->reader) > 0)
    return FALSE;
  return poll (&p, 1, 0) == 0;
}

/* Within wait_ms; *connect_failed tells a failure before any request byte was sent. */
static AbHbConn *
checkout (AbHbStore *h, guint wait_ms, gboolean *connect_failed, GError **error)
{
  AbHbConn *c;
  GError *local = NULL;
  *connect_failed = FALSE;
  while ((c = g_async_queue_try_pop (h->idle)) != NULL)
    {
      if (conn_usable (h, c))
        return c;
      drop (h, c);
    }
  if (atomic_fetch_add (&h->open_conns, 1) >= (int) h->cfg.pool)
    {
      atomic_fetch_sub (&h->open_conns, 1);
      c = g_async_queue_timeout_pop (h->idle, (guint64) wait_ms * 1000);
      if (c != NULL)
        return c;
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
                   "hbase %s: all %u connections stayed busy for %u ms", h->addr, h->cfg.pool,
                   wait_ms);
      return NULL;
    }
  atomic_fetch_add_explicit (&h->calls[AB_HB_RPC_CONNECT], 1, memory_order_relaxed);
  c = conn_open (h, wait_ms, &local);
  if (c == NULL)
    {
      atomic_fetch_sub (&h->open_conns, 1);
      atomic_fetch_add_explicit (&h->errors[AB_HB_RPC_CONNECT], 1, memory_order_relaxed);
      *connect_failed = TRUE;
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
                   "hbase gateway %s unreachable: %s", h->addr, local->message);
      g_error_free (local);
    }
  return c;
}

/* ---- calls ---- */

/* Maps a failed call to AB_STORE_ERROR and says whether it may be retried. */
static gboolean
map_failure (AbHbStore *h, AbHbRpc rpc, HbTIOError *io, GError *err, gboolean idempotent,
             GError **error)
{
  const gchar *name = ab_hb_rpc_name (rpc);
  if (io != NULL)
    {
      const gchar *msg = io->message ? io->message : "(no message)";
      gboolean width = strstr (msg, "Field is not a long") != NULL;
      /* the first line: the rest is the server's Java stack trace */
      g_set_error (error, AB_STORE_ERROR, width ? AB_STORE_ERROR_WIDTH : AB_STORE_ERROR_IO,
                   "hbase %s failed: %.*s", name, (int) strcspn (msg, "\n"), msg);
      return idempotent && io->__isset_canRetry && io->canRetry;
    }
  if (err != NULL && err->domain == THRIFT_APPLICATION_EXCEPTION_ERROR)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "hbase %s failed on the gateway: %s",
                   name, err->message);
      return FALSE;
    }
  /* Transport or protocol: the connection is suspect, and so are its peers. */
  atomic_fetch_add (&h->generation, 1);
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE, "hbase %s via %s: %s", name,
               h->addr, err ? err->message : "unknown transport failure");
  return idempotent;
}

/* Milliseconds left before deadline (monotonic us), 0 when it has passed. */
static guint
left_ms (gint64 deadline)
{
  gint64 left = deadline - g_get_monotonic_time ();
  return left > 0 ? (guint) ((left + 999) / 1000) : 0;
}

/* This thread's cap on its calls' deadlines (0: none). */
static _Thread_local gint64 call_cap;

gint64
ab_hb_cap_calls (gint64 deadline)
{
  gint64 prev = call_cap;
  call_cap = deadline;
  return prev;
}

gint64
ab_hb_call_deadline (AbHbStore *h)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) h->cfg.timeout_ms * 1000;
  return call_cap != 0 && call_cap < deadline ? call_cap : deadline;
}

gboolean
ab_hb_call (AbHbStore *h, AbHbRpc rpc, gboolean idempotent, AbHbCallFn fn, gpointer ctx,
            GError **error)
{
  /* timeout_ms bounds the whole call: pool wait, connect, send, receive and
   * the retries all come out of one budget (shorter for a shared call that
   * carries callers queued before it: ab_hb_call_deadline). */
  gint64 deadline = ab_hb_call_deadline (h);
  if (left_ms (deadline) == 0)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
                   "hbase %s: no time left for the call: the callers it carries waited out "
                   "timeout_ms (%u ms) in the queue",
                   h->addr, h->cfg.timeout_ms);
      return FALSE;
    }
  for (guint attempt = 0;; attempt++)
    {
      GError *local = NULL, *err = NULL;
      HbTIOError *io = NULL;
      gboolean connect_failed, retry;
      AbHbConn *c = checkout (h, left_ms (deadline), &connect_failed, &local);
      if (c != NULL)
        {
          gint64 t0 = g_get_monotonic_time ();
          arm_socket (c->socket->sd, left_ms (deadline));
          gboolean ok = fn (c->client, ctx, &io, &err);
          atomic_fetch_add_explicit (&h->calls[rpc], 1, memory_order_relaxed);
          atomic_fetch_add_explicit (&h->micros[rpc], (guint64) (g_get_monotonic_time () - t0),
                                     memory_order_relaxed);
          if (ok)
            {
              g_async_queue_push (h->idle, c);
              return TRUE;
            }
          atomic_fetch_add_explicit (&h->errors[rpc], 1, memory_order_relaxed);
          drop (h, c); /* a failed call may leave bytes behind (§7.6) */
          retry = map_failure (h, rpc, io, err, idempotent, &local);
          g_clear_object (&io);
          g_clear_error (&err);
        }
      else
        {
          retry = connect_failed;
        }
      guint backoff_ms = MIN (20u << attempt, 500u);
      if (!retry || attempt >= h->cfg.retries || left_ms (deadline) <= backoff_ms)
        {
          if (retry && attempt < h->cfg.retries)
            g_prefix_error (&local, "gave up after %u ms: ", h->cfg.timeout_ms);
          g_propagate_error (error, local);
          return FALSE;
        }
      g_clear_error (&local);
      g_usleep (backoff_ms * 1000);
    }
}

/* ---- parallel jobs ---- */

typedef struct {
  GMutex lock;
  GCond done;
  guint pending;
} WaitGroup;

typedef struct {
  AbHbStore *h;
  AbHbJob *job;
  WaitGroup *wg;
  gint64 cap; /* the submitting thread's call cap */
} JobRun;

static void
run_job (AbHbStore *h, AbHbJob *job)
{
  ab_hb_call (h, job->rpc, job->idempotent, job->fn, job->ctx, &job->error);
}

static void
worker (gpointer data, gpointer user_data)
{
  JobRun *r = data;
  gint64 prev = ab_hb_cap_calls (r->cap);
  run_job (r->h, r->job);
  ab_hb_cap_calls (prev);
  g_mutex_lock (&r->wg->lock);
  if (--r->wg->pending == 0)
    g_cond_signal (&r->wg->done);
  g_mutex_unlock (&r->wg->lock);
  g_free (r);
}

static gboolean
first_error (AbHbJob *jobs, guint n, GError **error)
{
  AbHbJob *pick = NULL;
  for (guint i = 0; i < n; i++)
    if (jobs[i].error != NULL
        && (pick == NULL
            || (jobs[i].error->code == AB_STORE_ERROR_WIDTH
                && pick->error->code != AB_STORE_ERROR_WIDTH)))
      pick = &jobs[i];
  if (pick == NULL)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&pick->error));
  for (guint i = 0; i < n; i++)
    g_clear_error (&jobs[i].error);
  return FALSE;
}

void
ab_hb_run_jobs (AbHbStore *h, AbHbJob *jobs, guint n)
{
  WaitGroup wg = { .pending = n > 0 ? n - 1 : 0 };
  if (n == 0)
    return;
  g_mutex_init (&wg.lock);
  g_cond_init (&wg.done);
  for (guint i = 1; i < n; i++)
    {
      JobRun *r = g_new (JobRun, 1);
      *r = (JobRun){ h, &jobs[i], &wg, call_cap };
      g_thread_pool_push (h->workers, r, NULL);
    }
  run_job (h, &jobs[0]);
  g_mutex_lock (&wg.lock);
  while (wg.pending > 0)
    g_cond_wait (&wg.done, &wg.lock);
  g_mutex_unlock (&wg.lock);
  g_mutex_clear (&wg.lock);
  g_cond_clear (&wg.done);
}

gboolean
ab_hb_run_parallel (AbHbStore *h, AbHbJob *jobs, guint n, GError **error)
{
  ab_hb_run_jobs (h, jobs, n);
  return first_error (jobs, n, error);
}

/* The HTTP server's sockets and loop threads: accepting and tracking every
 * connection (the max_connections count, the HTTP/2 stall sweep), per-loop
 * setup and teardown, and the control messages of a graceful stop. */
#define G_LOG_DOMAIN "ab-http"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "rest/http_h2o.h"

#define AB_MAX_ACCEPT_BATCH 32
#define AB_FORCE_CLOSE_AFTER_US (1 * G_USEC_PER_SEC)

typedef struct {
  h2o_multithread_message_t super;
  AbCtlKind kind;
} AbCtlMsg;

static void on_conn_close (void *data);

AbConn *
ab_http_conn_of (h2o_req_t *req)
{
  h2o_socket_t *sock = req->conn->callbacks->get_socket (req->conn);
  return sock != NULL && sock->on_close.cb == on_conn_close ? sock->on_close.data : NULL;
}

/* ---- sockets ---- */

static void
on_conn_close (void *data)
{
  AbConn *c = data;
  h2o_linklist_unlink (&c->link);
  atomic_fetch_add (&c->loop->server->n_conns, -1);
  g_free (c);
}

/* Every accepted socket is tracked until h2o disposes it: the count behind
 * max_connections, and the list the stop and the stall sweep walk (HTTP/2
 * connections and TLS handshakes included, which h2o does not enumerate). */
static void
track (AbHttpLoop *l, h2o_socket_t *sock)
{
  AbHttpServer *s = l->server;
  AbConn *c = g_new0 (AbConn, 1);
  guint open = (guint) atomic_fetch_add (&s->n_conns, 1) + 1;

  c->loop = l;
  c->sock = sock;
  c->shed = s->cfg.max_connections > 0 && open > s->cfg.max_connections;
  h2o_linklist_insert (&l->conns, &c->link);
  sock->on_close.cb = on_conn_close;
  sock->on_close.data = c;
}

static void
on_accept (h2o_socket_t *listener, const char *err)
{
  AbHttpLoop *l = listener->data;
  if (err != NULL)
    return;
  for (int i = 0; i < AB_MAX_ACCEPT_BATCH; i++)
    {
      int one = 1;
      h2o_socket_t *sock = h2o_evloop_socket_accept (listener);
      if (sock == NULL)
        break;
      setsockopt (h2o_socket_get_fd (sock), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      track (l, sock);
      h2o_accept (&l->accept_ctx, sock);
    }
}

typedef struct {
  gint64 now_us;
  gint64 limit_us;
  GPtrArray *stalled; /* h2o_socket_t* (a socket may repeat) */
} AbSweep;

static int
find_stalled (h2o_req_t *req, void *data)
{
  AbSweep *sw = data;
  const struct timeval *begin = &req->timestamps.request_begin_at;
  if (begin->tv_sec == 0 || req->processed_at.at.tv_sec != 0)
    return 0;
  if (sw->now_us - ((gint64) begin->tv_sec * G_USEC_PER_SEC + begin->tv_usec) > sw->limit_us)
    {
      h2o_socket_t *sock = req->conn->callbacks->get_socket (req->conn);
      if (sock != NULL)
        g_ptr_array_add (sw->stalled, sock);
    }
  return 0;
}

/* h2o 2.2 bounds an HTTP/1 request (headers and body) by http1.req_timeout,
 * but an HTTP/2 stream only by the connection's idle timeout, which every
 * frame resets: a body trickled a byte at a time would hold its stream
 * forever. Streams not handed to a handler within request_timeout_ms cost
 * their connection (closed after the walk, never during it). */
static void
on_sweep (h2o_timeout_entry_t *entry)
{
  AbHttpLoop *l = H2O_STRUCT_FROM_MEMBER (AbHttpLoop, sweep, entry);
  AbSweep sw = { g_get_real_time (), (gint64) l->server->cfg.request_timeout_ms * 1000,
                 g_ptr_array_new () };

  l->ctx.globalconf->http2.callbacks.foreach_request (&l->ctx, find_stalled, &sw);
  for (guint i = 0; i < sw.stalled->len; i++)
    shutdown (h2o_socket_get_fd (g_ptr_array_index (sw.stalled, i)), SHUT_RDWR);
  if (sw.stalled->len > 0)
    g_message ("closed %u HTTP/2 stream(s) whose request did not arrive within %u ms",
               sw.stalled->len, l->server->cfg.request_timeout_ms);
  g_ptr_array_unref (sw.stalled);
  h2o_timeout_link (l->loop, &l->ctx.one_sec_timeout, &l->sweep);
}

/* ---- loop threads and control ---- */

static void
stop_accepting (AbHttpLoop *l)
{
  if (l->listener != NULL)
    {
      h2o_socket_read_stop (l->listener);
      h2o_socket_close (l->listener);
      l->listener = NULL;
    }
  /* HTTP/1: keep-alive off. HTTP/2: GOAWAY now and again a second later (its
   * timer is unlinked in loop_teardown if the loop ends first). Once only. */
  h2o_context_request_shutdown (&l->ctx);
}

/* SHUT_RD ends idle connections (keep-alive HTTP/1, HTTP/2 after GOAWAY, TLS
 * handshakes) at their next read while letting pending writes finish;
 * SHUT_RDWR (the forced pass) ends everything. */
static void
kick_connections (AbHttpLoop *l, int how)
{
  for (h2o_linklist_t *n = l->conns.next; n != &l->conns; n = n->next)
    shutdown (h2o_socket_get_fd (H2O_STRUCT_FROM_MEMBER (AbConn, link, n)->sock), how);
}

static void
on_ctl (h2o_multithread_receiver_t *receiver, h2o_linklist_t *messages)
{
  AbHttpLoop *l = H2O_STRUCT_FROM_MEMBER (AbHttpLoop, ctl_receiver, receiver);
  while (!h2o_linklist_is_empty (messages))
    {
      AbCtlMsg *msg = H2O_STRUCT_FROM_MEMBER (AbCtlMsg, super.link, messages->next);
      h2o_linklist_unlink (&msg->super.link);
      stop_accepting (l);
      if (msg->kind == AB_CTL_QUIT && !l->quitting)
        {
          l->quitting = TRUE;
          l->quit_at = g_get_monotonic_time ();
          kick_connections (l, SHUT_RD);
        }
      g_free (msg);
    }
}

void
ab_http_loop_send_ctl (AbHttpLoop *l, AbCtlKind kind)
{
  AbCtlMsg *msg = g_new0 (AbCtlMsg, 1);
  msg->kind = kind;
  h2o_multithread_send_message (&l->ctl_receiver, &msg->super);
}

static gboolean
loop_finished (AbHttpLoop *l)
{
  if (!l->quitting)
    return FALSE;
  if (l->outstanding == 0 && h2o_linklist_is_empty (&l->conns)
      && h2o_linklist_is_empty (&l->ctx.http1._conns)
      && h2o_linklist_is_empty (&l->ctx.http2._conns))
    return TRUE;
  if (!l->forced && g_get_monotonic_time () - l->quit_at > AB_FORCE_CLOSE_AFTER_US)
    {
      l->forced = TRUE;
      kick_connections (l, SHUT_RDWR);
    }
  return FALSE;
}

/* h2o 2.2's evloop h2o_multithread_destroy_queue (called by
 * h2o_context_dispose) never frees the queue struct, and every thread keeps a
 * cache of socket buffers: release both so nothing outlives the loop thread. */
static void
loop_teardown (AbHttpLoop *l)
{
  h2o_multithread_queue_t *queue = l->ctx.queue;
  h2o_mem_recycle_t *buffers = &h2o_socket_buffer_prototype.allocator;

  h2o_multithread_unregister_receiver (queue, &l->job_receiver);
  h2o_multithread_unregister_receiver (queue, &l->ctl_receiver);
  /* h2o_context_dispose asserts that no timer entry is left on its timeouts. */
  if (h2o_timeout_is_linked (&l->sweep))
    h2o_timeout_unlink (&l->sweep);
  if (h2o_timeout_is_linked (&l->ctx.http2._graceful_shutdown_timeout))
    h2o_timeout_unlink (&l->ctx.http2._graceful_shutdown_timeout);
  h2o_context_dispose (&l->ctx);
#if H2O_VERSION_MAJOR == 2 && H2O_VERSION_MINOR <= 2
  free (queue);
#endif
  h2o_evloop_run (l->loop, 0);
  h2o_evloop_destroy (l->loop);
  l->loop = NULL;
  while (buffers->cnt > 0)
    free (h2o_mem_alloc_recycle (buffers, 0));
}

static void
loop_setup (AbHttpServer *s, AbHttpLoop *l)
{
  l->loop = h2o_evloop_create ();
  h2o_context_init (&l->ctx, l->loop, &s->globalconf);
  l->accept_ctx.ctx = &l->ctx;
  l->accept_ctx.hosts = s->globalconf.hosts;
  l->accept_ctx.ssl_ctx = s->ssl_ctx;
  h2o_linklist_init_anchor (&l->conns);
  l->sweep.cb = on_sweep;
  h2o_timeout_link (l->loop, &l->ctx.one_sec_timeout, &l->sweep);
  h2o_multithread_register_receiver (l->ctx.queue, &l->job_receiver, ab_http_jobs_done);
  h2o_multithread_register_receiver (l->ctx.queue, &l->ctl_receiver, on_ctl);
  l->listener = h2o_evloop_socket_create (l->loop, l->listen_fd, H2O_SOCKET_FLAG_DONT_READ);
  l->listen_fd = -1;
  l->listener->data = l;
  h2o_socket_read_start (l->listener, on_accept);
}

gpointer
ab_http_loop_thread (gpointer data)
{
  AbHttpLoop *l = data;
  AbHttpServer *s = l->server;

  /* Set up here, not by the starting thread: h2o sockets take their buffer
   * allocator from the creating thread's thread-local storage. */
  loop_setup (s, l);
  g_mutex_lock (&s->drain_lock);
  s->loops_ready++;
  g_cond_broadcast (&s->drain_cond);
  g_mutex_unlock (&s->drain_lock);

  while (!loop_finished (l))
    h2o_evloop_run (l->loop, l->quitting ? 20 : INT32_MAX);

  loop_teardown (l);
  return NULL;
}

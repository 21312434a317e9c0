/* The h2o side of the HTTP server shared by http.c (requests, dispatch, the
 * server object) and http_loop.c (sockets and loop threads): the structs and
 * the few calls between them. Private to those two files, the only ones that
 * include h2o headers. */
#pragma once
#include <stdatomic.h>
#include <h2o.h>
#include "rest/http.h"
#include "rest/http-private.h"

typedef struct _AbHttpLoop AbHttpLoop;

typedef enum { AB_CTL_STOP_ACCEPT, AB_CTL_QUIT } AbCtlKind;

struct _AbHttpLoop {
  AbHttpServer *server;
  h2o_evloop_t *loop;
  h2o_context_t ctx;
  h2o_accept_ctx_t accept_ctx;
  int listen_fd; /* owned until the listener socket takes it */
  h2o_socket_t *listener;
  h2o_multithread_receiver_t job_receiver;
  h2o_multithread_receiver_t ctl_receiver;
  guint outstanding;         /* jobs of this loop not yet back; loop thread only */
  h2o_linklist_t conns;      /* AbConn of every open socket; loop thread only */
  h2o_timeout_entry_t sweep; /* once a second: stalled requests */
  gboolean quitting;
  gboolean forced;
  gint64 quit_at;
  GThread *thread;
};

/* One accepted socket (TLS handshake, HTTP/1 or HTTP/2), from accept until h2o
 * disposes the socket; hangs off sock->on_close. */
typedef struct {
  h2o_linklist_t link;
  AbHttpLoop *loop;
  h2o_socket_t *sock;
  gboolean shed; /* accepted over max_connections */
} AbConn;

struct _AbHttpServer {
  AbRouter *router;
  AbHttpConfig cfg;
  guint16 port;
  h2o_globalconf_t globalconf;
  AbHttpLoop *loops;
  guint n_loops;
  GThreadPool *pool;
  atomic_int in_flight; /* atomic: dispatched blocking jobs not yet answered */
  GMutex drain_lock;    /* with drain_cond: in_flight reaching 0, loops_ready */
  GCond drain_cond;
  guint loops_ready;
  SSL_CTX *ssl_ctx;   /* NULL: plain HTTP */
  atomic_int n_conns; /* atomic: open connections over all loops */
  gboolean started;
  gboolean stopped;
};

/* http.c: the loop's receiver of finished blocking jobs. */
void ab_http_jobs_done (h2o_multithread_receiver_t *receiver, h2o_linklist_t *messages);

/* http_loop.c: the tracked connection a request arrived on (NULL when the
 * socket is not one of ours), a loop thread's body, and its control messages. */
AbConn *ab_http_conn_of (h2o_req_t *req);
gpointer ab_http_loop_thread (gpointer loop);
void ab_http_loop_send_ctl (AbHttpLoop *l, AbCtlKind kind);

/* `actionbase --proxy`: a small HTTP endpoint (libsoup server on its own
 * thread) where POST / runs one console line and every other request is
 * forwarded to the console's --host. */
#pragma once
#include "cli/console.h"

typedef struct _AbProxy AbProxy;

/* Binds bind:port (port 0 picks one) and serves on a new thread; sets
 * c->proxy_port. NULL with error when the address cannot be bound. */
AbProxy *ab_proxy_start (AbConsole *c, const gchar *bind, guint port, GError **error);
/* Stops serving and joins the thread. */
void ab_proxy_stop (AbProxy *p);

/* The /health verdict kept off the request path: a probe thread runs a check
 * (the engine's store and sinks) every interval, and readers get the last
 * verdict at once, or DOWN when the running check has outlived its bound. */
#pragma once
#include <glib.h>

/* TRUE when healthy; else *reason (owned) says why. May block. */
typedef gboolean (*AbHealthCheck) (gpointer data, gchar **reason);

typedef struct _AbHealth AbHealth;

/* Starts the probe thread: check(data) every interval_ms; a check still
 * running after timeout_ms makes the verdict DOWN until it returns. Waits up
 * to timeout_ms for the first verdict (before it: DOWN, "starting"). */
AbHealth *ab_health_new (AbHealthCheck check, gpointer data, guint interval_ms, guint timeout_ms);
/* The current verdict; never blocks on the check. *reason (owned) is set
 * when DOWN and reason is not NULL. */
gboolean ab_health_get (AbHealth *h, gchar **reason);
/* Stops the probe: waits for a running check to return (bounded by the
 * store's own call timeout), then frees. */
void ab_health_free (AbHealth *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbHealth, ab_health_free)

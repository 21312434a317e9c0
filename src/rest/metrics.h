/* Prometheus metrics of the HTTP layer: request counters by route pattern,
 * method and status, a latency histogram per route, and extra text providers
 * (engine, store) appended to the exposition page. Thread-safe. */
#pragma once
#include <glib.h>

typedef struct _AbMetrics AbMetrics;

/* Returns newly allocated text in the Prometheus text format (or NULL). */
typedef gchar *(*AbMetricsProvider) (gpointer user_data);

AbMetrics *ab_metrics_new (void);
void ab_metrics_free (AbMetrics *metrics);
/* Records one finished request; route is the matched pattern ("-" if none). */
void ab_metrics_observe (AbMetrics *metrics, const gchar *route, const gchar *method, guint status,
                         gdouble seconds);
/* Providers are called (without any metrics lock held) on every render. */
void ab_metrics_add_provider (AbMetrics *metrics, AbMetricsProvider provider, gpointer user_data,
                              GDestroyNotify destroy);
/* The whole page, text/plain; version=0.0.4. */
gchar *ab_metrics_render (AbMetrics *metrics);

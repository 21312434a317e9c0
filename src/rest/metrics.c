/* Prometheus text exposition for the HTTP layer: per route+method counters by
 * status and a latency histogram, guarded by one mutex held only for a few
 * arithmetic operations, plus caller-registered text providers. */
#include <math.h>
#include <string.h>
#include "rest/metrics.h"

static const gdouble bucket_bounds[] = {
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
};
#define N_BUCKETS G_N_ELEMENTS (bucket_bounds)

typedef struct {
  guint status;
  guint64 count;
} AbStatusCount;

typedef struct {
  gchar *route;
  gchar *method;
  GArray *statuses;           /* AbStatusCount, few entries */
  guint64 buckets[N_BUCKETS]; /* non-cumulative; cumulated on render */
  guint64 count;
  gdouble sum;
} AbRouteStats;

typedef struct {
  AbMetricsProvider provider;
  gpointer user_data;
  GDestroyNotify destroy;
} AbProvider;

struct _AbMetrics {
  GMutex lock;
  GHashTable *routes;   /* "METHOD route" -> AbRouteStats */
  GPtrArray *providers; /* AbProvider */
};

static void
route_stats_free (gpointer data)
{
  AbRouteStats *s = data;
  g_free (s->route);
  g_free (s->method);
  g_array_unref (s->statuses);
  g_free (s);
}

static void
provider_free (gpointer data)
{
  AbProvider *p = data;
  if (p->destroy != NULL)
    p->destroy (p->user_data);
  g_free (p);
}

AbMetrics *
ab_metrics_new (void)
{
  AbMetrics *m = g_new0 (AbMetrics, 1);
  g_mutex_init (&m->lock);
  m->routes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, route_stats_free);
  m->providers = g_ptr_array_new_with_free_func (provider_free);
  return m;
}

void
ab_metrics_free (AbMetrics *m)
{
  if (m == NULL)
    return;
  g_hash_table_unref (m->routes);
  g_ptr_array_unref (m->providers);
  g_mutex_clear (&m->lock);
  g_free (m);
}

static AbRouteStats *
route_stats_lookup (AbMetrics *m, const gchar *route, const gchar *method)
{
  g_autofree gchar *key = g_strconcat (method, " ", route, NULL);
  AbRouteStats *s = g_hash_table_lookup (m->routes, key);
  if (s == NULL)
    {
      s = g_new0 (AbRouteStats, 1);
      s->route = g_strdup (route);
      s->method = g_strdup (method);
      s->statuses = g_array_new (FALSE, FALSE, sizeof (AbStatusCount));
      g_hash_table_insert (m->routes, g_steal_pointer (&key), s);
    }
  return s;
}

void
ab_metrics_observe (AbMetrics *m, const gchar *route, const gchar *method, guint status,
                    gdouble seconds)
{
  guint b = 0;
  while (b < N_BUCKETS && seconds > bucket_bounds[b])
    b++;
  g_mutex_lock (&m->lock);
  AbRouteStats *s
      = route_stats_lookup (m, route != NULL ? route : "-", method != NULL ? method : "-");
  guint i;
  for (i = 0; i < s->statuses->len; i++)
    if (g_array_index (s->statuses, AbStatusCount, i).status == status)
      break;
  if (i == s->statuses->len)
    {
      AbStatusCount sc = { status, 0 };
      g_array_append_val (s->statuses, sc);
    }
  g_array_index (s->statuses, AbStatusCount, i).count++;
  if (b < N_BUCKETS)
    s->buckets[b]++;
  s->count++;
  s->sum += seconds;
  g_mutex_unlock (&m->lock);
}

void
ab_metrics_add_provider (AbMetrics *m, AbMetricsProvider provider, gpointer user_data,
                         GDestroyNotify destroy)
{
  AbProvider *p = g_new0 (AbProvider, 1);
  p->provider = provider;
  p->user_data = user_data;
  p->destroy = destroy;
  g_mutex_lock (&m->lock);
  g_ptr_array_add (m->providers, p);
  g_mutex_unlock (&m->lock);
}

/* Label values escape backslash, double quote and newline. */
static void
append_label (GString *out, const gchar *name, const gchar *value)
{
  g_string_append_printf (out, "%s=\"", name);
  for (const gchar *c = value; *c != '\0'; c++)
    {
      if (*c == '\\' || *c == '"')
        g_string_append_c (out, '\\');
      if (*c == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *c);
    }
  g_string_append_c (out, '"');
}

static void
append_route_labels (GString *out, const AbRouteStats *s)
{
  append_label (out, "route", s->route);
  g_string_append_c (out, ',');
  append_label (out, "method", s->method);
}

static void
render_counters (GString *out, GPtrArray *sorted)
{
  g_string_append (
      out,
      "# HELP actionbase_http_requests_total HTTP requests by route pattern, method and status.\n"
      "# TYPE actionbase_http_requests_total counter\n");
  for (guint i = 0; i < sorted->len; i++)
    {
      const AbRouteStats *s = g_ptr_array_index (sorted, i);
      for (guint j = 0; j < s->statuses->len; j++)
        {
          const AbStatusCount *sc = &g_array_index (s->statuses, AbStatusCount, j);
          g_string_append (out, "actionbase_http_requests_total{");
          append_route_labels (out, s);
          g_string_append_printf (out, ",status=\"%u\"} %" G_GUINT64_FORMAT "\n", sc->status,
                                  sc->count);
        }
    }
}

/* The shortest decimal that parses back to v ("0.0005", not g_ascii_dtostr's
 * "0.00050000000000000001"), as Prometheus client libraries print numbers. */
static void
format_shortest (gchar *buf, gsize size, gdouble v)
{
  if (v == floor (v) && fabs (v) < 1e15) /* "10", not %g's "1e+01" */
    {
      g_snprintf (buf, size, "%.0f", v);
      return;
    }
  for (gint digits = 1; digits <= 17; digits++)
    {
      gchar fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, size, fmt, v);
      if (g_ascii_strtod (buf, NULL) == v)
        return;
    }
}

static void
render_histograms (GString *out, GPtrArray *sorted)
{
  g_string_append (out, "# HELP actionbase_http_request_duration_seconds HTTP request latency by "
                        "route pattern and method.\n"
                        "# TYPE actionbase_http_request_duration_seconds histogram\n");
  for (guint i = 0; i < sorted->len; i++)
    {
      const AbRouteStats *s = g_ptr_array_index (sorted, i);
      guint64 cumulative = 0;
      for (guint b = 0; b <= N_BUCKETS; b++)
        {
          gchar le[G_ASCII_DTOSTR_BUF_SIZE];
          if (b < N_BUCKETS)
            {
              cumulative += s->buckets[b];
              format_shortest (le, sizeof le, bucket_bounds[b]);
            }
          else
            g_strlcpy (le, "+Inf", sizeof le);
          g_string_append (out, "actionbase_http_request_duration_seconds_bucket{");
          append_route_labels (out, s);
          g_string_append_printf (out, ",le=\"%s\"} %" G_GUINT64_FORMAT "\n", le,
                                  b < N_BUCKETS ? cumulative : s->count);
        }
      gchar sum[G_ASCII_DTOSTR_BUF_SIZE];
      format_shortest (sum, sizeof sum, s->sum);
      g_string_append (out, "actionbase_http_request_duration_seconds_sum{");
      append_route_labels (out, s);
      g_string_append_printf (out, "} %s\n", sum);
      g_string_append (out, "actionbase_http_request_duration_seconds_count{");
      append_route_labels (out, s);
      g_string_append_printf (out, "} %" G_GUINT64_FORMAT "\n", s->count);
    }
}

static gint
compare_stats (gconstpointer a, gconstpointer b)
{
  const AbRouteStats *x = *(AbRouteStats *const *) a;
  const AbRouteStats *y = *(AbRouteStats *const *) b;
  gint c = strcmp (x->route, y->route);
  return c != 0 ? c : strcmp (x->method, y->method);
}

gchar *
ab_metrics_render (AbMetrics *m)
{
  GString *out = g_string_new (NULL);
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  g_autoptr (GPtrArray) providers = g_ptr_array_new ();
  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&m->lock);
  g_hash_table_iter_init (&it, m->routes);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_ptr_array_add (sorted, value);
  g_ptr_array_sort (sorted, compare_stats);
  render_counters (out, sorted);
  render_histograms (out, sorted);
  for (guint i = 0; i < m->providers->len; i++)
    g_ptr_array_add (providers, g_ptr_array_index (m->providers, i));
  g_mutex_unlock (&m->lock);

  /* Providers are only ever appended and live until ab_metrics_free. */
  for (guint i = 0; i < providers->len; i++)
    {
      const AbProvider *p = g_ptr_array_index (providers, i);
      g_autofree gchar *text = p->provider (p->user_data);
      if (text == NULL || *text == '\0')
        continue;
      g_string_append (out, text);
      if (out->str[out->len - 1] != '\n')
        g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

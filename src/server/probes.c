/* The probes: /health and /graph/health (the health thread's verdict),
 * /graph/health/liveness (the loop answers), /graph/health/readiness (warm,
 * not drained by PUT, healthy) and `/` (upstream's root answer). */
#include <stdatomic.h>
#include "server/probes.h"
#include "model/json_get.h"
#include "model/types.h"

struct _AbProbes {
  AbHealth *health;
  gboolean read_only;
  atomic_bool warm;    /* the store answered once: the catalog is loaded */
  atomic_bool drained; /* PUT /graph/health/readiness {"ready": false} */
};

AbProbes *
ab_probes_new (AbHealth *health, gboolean read_only)
{
  AbProbes *p = g_new0 (AbProbes, 1);
  p->health = health;
  p->read_only = read_only;
  return p;
}

void
ab_probes_free (AbProbes *p)
{
  g_free (p);
}

static void
answer (AbHttpResponse *resp, guint status, const gchar *verdict, const gchar *reason,
        gboolean read_only)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, verdict);
  if (read_only)
    {
      json_builder_set_member_name (b, "readOnly");
      json_builder_add_boolean_value (b, TRUE);
    }
  if (reason != NULL)
    {
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, reason);
    }
  json_builder_end_object (b);
  ab_http_response_json (resp, status, json_builder_get_root (b));
}

static void
health (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  AbProbes *p = data;
  g_autofree gchar *reason = NULL;
  gboolean up = ab_health_get (p->health, &reason);
  answer (resp, up ? 200 : 503, up ? "UP" : "DOWN",
          up ? NULL : (reason != NULL ? reason : "store unavailable"), p->read_only);
}

static void
liveness (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  answer (resp, 200, "UP", NULL, FALSE);
}

void
ab_probes_drain (AbProbes *p, gboolean drained)
{
  atomic_store (&p->drained, drained);
}

gboolean
ab_probes_ready (AbProbes *p, gchar **reason)
{
  g_autofree gchar *why = NULL;
  gboolean up = ab_health_get (p->health, &why);
  if (up)
    atomic_store (&p->warm, TRUE);
  gchar *no = NULL;
  if (atomic_load (&p->drained))
    no = g_strdup ("drained (PUT /graph/health/readiness {\"ready\": true} undoes it)");
  else if (!up && !atomic_load (&p->warm))
    no = g_strdup_printf ("warming up: %s", why != NULL ? why : "starting");
  else if (!up)
    no = g_steal_pointer (&why);
  if (reason != NULL)
    *reason = no;
  else
    g_free (no);
  return !atomic_load (&p->drained) && up;
}

static void
readiness (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  g_autofree gchar *reason = NULL;
  gboolean ready = ab_probes_ready (data, &reason);
  answer (resp, ready ? 200 : 503, ready ? "UP" : "OUT_OF_SERVICE", reason, FALSE);
}

/* {"ready": false} drains the node (readiness 503, everything else served),
 * {"ready": true} undoes it. */
static void
set_readiness (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  AbProbes *p = data;
  gsize len;
  const gchar *text = g_bytes_get_data (req->body, &len);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) body = ab_model_json_parse (text, (gssize) len, &error);
  JsonObject *o
      = body != NULL && JSON_NODE_HOLDS_OBJECT (body) ? json_node_get_object (body) : NULL;
  gboolean ready = TRUE;
  if (o == NULL || json_object_get_member (o, "ready") == NULL
      || !ab_model_json_bool (o, NULL, "ready", TRUE, &ready, &error))
    return ab_http_response_error (
        resp, 400, error != NULL ? error->message : "the body must be {\"ready\": true|false}");
  ab_probes_drain (p, !ready);
  readiness (req, resp, data);
}

/* upstream's RootController: {status, message, version, timestamp} */
static void
root (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree gchar *stamp = g_date_time_format_iso8601 (now);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, "UP");
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, "Actionbase is running");
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "timestamp");
  json_builder_add_string_value (b, stamp);
  json_builder_end_object (b);
  ab_http_response_json (resp, 200, json_builder_get_root (b));
}

void
ab_probes_register (AbProbes *p, AbRouter *router)
{
  /* None touches the store: they answer on the loop even when every worker waits on it. */
  const AbRouteFlags loop = AB_ROUTE_ALWAYS_INLINE;
  ab_router_add (router, "GET", "/health", loop, health, p);
  ab_router_add (router, "GET", "/graph/health", loop, health, p);
  ab_router_add (router, "GET", "/graph/health/liveness", loop, liveness, p);
  ab_router_add (router, "GET", "/graph/health/readiness", loop, readiness, p);
  ab_router_add (router, "PUT", "/graph/health/readiness", loop, set_readiness, p);
  ab_router_add (router, "GET", "/", loop, root, p);
}

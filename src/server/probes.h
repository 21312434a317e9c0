/* The probes a load balancer or an orchestrator calls, answered on the HTTP
 * loop without a key: /health and /graph/health (the store's verdict), the
 * liveness and readiness probes under /graph/health, and the root `/`. */
#pragma once
#include "rest/router.h"
#include "server/health.h"

typedef struct _AbProbes AbProbes;

/* health: the probe thread's verdicts (borrowed, outlives the probes);
 * read_only: shown on /health. */
AbProbes *ab_probes_new (AbHealth *health, gboolean read_only);
void ab_probes_free (AbProbes *p);
void ab_probes_register (AbProbes *p, AbRouter *router);
/* Drains the node (readiness 503, everything else served) or undoes it. */
void ab_probes_drain (AbProbes *p, gboolean drained);
/* Whether readiness answers UP (warm, not drained, healthy), for /metrics. */
gboolean ab_probes_ready (AbProbes *p, gchar **reason);

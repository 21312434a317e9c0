/* Helpers shared by the API handler files: body parsing, GError to HTTP
 * status mapping, and JSON writers for engine results. */
#pragma once
#include "rest/api.h"
#include "model/jsonw.h"
#include "catalog/catalog.h"
#include "model/schema.h"

/* Parses the request body as JSON; on failure answers 400 and returns NULL. */
JsonNode *ab_api_body (const AbHttpRequest *req, AbHttpResponse *resp);
/* Requires a JSON object body; answers 400 otherwise. */
JsonObject *ab_api_object (JsonNode *node, AbHttpResponse *resp);
/* Maps an engine/catalog/model error to its status and answers with it. */
void ab_api_error (AbHttpResponse *resp, const GError *error);
/* ?direction= OUT or IN, else 400 answered and FALSE. */
gboolean ab_api_require_direction (const AbHttpRequest *req, AbQueryDirection *dir,
                                   AbHttpResponse *resp);
/* 400 "`name` is not yet supported in WHAT query." for the first of names
 * given with a value; FALSE then. */
gboolean ab_api_reject_params (const AbHttpRequest *req, const gchar *const *names,
                               const gchar *what, AbHttpResponse *resp);
/* Status an error maps to (404 for catalog NOT_FOUND). */
guint ab_api_status_of (const GError *error);
/* Optional members: FALSE (and 400 answered) when present with a wrong type. */
JsonNode *ab_api_opt_member (JsonObject *o, const gchar *name, GType type, gboolean *ok,
                             AbHttpResponse *resp);
gboolean ab_api_opt_string (JsonObject *o, const gchar *name, const gchar **out,
                            AbHttpResponse *resp);
gboolean ab_api_opt_bool (JsonObject *o, const gchar *name, gboolean *set, gboolean *out,
                          AbHttpResponse *resp);
/* Values of a repeatable parameter (?a=x&a=y), each also split on commas;
 * empty ones dropped. Never NULL. */
GPtrArray *ab_api_list_param (const AbHttpRequest *req, const gchar *name);
/* The actor of a request (X-Actor-ID, legacy X-AB-Actor-ID, else "-"). */
const gchar *ab_api_actor (const AbHttpRequest *req);
/* Answers 200 with the writer's document (the writer is emptied). */
void ab_api_answer (AbHttpResponse *resp, AbJsonw *w);

/* An output edge {version, source, target, properties, left open for the
 * caller's "context" and end_object}; an EdgeFrame document (api_data.c). */
void ab_api_edge_begin (AbJsonw *w, const AbEdgeOut *e);
GBytes *ab_api_frame_body (const AbEdgeFrame *f);
/* The answer of a mutation: {"results":[{source, target | id, status, count,
 * context?}]} for an array of AbKeyResult. Uses no request state, so any
 * thread may call it (a commit completion, say). */
GBytes *ab_api_mutation_body (GArray *results, gboolean multi_edge);
/* A key result's message (ERROR and INVALID only) and context members. */
void ab_api_key_result_tail (AbJsonw *w, const AbKeyResult *r);

void ab_api_register_meta (AbRouter *router, AbEngine *engine);
void ab_api_register_agg (AbRouter *router, AbEngine *engine);
void ab_api_register_topk (AbRouter *router, AbEngine *engine);
void ab_api_register_v2 (AbRouter *router, AbEngine *engine);
void ab_api_register_data (AbRouter *router, AbEngine *engine);
void ab_api_register_queue (AbRouter *router, AbEngine *engine);
void ab_api_register_queue_db (AbRouter *router, AbEngine *engine);
/* The enqueue body and answer of both queue/v1 forms (res: AbEnqueued). */
JsonNode *ab_api_messages_body (const AbHttpRequest *req, AbHttpResponse *resp);
void ab_api_enqueue_answer (AbHttpResponse *resp, guint accepted, GArray *res);
void ab_api_register_admin (AbRouter *router, AbEngine *engine);
void ab_api_register_datastore (AbRouter *router, AbEngine *engine);
void ab_api_register_query (AbRouter *router, AbEngine *engine);
void ab_api_register_prepared (AbRouter *router, AbEngine *engine);
void ab_api_register_v2_edge (AbRouter *router, AbEngine *engine);
void ab_api_register_v2_query (AbRouter *router, AbEngine *engine);
/* The web console: GET /ui, /ui/ and /ui/{asset} from the compiled-in assets. */
void ab_api_register_ui (AbRouter *router, AbEngine *engine);

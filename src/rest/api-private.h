/* Helpers shared by the API handler files: body parsing, GError to HTTP
 * status mapping, JSON writers for engine results, and the route data and
 * descriptors that let one handler serve several kinds of thing. */
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
/* ab_api_error, then frees error (takes it). */
void ab_api_fail (AbHttpResponse *resp, GError *error);
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

/* A per-start item {start, direction, left open for the caller's members
 * and end_object}; the Count item {start, direction, count, context}. */
void ab_api_start_begin (AbJsonw *w, const AbValue *start, AbQueryDirection dir);
void ab_api_count_object (AbJsonw *w, const AbValue *start, AbQueryDirection dir, gint64 count);
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
/* The options of a mutation request: initialised, with its request id, its
 * actor and its ab-include-mutation-context header. */
void ab_api_mutate_options (const AbHttpRequest *req, AbMutateOptions *o);

/* A queue/v1 form, /namespaces/{ns} (api_queue.c) or /databases/{database}
 * (api_queue_db.c): the path parameter naming a queue's scope, and the
 * engine calls behind the handlers both forms share. get fills info (the
 * form's AbQueueInfo or AbQueueDbInfo), which answer_info answers with and
 * clears. */
typedef gboolean (*AbApiQueueGet) (AbEngine *e, const gchar *scope, const gchar *queue,
                                   gpointer info, GError **error);
typedef void (*AbApiQueueAnswer) (AbHttpResponse *resp, gpointer info);
typedef struct {
  const gchar *scope;
  AbApiQueueGet get;
  AbApiQueueAnswer answer_info;
  gboolean (*remove) (AbEngine *e, const gchar *scope, const gchar *queue, const gchar *actor,
                      GError **error);
  GArray *(*enqueue) (AbEngine *e, const gchar *scope, const gchar *queue, JsonArray *messages,
                      const gchar *actor, guint *accepted, GError **error);
} AbApiQueueForm;
/* The routes both forms share under queues ("/queue/v1/…/queues"): GET and
 * DELETE of …/{queue}, POST of …/{queue}/messages. */
void ab_api_queue_routes (AbRouter *router, AbEngine *engine, const gchar *queues,
                          const AbApiQueueForm *form);

/* The user data of a route whose handler serves several kinds of thing
 * (tables and aliases, queries and aliases, ...): the engine and the kind's
 * static descriptor, which the handler's file defines. */
typedef struct {
  AbEngine *engine;
  gconstpointer kind;
} AbApiRoute;
/* A new AbApiRoute, owned (and freed) by the router. */
AbApiRoute *ab_api_route (AbRouter *router, AbEngine *engine, gconstpointer kind);

/* The catalog calls of a kind of thing inside a database, for the handlers
 * of tables and aliases (api_meta.c, api_v2.c); get and list answer new
 * references (unref frees get's). */
typedef struct {
  GPtrArray *(*list) (AbCatalog *cat, const gchar *database);
  gpointer (*get) (AbCatalog *cat, const gchar *database, const gchar *name);
  gboolean (*remove) (AbCatalog *cat, const gchar *database, const gchar *name, GError **error);
  GDestroyNotify unref;
} AbApiInDatabase;
extern const AbApiInDatabase ab_api_tables, ab_api_aliases;

/* Each handler file adds its routes with one of these: ab_api_register runs
 * them in this order but the last, which ab_api_register_v2_edge runs (the
 * GET of its path). ab_api_register_ui serves the web console (GET /ui, /ui/
 * and /ui/{asset}) from the compiled-in assets. */
typedef void AbApiRegister (AbRouter *router, AbEngine *engine);
AbApiRegister ab_api_register_meta, ab_api_register_v2, ab_api_register_v2_edge,
    ab_api_register_data, ab_api_register_agg, ab_api_register_topk, ab_api_register_queue,
    ab_api_register_queue_db, ab_api_register_admin, ab_api_register_datastore,
    ab_api_register_query, ab_api_register_prepared, ab_api_register_ui, ab_api_register_v2_query;

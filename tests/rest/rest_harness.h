/* REST test harness: starts the real actionbased binary on a random port
 * with a temporary LMDB store, waits for /health, and offers a libsoup
 * client returning status + parsed JSON. The server is killed at the end. */
#pragma once
#include <check.h>
#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct {
  GSubprocess *proc;
  gchar *dir; /* temp dir: store + log */
  gchar *log_path;
  guint16 port;
  gchar *base;    /* "http://127.0.0.1:PORT" ("https://" with TLS) */
  gchar *ca_file; /* HTTPS: the CA file the client trusts; NULL: plain HTTP */
} AbServer;

/* The hbase:// store a server on dir uses with AB_REST_STORE=hbase (one
 * table per directory name): a second node passes it with --store. */
gchar *ab_server_hbase_store (const gchar *dir);
/* Starts a server on dir (created when NULL); extra args may be NULL. */
void ab_server_start (AbServer *srv, const gchar *dir, const gchar *const *extra_args);
/* Starts a server and returns as soon as it announced its port, before it
 * answers /health. */
void ab_server_spawn (AbServer *srv, const gchar *dir, const gchar *const *extra_args);
/* The same over HTTPS: --tls-cert cert --tls-key key, and a client that trusts
 * ca_file (copied) and negotiates HTTP/2 by ALPN. */
void ab_server_start_tls (AbServer *srv, const gchar *dir, const gchar *const *extra_args,
                          const gchar *cert, const gchar *key, const gchar *ca_file);
/* SIGTERM and wait (asserts exit status 0); keeps dir. */
void ab_server_stop (AbServer *srv);
/* Starts a stopped or killed server again on its directory (same store and
 * WAL), over plain HTTP, with extra_args. */
void ab_server_restart (AbServer *srv, const gchar *const *extra_args);
/* SIGKILL (no graceful stop); keeps dir. */
void ab_server_kill (AbServer *srv);
/* Stops (if running) and removes dir. */
void ab_server_destroy (AbServer *srv);

typedef struct {
  guint status;
  JsonNode *json; /* NULL when the body is empty or not JSON */
  gchar *body;
  gchar *content_type;
  gchar *request_id;
  guint http_version; /* SoupHTTPVersion the answer came with */
} AbReply;

void ab_reply_clear (AbReply *r);
/* path is appended to the base URL; body may be NULL. printf-style path. */
void ab_http (AbServer *srv, AbReply *out, const gchar *method, const gchar *body,
              const gchar *path_fmt, ...) G_GNUC_PRINTF (5, 6);
/* The client session the helpers use for srv (one per CA file; borrowed). */
struct _SoupSession *ab_server_session (AbServer *srv);
/* The same, where the server may be gone (killed): FALSE when no answer
 * came, instead of failing the test. */
gboolean ab_http_try (AbServer *srv, AbReply *out, const gchar *method, const gchar *body,
                      const gchar *path);
/* The value of the unlabelled sample `name` on srv's /metrics (fails the
 * test when absent). */
gdouble ab_server_metric (AbServer *srv, const gchar *name);
/* Raw body bytes (for invalid UTF-8 and huge bodies). */
void ab_http_raw (AbServer *srv, AbReply *out, const gchar *method, GBytes *body, const gchar *path,
                  const gchar *const *headers);

/* A request that must answer 200; returns the JSON body (owned). */
JsonNode *ab_http_ok (AbServer *srv, const gchar *method, const gchar *path, const gchar *body);

/* Runs actionbase-verify (from the build directory) on a store URI, with
 * --repair when asked: its exit status, 0 (clean) or 1 (mismatches); any
 * other outcome fails the test. */
gint ab_verify_store (const gchar *store, gboolean repair);

/* JSON path helpers: "a.b.0.c" on objects and arrays. */
JsonNode *ab_json_at (JsonNode *root, const gchar *path);
const gchar *ab_json_str (JsonNode *root, const gchar *path);
gint64 ab_json_int (JsonNode *root, const gchar *path);
gboolean ab_json_bool (JsonNode *root, const gchar *path);
gboolean ab_json_is_null (JsonNode *root, const gchar *path);
guint ab_json_len (JsonNode *root, const gchar *path);

/* Asserts the standard error body {timestamp,status,error,message} and status. */
void ab_assert_error_reply (const AbReply *r, guint status);
/* Sends the request and asserts a JSON error of `status` whose message
 * contains `needle` (the failure names the path and both texts). */
void ab_expect_error (AbServer *srv, const gchar *method, const gchar *path, const gchar *body,
                      guint status, const gchar *needle);

/* The main of a suite run on lmdb then memory, or on hbase alone when
 * AB_REST_STORE=hbase (hbase-suites.sh): per store a Suite with one TCase
 * called name, checked fixtures setup/teardown and a timeout in seconds;
 * add puts the tests in. 0 when every test passed, else 1. */
int ab_rest_main_stores (const gchar *name, void (*add) (TCase *tc), void (*setup) (void),
                         void (*teardown) (void), guint timeout);

/* The record sink seam for WAL and CDC: append keyed JSON records (durably
 * when asked), report health, and read them back in order for the async
 * applier. Backends: none, file:DIR (segment files), kafka://HOSTS/TOPIC. */
#pragma once
#include <stdatomic.h>
#include <glib.h>

#define AB_SINK_ERROR (ab_sink_error_quark ())
GQuark ab_sink_error_quark (void);

typedef enum {
  AB_SINK_ERROR_URI,         /* bad sink URI */
  AB_SINK_ERROR_IO,          /* could not write / make durable */
  AB_SINK_ERROR_UNAVAILABLE, /* broker down, queue full */
  AB_SINK_ERROR_CLOSED,
} AbSinkError;

/* One record: key "<src>:<tgt>" and a compact JSON value (owned strings). */
typedef struct {
  gchar *key;
  gchar *value;
} AbSinkRecord;

AbSinkRecord *ab_sink_record_new (const gchar *key, const gchar *value);
void ab_sink_record_free (AbSinkRecord *r);

/* A record read back, with its position (opaque to callers; pass the last
 * applied one to commit). */
typedef struct {
  AbSinkRecord record;
  GBytes *position;
} AbSinkEntry;

void ab_sink_entry_free (AbSinkEntry *e);

typedef struct _AbSink AbSink;
typedef struct _AbSinkReader AbSinkReader;

typedef struct {
  guint64 appended; /* records accepted */
  guint64 dropped;  /* records lost because a bounded queue was full */
  guint64 errors;   /* failed appends */
} AbSinkStats;

/* The live counters behind AbSinkStats (ab_sink_stats reads them). */
typedef struct {
  atomic_uint_fast64_t appended, dropped, errors;
} AbSinkCounters;

typedef struct {
  const gchar *name;
  /* Appends records (AbSinkRecord*, borrowed). durable: return only once
   * they survive a crash (WAL of queued modes); otherwise the sink may queue
   * them in a bounded buffer and drop (counted, logged) when it is full. */
  gboolean (*append) (AbSink *s, GPtrArray *records, gboolean durable, GError **error);
  /* TRUE when the sink can accept records; *reason says why not. */
  gboolean (*healthy) (AbSink *s, gchar **reason);
  /* Reader from a position (NULL = from the oldest retained record). */
  AbSinkReader *(*open_reader) (AbSink *s, GBytes *from, GError **error);
  /* Up to max entries (AbSinkEntry*) appended to out; waits at most
   * timeout_ms for the first one. */
  gboolean (*read) (AbSinkReader *r, guint max, gint timeout_ms, GPtrArray *out, GError **error);
  /* Everything up to and including position has been applied: the sink may
   * drop it once past retention (file) or commit the offset (kafka). */
  gboolean (*commit) (AbSinkReader *r, GBytes *position, GError **error);
  void (*close_reader) (AbSinkReader *r);
  void (*close) (AbSink *s);
  /* Optional: a position at or before every record appended from since_ms
   * (wall-clock ms) on. */
  GBytes *(*position_since) (AbSink *s, gint64 since_ms, GError **error);
} AbSinkVTable;

struct _AbSink {
  const AbSinkVTable *vt;
  gchar *uri;
  AbSinkCounters stats; /* updated atomically by the backends */
};

struct _AbSinkReader {
  AbSink *sink;
};

/* "none", "file:DIR[?segment_bytes=N&retention_ms=N]",
 * "kafka://HOST:PORT[,HOST:PORT]/TOPIC". */
AbSink *ab_sink_open (const gchar *uri, GError **error);
void ab_sink_close (AbSink *s);
gboolean ab_sink_append (AbSink *s, GPtrArray *records, gboolean durable, GError **error);
gboolean ab_sink_healthy (AbSink *s, gchar **reason);
gboolean ab_sink_is_none (AbSink *s);
void ab_sink_stats (AbSink *s, AbSinkStats *out);
AbSinkReader *ab_sink_open_reader (AbSink *s, GBytes *from, GError **error);
gboolean ab_sink_read (AbSinkReader *r, guint max, gint timeout_ms, GPtrArray *out, GError **error);
gboolean ab_sink_commit (AbSinkReader *r, GBytes *position, GError **error);
void ab_sink_close_reader (AbSinkReader *r);
/* Read-only access to a WAL another process writes ("file:DIR" only): its
 * readers never remove anything and commit is a no-op; append fails. */
AbSink *ab_sink_open_follower (const gchar *uri, GError **error);
/* A position at or before every record appended from since_ms on; NULL with
 * error when the sink cannot tell (not a file sink). */
GBytes *ab_sink_position_since (AbSink *s, gint64 since_ms, GError **error);

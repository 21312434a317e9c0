/* What the Kafka sink's producer side (sink_kafka.c) shares with its reader
 * (sink_kafka_reader.c): the sink struct, its options, librdkafka config and
 * logging helpers, and the reader's vtable entries. */
#pragma once
#include <stdatomic.h>
#include <librdkafka/rdkafka.h>
#include "wal/backend.h"

/* One producer handle and the thread that serves its callbacks. The handle
 * is replaced (under the write lock) after a fatal librdkafka error. */
typedef struct _AbKafkaSink AbKafkaSink;
typedef struct {
  AbKafkaSink *sink;
  gboolean durable;
  GRWLock lock;
  rd_kafka_t *rk;
  GThread *thread;
} AbKafkaProducer;

struct _AbKafkaSink {
  AbSink base;
  gchar *hosts;
  gchar *topic;
  gchar *group;            /* consumer group of readers */
  gint durable_timeout_ms; /* bound of a durable append */
  gint queue_timeout_ms;   /* how long queued records wait for a broker */
  gint queue_max;          /* bound of the non-durable queue (records) */
  AbKafkaProducer queued;  /* append (durable = FALSE) */
  AbKafkaProducer durable; /* append (durable = TRUE) */
  atomic_int stop;         /* threads exit */
  atomic_int probe_now;    /* an error asks for an early probe */
  atomic_int down;         /* mirror of down_reason != NULL */
  GMutex state_lock;       /* everything below */
  gchar *down_reason;      /* NULL while healthy */
  gint64 drop_logged_at;   /* rate limit of the drop / error warnings */
  guint64 drops_unlogged;
  gint64 error_logged_at;
  guint64 errors_unlogged;
};

/* Sets key=value on conf; FALSE with AB_SINK_ERROR_URI when librdkafka
 * refuses it. */
gboolean ab_kafka_conf_set (rd_kafka_conf_t *conf, const gchar *key, const gchar *value,
                            GError **error);
/* Routes librdkafka's log lines to g_debug (domain ab-kafka). */
void ab_kafka_log_cb (const rd_kafka_t *rk, int level, const char *fac, const char *buf);

AbSinkReader *ab_kafka_open_reader (AbSink *s, GBytes *from, GError **error);
gboolean ab_kafka_read (AbSinkReader *r, guint max, gint timeout_ms, GPtrArray *out,
                        GError **error);
gboolean ab_kafka_commit (AbSinkReader *r, GBytes *position, GError **error);
void ab_kafka_close_reader (AbSinkReader *r);

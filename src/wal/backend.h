/* Constructors of the sink backends, used only by sink.c's URI dispatch. */
#pragma once
#include "wal/sink.h"

AbSink *ab_sink_none_new (void);
/* dir exists or is created; query = the URI's ?options (may be NULL). */
AbSink *ab_sink_file_open (const gchar *dir, const gchar *query, GError **error);
/* Read-only: dir is another process's file WAL (ab_sink_open_follower). */
AbSink *ab_sink_file_follow (const gchar *dir, GError **error);
/* hosts "h:p[,h:p]", topic. */
AbSink *ab_sink_kafka_open (const gchar *hosts, const gchar *topic, GError **error);

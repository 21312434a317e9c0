/* Test helpers of the Kafka suites: a private broker (tests/kafka/start.sh in
 * a directory of its own) that an outage test may stop and bring back on the
 * same address without disturbing the shared one, and kcat's view of a topic. */
#pragma once
#include <glib.h>

typedef struct {
  gchar *dir;  /* start.sh DIR: data, ports, logs, kafka.pid */
  gchar *addr; /* HOST:PORT, the same after every restart */
} AbTestBroker;

/* Starts a new broker (asserts that it answers). Its directory is inside
 * AB_KAFKA_DIR when set, named outage-*, where tests/run.sh stops whatever a
 * killed suite left running; the shared broker's Maven classpath is reused. */
void ab_test_broker_start (AbTestBroker *b);
/* stop.sh: returns once the JVM is gone; FALSE when the script failed. */
gboolean ab_test_broker_stop (AbTestBroker *b);
/* start.sh on the same directory again; FALSE when it failed or the broker
 * came back on another address. */
gboolean ab_test_broker_restart (AbTestBroker *b);
/* Stops the broker and removes its directory; safe on a broker never started. */
void ab_test_broker_destroy (AbTestBroker *b);

/* Every record key of topic on the broker at addr, oldest first (kcat -e);
 * NULL when kcat fails (missing, broker unreachable). */
gchar **ab_test_kcat_keys (const gchar *addr, const gchar *topic);

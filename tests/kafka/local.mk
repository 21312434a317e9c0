# Kafka suites against real single-node brokers (included by the top
# Makefile.am). tests/run.sh starts the shared broker (tests/kafka/start.sh)
# and sets AB_KAFKA_ADDR / AB_KAFKA_DIR; without them the suites report SKIP.
# The outage tests start private brokers of their own (kafka_broker.c).
KAFKA_BROKER = tests/kafka/kafka_broker.c tests/kafka/kafka_broker.h
KAFKA_CPPFLAGS = $(AM_CPPFLAGS) -DAB_KAFKA_SCRIPTS=\"$(abs_top_srcdir)/tests/kafka\"
check_PROGRAMS += tests/kafka/test_kafka_sink
TESTS += tests/kafka/test_kafka_sink
tests_kafka_test_kafka_sink_SOURCES = tests/kafka/test_kafka_sink.c $(KAFKA_BROKER)
tests_kafka_test_kafka_sink_CPPFLAGS = $(KAFKA_CPPFLAGS)
# actionbased (AB_SERVER_BIN) publishing WAL and CDC through a broker outage.
check_PROGRAMS += tests/kafka/test_kafka_server
TESTS += tests/kafka/test_kafka_server
tests_kafka_test_kafka_server_SOURCES = tests/kafka/test_kafka_server.c $(KAFKA_BROKER) \
	$(REST_HARNESS)
tests_kafka_test_kafka_server_CPPFLAGS = $(KAFKA_CPPFLAGS) -I$(top_srcdir)/tests/rest
tests_kafka_test_kafka_server_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_kafka_test_kafka_server_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
# Two actionbased nodes on one HBase sharing the Kafka WAL: one killed -9.
check_PROGRAMS += tests/kafka/test_kafka_nodes
TESTS += tests/kafka/test_kafka_nodes
tests_kafka_test_kafka_nodes_SOURCES = tests/kafka/test_kafka_nodes.c $(REST_HARNESS)
tests_kafka_test_kafka_nodes_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/rest
tests_kafka_test_kafka_nodes_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_kafka_test_kafka_nodes_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/kafka/start.sh tests/kafka/stop.sh tests/kafka/pom.xml \
	tests/kafka/log4j2.properties

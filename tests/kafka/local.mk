# Kafka sink suite against a real single-node broker (included by the top
# Makefile.am). tests/run.sh starts the broker (tests/kafka/start.sh) and sets
# AB_KAFKA_ADDR / AB_KAFKA_DIR; without them the suite reports SKIP.
check_PROGRAMS += tests/kafka/test_kafka_sink
TESTS += tests/kafka/test_kafka_sink
tests_kafka_test_kafka_sink_SOURCES = tests/kafka/test_kafka_sink.c
tests_kafka_test_kafka_sink_CPPFLAGS = $(AM_CPPFLAGS) \
	-DAB_KAFKA_SCRIPTS=\"$(abs_top_srcdir)/tests/kafka\"
tests_kafka_test_kafka_sink_CFLAGS = $(TEST_CFLAGS)
tests_kafka_test_kafka_sink_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/kafka/start.sh tests/kafka/stop.sh tests/kafka/pom.xml \
	tests/kafka/log4j2.properties

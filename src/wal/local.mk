# wal: the record sink seam for WAL and CDC (none, file, kafka) (included by the top Makefile.am).
src_libabcore_la_SOURCES += src/wal/sink.h src/wal/backend.h src/wal/sink.c \
	src/wal/sink_none.c src/wal/sink_file.c
src_libabcore_la_SOURCES += src/wal/sink_kafka.c src/wal/sink_kafka_reader.c src/wal/sink_kafka-private.h

# The none and file sinks (the Kafka sink's suites are in tests/kafka).
check_PROGRAMS += tests/unit/wal/test_wal_sinks
TESTS += tests/unit/wal/test_wal_sinks

# wal: the record sink seam for WAL and CDC (none, file, kafka) (included by the top Makefile.am).
src_libactionbase_a_SOURCES += src/wal/sink.h src/wal/backend.h src/wal/sink.c \
	src/wal/sink_none.c src/wal/sink_file.c
src_libactionbase_a_SOURCES += src/wal/sink_kafka.c src/wal/sink_kafka_reader.c src/wal/sink_kafka-private.h

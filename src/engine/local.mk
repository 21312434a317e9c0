# engine: mutations, queries and the lock protocol over the store seam (included by the top Makefile.am).
src_libactionbase_a_SOURCES += src/engine/engine.h src/engine/engine-private.h \
	src/engine/engine.c src/engine/state.h src/engine/state.c src/engine/events.c \
	src/engine/plan.c src/engine/lock.c src/engine/mutate.c \
	src/engine/predicate.h src/engine/predicate.c src/engine/query-private.h \
	src/engine/query.c src/engine/scan.c

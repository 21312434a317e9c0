# server: the actionbased binary (main.c: startup, signals, /health, /metrics;
# config.c: flags + GKeyFile settings) and the config suite (included by the
# top Makefile.am).
# LeakSanitizer settings for programs that run h2o loops (never in a library).
SANITIZER_HOOKS = src/server/sanitizer_hooks.c
# Linked into each program (not the library: a host keeps its own allocator).
PROGRAM_SLICES = src/server/slices.c src/server/slices.h
# The server's parts (settings, health, probes, logs) are a library of their own
# that the binary and the server suites link, each suite as one file.
noinst_LIBRARIES += src/libserver.a
src_libserver_a_SOURCES = src/server/config.c src/server/config.h \
	src/server/health.c src/server/health.h src/server/probes.c src/server/probes.h \
	src/server/log.c src/server/log.h
SERVER_LIBS = src/libserver.a $(REST_LIBS)
bin_PROGRAMS += src/actionbased
src_actionbased_SOURCES = src/server/main.c $(SANITIZER_HOOKS) $(PROGRAM_SLICES)
src_actionbased_LDADD = $(MIMALLOC_LIBS) $(SERVER_LIBS) $(CORE_LIBS)

SERVER_TESTS = tests/unit/server/test_config tests/unit/server/test_health \
	tests/unit/server/test_probes tests/unit/server/test_log
check_PROGRAMS += $(SERVER_TESTS)
TESTS += $(SERVER_TESTS)
tests_unit_server_test_config_LDADD = $(SERVER_LIBS) $(TEST_LIBS)
tests_unit_server_test_health_LDADD = $(SERVER_LIBS) $(TEST_LIBS)
tests_unit_server_test_probes_LDADD = $(SERVER_LIBS) $(TEST_LIBS)
tests_unit_server_test_log_LDADD = $(SERVER_LIBS) $(TEST_LIBS)

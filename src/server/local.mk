# server: the actionbased binary (main.c: startup, signals, /health, /metrics;
# config.c: flags + GKeyFile settings) and the config suite (included by the
# top Makefile.am).
# LeakSanitizer settings for programs that run h2o loops (never in a library).
SANITIZER_HOOKS = src/server/sanitizer_hooks.c
# Linked into each program (not the library: a host keeps its own allocator).
PROGRAM_SLICES = src/server/slices.c src/server/slices.h
bin_PROGRAMS += src/actionbased
src_actionbased_SOURCES = src/server/main.c src/server/config.c src/server/config.h \
	src/server/health.c src/server/health.h src/server/probes.c src/server/probes.h \
	src/server/log.c src/server/log.h $(SANITIZER_HOOKS) $(PROGRAM_SLICES)
src_actionbased_LDADD = $(MIMALLOC_LIBS) $(REST_LIBS) $(CORE_LIBS)

check_PROGRAMS += tests/unit/server/test_config
TESTS += tests/unit/server/test_config
tests_unit_server_test_config_SOURCES = tests/unit/server/test_config.c \
	src/server/config.c src/server/config.h
tests_unit_server_test_config_LDADD = $(REST_LIBS) $(CORE_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/server/test_health
TESTS += tests/unit/server/test_health
tests_unit_server_test_health_SOURCES = tests/unit/server/test_health.c \
	src/server/health.c src/server/health.h
tests_unit_server_test_health_LDADD = $(GLIB_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/server/test_probes
TESTS += tests/unit/server/test_probes
tests_unit_server_test_probes_SOURCES = tests/unit/server/test_probes.c \
	src/server/probes.c src/server/probes.h src/server/health.c src/server/health.h
tests_unit_server_test_probes_LDADD = $(REST_LIBS) $(CORE_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/server/test_log
TESTS += tests/unit/server/test_log
tests_unit_server_test_log_SOURCES = tests/unit/server/test_log.c \
	src/server/log.c src/server/log.h
tests_unit_server_test_log_LDADD = $(GLIB_LIBS) $(CHECK_LIBS)

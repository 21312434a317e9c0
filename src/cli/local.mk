# cli: the `actionbase` console (included by the top Makefile.am), its presets,
# man page and tests, and the install rules of the deploy/ assets.
bin_PROGRAMS += src/actionbase
src_actionbase_SOURCES = \
	src/cli/main.c \
	src/cli/console.c src/cli/console.h src/cli/lexer.c \
	src/cli/client.c src/cli/client.h \
	src/cli/table.c src/cli/table.h \
	src/cli/cmd_meta.c src/cli/cmd_data.c src/cli/load.c \
	src/cli/repl.c src/cli/repl.h \
	src/cli/proxy.c src/cli/proxy.h
# Presets are looked up in $AB_PRESET_DIR, then $(pkgdatadir)/presets, then
# the source tree (so a build-dir binary finds them before `make install`).
src_actionbase_CPPFLAGS = $(AM_CPPFLAGS) -DAB_SOURCE_PRESETS=\"$(abs_top_srcdir)/src/cli/presets\"
src_actionbase_CFLAGS = $(AM_CFLAGS) $(EDIT_CFLAGS) $(YAML_CFLAGS)
src_actionbase_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(EDIT_LIBS) $(YAML_LIBS) -lm

abpresetsdir = $(pkgdatadir)/presets
dist_abpresets_DATA = src/cli/presets/likes.preset.yaml src/cli/presets/social.preset.yaml
dist_man1_MANS = src/cli/actionbase.1
dist_man8_MANS = deploy/actionbased.8

# deploy/: the sample server config goes to $(sysconfdir)/actionbase; the
# container, systemd and Kubernetes files ship in the tarball.
abconfdir = $(sysconfdir)/actionbase
dist_abconf_DATA = deploy/config/actionbased.conf
EXTRA_DIST += deploy/install-deps.sh deploy/docker/Dockerfile deploy/docker/entrypoint.sh \
	deploy/compose.yaml deploy/systemd/actionbased.service \
	deploy/k8s/actionbased.yaml deploy/k8s/verify-job.yaml deploy/k8s/verify-cronjob.yaml \
	deploy/k8s/kustomization.yaml deploy/README.md tests/cli/check-deploy.sh \
	deploy/monitoring/actionbase-rules.yaml deploy/monitoring/actionbase-rules.test.yaml \
	deploy/monitoring/actionbase-dashboard.json tests/cli/check-monitoring.sh

# Console suites: the real actionbased and actionbase binaries, driven through
# `-c`, a pseudo-terminal and the proxy (the console binary is found next to
# AB_SERVER_BIN). check-deploy.sh checks deploy/ offline against the tree and
# the built binaries (its header lists what it does and does not check);
# check-monitoring.sh checks deploy/monitoring/ with promtool and every metric
# name its rules and dashboard use against live servers (its header says where).
CLI_TEST_SOURCES = tests/cli/cli_harness.c tests/cli/cli_harness.h \
	tests/rest/rest_harness.c tests/rest/rest_harness.h
check_PROGRAMS += tests/cli/test_cli tests/cli/test_repl
TESTS += tests/cli/test_cli tests/cli/test_repl tests/cli/check-deploy.sh \
	tests/cli/check-monitoring.sh
tests_cli_test_cli_SOURCES = tests/cli/test_cli.c $(CLI_TEST_SOURCES)
tests_cli_test_cli_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_cli_test_cli_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS) -lutil
tests_cli_test_repl_SOURCES = tests/cli/test_repl.c $(CLI_TEST_SOURCES)
tests_cli_test_repl_CFLAGS = $(TEST_CFLAGS) $(SOUP_CFLAGS)
tests_cli_test_repl_LDADD = $(SOUP_LIBS) $(JSON_LIBS) $(GLIB_LIBS) $(CHECK_LIBS) -lutil

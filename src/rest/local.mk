# rest: the HTTP transport (h2o), router and metrics in their own library so the
# core suites never link h2o (included by the top Makefile.am).
noinst_LIBRARIES += src/librest.a
src_librest_a_SOURCES = \
	src/rest/router.c src/rest/router.h \
	src/rest/http.c src/rest/http.h src/rest/http-private.h src/rest/http_support.c \
	src/rest/http_h2o.h src/rest/http_loop.c src/rest/http_tls.c \
	src/rest/metrics.c src/rest/metrics.h
REST_LIBS = src/librest.a $(H2O_LIBS) $(OPENSSL_LIBS) $(SOUP_LIBS)

check_PROGRAMS += tests/rest/test_http
TESTS += tests/rest/test_http
tests_rest_test_http_SOURCES = tests/rest/test_http.c $(SANITIZER_HOOKS)
# The transport tests need the REST layer and the core library only for the
# JSON writer of error bodies (no engine, no store).
tests_rest_test_http_LDADD = $(REST_LIBS) $(CORE_LIBS) $(CHECK_LIBS)

# docs/openapi.yaml against the router (both ways), what the server serves
# at /openapi.{json,yaml}, and Schemathesis on every operation (its header).
TESTS += tests/rest/check-openapi.sh
EXTRA_DIST += tests/rest/check-openapi.sh tests/lib/server.sh tests/lib/check.sh

# The router alone (patterns, decoding, precedence, 404/405): no transport.
check_PROGRAMS += tests/unit/rest/test_router
TESTS += tests/unit/rest/test_router
tests_unit_rest_test_router_SOURCES = tests/unit/rest/test_router.c
tests_unit_rest_test_router_LDADD = $(REST_LIBS) $(CORE_LIBS) $(CHECK_LIBS)

# The Actionbase API handlers (lead): metadata v3, v2, data endpoints.
src_librest_a_SOURCES += src/rest/api.h src/rest/api-private.h src/rest/api.c \
	src/rest/api_meta.c src/rest/api_v2.c src/rest/api_v2_edge.c src/rest/api_v2_query.c src/rest/api_data.c src/rest/api_agg.c src/rest/api_topk.c src/rest/api_query.c src/rest/api_prepared.c src/rest/api_queue.c src/rest/api_queue_db.c \
	src/rest/api_admin.c src/rest/api_datastore.c src/rest/auth.h src/rest/auth.c

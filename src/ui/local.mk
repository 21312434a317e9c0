# ui: the web console served at /ui/ (src/rest/api_ui.c). Its assets are
# compiled into the REST library as a GResource, so actionbased serves them
# without files on disk (included by the top Makefile.am after src/rest).
UI_ASSETS = \
	src/ui/index.html src/ui/app.css src/ui/favicon.svg \
	src/ui/app.js src/ui/api.js src/ui/dom.js src/ui/browse.js src/ui/query.js \
	src/ui/mutate.js src/ui/watch.js src/ui/chart.js src/ui/prom.js
EXTRA_DIST += src/ui/ui.gresource.xml $(UI_ASSETS) docs/openapi.yaml src/rest/openapi-json.py
src_librest_a_SOURCES += src/rest/api_ui.c
nodist_src_librest_a_SOURCES = src/ui/ui-resources.c
BUILT_SOURCES += src/ui/ui-resources.c
CLEANFILES += src/ui/ui-resources.c src/ui/openapi.json
# The API description (docs/openapi.yaml) rides in the same resource, with
# the JSON form made from it here: /openapi.json and /openapi.yaml.
src/ui/openapi.json: docs/openapi.yaml src/rest/openapi-json.py
	$(AM_V_GEN)$(MKDIR_P) src/ui && \
	$(PYTHON3) $(srcdir)/src/rest/openapi-json.py $(srcdir)/docs/openapi.yaml $@
src/ui/ui-resources.c: src/ui/ui.gresource.xml $(UI_ASSETS) src/ui/openapi.json docs/openapi.yaml
	$(AM_V_GEN)$(MKDIR_P) src/ui && \
	$(GLIB_COMPILE_RESOURCES) --target=$@ --sourcedir=src/ui --sourcedir=$(srcdir)/src/ui \
	  --sourcedir=$(srcdir)/docs \
	  --generate-source --c-name ab_ui --manual-register $(srcdir)/src/ui/ui.gresource.xml

# browser: the web console (/ui/) in headless chromium driven by Selenium
# against the real actionbased, with and without --auth (included by the top
# Makefile.am). Screenshots go to tests/browser/test_ui.screens/ in the build
# directory. Skips (77) without chromium, chromium-driver and python3-selenium.
TESTS += tests/browser/test_ui.sh
EXTRA_DIST += tests/browser/test_ui.sh tests/browser/test_ui.py

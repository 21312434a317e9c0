# HBase integration suites (included by the top Makefile.am).

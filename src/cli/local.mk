# cli: sources and tests are listed here (included by the top Makefile.am).

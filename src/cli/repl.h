/* The interactive side of the console: printing results the upstream way,
 * the REPL (libedit line editing, history, completion, `\` continuation and
 * open-quote continuation) and the non-interactive `-c` runner. */
#pragma once
#include "cli/console.h"

/* Prints a result: output on stdout, the failure on stderr. */
void ab_repl_print (AbConsole *c, const AbResult *r, gboolean colour);
/* Reads and runs commands until exit or end of input; returns the exit status
 * (0, or 1 when the last command failed and input was not a terminal). */
int ab_repl_run (AbConsole *c, const gchar *version);
/* Runs "CMD; CMD" stopping at the first failure; returns the exit status. */
int ab_repl_run_commands (AbConsole *c, const gchar *commands);
/* TRUE when text needs another line: a trailing '\' or an open quote. The
 * '\' is dropped from the buffer. */
gboolean ab_repl_needs_more (GString *buffer, const gchar *line);

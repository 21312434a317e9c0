/* The console's core: its state (server, current database/table/alias), the
 * command table, the line lexer and the one entry point that runs a console
 * line and hands back its text, shared by the REPL, `-c` and the proxy. */
#pragma once
#include <glib.h>
#include "cli/client.h"
#include "cli/table.h"

typedef struct {
  gboolean ok;
  GString *out;  /* what the command printed (no trailing newline) */
  gchar *error;  /* the failure sentence when !ok */
  gboolean quit; /* `exit` was run */
} AbResult;

void ab_result_init (AbResult *r);
void ab_result_clear (AbResult *r);

typedef struct {
  GMutex lock; /* one command at a time: REPL and proxy threads */
  AbClient *client;
  gchar *database; /* current context; NULL when unset */
  gchar *table;
  gchar *alias;
  gboolean colour;  /* the console's own output may use colours */
  gboolean tty;     /* stdout is a terminal (progress bars) */
  guint proxy_port; /* 0 when the proxy is off */
} AbConsole;

AbConsole *ab_console_new (const gchar *host, const gchar *auth_key, gboolean debug);
void ab_console_free (AbConsole *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbConsole, ab_console_free)

/* Runs one console line (placeholders replaced, tokens, command). colour
 * paints tables; interactive allows progress output on the terminal. */
gboolean ab_console_exec (AbConsole *c, const gchar *line, gboolean colour, gboolean interactive,
                          AbResult *res);
/* "actionbase(db:table)> " (with terminal colour codes when colour). */
gchar *ab_console_prompt (AbConsole *c, gboolean colour);
/* Names for completion: kind "databases", "tables", "aliases" (current db). */
GPtrArray *ab_console_names (AbConsole *c, const gchar *kind);

/* ---- what commands see ---- */

typedef struct {
  AbConsole *console;
  GPtrArray *positional; /* words before the first --option, unquoted */
  GHashTable *opts;      /* option -> value (unquoted, "" when bare) */
  gboolean colour;
  gboolean interactive;
  AbResult *res;
} AbCall;

typedef struct {
  const gchar *name;
  const gchar *usage;
  const gchar *description;
  gboolean (*run) (AbCall *call);
} AbCommand;

const AbCommand *ab_console_commands (guint *n);

/* Option value, NULL when missing or empty (as upstream). */
const gchar *ab_call_opt (AbCall *call, const gchar *key);
gboolean ab_call_has (AbCall *call, const gchar *key);
/* i-th positional word or NULL. */
const gchar *ab_call_pos (AbCall *call, guint i);
/* Appends a line to the result text. */
void ab_call_print (AbCall *call, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);
void ab_call_table (AbCall *call, const AbTable *t);
/* Failure helpers: they set the error and return FALSE. */
gboolean ab_call_fail (AbCall *call, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);
gboolean ab_call_fail_resp (AbCall *call, const AbResponse *r, const gchar *fmt, ...)
    G_GNUC_PRINTF (3, 4);
gboolean ab_call_usage (AbCall *call, const gchar *usage);
/* Current database, or NULL after failing with the upstream sentence. */
const gchar *ab_call_database (AbCall *call);
/* Table for data commands: the first positional word, --table, --alias, or
 * the current table; NULL after failing when none. */
const gchar *ab_call_target (AbCall *call);

/* ---- lexer (lexer.c) ---- */

/* Splits on blanks outside quotes; quotes stay in the words. */
GPtrArray *ab_lex_words (const gchar *line);
/* Splits on ';' outside quotes; blank statements dropped. */
GPtrArray *ab_lex_statements (const gchar *text);
/* TRUE while a quote opened in text is not closed yet. */
gboolean ab_lex_quote_open (const gchar *text);
/* One layer of matching outer quotes removed. */
gchar *ab_lex_unquote (const gchar *word);
/* Positional words and --options of words[from..]. */
void ab_lex_options (GPtrArray *words, guint from, GPtrArray *positional, GHashTable *opts);
/* "$NOW" and "__CURRENT_TIMESTAMP__" -> the current Unix time in ms. */
gchar *ab_lex_placeholders (const gchar *text);

/* ---- commands (cmd_meta.c, cmd_data.c, load.c) ---- */

gboolean ab_cmd_create (AbCall *call);
gboolean ab_cmd_show (AbCall *call);
gboolean ab_cmd_desc (AbCall *call);
gboolean ab_cmd_use (AbCall *call);
gboolean ab_cmd_get (AbCall *call);
gboolean ab_cmd_scan (AbCall *call);
gboolean ab_cmd_count (AbCall *call);
gboolean ab_cmd_mutate (AbCall *call);
gboolean ab_cmd_load (AbCall *call);
/* Preset directory search order, for `load preset` and completion. */
gchar *ab_load_find_preset (const gchar *name);
GPtrArray *ab_load_preset_names (void);

/* Console test harness: runs the real `actionbase` binary against a server
 * started by the REST harness, either non-interactively (`-c`, output
 * captured) or on a pseudo-terminal driven keystroke by keystroke. */
#pragma once
#include "../rest/rest_harness.h"

/* The console binary: $AB_CLI_BIN, else next to AB_SERVER_BIN, else
 * src/actionbase. */
const gchar *ab_cli_bin (void);

typedef struct {
  gint status; /* exit status */
  gchar *out;  /* stdout */
  gchar *err;  /* stderr */
} AbRun;

/* Runs `actionbase --host <srv> --plain [extra...] -c commands`; asserts no
 * sanitizer report on stderr. extra may be NULL. */
void ab_cli_run (AbServer *srv, const gchar *const *extra, const gchar *commands, AbRun *out);
void ab_run_clear (AbRun *r);

/* Asserts that haystack contains needle, printing both otherwise. */
#define ab_assert_contains(haystack, needle)                                                  \
  ck_assert_msg (strstr ((haystack), (needle)) != NULL, "expected to find:\n%s\n--- in:\n%s", \
                 (needle), (haystack))

typedef struct {
  gint fd; /* master side */
  GSubprocess *proc;
  GString *seen; /* everything read so far */
  gsize mark;    /* where the next expect starts looking */
} AbPty;

/* Spawns argv on a new pseudo-terminal (200x24) as its controlling terminal,
 * with extra environment "NAME=value" entries (may be NULL). GLib reaps it. */
void ab_pty_spawn (AbPty *p, const gchar *const *argv, const gchar *const *env);
void ab_pty_send (AbPty *p, const gchar *keys);
/* Waits until the line editor has put the terminal in raw mode, so control
 * keys reach it rather than the tty's line discipline; FALSE on timeout. */
gboolean ab_pty_wait_raw (AbPty *p, guint timeout_ms);
/* Reads until needle appears after the mark (then moves the mark past it);
 * FALSE on timeout. */
gboolean ab_pty_expect (AbPty *p, const gchar *needle, guint timeout_ms);
/* Text seen since the previous mark, up to the current mark. */
gchar *ab_pty_since (AbPty *p, gsize from);
/* Reads until the console closed the terminal, asserts no sanitizer report
 * in its output, and returns its exit status, or AB_PTY_STATUS_UNKNOWN when
 * the exit could not be collected within 2 s. */
#define AB_PTY_STATUS_UNKNOWN (-1)
gint ab_pty_wait (AbPty *p);
/* Asserts a clean exit (status 0, or exited with the status not collected). */
#define ab_assert_pty_exit_ok(p)                                                     \
  G_STMT_START                                                                       \
  {                                                                                  \
    gint st_ = ab_pty_wait (p);                                                      \
    ck_assert_msg (st_ == 0 || st_ == AB_PTY_STATUS_UNKNOWN, "exit status %d", st_); \
  }                                                                                  \
  G_STMT_END
void ab_pty_clear (AbPty *p);

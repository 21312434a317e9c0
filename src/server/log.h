/* actionbased's log output: one line per message ("2024-05-01T12:00:00.123Z
 * INFO ab-http: text"), a level threshold, and per-thread buffers for INFO and
 * DEBUG lines (the access log) so that a request costs no write(2). */
#pragma once
#include <glib.h>

/* Becomes GLib's log writer: lines at or above threshold go to fd. INFO and
 * DEBUG lines are buffered per thread and written when a buffer holds
 * AB_LOG_BUFFER_BYTES, every AB_LOG_FLUSH_MS by a flusher thread, and at
 * ab_log_shutdown; MESSAGE and more severe lines first flush every buffer,
 * then are written at once. */
#define AB_LOG_BUFFER_BYTES 16384
#define AB_LOG_FLUSH_MS 100
void ab_log_install (GLogLevelFlags threshold, int fd);
void ab_log_set_threshold (GLogLevelFlags threshold);
/* An INFO line of `domain` with len bytes of message (no NUL needed), the
 * same line g_info would give, without GLib's formatting and dispatch: the
 * access log's path. */
void ab_log_info_line (const gchar *domain, const gchar *message, gsize len);
/* Writes every thread's buffered lines now (each thread's in its order). */
void ab_log_flush (void);
/* Stops the flusher and flushes; later lines are written unbuffered. */
void ab_log_shutdown (void);

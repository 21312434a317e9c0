/* Console output cells and tables: the upstream console's ASCII table shape
 * (`|` borders, upper-cased headers, left-aligned, multi-line cells) and its
 * rules for turning JSON values into cell text. */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct _AbTable AbTable;

/* columns: NULL-terminated header names, shown upper-cased. */
AbTable *ab_table_new (const gchar *const *columns);
/* Appends a row of exactly as many cells as columns (NULL cell = ""). */
void ab_table_add_row (AbTable *t, const gchar *const *cells);
/* Variadic form: the cells, then NULL. */
void ab_table_add (AbTable *t, ...) G_GNUC_NULL_TERMINATED;
guint ab_table_rows (const AbTable *t);
/* Appends the table to out, without a final newline; colour paints the
 * data cells blue. A table with no rows renders one empty row. */
void ab_table_render (const AbTable *t, gboolean colour, GString *out);
void ab_table_free (AbTable *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbTable, ab_table_free)

/* Cell text of a JSON value: strings as is, numbers truncated toward zero,
 * null -> "null", booleans, lists "[a b]" and maps "map[k:v]" (Go %v form). */
gchar *ab_cell_text (JsonNode *node);
/* Properties object -> "k: v" lines in member order. */
gchar *ab_cell_properties (JsonNode *node);
/* 1234567 -> "1,234,567". */
gchar *ab_format_grouped (gint64 v);
/* Display width of UTF-8 text (wide characters count 2). */
gsize ab_display_width (const gchar *text);

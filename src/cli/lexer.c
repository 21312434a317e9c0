/* Console line lexer: words split on blanks outside quotes (quotes kept, so
 * JSON survives unquoted), statements split on ';', option values that run
 * over several words up to the next --option, and the time placeholders. */
#include <string.h>
#include "cli/console.h"

typedef struct {
  gchar quote;     /* '\'' or '"' while inside quotes, else 0 */
  gboolean escape; /* the previous character was a backslash */
} LexState;

/* Advances the quote state over c; TRUE when c is outside any quote and not
 * part of a quote mark itself. */
static gboolean
lex_step (LexState *s, gchar c)
{
  if (s->escape)
    {
      s->escape = FALSE;
      return FALSE;
    }
  if (c == '\\')
    {
      s->escape = TRUE;
      return FALSE;
    }
  if (s->quote != 0)
    {
      if (c == s->quote)
        s->quote = 0;
      return FALSE;
    }
  if (c == '\'' || c == '"')
    {
      s->quote = c;
      return FALSE;
    }
  return TRUE;
}

static gboolean
is_blank (gchar c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

GPtrArray *
ab_lex_words (const gchar *line)
{
  GPtrArray *words = g_ptr_array_new_with_free_func (g_free);
  GString *cur = g_string_new (NULL);
  LexState s = { 0 };
  for (const gchar *p = line; *p != '\0'; p++)
    {
      gboolean free_char = lex_step (&s, *p);
      if (free_char && is_blank (*p))
        {
          if (cur->len > 0)
            g_ptr_array_add (words, g_strdup (cur->str));
          g_string_truncate (cur, 0);
          continue;
        }
      g_string_append_c (cur, *p);
    }
  if (cur->len > 0)
    g_ptr_array_add (words, g_strdup (cur->str));
  g_string_free (cur, TRUE);
  return words;
}

GPtrArray *
ab_lex_statements (const gchar *text)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GString *cur = g_string_new (NULL);
  LexState s = { 0 };
  for (const gchar *p = text;; p++)
    {
      if (*p == '\0' || (lex_step (&s, *p) && *p == ';'))
        {
          g_autofree gchar *stmt = g_strstrip (g_strdup (cur->str));
          if (stmt[0] != '\0')
            g_ptr_array_add (out, g_steal_pointer (&stmt));
          g_string_truncate (cur, 0);
          if (*p == '\0')
            break;
          continue;
        }
      g_string_append_c (cur, *p);
    }
  g_string_free (cur, TRUE);
  return out;
}

gboolean
ab_lex_quote_open (const gchar *text)
{
  LexState s = { 0 };
  for (const gchar *p = text; *p != '\0'; p++)
    lex_step (&s, *p);
  return s.quote != 0;
}

gchar *
ab_lex_unquote (const gchar *word)
{
  gsize n = strlen (word);
  if (n >= 2 && (word[0] == '\'' || word[0] == '"') && word[n - 1] == word[0])
    return g_strndup (word + 1, n - 2);
  return g_strdup (word);
}

static gboolean
is_option (const gchar *word)
{
  return g_str_has_prefix (word, "--") && word[2] != '\0';
}

void
ab_lex_options (GPtrArray *words, guint from, GPtrArray *positional, GHashTable *opts)
{
  guint i = from;
  for (; i < words->len && !is_option (words->pdata[i]); i++)
    g_ptr_array_add (positional, ab_lex_unquote (words->pdata[i]));
  while (i < words->len)
    {
      const gchar *w = words->pdata[i++];
      if (!is_option (w))
        continue;
      const gchar *eq = strchr (w, '=');
      if (eq != NULL && (strchr (w, '\'') == NULL || eq < strchr (w, '\''))
          && (strchr (w, '"') == NULL || eq < strchr (w, '"')))
        {
          g_hash_table_replace (opts, g_strndup (w + 2, eq - w - 2), ab_lex_unquote (eq + 1));
          continue;
        }
      GString *value = g_string_new (NULL);
      for (; i < words->len && !is_option (words->pdata[i]); i++)
        {
          if (value->len > 0)
            g_string_append_c (value, ' ');
          g_string_append (value, words->pdata[i]);
        }
      g_hash_table_replace (opts, g_strdup (w + 2), ab_lex_unquote (value->str));
      g_string_free (value, TRUE);
    }
}

gchar *
ab_lex_placeholders (const gchar *text)
{
  if (strstr (text, "$NOW") == NULL && strstr (text, "__CURRENT_TIMESTAMP__") == NULL)
    return g_strdup (text);
  g_autofree gchar *now = g_strdup_printf ("%" G_GINT64_FORMAT, g_get_real_time () / 1000);
  g_auto (GStrv) a = g_strsplit (text, "__CURRENT_TIMESTAMP__", -1);
  g_autofree gchar *joined = g_strjoinv (now, a);
  g_auto (GStrv) b = g_strsplit (joined, "$NOW", -1);
  return g_strjoinv (now, b);
}

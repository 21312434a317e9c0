/* libFuzzer target for the streaming JSON writer (src/rest/jsonw.c): the
 * input drives one random document written both with AbJsonw and with
 * json-glib's builder + generator; the bytes must agree and parse back. */
#include <math.h>
#include <string.h>
#include "fuzz.h"
#include "model/jsonw.h"

typedef struct {
  const uint8_t *p, *end;
  guint members;       /* suffix that keeps member names unique */
  gboolean non_finite; /* a NaN/Inf double was written (null on our side) */
  AbJsonw w;
  JsonBuilder *b;
} Doc;

static guint8
take_byte (Doc *d)
{
  return d->p < d->end ? *d->p++ : 0;
}

static guint64
take_u64 (Doc *d)
{
  guint64 v = 0;
  gsize n = MIN ((gsize) (d->end - d->p), sizeof v);
  memcpy (&v, d->p, n);
  d->p += n;
  return v;
}

/* Up to 31 raw bytes, cut at a 0x00 as both writers take C strings. */
static gchar *
take_string (Doc *d)
{
  gsize want = take_byte (d) % 32;
  gsize n = MIN (want, (gsize) (d->end - d->p));
  gchar *s = g_strndup ((const gchar *) d->p, n);
  d->p += n;
  return s;
}

static void gen_value (Doc *d, guint depth);

static void
gen_container (Doc *d, guint depth, gboolean object)
{
  guint n = take_byte (d) % 6;
  if (object)
    {
      ab_jsonw_begin_object (&d->w);
      json_builder_begin_object (d->b);
    }
  else
    {
      ab_jsonw_begin_array (&d->w);
      json_builder_begin_array (d->b);
    }
  for (guint i = 0; i < n && d->p < d->end; i++)
    {
      if (object)
        {
          g_autofree gchar *raw = take_string (d);
          g_autofree gchar *name = g_strdup_printf ("%s#%u", raw, d->members++);
          ab_jsonw_key (&d->w, name);
          json_builder_set_member_name (d->b, name);
        }
      gen_value (d, depth + 1);
    }
  if (object)
    {
      ab_jsonw_end_object (&d->w);
      json_builder_end_object (d->b);
    }
  else
    {
      ab_jsonw_end_array (&d->w);
      json_builder_end_array (d->b);
    }
}

static void
gen_value (Doc *d, guint depth)
{
  guint op = take_byte (d) % 8;
  if (depth >= 12 && op >= 5)
    op = 4;
  switch (op)
    {
      case 0:
      case 7:
        {
          g_autofree gchar *s = take_string (d);
          ab_jsonw_string (&d->w, s);
          json_builder_add_string_value (d->b, s);
        }
        break;
      case 1:
        {
          gint64 v = (gint64) take_u64 (d);
          ab_jsonw_int (&d->w, v);
          json_builder_add_int_value (d->b, v);
        }
        break;
      case 2:
        {
          guint64 bits = take_u64 (d);
          gdouble v;
          memcpy (&v, &bits, sizeof v);
          /* also whole numbers, which take the writer's printf-free path */
          if (take_byte (d) & 1)
            v = isfinite (v) ? trunc (fmod (v, 1e17)) : v;
          d->non_finite |= !isfinite (v);
          ab_jsonw_double (&d->w, v);
          json_builder_add_double_value (d->b, v);
        }
        break;
      case 3:
        {
          gboolean v = take_byte (d) & 1;
          ab_jsonw_bool (&d->w, v);
          json_builder_add_boolean_value (d->b, v);
        }
        break;
      case 4:
        ab_jsonw_null (&d->w);
        json_builder_add_null_value (d->b);
        break;
      case 5: gen_container (d, depth, TRUE); break;
      default: gen_container (d, depth, FALSE); break;
    }
}

/* json-glib's text with its non-JSON spellings turned into the writer's:
 * raw 0x1f in strings becomes \u001f, "1e+22.0" becomes "1e+22", "nan.0" and
 * "[-]inf.0" become null (jsonw.h). */
static gchar *
as_jsonw_writes (const gchar *glib)
{
  GString *out = g_string_new (NULL);
  for (const gchar *p = glib; *p != '\0';)
    {
      if (*p == '"')
        {
          g_string_append_c (out, *p++);
          while (*p != '"')
            {
              if (*p == '\\')
                g_string_append_c (out, *p++);
              if (*p == 0x1f)
                g_string_append (out, "\\u001f");
              else
                g_string_append_c (out, *p);
              p++;
            }
          g_string_append_c (out, *p++);
          continue;
        }
      if (!g_ascii_isalnum (*p) && *p != '-')
        {
          g_string_append_c (out, *p++);
          continue;
        }
      const gchar *start = p;
      while (g_ascii_isalnum (*p) || *p == '-' || *p == '+' || *p == '.')
        p++;
      g_autofree gchar *tok = g_strndup (start, p - start);
      if (g_str_has_suffix (tok, ".0") && (strstr (tok, "inf") || strstr (tok, "nan")))
        g_string_append (out, "null");
      else if (g_str_has_suffix (tok, ".0") && strchr (tok, 'e') != NULL)
        g_string_append_len (out, tok, (gssize) strlen (tok) - 2);
      else
        g_string_append (out, tok);
    }
  return g_string_free (out, FALSE);
}

static gchar *
bytes_text (GBytes *b)
{
  gsize len;
  const gchar *data = g_bytes_get_data (b, &len);
  AB_FUZZ_CHECK (memchr (data, '\0', len) == NULL);
  return g_strndup (data, len);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  Doc d = { .p = data, .end = data + size };
  ab_jsonw_init (&d.w, take_byte (&d));
  d.b = json_builder_new ();
  gen_container (&d, 0, take_byte (&d) & 1);

  g_autoptr (GBytes) ours_bytes = ab_jsonw_finish (&d.w);
  g_autofree gchar *ours = bytes_text (ours_bytes);
  g_autoptr (JsonNode) root = json_builder_get_root (d.b);
  g_object_unref (d.b);
  g_autofree gchar *glib = json_to_string (root, FALSE);
  g_autofree gchar *expect = as_jsonw_writes (glib);
  AB_FUZZ_CHECK (g_str_equal (ours, expect));

  /* the same tree walked by ab_jsonw_node */
  AbJsonw w;
  ab_jsonw_init (&w, 0);
  ab_jsonw_node (&w, root);
  g_autoptr (GBytes) walked_bytes = ab_jsonw_finish (&w);
  g_autofree gchar *walked = bytes_text (walked_bytes);
  AB_FUZZ_CHECK (g_str_equal (walked, ours));

  /* JSON: json-glib reads it back (it refuses bytes that are not UTF-8,
   * which the writer copies as json-glib does) to the same document */
  if (g_utf8_validate (ours, -1, NULL))
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) back = json_from_string (ours, &error);
      if (back == NULL)
        fprintf (stderr, "does not parse: %s\n%s\n", error->message, ours);
      AB_FUZZ_CHECK (back != NULL);
      g_autofree gchar *again = json_to_string (back, FALSE);
      AB_FUZZ_CHECK (d.non_finite || g_str_equal (again, glib));
    }
  return 0;
}

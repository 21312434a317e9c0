/* SHA-256 (FIPS 180-4): a portable block function and, on x86-64 CPUs with
 * the SHA extensions, one built on their round instructions (the layout of
 * Intel's reference code: state kept as ABEF/CDGH, four rounds per step). */
#include "admin/sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AB_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const guint32 K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

typedef void (*BlockFn) (guint32 h[8], const guint8 *data, gsize blocks);

#define ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))

static void
blocks_portable (guint32 h[8], const guint8 *data, gsize blocks)
{
  for (; blocks > 0; blocks--, data += 64)
    {
      guint32 w[64], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6],
                     hh = h[7];
      for (guint t = 0; t < 16; t++)
        w[t] = (guint32) data[4 * t] << 24 | (guint32) data[4 * t + 1] << 16
               | (guint32) data[4 * t + 2] << 8 | data[4 * t + 3];
      for (guint t = 16; t < 64; t++)
        {
          guint32 s0 = ROR (w[t - 15], 7) ^ ROR (w[t - 15], 18) ^ (w[t - 15] >> 3);
          guint32 s1 = ROR (w[t - 2], 17) ^ ROR (w[t - 2], 19) ^ (w[t - 2] >> 10);
          w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
      for (guint t = 0; t < 64; t++)
        {
          guint32 t1
              = hh + (ROR (e, 6) ^ ROR (e, 11) ^ ROR (e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
          guint32 t2 = (ROR (a, 2) ^ ROR (a, 13) ^ ROR (a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
          hh = g;
          g = f;
          f = e;
          e = d + t1;
          d = c;
          c = b;
          b = a;
          a = t1 + t2;
        }
      h[0] += a;
      h[1] += b;
      h[2] += c;
      h[3] += d;
      h[4] += e;
      h[5] += f;
      h[6] += g;
      h[7] += hh;
    }
}

#ifdef AB_SHA256_X86
__attribute__ ((target ("sha,sse4.1,ssse3"))) static void
blocks_x86 (guint32 h[8], const guint8 *data, gsize blocks)
{
  const __m128i mask = _mm_set_epi64x (0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_loadu_si128 ((const __m128i *) &h[0]);
  __m128i state1 = _mm_loadu_si128 ((const __m128i *) &h[4]);
  tmp = _mm_shuffle_epi32 (tmp, 0xB1);               /* CDAB */
  state1 = _mm_shuffle_epi32 (state1, 0x1B);         /* EFGH */
  __m128i state0 = _mm_alignr_epi8 (tmp, state1, 8); /* ABEF */
  state1 = _mm_blend_epi16 (state1, tmp, 0xF0);      /* CDGH */
  for (; blocks > 0; blocks--, data += 64)
    {
      __m128i abef = state0, cdgh = state1, w[4];
      for (guint i = 0; i < 16; i++)
        {
          if (i < 4)
            w[i] = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *) (data + 16 * i)), mask);
          else
            w[i & 3] = _mm_sha256msg2_epu32 (
                _mm_add_epi32 (_mm_sha256msg1_epu32 (w[i & 3], w[(i + 1) & 3]),
                               _mm_alignr_epi8 (w[(i + 3) & 3], w[(i + 2) & 3], 4)),
                w[(i + 3) & 3]);
          __m128i msg = _mm_add_epi32 (w[i & 3], _mm_loadu_si128 ((const __m128i *) &K[4 * i]));
          state1 = _mm_sha256rnds2_epu32 (state1, state0, msg);
          msg = _mm_shuffle_epi32 (msg, 0x0E);
          state0 = _mm_sha256rnds2_epu32 (state0, state1, msg);
        }
      state0 = _mm_add_epi32 (state0, abef);
      state1 = _mm_add_epi32 (state1, cdgh);
    }
  tmp = _mm_shuffle_epi32 (state0, 0x1B);       /* FEBA */
  state1 = _mm_shuffle_epi32 (state1, 0xB1);    /* DCHG */
  state0 = _mm_blend_epi16 (tmp, state1, 0xF0); /* DCBA */
  state1 = _mm_alignr_epi8 (state1, tmp, 8);    /* ABEF */
  _mm_storeu_si128 ((__m128i *) &h[0], state0);
  _mm_storeu_si128 ((__m128i *) &h[4], state1);
}

static gboolean
cpu_has_sha (void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid (1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
    return FALSE;
  if (!__get_cpuid_count (7, 0, &a, &b, &c, &d))
    return FALSE;
  return (b & (1u << 29)) != 0; /* SHA */
}
#endif

static BlockFn block_fn;

gboolean
ab_sha256_use_cpu (gboolean allow)
{
  BlockFn fn = blocks_portable;
#ifdef AB_SHA256_X86
  if (allow && cpu_has_sha ())
    fn = blocks_x86;
#endif
  g_atomic_pointer_set (&block_fn, fn);
  return fn != blocks_portable;
}

static BlockFn
blocks (void)
{
  BlockFn fn = g_atomic_pointer_get (&block_fn);
  if (fn == NULL)
    {
      ab_sha256_use_cpu (TRUE);
      fn = g_atomic_pointer_get (&block_fn);
    }
  return fn;
}

void
ab_sha256_init (AbSha256 *s)
{
  static const guint32 iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  memcpy (s->h, iv, sizeof iv);
  s->buf_len = 0;
  s->total = 0;
}

void
ab_sha256_update (AbSha256 *s, const void *data, gsize len)
{
  const guint8 *p = data;
  BlockFn fn = blocks ();
  s->total += len;
  if (s->buf_len > 0)
    {
      gsize take = MIN (len, 64 - s->buf_len);
      memcpy (s->buf + s->buf_len, p, take);
      s->buf_len += take;
      p += take;
      len -= take;
      if (s->buf_len < 64)
        return;
      fn (s->h, s->buf, 1);
      s->buf_len = 0;
    }
  if (len >= 64)
    {
      fn (s->h, p, len / 64);
      p += len / 64 * 64;
      len %= 64;
    }
  memcpy (s->buf, p, len);
  s->buf_len = len;
}

void
ab_sha256_hex (AbSha256 *s, gchar out[65])
{
  guint64 bits = s->total * 8;
  guint8 pad[72] = { 0x80 };
  gsize n = (s->buf_len < 56 ? 56 : 120) - s->buf_len;
  for (guint i = 0; i < 8; i++)
    pad[n + i] = (guint8) (bits >> (56 - 8 * i));
  ab_sha256_update (s, pad, n + 8);
  for (guint i = 0; i < 8; i++)
    g_snprintf (out + 8 * i, 9, "%08x", s->h[i]);
}

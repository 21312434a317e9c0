/* The OpenSSL half of HTTPS: the server context built from a certificate
 * chain and a private key, with errors from OpenSSL's queue turned into a
 * GError. No h2o here: http.c registers ALPN and hands the context to h2o. */
#define G_LOG_DOMAIN "ab-http"
#include <openssl/err.h>
#include <openssl/ssl.h>
#include "rest/http-private.h"

/* TLS 1.2 suites HTTP/2 accepts (RFC 7540 §9.2.2: ephemeral keys, AEAD);
 * TLS 1.3 suites are AEAD by construction and keep OpenSSL's defaults. */
#define AB_TLS12_CIPHERS "ECDHE+AESGCM:ECDHE+CHACHA20"

static gboolean
tls_fail (GError **error, const gchar *what, const gchar *path)
{
  gchar reason[256] = "unknown error";
  unsigned long e = ERR_peek_last_error ();
  if (e != 0)
    ERR_error_string_n (e, reason, sizeof reason);
  ERR_clear_error ();
  g_set_error (error, AB_HTTP_ERROR, AB_HTTP_ERROR_TLS, "%s %s: %s", what, path != NULL ? path : "",
               reason);
  return FALSE;
}

static gboolean
load_pair (SSL_CTX *ctx, const gchar *cert, const gchar *key, GError **error)
{
  if (SSL_CTX_use_certificate_chain_file (ctx, cert) != 1)
    return tls_fail (error, "cannot load the TLS certificate", cert);
  if (SSL_CTX_use_PrivateKey_file (ctx, key, SSL_FILETYPE_PEM) != 1)
    return tls_fail (error, "cannot load the TLS key", key);
  if (SSL_CTX_check_private_key (ctx) != 1)
    return tls_fail (error, "the TLS key does not match the certificate", cert);
  return TRUE;
}

struct ssl_ctx_st *
ab_http_tls_context_new (const gchar *cert, const gchar *key, GError **error)
{
  if (cert == NULL || key == NULL)
    {
      g_set_error_literal (error, AB_HTTP_ERROR, AB_HTTP_ERROR_TLS,
                           "HTTPS needs both a certificate (tls-cert) and a key (tls-key)");
      return NULL;
    }
  ERR_clear_error ();
  SSL_CTX *ctx = SSL_CTX_new (TLS_server_method ());
  if (ctx == NULL)
    {
      tls_fail (error, "cannot create the TLS context", NULL);
      return NULL;
    }
  SSL_CTX_set_min_proto_version (ctx, TLS1_2_VERSION);
  SSL_CTX_set_options (ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION
                                | SSL_OP_CIPHER_SERVER_PREFERENCE);
  gboolean ok = SSL_CTX_set_cipher_list (ctx, AB_TLS12_CIPHERS) == 1
                    ? load_pair (ctx, cert, key, error)
                    : tls_fail (error, "cannot set the TLS ciphers", NULL);
  if (!ok)
    g_clear_pointer (&ctx, SSL_CTX_free);
  return ctx;
}

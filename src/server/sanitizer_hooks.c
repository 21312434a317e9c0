/* LeakSanitizer settings of the programs that run the HTTP server's h2o loops
 * (actionbased, the transport suite): linked into those programs only, never
 * into a library, so each program decides what its sanitizer reports. */

/* The one thing the loop teardown cannot release: h2o 2.2 keeps up to 16 freed
 * 4 KiB request-pool chunks per thread in a static thread-local cache it never
 * exposes, so LeakSanitizer reports them when a loop thread exits. Bounded and
 * by design. The sanitizer runtime calls these when it starts (unused otherwise). */
const char *__lsan_default_suppressions (void);
const char *__lsan_default_options (void);

__attribute__ ((used)) const char *
__lsan_default_suppressions (void)
{
  return "leak:h2o_mem_alloc_recycle\n";
}

__attribute__ ((used)) const char *
__lsan_default_options (void)
{
  return "print_suppressions=0";
}

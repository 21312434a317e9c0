/* GLib's slice allocator for the programs (actionbased, actionbase-admin,
 * actionbase-verify): slices from malloc (mimalloc where linked) rather
 * than GLib's per-thread magazines, on a GLib that still has them. */
#pragma once

/* First thing in main: on GLib older than 2.76 with G_SLICE unset, sets
 * G_SLICE=always-malloc and starts the program again with argv (GLib reads
 * the variable when it loads, before main). Returns at once otherwise, and
 * when the restart fails (the program runs on as it is). */
void ab_slices_from_malloc (char **argv);

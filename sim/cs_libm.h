/*
 * cs_libm.h -- the same libm results on every x86_64 machine (DESIGN-NOTES
 * N115).
 *
 * The agents' draws and the analyses call libm's exp, log, pow, sin, cos
 * and the like, directly and through GSL.  On x86_64,
 * glibc picks one of several builds of each when a program starts,
 * according to the CPU: one that fuses multiply-adds (FMA; FMA4 on some
 * older AMD parts) and one that does not.  The two differ in the last bit
 * of some results, so a draw, then a decision, then a dataset could differ
 * between two machines for the same scenario and seed.
 *
 * cowsim therefore pins glibc to the builds without fused multiply-adds,
 * which every x86_64 CPU can run: cs_libm_pin, called first in main, sets
 * the tunable glibc.cpu.hwcaps=-FMA,-FMA4 in GLIBC_TUNABLES (merged with
 * any the user set) and executes the same binary again, because glibc
 * reads its tunables only at start-up.  COWSIM_LIBM=native keeps glibc's own
 * choice.  Each run file records which builds it used (root attribute
 * "libm", cs_libm_name).
 */
#ifndef CS_LIBM_H
#define CS_LIBM_H

/* 1 when glibc's libm uses its fused multiply-add builds in this process
 * (the CPU has FMA or FMA4 and nothing disabled them), 0 when it does not,
 * -1 where this cannot be told (not x86_64 with glibc >= 2.33). */
int cs_libm_fused(void);

/* What the run files record in their root attribute "libm":
 * "glibc x86_64, no FMA (pinned)", "glibc x86_64, no FMA (CPU)",
 * "glibc x86_64, FMA (COWSIM_LIBM=native)", "glibc x86_64, FMA (not
 * pinned)", or "other (not pinned)" on other platforms.  "(CPU)": FMA was
 * already off when cowsim started, because the CPU lacks it or
 * GLIBC_TUNABLES switched it off (as the test suite does); the builds are
 * the pinned ones either way. */
const char *cs_libm_name(void);

/* Pin libm's builds (above) by executing /proc/self/exe again with argv
 * and the tunable; returns only when nothing is to be done (no FMA active,
 * COWSIM_LIBM=native, under valgrind, not x86_64 glibc) or when it cannot
 * pin: started through the dynamic loader, the second start still finds
 * FMA active, or the exec fails (a warning on stderr; the run goes on, and
 * its files say "not pinned"). */
void cs_libm_pin(int argc, char **argv);

/* The GLIBC_TUNABLES value cs_libm_pin sets, from old (NULL: unset): with
 * old's own glibc.cpu.hwcaps list, ",-FMA,-FMA4" appended to that list
 * (glibc keeps one value per tunable, so a second glibc.cpu.hwcaps would
 * replace the user's); otherwise the setting appended to old's list.  A
 * malloc'd string, NULL when out of memory.  Exposed for tests. */
char *cs__libm_tunables(const char *old);

#endif

/*
 * fuzz_clear.c -- libFuzzer harness: the `cowsim clear AUCTION.json` input.
 *
 * cli/cs_cmd_clear.c has no callable parse function, so the harness drives the
 * command itself: the input bytes are written to a memfd, which is passed
 * to cs_cmd_clear as /proc/self/fd/N (with --json when the input length is
 * odd, so both printers run).  stdout goes to /dev/null; run with
 * -close_fd_mask=2 to silence the error messages on stderr as well.
 * Property checked besides the sanitizers: the exit code is 0 (cleared),
 * 2 (bad input) or 3 (I/O) -- never anything else.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cs_cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cs__fd = -1;        /* memfd holding the current input */
static char cs__path[64];      /* /proc/self/fd/N */

/* Open the memfd once and send stdout to /dev/null. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cs__fd = memfd_create("fuzz_clear", 0);
    if (cs__fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(cs__path, sizeof cs__path, "/proc/self/fd/%d", cs__fd);
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) {
        fflush(stdout);
        dup2(nul, 1);
        close(nul);
    }
    return 0;
}

/* One input: write it to the memfd and run `cowsim clear` on it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ftruncate(cs__fd, 0) != 0) abort();
    size_t off = 0;
    while (off < size) {
        ssize_t w = pwrite(cs__fd, data + off, size - off, (off_t)off);
        if (w <= 0) abort();
        off += (size_t)w;
    }
    char a0[] = "clear", a2[] = "--json";
    char *argv[] = {a0, cs__path, a2, NULL};
    int rc = cs_cmd_clear(size % 2 ? 3 : 2, argv);
    fflush(stdout);
    if (rc != CS_EXIT_OK && rc != CS_EXIT_USAGE && rc != CS_EXIT_IO) {
        fprintf(stderr, "fuzz_clear: exit code %d is not 0, 2 or 3\n", rc);
        abort();
    }
    return 0;
}

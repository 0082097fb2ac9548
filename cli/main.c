/* main.c -- the cowsim command-line entry point; dispatches subcommands. */
#include "cs_cli.h"
#include "cs_libm.h"

int main(int argc, char **argv)
{
    cs_libm_pin(argc, argv); /* N115: the same libm results on every x86_64 machine */
    return cs_cli_main(argc, argv);
}

/* main.c -- the cowsim command-line entry point; dispatches subcommands. */
#include "cs_cli.h"

int main(int argc, char **argv)
{
    return cs_cli_main(argc, argv);
}

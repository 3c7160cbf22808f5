#include "tools/cli.h"
#include "tools/util.h"
int cmd_install(int argc, char **argv) { (void)argc; (void)argv; return EXIT_ERRORS; }
int cmd_add(int argc, char **argv) { (void)argc; (void)argv; return EXIT_ERRORS; }
int cmd_mkimage(int argc, char **argv) { (void)argc; (void)argv; return EXIT_ERRORS; }
int cmd_restore(int argc, char **argv) { (void)argc; (void)argv; return EXIT_ERRORS; }

/*
 * circuits.h - cuzk-daemon --list-circuits (circuits.c).
 */
#ifndef CUZK_DAEMON_CIRCUITS_H
#define CUZK_DAEMON_CIRCUITS_H

#include <stdio.h>

/* The circuit ids by proof kind and sector size, and their parameter files. */
void list_circuits(FILE *out);

#endif

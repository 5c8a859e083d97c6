/*
 * What the runner's files share and nothing else needs: the flags the
 * signal handlers set and the peer-process signal set-up.
 */
#ifndef IPCPERF_RUN_INTERNAL_H
#define IPCPERF_RUN_INTERNAL_H

#include <signal.h>

#include "ipcperf/run.h"

/* The client's stop flag: set on SIGINT/SIGTERM/SIGHUP and peer exit. */
extern volatile sig_atomic_t run_stop;

/* A forked peer's stop flag: set when the runner sends SIGUSR1. */
extern volatile sig_atomic_t peer_stop;

/* Stop the timer a stop request armed (see sys.c); after each run. */
void run_nudge_disarm(void);

/* In a freshly forked peer: its own signal dispositions. */
void run_signals_peer_process(void);

#endif

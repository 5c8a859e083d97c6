/* SPDX-License-Identifier: MIT */
/*
 * libipcperf: measure how fast messages cross a channel.  This umbrella
 * header pulls in every layer's public interface.
 */
#ifndef IPCPERF_IPCPERF_H
#define IPCPERF_IPCPERF_H

#include "base.h"
#include "doc.h"
#include "engine.h"
#include "explain.h"
#include "framing.h"
#include "link.h"
#include "pattern.h"
#include "report.h"
#include "run.h"
#include "stats.h"
#include "transport.h"

#endif

/* Stand-in for NCCL's <nccl.h> on gpuh's CPU simulator: the collectives gpuh
   uses (communicators of one process, all-reduce, broadcast, all-gather,
   groups) are simulated over host memory in gpuh_sim.h (SEVERAL DEVICES AND
   THE NCCL STAND-IN), which gpuh-simcc includes first; a call it lacks does
   not compile. */
#ifndef GPUH_SIM_NCCL_H
#define GPUH_SIM_NCCL_H
#include "gpuh_sim.h"
#endif

/* gpuh_sim_cu.h - what nvcc declares in a .cu file and not in a host .cpp
   file: device functions whose names host code may use for its own. gpuh-simcc
   includes it at the top of each rewritten .cu file. */
#ifndef GPUH_SIM_CU_H
#define GPUH_SIM_CU_H
#include "gpuh_sim.h"
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
#endif

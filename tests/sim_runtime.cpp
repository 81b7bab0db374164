/* sim_runtime.cpp - the simulator's runtime for a C program with no C++
   file of its own (tests/test_module.c on the simulator): gpuh_sim.h
   defines it, weak, in each C++ file that includes it. */
#include "gpuh_sim.h"

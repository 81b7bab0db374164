/* Stand-in for CUDA's <cooperative_groups/reduce.h>: all of it is in the simulator's <cooperative_groups.h>. */
#include "../cooperative_groups.h"

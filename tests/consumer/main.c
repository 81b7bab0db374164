/* Built against gpuh (installed, or its source tree): the header is found,
   cudart is linked, and the program runs with or without a GPU. */
#include "gpuh.h"

int main(void)
{
    const char *why = "";
    dim3 grid;
    int n = gpuh_device_count(&why);
    if (gpuh_grid_1d(&grid, 1000, 256) != cudaSuccess || grid.x != 4)
        return 1;
    printf("gpuh %d.%d.%d: %d device(s)%s%s\n", GPUH_VERSION_MAJOR, GPUH_VERSION_MINOR,
           GPUH_VERSION_PATCH, n, n ? "" : ": ", why);
    return 0;
}

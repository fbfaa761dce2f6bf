#include <cuda.h>

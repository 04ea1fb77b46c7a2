// The Differentiable op interface: generated definitions.
#include "dialects/Interfaces/Differentiable.h"

#include "dialects/Interfaces/Differentiable.cpp.inc"

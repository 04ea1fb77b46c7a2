// The Differentiable op interface (generated from Differentiable.td).
#ifndef DLC_DIALECTS_INTERFACES_DIFFERENTIABLE_H
#define DLC_DIALECTS_INTERFACES_DIFFERENTIABLE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/Interfaces/Differentiable.h.inc"

#endif

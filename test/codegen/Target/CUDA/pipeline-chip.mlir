// dlc-opt --dlc-cuda-pipeline takes the architecture as chip=...; an unknown one is named.
// RUN: not dlc-opt %s --dlc-cuda-pipeline=chip=sm_70 -o /dev/null 2>&1 | FileCheck %s
// CHECK: dlc-cuda-pipeline: unknown chip 'sm_70' (expected sm_80, sm_86, sm_89, sm_90, sm_90a); using sm_80
func.func @f() {
  return
}

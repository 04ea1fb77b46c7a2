// The anchor of DLCPch (root CMakeLists.txt): its precompiled header of the MLIR, LLVM and
// ONNX headers is built once and reused by dlc's libraries and tools (dlc_use_pch).

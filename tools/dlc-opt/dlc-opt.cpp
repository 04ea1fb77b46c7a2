// dlc-opt: mlir-opt with every dlc dialect, pass and pipeline registered.
#include "compiler/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  dlc::registerPassesAndPipelines();
  mlir::DialectRegistry registry;
  dlc::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "dlc optimizer driver\n", registry));
}

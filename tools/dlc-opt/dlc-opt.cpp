// dlc-opt: mlir-opt with every dlc dialect, pass and pipeline registered.
#include "compiler/ParserWorkarounds.h"
#include "compiler/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  dlc::registerPassesAndPipelines();
  mlir::DialectRegistry registry;
  dlc::registerDialects(registry);
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, "dlc optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  // The input is read here (not by MlirOptMain) so that text MLIR's parsers would crash
  // on is rejected first.
  std::string message;
  auto file = mlir::openInputFile(inputFilename, &message);
  if (!file) {
    llvm::errs() << "error: " << message << "\n";
    return 1;
  }
  std::string malformed = dlc::findParserCrashHazard(file->getBuffer());
  if (!malformed.empty()) {
    llvm::errs() << "error: " << inputFilename << ":" << malformed << "\n";
    return 1;
  }
  auto output = mlir::openOutputFile(outputFilename, &message);
  if (!output) {
    llvm::errs() << "error: " << message << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}

//===- OptMain.cpp - The fp8-opt driver -----------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Tools/OptMain.h"
#include "fp8/InitAll.h"

#include "CrashContainment.h"
#include "fp8/Tools/InputScreening.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

using namespace mlir;

/// Enough for inputs nested hundreds of thousands of levels deep; only the
/// pages used are ever committed.
static constexpr unsigned kStackSize = 1u << 30;

static llvm::cl::opt<bool> debugCrash(
    "debug-crash",
    llvm::cl::desc("Let a crash or a fatal error end fp8-opt with LLVM's "
                   "stack dump instead of one diagnostic"),
    llvm::cl::init(false));

static llvm::cl::opt<uint64_t> maxMaterializedElements(
    "max-materialized-elements",
    llvm::cl::desc("The most elements of one tensor or vector that fp8-opt "
                   "materializes for an op such as tensor.from_elements "
                   "(0: no limit)"),
    llvm::cl::init(fp8::kDefaultMaxMaterializedElements));

static llvm::cl::opt<bool> noInputScreening(
    "no-input-screening",
    llvm::cl::desc("Hand the input to the upstream parser as it is, without "
                   "rejecting what the parser crashes on first (to test crash "
                   "containment)"),
    llvm::cl::init(false), llvm::cl::Hidden);

namespace {
/// MlirOptMain's configuration, with a hook after the pass pipeline setup.
class DriverConfig : public MlirOptMainConfig {
public:
  explicit DriverConfig(MlirOptMainConfig config)
      : MlirOptMainConfig(std::move(config)) {}

  /// Calls `fn` once the pass manager holds the passes of the command line.
  void afterPipelineSetup(std::function<void(PassManager &)> fn) {
    passPipelineCallback = [setup = std::move(passPipelineCallback),
                            fn = std::move(fn)](PassManager &pm) {
      if (setup && failed(setup(pm)))
        return failure();
      fn(pm);
      return success();
    };
  }
};
} // namespace

static LogicalResult runDriver(StringRef inputFilename,
                               StringRef outputFilename,
                               DialectRegistry &registry) {
  DriverConfig config(MlirOptMainConfig::createFromCLOptions());
  if (!debugCrash)
    config.afterPipelineSetup(fp8::trackPassesForCrashes);
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return success();
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return success();
  }
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (!noInputScreening &&
      failed(fp8::screenInput(
          *input, {maxMaterializedElements, "--max-materialized-elements"})))
    return failure();
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  // The output file is removed unless the whole run succeeds: no half-written
  // results.
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  output->keep();
  return success();
}

int fp8::runFP8Opt(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  registerAllDialectsAndExtensions(registry);
  registerAllPasses();
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { printVersion(os); });
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "fp8-mlir optimizer driver\n", registry);
  if (!debugCrash)
    fp8::installCrashContainment(inputFilename, registry);
  LogicalResult result = failure();
  llvm::thread worker(std::optional<unsigned>(kStackSize), [&] {
    if (!debugCrash)
      fp8::useAlternateSignalStack();
    result = runDriver(inputFilename, outputFilename, registry);
  });
  worker.join();
  return asMainReturnCode(result);
}

//===- WriteArtifacts.cpp - PTX, cubin and manifests to a directory -------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToGPU/LaunchPlan.h"
#include "fp8/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8WRITEARTIFACTS
#include "fp8/Conversion/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The files of one run, written at the end when everything succeeded.
struct PendingFiles {
  std::vector<std::pair<std::string, std::string>> files; // path, contents

  void add(std::string path, std::string contents) {
    files.emplace_back(std::move(path), std::move(contents));
  }

  LogicalResult write(Operation *op) {
    for (auto &[path, contents] : files) {
      std::error_code error;
      llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
      if (error)
        return op->emitError() << "fp8-write-artifacts: cannot write '" << path
                               << "': " << error.message();
      os << contents;
      os.close();
      if (os.has_error())
        return op->emitError()
               << "fp8-write-artifacts: writing '" << path << "' failed";
    }
    return success();
  }
};

/// `log` without the lines in which ptxas -v says how long each kernel took:
/// they alone would make the artifacts differ from one run to the next.
std::string dropCompileTimes(StringRef log) {
  std::string kept;
  for (StringRef rest = log; !rest.empty();) {
    StringRef line = rest.take_front(rest.find('\n') + 1);
    if (line.empty())
      line = rest; // the last line has no newline
    rest = rest.drop_front(line.size());
    if (!line.contains("Compile time ="))
      kept += line;
  }
  return kept;
}

/// Warns of every kernel that ptxas -v's `log` says spills registers to
/// local memory: it runs, but slower than it was planned to (a planner rule
/// missed a combination of options).
void warnOfSpills(Operation *module, StringRef log) {
  StringRef kernel;
  for (StringRef rest = log; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    rest = next;
    constexpr StringLiteral kProperties = "Function properties for ";
    if (size_t at = line.find(kProperties); at != StringRef::npos) {
      kernel = line.drop_front(at + kProperties.size()).trim();
      continue;
    }
    // "    8 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads"
    constexpr StringLiteral kStores = " bytes spill stores";
    size_t at = line.find(kStores);
    if (at == StringRef::npos || kernel.empty())
      continue;
    int64_t stores = 0, loads = 0;
    StringRef before = line.take_front(at).rtrim();
    (void)before.substr(before.find_last_of(' ') + 1).getAsInteger(10, stores);
    StringRef after = line.drop_front(at + kStores.size()).ltrim(", ");
    (void)after.take_while(llvm::isDigit).getAsInteger(10, loads);
    if (stores > 0 || loads > 0)
      mlir::emitWarning(module->getLoc())
          << "kernel '" << kernel << "' spills registers to local memory ("
          << stores << " bytes stored, " << loads
          << " loaded, says ptxas -v): it runs, slower than planned; its "
             "name's suffixes give the options that chose it";
  }
}

struct FP8WriteArtifactsPass
    : fp8::impl::FP8WriteArtifactsBase<FP8WriteArtifactsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The ptxas to run, or empty.
  FailureOr<std::string> findPtxas();
  /// Assembles `ptx` for `chip`: the cubin and the `-v` log.
  LogicalResult assemble(const std::string &ptxasPath, StringRef ptx,
                         StringRef chip, std::string &cubin, std::string &log);
};

FailureOr<std::string> FP8WriteArtifactsPass::findPtxas() {
  if (ptxas == "none")
    return std::string();
  if (ptxas != "auto") {
    if (!llvm::sys::fs::can_execute(ptxas)) {
      mlir::emitError(getOperation()->getLoc())
          << "fp8-write-artifacts: ptxas '" << ptxas << "' is not executable";
      return failure();
    }
    return std::string(ptxas);
  }
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return std::string();
}

LogicalResult FP8WriteArtifactsPass::assemble(const std::string &ptxasPath,
                                              StringRef ptx, StringRef chip,
                                              std::string &cubin,
                                              std::string &log) {
  auto fail = [&](const Twine &message) {
    mlir::emitError(getOperation()->getLoc())
        << "fp8-write-artifacts: " << message;
    return failure();
  };
  SmallString<128> input, output, logFile;
  if (llvm::sys::fs::createTemporaryFile("fp8-kernels", "ptx", input) ||
      llvm::sys::fs::createTemporaryFile("fp8-kernels", "cubin", output) ||
      llvm::sys::fs::createTemporaryFile("fp8-kernels", "log", logFile))
    return fail("cannot create temporary files");
  llvm::FileRemover removeInput(input), removeOutput(output),
      removeLog(logFile);
  {
    std::error_code error;
    llvm::raw_fd_ostream os(input, error);
    if (error)
      return fail("cannot write a temporary file: " + error.message());
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args{ptxasPath, arch, "-v", input, "-o", output};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logFile),
                                          StringRef(logFile)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxasPath, args, std::nullopt,
                                         redirects, 0, 0, &message);
  auto logText = llvm::MemoryBuffer::getFile(logFile);
  log = logText ? (*logText)->getBuffer().str() : "";
  if (status != 0)
    return fail("ptxas failed" + (message.empty() ? "" : ": " + message) +
                "\n" + log);
  auto cubinText = llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  // (The output is a temporary file that exists before ptxas runs: an
  // empty one is no cubin either.)
  constexpr StringLiteral kElfMagic("\x7f"
                                    "ELF");
  if (!cubinText || !(*cubinText)->getBuffer().starts_with(kElfMagic))
    return fail("ptxas wrote no cubin");
  cubin = (*cubinText)->getBuffer().str();
  return success();
}

void FP8WriteArtifactsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (dir.empty()) {
    mlir::emitError(module.getLoc(),
                    "fp8-write-artifacts: give an output directory (dir=)");
    return signalPassFailure();
  }
  auto plans = module->getAttrOfType<DictionaryAttr>(kPlansAttr);
  if (!plans) {
    mlir::emitError(module.getLoc(),
                    "fp8-write-artifacts: the module has no launch plans; "
                    "run convert-fp8-to-gpu first");
    return signalPassFailure();
  }
  PendingFiles pending;
  std::string ptxFile, cubinFile;
  for (NamedAttribute entry : plans) {
    StringRef name = entry.getName().getValue();
    auto planAttr = dyn_cast<DictionaryAttr>(entry.getValue());
    auto emitError = [&] {
      return mlir::emitError(module.getLoc())
             << "fp8-write-artifacts: the plan of '" << name << "': ";
    };
    if (!planAttr) {
      emitError() << "is not a dictionary";
      return signalPassFailure();
    }
    FailureOr<LaunchPlan> plan = LaunchPlan::fromAttr(planAttr, emitError);
    if (failed(plan))
      return signalPassFailure();
    StringRef moduleName = plan->kernelModule;
    StringRef chip = getChipName(plan->chip);
    if (ptxFile.empty()) {
      auto binary = module.lookupSymbol<gpu::BinaryOp>(moduleName);
      if (!binary) {
        mlir::emitError(module.getLoc())
            << "fp8-write-artifacts: no gpu.binary @" << moduleName
            << "; run gpu-module-to-binary first";
        return signalPassFailure();
      }
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        mlir::emitError(module.getLoc(),
                        "fp8-write-artifacts: the kernels must be PTX "
                        "(gpu-module-to-binary format=isa)");
        return signalPassFailure();
      }
      StringRef ptx = object.getObject().getValue();
      ptxFile = (moduleName + ".ptx").str();
      pending.add(dir + "/" + ptxFile, ptx.str());
      FailureOr<std::string> ptxasPath = findPtxas();
      if (failed(ptxasPath))
        return signalPassFailure();
      if (!ptxasPath->empty()) {
        std::string cubin, log;
        if (failed(assemble(*ptxasPath, ptx, chip, cubin, log)))
          return signalPassFailure();
        cubinFile = (moduleName + ".cubin").str();
        pending.add(dir + "/" + cubinFile, cubin);
        pending.add((dir + "/" + moduleName + ".ptxas.log").str(),
                    dropCompileTimes(log));
        warnOfSpills(module, log);
      }
    }
    std::string manifest;
    llvm::raw_string_ostream os(manifest);
    auto writeConstant = [&](int64_t id, ArrayRef<char> bytes) {
      std::string file = (name + ".const" + Twine(id) + ".bin").str();
      pending.add(dir + "/" + file, std::string(bytes.begin(), bytes.end()));
      return file;
    };
    if (failed(
            writeManifest(os, name, *plan, ptxFile, cubinFile, writeConstant)))
      return signalPassFailure();
    pending.add((dir + "/" + name + ".json").str(), manifest);
  }
  if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
    mlir::emitError(module.getLoc()) << "fp8-write-artifacts: cannot create '"
                                     << dir << "': " << error.message();
    return signalPassFailure();
  }
  if (failed(pending.write(module)))
    signalPassFailure();
}

} // namespace

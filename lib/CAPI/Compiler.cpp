//===- Compiler.cpp - Running fp8-mlir on a module from C -----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8-c/Compiler.h"
#include "fp8-c/Passes.h"

#include "fp8/InitAll.h"
#include "fp8/Pipelines/Pipelines.h"
#include "fp8/Target/Chip.h"
#include "fp8/Tools/InputScreening.h"

#include "mlir/CAPI/Diagnostics.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <mutex>

using namespace mlir;

void fp8RegisterAllDialects(MlirDialectRegistry registry) {
  fp8::registerAllDialectsAndExtensions(*unwrap(registry));
}

void fp8RegisterAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] { mlir::registerAllPasses(); });
  fp8RegisterPasses();
  fp8RegisterPipelines();
}

MlirModule fp8ModuleCreateParse(MlirContext ctx, MlirStringRef source,
                                MlirStringRef sourceName) {
  if (failed(fp8::screenInput(unwrap(source), unwrap(sourceName), unwrap(ctx),
                              fp8::ScreeningOptions())))
    return MlirModule{nullptr};
  ParserConfig config(unwrap(ctx));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  return MlirModule{module.release().getOperation()};
}

MlirAttribute fp8AttributeParseGet(MlirContext ctx, MlirStringRef attribute) {
  if (failed(fp8::screenInput(unwrap(attribute), unwrap(attribute), unwrap(ctx),
                              fp8::ScreeningOptions())))
    return MlirAttribute{nullptr};
  return mlirAttributeParseGet(ctx, attribute);
}

namespace {
/// Routes the diagnostics of one call to the C handler and remembers whether
/// an error went by, so that a failure always comes with one.
class CallDiagnostics {
public:
  CallDiagnostics(MLIRContext *ctx, MlirDiagnosticHandler handler,
                  void *userData)
      : ctx(ctx), handler(handler), userData(userData) {
    id = ctx->getDiagEngine().registerHandler([this](Diagnostic &diag) {
      sawError |= diag.getSeverity() == DiagnosticSeverity::Error;
      if (!this->handler)
        return failure();
      return unwrap(this->handler(wrap(diag), this->userData));
    });
  }
  ~CallDiagnostics() { ctx->getDiagEngine().eraseHandler(id); }

  /// `result`, after reporting `what` as an error if it failed silently.
  MlirLogicalResult finish(LogicalResult result, llvm::StringRef what) {
    if (failed(result) && !sawError)
      emitError(UnknownLoc::get(ctx)) << what << " failed";
    return wrap(result);
  }

private:
  MLIRContext *ctx;
  MlirDiagnosticHandler handler;
  void *userData;
  DiagnosticEngine::HandlerID id;
  bool sawError = false;
};
} // namespace

static LogicalResult runOn(ModuleOp module, OpPassManager &pipeline) {
  PassManager pm(module->getContext());
  static_cast<OpPassManager &>(pm) = pipeline;
  pm.enableVerifier(true);
  return pm.run(module);
}

MlirLogicalResult fp8RunPassPipeline(MlirModule module, MlirStringRef pipeline,
                                     MlirDiagnosticHandler handler,
                                     void *userData) {
  ModuleOp op = unwrap(module);
  CallDiagnostics diagnostics(op->getContext(), handler, userData);
  llvm::StringRef text = unwrap(pipeline).trim();
  std::string anchored = text.starts_with("builtin.module(")
                             ? text.str()
                             : ("builtin.module(" + text + ")").str();
  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(anchored, errorStream);
  if (failed(parsed)) {
    // The parser's first line says what is wrong, after a position in the
    // anchored text the client did not write.
    llvm::StringRef first = llvm::StringRef(parseErrors).split('\n').first;
    llvm::StringRef reason = first.split("error: ").second;
    if (reason.empty())
      reason = first;
    emitError(UnknownLoc::get(op->getContext()))
        << "invalid pass pipeline '" << text << "': " << reason;
    return wrap(failure());
  }
  return diagnostics.finish(runOn(op, *parsed), "pass pipeline");
}

MlirLogicalResult fp8CompileForChip(MlirModule module, MlirStringRef chip,
                                    MlirStringRef artifactsDir,
                                    MlirStringRef ptxas,
                                    MlirDiagnosticHandler handler,
                                    void *userData) {
  return fp8CompileForChipWithOptions(module, chip, artifactsDir, ptxas,
                                      mlirStringRefCreate(nullptr, 0), handler,
                                      userData);
}

MlirLogicalResult
fp8CompileForChipWithOptions(MlirModule module, MlirStringRef chip,
                             MlirStringRef artifactsDir, MlirStringRef ptxas,
                             MlirStringRef pipelineOptions,
                             MlirDiagnosticHandler handler, void *userData) {
  ModuleOp op = unwrap(module);
  MLIRContext *ctx = op->getContext();
  CallDiagnostics diagnostics(ctx, handler, userData);
  std::optional<fp8::Chip> target = fp8::parseChip(unwrap(chip));
  if (!target) {
    emitError(UnknownLoc::get(ctx))
        << fp8::describeUnsupportedChip(unwrap(chip));
    return wrap(failure());
  }
  if (unwrap(artifactsDir).empty()) {
    emitError(UnknownLoc::get(ctx))
        << "compiling for a chip needs a directory for the artifacts";
    return wrap(failure());
  }
  fp8::GPUPipelineOptions options;
  if (!unwrap(pipelineOptions).empty()) {
    std::string parseErrors;
    llvm::raw_string_ostream errorStream(parseErrors);
    if (failed(options.parseFromString(unwrap(pipelineOptions), errorStream))) {
      llvm::StringRef reason = llvm::StringRef(parseErrors).trim();
      emitError(UnknownLoc::get(ctx))
          << "invalid fp8-gpu-pipeline options '" << unwrap(pipelineOptions)
          << "'" << (reason.empty() ? "" : ": ") << reason;
      return wrap(failure());
    }
  }
  // The arguments decide these, whatever the options say.
  options.chip = *target;
  options.artifacts = unwrap(artifactsDir).str();
  if (!unwrap(ptxas).empty())
    options.ptxas = unwrap(ptxas).str();
  OpPassManager pipeline(ModuleOp::getOperationName());
  fp8::buildFP8GPUPipeline(pipeline, options);
  return diagnostics.finish(runOn(op, pipeline), "fp8-gpu-pipeline");
}

MlirStringRef fp8GetMLIRLibraryDir() {
  static const std::string dir = [] {
    // Any function defined in libMLIR.so locates it.
    Dl_info info;
    void *symbol =
        reinterpret_cast<void *>(static_cast<void (*)(DialectRegistry &)>(
            &registerBuiltinDialectTranslation));
    if (!dladdr(symbol, &info) || !info.dli_fname)
      return std::string();
    return llvm::sys::path::parent_path(info.dli_fname).str();
  }();
  return wrap(llvm::StringRef(dir));
}

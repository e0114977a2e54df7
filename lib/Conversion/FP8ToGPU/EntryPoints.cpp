//===- EntryPoints.cpp - The functions convert-fp8-to-gpu compiles --------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A launch plan is what a host calls: device buffers in, device buffers out.
// The default entry points are therefore chosen by signature alone, so that
// a function is never skipped because of what it computes; an op without a
// GPU lowering inside an entry point stays an error. Calls are inlined,
// since a plan is one straight sequence of launches.
//
//===----------------------------------------------------------------------===//

#include "EntryPoints.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kCategory = "convert-fp8-to-gpu";

/// Why `func`'s signature has no launch plan, or nullopt. `needsResult`:
/// a function returning nothing computes nothing a host reads back.
std::optional<std::string> getSignatureProblem(func::FuncOp func,
                                               bool needsResult) {
  FunctionType type = func.getFunctionType();
  auto check = [](TypeRange types,
                  StringRef what) -> std::optional<std::string> {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (tensor && tensor.hasStaticShape())
        continue;
      std::string type;
      llvm::raw_string_ostream(type) << t;
      return llvm::formatv("its {0} {1} is '{2}', which is not a statically "
                           "shaped tensor; the GPU pipeline plans buffers "
                           "and launches at compile time",
                           what, i, type)
          .str();
    }
    return std::nullopt;
  };
  if (std::optional<std::string> problem = check(type.getInputs(), "argument"))
    return problem;
  if (std::optional<std::string> problem = check(type.getResults(), "result"))
    return problem;
  if (needsResult && type.getNumResults() == 0)
    return std::string("it returns nothing, so a host would read nothing "
                       "back");
  return std::nullopt;
}

void remarkSkipped(func::FuncOp func, StringRef why) {
  auto opts = remark::RemarkOpts::name("skipped").category(kCategory).function(
      func.getName());
  remark::missed(func.getLoc(), opts) << remark::add(
      "@{0} is not compiled for the GPU: {1}; name it in entry-points to "
      "compile it",
      func.getName(), why);
}

/// The callee of `call` if it is a func.func.
func::FuncOp getCallee(func::CallOp call) {
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
}

/// Checks that the functions `func` calls, transitively, can be inlined:
/// each has one block and none is reached again while `path` (the chain of
/// callers down to `func`) is being followed.
LogicalResult checkCallees(func::FuncOp func,
                           SmallVectorImpl<func::FuncOp> &path,
                           llvm::DenseSet<Operation *> &checked) {
  if (checked.contains(func))
    return success();
  path.push_back(func);
  WalkResult result = func.walk([&](func::CallOp call) {
    func::FuncOp callee = getCallee(call);
    auto describePath = [&] {
      std::string chain;
      for (func::FuncOp f : path)
        chain += ("@" + f.getName() + " -> ").str();
      return chain + "@" + call.getCallee().str();
    };
    if (!callee) {
      call.emitError() << "fp8 GPU lowering: @" << call.getCallee()
                       << " is not a func.func; calls are inlined into the "
                          "entry point's plan";
      return WalkResult::interrupt();
    }
    if (callee.isExternal()) {
      call.emitError() << "fp8 GPU lowering: @" << callee.getName()
                       << " has no body to compile (" << describePath() << ")";
      return WalkResult::interrupt();
    }
    if (llvm::is_contained(path, callee)) {
      call.emitError() << "fp8 GPU lowering: @" << callee.getName()
                       << " is called recursively (" << describePath()
                       << "); a launch plan is a fixed sequence of launches";
      return WalkResult::interrupt();
    }
    if (!callee.getBody().hasOneBlock()) {
      call.emitError() << "fp8 GPU lowering: @" << callee.getName()
                       << " has control flow (" << describePath()
                       << "), which has no launch plan";
      return WalkResult::interrupt();
    }
    if (failed(checkCallees(callee, path, checked)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  path.pop_back();
  if (result.wasInterrupted())
    return failure();
  checked.insert(func);
  return success();
}

/// Replaces `call` by a copy of its callee's body, each op located at the
/// call site.
void inlineCall(func::CallOp call, func::FuncOp callee) {
  Block &body = callee.getBody().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), call.getOperands());
  OpBuilder builder(call);
  for (Operation &op : body.without_terminator()) {
    Operation *copy = builder.clone(op, mapping);
    copy->walk([&](Operation *nested) {
      nested->setLoc(CallSiteLoc::get(nested->getLoc(), call.getLoc()));
    });
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  call.erase();
}

} // namespace

FailureOr<SmallVector<func::FuncOp>>
mlir::fp8::selectEntryPoints(ModuleOp module, ArrayRef<std::string> names) {
  SmallVector<func::FuncOp> entries;
  if (!names.empty()) {
    bool failed = false;
    llvm::SmallDenseSet<StringRef> seen;
    for (const std::string &name : names) {
      if (!seen.insert(name).second)
        continue;
      Operation *symbol = module.lookupSymbol(name);
      auto func = dyn_cast_or_null<func::FuncOp>(symbol);
      if (!func) {
        (symbol ? symbol->emitError() : emitError(module.getLoc()))
            << "fp8 GPU lowering: entry point @" << name << ": "
            << (symbol ? "this is not a func.func"
                       : "the module has no function of that name");
        failed = true;
        continue;
      }
      if (func.isExternal()) {
        func.emitError() << "fp8 GPU lowering: entry point @" << name
                         << " is a declaration; there is no body to compile";
        failed = true;
        continue;
      }
      if (std::optional<std::string> problem =
              getSignatureProblem(func, /*needsResult=*/false)) {
        func.emitError() << "fp8 GPU lowering: entry point @" << name << ": "
                         << *problem;
        failed = true;
        continue;
      }
      entries.push_back(func);
    }
    if (failed)
      return failure();
    // A named function's prepare function (fp8-prepare-weights) is compiled
    // with it: its manifest names the prepare function's.
    for (size_t i = 0; i < entries.size(); ++i) {
      auto prepare =
          entries[i]->getAttrOfType<FlatSymbolRefAttr>(kPrepareAttrName);
      auto prepareFunc =
          prepare ? module.lookupSymbol<func::FuncOp>(prepare) : nullptr;
      if (prepareFunc && !prepareFunc.isExternal() &&
          !llvm::is_contained(entries, prepareFunc))
        entries.push_back(prepareFunc);
    }
    return entries;
  }

  bool anyDefined = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    anyDefined = true;
    if (!func.isPublic())
      continue;
    if (std::optional<std::string> problem =
            getSignatureProblem(func, /*needsResult=*/true)) {
      remarkSkipped(func, *problem);
      continue;
    }
    entries.push_back(func);
  }
  if (entries.empty() && anyDefined)
    return emitError(
        module.getLoc(),
        "fp8 GPU lowering: no function to compile: no public function takes "
        "and returns statically shaped tensors; name the entry points with "
        "entry-points=...");
  return entries;
}

LogicalResult mlir::fp8::inlineCalls(func::FuncOp entry,
                                     llvm::SetVector<func::FuncOp> &inlined) {
  SmallVector<func::FuncOp> path;
  llvm::DenseSet<Operation *> checked;
  if (failed(checkCallees(entry, path, checked)))
    return failure();
  // The call graph below `entry` is acyclic: inlining the calls of the
  // inlined bodies terminates.
  while (true) {
    SmallVector<func::CallOp> calls;
    entry.walk([&](func::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    for (func::CallOp call : calls) {
      func::FuncOp callee = getCallee(call);
      inlined.insert(callee);
      inlineCall(call, callee);
    }
  }
}

void mlir::fp8::eraseUnusedCallees(
    ModuleOp module, const llvm::SetVector<func::FuncOp> &inlined) {
  // A callee may be called only by another callee that is erased.
  SmallVector<func::FuncOp> pending(inlined.begin(), inlined.end());
  bool erased = true;
  while (erased) {
    erased = false;
    for (func::FuncOp &callee : pending) {
      if (!callee || !callee.isPrivate() ||
          !SymbolTable::symbolKnownUseEmpty(callee, module))
        continue;
      callee.erase();
      callee = nullptr;
      erased = true;
    }
  }
}

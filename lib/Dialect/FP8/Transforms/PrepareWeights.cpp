//===- PrepareWeights.cpp - Weight-only work in a prepare function --------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Splits each public function with `fp8.weight` arguments in two: a prepare
// function computes every op that only the weights (and constants)
// determine, such as a weight's amax, scale, FP8 codes and transposed copy,
// and the function takes the prepared values as arguments instead of
// computing them on every call.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8PREPAREWEIGHTS
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kCategory = "fp8-prepare-weights";

/// Whether `op` makes the same value on every call from nothing: no
/// operands, no regions and no memory effects (`arith.constant`,
/// `tensor.empty` of a static shape). Such ops are cloned where they are
/// read rather than passed between the functions.
bool isConstantLike(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 && isMemoryEffectFree(op);
}

/// The ops of one function that only its weights determine.
struct WeightSlice {
  /// The ops to move, in the order of the function's block.
  SmallVector<Operation *> ops;
  /// The constant-like ops of the function's block that they read.
  llvm::SetVector<Operation *> constants;
  /// Results of `ops` that ops staying in the function read, in the order
  /// the ops compute them: the prepare function's results.
  SmallVector<Value> results;
};

/// The bytes of `value` when it is a statically shaped tensor (or a scalar
/// of a fixed width), else 0.
int64_t getBytes(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  Type element = tensor ? tensor.getElementType() : value.getType();
  if ((tensor && !tensor.hasStaticShape()) || !element.isIntOrFloat())
    return 0;
  return getTensorBytes(tensor ? tensor.getShape() : ArrayRef<int64_t>(),
                        element.getIntOrFloatBitWidth());
}

/// The values `op` reads: its operands and what its regions capture.
llvm::SetVector<Value> getReads(Operation *op) {
  llvm::SetVector<Value> reads(op->getOperands().begin(),
                               op->getOperands().end());
  getUsedValuesDefinedAbove(op->getRegions(), reads);
  return reads;
}

/// Whether `op` only reinterprets the bytes of its input: a reshape, or a
/// transpose that moves at most one dimension of extent > 1. Its result
/// costs nothing at run time and, returned by a GPU entry point, would alias
/// the input.
bool isView(Operation *op) {
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp>(op))
    return true;
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  if (!transpose)
    return false;
  ArrayRef<int64_t> shape = transpose.getInput().getType().getShape();
  return llvm::count_if(shape, [](int64_t d) { return d != 1; }) <= 1;
}

/// The weight slice of `block`, whose arguments `weights` are marked,
/// leaving the ops of `kept` in the function.
WeightSlice getWeightSlice(Block &block, ArrayRef<BlockArgument> weights,
                           const DenseSet<Operation *> &kept) {
  WeightSlice slice;
  DenseSet<Value> prepared(weights.begin(), weights.end());
  DenseSet<Operation *> moved;
  for (Operation &op : block.without_terminator()) {
    if (isConstantLike(&op) || !isMemoryEffectFree(&op) || kept.contains(&op))
      continue;
    bool readsWeight = false;
    SmallVector<Operation *> constants;
    bool invariant = llvm::all_of(getReads(&op), [&](Value value) {
      if (prepared.contains(value)) {
        readsWeight = true;
        return true;
      }
      Operation *def = value.getDefiningOp();
      if (def && def->getBlock() == &block && isConstantLike(def)) {
        constants.push_back(def);
        return true;
      }
      return false;
    });
    if (!invariant || !readsWeight)
      continue;
    slice.ops.push_back(&op);
    moved.insert(&op);
    slice.constants.insert(constants.begin(), constants.end());
    prepared.insert(op.getResults().begin(), op.getResults().end());
  }
  for (Operation *op : slice.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !moved.contains(block.findAncestorOpInBlock(*user));
          }))
        slice.results.push_back(result);
  return slice;
}

/// The weight slice of `block` whose results are worth passing: an op whose
/// result is larger than the weights and prepared values it reads (a bias
/// broadcast to the shape of an activation, which a call would otherwise
/// read from memory instead of the vector), a view (isView) and an op whose
/// result the function returns (a GPU entry point's results are computed,
/// never its arguments) stay in the function, which then takes what they
/// read.
WeightSlice getCompactWeightSlice(Block &block,
                                  ArrayRef<BlockArgument> weights) {
  DenseSet<Operation *> kept;
  while (true) {
    WeightSlice slice = getWeightSlice(block, weights, kept);
    bool changed = false;
    for (Value result : slice.results) {
      Operation *op = result.getDefiningOp();
      int64_t read = 0;
      for (Value value : getReads(op)) {
        Operation *def = value.getDefiningOp();
        if (!def || !isConstantLike(def))
          read += getBytes(value);
      }
      bool returned = llvm::any_of(result.getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::IsTerminator>();
      });
      if (returned || isView(op) || getBytes(result) > read)
        changed |= kept.insert(op).second;
    }
    if (!changed)
      return slice;
  }
}

/// Builds `@<function>_prepare` from `slice` before `function`: the weights
/// are its arguments, the slice's results its results.
func::FuncOp buildPrepareFunction(func::FuncOp function,
                                  ArrayRef<unsigned> weightIndices,
                                  const WeightSlice &slice, StringRef name) {
  OpBuilder builder(function);
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  for (unsigned i : weightIndices) {
    argTypes.push_back(function.getArgument(i).getType());
    argAttrs.push_back(function.getArgAttrDict(i));
  }
  SmallVector<Type> resultTypes;
  for (Value result : slice.results)
    resultTypes.push_back(result.getType());
  auto prepare =
      func::FuncOp::create(builder, function.getLoc(), name,
                           builder.getFunctionType(argTypes, resultTypes));
  prepare.setVisibility(function.getVisibility());
  prepare.setAllArgAttrs(argAttrs);

  Block *body = prepare.addEntryBlock();
  IRMapping mapping;
  for (auto [i, index] : llvm::enumerate(weightIndices))
    mapping.map(function.getArgument(index), body->getArgument(i));
  builder.setInsertionPointToStart(body);
  // The constants first, in their order in the function, then the moved ops.
  Block &block = function.getBody().front();
  for (Operation &op : block)
    if (slice.constants.contains(&op))
      builder.clone(op, mapping);
  for (Operation *op : slice.ops)
    builder.clone(*op, mapping);
  SmallVector<Value> results;
  for (Value result : slice.results)
    results.push_back(mapping.lookup(result));
  func::ReturnOp::create(builder, function.getLoc(), results);
  return prepare;
}

/// Rewrites `function` to read the prepared values as arguments after its
/// own, and erases the moved ops and the constants only they read.
void takePreparedValues(func::FuncOp function, const WeightSlice &slice) {
  MLIRContext *context = function.getContext();
  unsigned first = function.getNumArguments();
  SmallVector<unsigned> indices(slice.results.size(), first);
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  SmallVector<Location> locs;
  for (auto [i, result] : llvm::enumerate(slice.results)) {
    types.push_back(result.getType());
    attrs.push_back(DictionaryAttr::get(
        context,
        {NamedAttribute(StringAttr::get(context, kPreparedAttrName),
                        IntegerAttr::get(IntegerType::get(context, 64), i))}));
    locs.push_back(result.getLoc());
  }
  if (failed(function.insertArguments(indices, types, attrs, locs)))
    llvm_unreachable("a function with a body takes new arguments");
  for (auto [i, result] : llvm::enumerate(slice.results))
    Value(result).replaceAllUsesWith(function.getArgument(first + i));
  for (Operation *op : llvm::reverse(slice.ops))
    op->erase();
  for (Operation *op : llvm::reverse(slice.constants.getArrayRef()))
    if (op->use_empty())
      op->erase();
}

struct FP8PrepareWeightsPass
    : fp8::impl::FP8PrepareWeightsBase<FP8PrepareWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SymbolTableCollection collection;
    SymbolUserMap users(collection, module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (failed(splitFunction(function, symbols, users)))
        return signalPassFailure();
    }
  }

  LogicalResult splitFunction(func::FuncOp function, SymbolTable &symbols,
                              SymbolUserMap &users) {
    if (function.isExternal())
      return success();
    SmallVector<unsigned> weightIndices;
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
      Attribute mark = function.getArgAttr(i, kWeightAttrName);
      if (!mark)
        continue;
      if (!isa<UnitAttr>(mark))
        return function.emitError()
               << "fp8-prepare-weights: argument " << i << " of @"
               << function.getName() << " has " << kWeightAttrName << " = "
               << mark << "; the mark is a unit attribute";
      weightIndices.push_back(i);
    }
    if (weightIndices.empty())
      return success();

    auto missed = [&](const Twine &why) {
      remark::missed(function.getLoc(),
                     getRemarkOpts(function, kCategory, "weights-not-prepared"))
          << remark::add("@{0} computes from its weights on every call: {1}",
                         function.getName().str(), why.str());
      return success();
    };
    if (!function.isPublic())
      return missed("it is not public");
    if (!function.getBody().hasOneBlock())
      return missed("it has several blocks");
    if (!users.getUsers(function).empty())
      return missed("it is called in this module, so its signature stays");

    Block &block = function.getBody().front();
    SmallVector<BlockArgument> weights;
    for (unsigned i : weightIndices)
      weights.push_back(block.getArgument(i));
    WeightSlice slice = getCompactWeightSlice(block, weights);
    if (slice.results.empty())
      return missed("no op that reads only weights and constants is worth "
                    "moving");

    std::string name = (function.getName() + kPrepareSuffix).str();
    if (symbols.lookup(name))
      return function.emitError()
             << "fp8-prepare-weights: @" << name
             << " already exists; rename it to prepare the weights of @"
             << function.getName();

    func::FuncOp prepare =
        buildPrepareFunction(function, weightIndices, slice, name);
    symbols.insert(prepare, function->getIterator());
    int64_t bytes = 0;
    for (Value result : slice.results)
      bytes += getBytes(result);
    remark::passed(function.getLoc(),
                   getRemarkOpts(function, kCategory, "weights-prepared"))
        << remark::add("@{0}: {1} ops that read only weights ({2} "
                       "arguments) run in @{3}, whose {4} results ({5} bytes) "
                       "@{0} takes as arguments",
                       function.getName().str(), slice.ops.size(),
                       weightIndices.size(), name, slice.results.size(), bytes);
    takePreparedValues(function, slice);
    return success();
  }
};

} // namespace

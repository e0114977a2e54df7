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

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
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
  /// Values that the slice left in the function because a GEMM reads them
  /// in rows that are not whole 16-byte units (needsPaddedRows).
  SmallVector<Value, 0> paddedRows;
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
  return transpose && isTransposeInvariant(transpose.getInput());
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

/// Whether `result` holds codes that a GEMM reads as operand A or B in rows
/// that are not whole 16-byte units. Kernels pad such rows of the
/// temporaries they write, since TMA reads rows 16-byte multiples apart; a
/// prepared copy, passed from one function to another, is stored unpadded.
bool needsPaddedRows(Value result) {
  auto type = dyn_cast<RankedTensorType>(result.getType());
  return type && type.getRank() >= 2 && type.hasStaticShape() &&
         !hasWhole16ByteRows(type) &&
         llvm::any_of(result.getUses(), isGemmOperand);
}

/// The op that must stay in the function with `op`, which computes codes in
/// rows a GEMM could not read passed, or null. Layout kernels move elements
/// of 8 bits or more, so a copy of narrower codes (FP4) is written by the
/// quantization that writes them, which then stays too.
Operation *getPaddedCopySource(Operation *op) {
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  if (!transpose || transpose.getInit().getType().getElementTypeBitWidth() >= 8)
    return nullptr;
  return transpose.getInput().getDefiningOp();
}

/// The weight slice of `block` whose results are worth passing: an op whose
/// result is larger than the weights and prepared values it reads (a bias
/// broadcast to the shape of an activation, which a call would otherwise
/// read from memory instead of the vector), a view (isView) and an op whose
/// result the function returns (a GPU entry point's results are computed,
/// never its arguments) stay in the function, which then takes what they
/// read; so do codes in rows a GEMM could not read passed (needsPaddedRows),
/// with the quantization of codes narrower than a byte
/// (getPaddedCopySource).
WeightSlice getCompactWeightSlice(Block &block,
                                  ArrayRef<BlockArgument> weights) {
  DenseSet<Operation *> kept;
  llvm::SetVector<Value> paddedRows;
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
      if (!needsPaddedRows(result))
        continue;
      paddedRows.insert(result);
      changed |= kept.insert(op).second;
      if (Operation *source = getPaddedCopySource(op))
        changed |= kept.insert(source).second;
    }
    if (!changed) {
      slice.paddedRows.assign(paddedRows.begin(), paddedRows.end());
      return slice;
    }
  }
}

/// A function whose weights fp8-prepare-weights prepares: its weight
/// arguments and what only they determine.
struct Member {
  func::FuncOp function;
  SmallVector<unsigned> weightIndices;
  WeightSlice slice;
};

/// The prepare function of `members` (one function, or a prepare group),
/// and for each member the number of the prepare function's result that
/// each of its slice's results is.
struct PrepareFunction {
  func::FuncOp function;
  SmallVector<SmallVector<int64_t>> resultNumbers;
};

/// Builds `@<name>` before the first of `members`, whose weights are alike:
/// the first member's weights are its arguments, and it computes every
/// member's slice. Ops that compute the same values for several members
/// (a weight's quantization that forward and backward functions both read)
/// become one, and so does the result they return.
PrepareFunction buildPrepareFunction(ArrayRef<Member> members, StringRef name) {
  func::FuncOp first = members.front().function;
  OpBuilder builder(first);
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  for (unsigned i : members.front().weightIndices) {
    argTypes.push_back(first.getArgument(i).getType());
    argAttrs.push_back(first.getArgAttrDict(i));
  }
  auto prepare =
      func::FuncOp::create(builder, first.getLoc(), name,
                           builder.getFunctionType(argTypes, TypeRange()));
  prepare.setVisibility(first.getVisibility());
  prepare.setAllArgAttrs(argAttrs);

  Block *body = prepare.addEntryBlock();
  builder.setInsertionPointToStart(body);
  SmallVector<Value> returned;
  for (const Member &member : members) {
    func::FuncOp function = member.function;
    IRMapping mapping;
    for (auto [i, index] : llvm::enumerate(member.weightIndices))
      mapping.map(function.getArgument(index), body->getArgument(i));
    // The constants first, in their order in the function, then the moved
    // ops.
    for (Operation &op : function.getBody().front())
      if (member.slice.constants.contains(&op))
        builder.clone(op, mapping);
    for (Operation *op : member.slice.ops)
      builder.clone(*op, mapping);
    for (Value result : member.slice.results)
      returned.push_back(mapping.lookup(result));
  }
  auto ret = func::ReturnOp::create(builder, first.getLoc(), returned);

  // One op for each set of alike ops (CSE keeps the first), then one result
  // for each distinct value, in the order of first return.
  IRRewriter rewriter(prepare.getContext());
  DominanceInfo dominance(prepare);
  eliminateCommonSubExpressions(rewriter, dominance, prepare);
  SmallVector<Value> distinct;
  DenseMap<Value, int64_t> numberOf;
  for (Value value : ret.getOperands())
    if (numberOf.try_emplace(value, distinct.size()).second)
      distinct.push_back(value);
  PrepareFunction result{prepare, {}};
  unsigned next = 0;
  for (const Member &member : members) {
    SmallVector<int64_t> &numbers = result.resultNumbers.emplace_back();
    for (size_t i = 0, e = member.slice.results.size(); i < e; ++i)
      numbers.push_back(numberOf.lookup(ret.getOperand(next++)));
  }
  ret->setOperands(distinct);
  prepare.setType(
      builder.getFunctionType(argTypes, ValueRange(distinct).getTypes()));
  return result;
}

/// Rewrites `function` to read the prepared values as arguments after its
/// own, in the order of the prepare function's results (`resultNumbers`, in
/// the order of `slice.results`), and erases the moved ops and the
/// constants only they read.
void takePreparedValues(func::FuncOp function, const WeightSlice &slice,
                        ArrayRef<int64_t> resultNumbers,
                        FlatSymbolRefAttr prepare) {
  MLIRContext *context = function.getContext();
  SmallVector<unsigned> order =
      llvm::to_vector(llvm::seq<unsigned>(0, slice.results.size()));
  llvm::sort(order, [&](unsigned a, unsigned b) {
    return resultNumbers[a] < resultNumbers[b];
  });
  unsigned first = function.getNumArguments();
  SmallVector<unsigned> indices(slice.results.size(), first);
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  SmallVector<Location> locs;
  for (unsigned i : order) {
    Value result = slice.results[i];
    types.push_back(result.getType());
    attrs.push_back(DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, kPreparedAttrName),
                                 IntegerAttr::get(IntegerType::get(context, 64),
                                                  resultNumbers[i]))}));
    locs.push_back(result.getLoc());
  }
  if (failed(function.insertArguments(indices, types, attrs, locs)))
    llvm_unreachable("a function with a body takes new arguments");
  for (auto [position, i] : llvm::enumerate(order))
    Value(slice.results[i])
        .replaceAllUsesWith(function.getArgument(first + position));
  for (Operation *op : llvm::reverse(slice.ops))
    op->erase();
  for (Operation *op : llvm::reverse(slice.constants.getArrayRef()))
    if (op->use_empty())
      op->erase();
  function->setAttr(kPrepareAttrName, prepare);
}

/// Why `function` cannot take prepared values, or std::nullopt when it can.
std::optional<std::string> getUnsplittable(func::FuncOp function,
                                           SymbolUserMap &users) {
  if (!function.isPublic())
    return std::string("it is not public");
  if (!function.getBody().hasOneBlock())
    return std::string("it has several blocks");
  if (!users.getUsers(function).empty())
    return std::string("it is called in this module, so its signature stays");
  return std::nullopt;
}

/// The types of `member`'s weights, in order.
SmallVector<Type> getWeightTypes(const Member &member) {
  func::FuncOp function = member.function;
  return llvm::map_to_vector(member.weightIndices, [&](unsigned i) {
    return function.getArgument(i).getType();
  });
}

/// `types` as `(t0, t1, ...)`.
std::string printTypes(ArrayRef<Type> types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  llvm::interleaveComma(types, os);
  os << ')';
  return text;
}

struct FP8PrepareWeightsPass
    : fp8::impl::FP8PrepareWeightsBase<FP8PrepareWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SymbolTableCollection collection;
    SymbolUserMap users(collection, module);
    // Prepare groups by name, in the order of their first function, and the
    // other functions each on their own.
    llvm::MapVector<StringRef, SmallVector<Member>> groups;
    SmallVector<Member> singles;
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      FailureOr<SmallVector<unsigned>> weightIndices =
          getWeightIndices(function);
      if (failed(weightIndices))
        return signalPassFailure();
      auto group = function->getAttrOfType<StringAttr>(kPrepareGroupAttrName);
      if (weightIndices->empty()) {
        if (group) {
          function.emitError()
              << "fp8-prepare-weights: @" << function.getName()
              << " is in prepare group \"" << group.getValue()
              << "\" but has no " << kWeightAttrName << " argument";
          return signalPassFailure();
        }
        continue;
      }
      if (std::optional<std::string> why = getUnsplittable(function, users)) {
        if (group)
          *why += " (it stays out of prepare group \"" +
                  group.getValue().str() + "\")";
        remarkNotPrepared(function, *why);
        continue;
      }
      Member member{function, std::move(*weightIndices), {}};
      if (group)
        groups[group.getValue()].push_back(std::move(member));
      else
        singles.push_back(std::move(member));
    }

    for (Member &member : singles) {
      std::string name = (member.function.getName() + kPrepareSuffix).str();
      if (failed(prepareGroup(member, name, symbols)))
        return signalPassFailure();
    }
    for (auto &[group, members] : groups) {
      SmallVector<Type> types = getWeightTypes(members.front());
      for (Member &member : MutableArrayRef(members).drop_front()) {
        SmallVector<Type> memberTypes = getWeightTypes(member);
        if (memberTypes == types)
          continue;
        member.function.emitError()
            << "fp8-prepare-weights: @" << member.function.getName()
            << " in prepare group \"" << group << "\" takes weights of types "
            << printTypes(memberTypes) << " but @"
            << members.front().function.getName() << " takes "
            << printTypes(types)
            << "; the functions of a group take the same weights, in the "
               "same order";
        return signalPassFailure();
      }
      if (failed(
              prepareGroup(members, (group + kPrepareSuffix).str(), symbols)))
        return signalPassFailure();
    }
  }

  /// The numbers of `function`'s arguments marked `fp8.weight`.
  FailureOr<SmallVector<unsigned>> getWeightIndices(func::FuncOp function) {
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
    return weightIndices;
  }

  void remarkNotPrepared(func::FuncOp function, const Twine &why) {
    remark::missed(function.getLoc(),
                   getRemarkOpts(function, kCategory, "weights-not-prepared"))
        << remark::add("@{0} computes from its weights on every call: {1}",
                       function.getName().str(), why.str());
  }

  /// Says that `function` computes `value`, which only its weights
  /// determine, on every call, because a GEMM reads it in rows that are not
  /// whole 16-byte units.
  void remarkPaddedRows(func::FuncOp function, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t rowBits = type.getShape().back() * type.getElementTypeBitWidth();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "@" << function.getName() << " computes " << type
       << " from its weights on every call: a GEMM reads its rows of "
       << rowBits / 8 << (rowBits % 8 ? ".5" : "")
       << " bytes, which are not whole 16-byte units; the kernel that "
          "writes it in the function pads them, and a prepared value is "
          "passed unpadded";
    Operation *op = value.getDefiningOp();
    if (getPaddedCopySource(op))
      os << " (its quantization stays too: no layout kernel copies codes "
            "narrower than a byte)";
    remark::missed(op->getLoc(),
                   getRemarkOpts(function, kCategory, "padded-rows"))
        << remark::add("{0}", text);
  }

  /// Moves what only their weights determine out of `members` into one
  /// prepare function, `@<name>`, which they take the results of.
  LogicalResult prepareGroup(MutableArrayRef<Member> members, StringRef name,
                             SymbolTable &symbols) {
    SmallVector<Member> split;
    for (Member &member : members) {
      Block &block = member.function.getBody().front();
      SmallVector<BlockArgument> weights;
      for (unsigned i : member.weightIndices)
        weights.push_back(block.getArgument(i));
      member.slice = getCompactWeightSlice(block, weights);
      for (Value value : member.slice.paddedRows)
        remarkPaddedRows(member.function, value);
      if (member.slice.results.empty())
        remarkNotPrepared(
            member.function,
            member.slice.paddedRows.empty()
                ? "no op that reads only weights and constants is worth "
                  "moving"
                : "what is worth moving, GEMMs read in rows that are not "
                  "whole 16-byte units (padded-rows)");
      else
        split.push_back(std::move(member));
    }
    if (split.empty())
      return success();
    if (symbols.lookup(name)) {
      InFlightDiagnostic diag = split.front().function.emitError()
                                << "fp8-prepare-weights: @" << name
                                << " already exists; rename it to prepare "
                                   "the weights of @"
                                << split.front().function.getName();
      return diag;
    }

    PrepareFunction prepare = buildPrepareFunction(split, name);
    symbols.insert(prepare.function, split.front().function->getIterator());
    auto symbol = FlatSymbolRefAttr::get(prepare.function.getNameAttr());
    for (auto [member, numbers] :
         llvm::zip_equal(split, prepare.resultNumbers)) {
      func::FuncOp function = member.function;
      int64_t bytes = 0;
      for (Value result : member.slice.results)
        bytes += getBytes(result);
      remark::passed(function.getLoc(),
                     getRemarkOpts(function, kCategory, "weights-prepared"))
          << remark::add(
                 "@{0}: {1} ops that read only weights ({2} arguments) run "
                 "in @{3}, whose {4} results ({5} bytes) @{0} takes as "
                 "arguments",
                 function.getName().str(), member.slice.ops.size(),
                 member.weightIndices.size(), name, member.slice.results.size(),
                 bytes);
      takePreparedValues(function, member.slice, numbers, symbol);
    }
    if (split.size() > 1) {
      size_t taken = 0;
      for (const Member &member : split)
        taken += member.slice.results.size();
      remark::passed(
          prepare.function.getLoc(),
          getRemarkOpts(prepare.function, kCategory, "weights-prepared-once"))
          << remark::add("@{0} prepares the weights of {1} functions once: {2} "
                         "results for the {3} values the functions take",
                         name, split.size(), prepare.function.getNumResults(),
                         taken);
    }
    return success();
  }
};

} // namespace

//===- Optimizer.cpp - Adam/AdamW state in FP8 by a named recipe ----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Finds Adam/AdamW steps (a linalg.generic whose results are the new weight
// and the two moving averages) by the dataflow of their bodies, and stores the
// state they thread through their function in low precision: COAT's
// range-expanded FP8 moments, or FP8-LM's FP8 first moment, scaled-f16 second
// moment and scaled-f16 master weight (docs/numerics.md sections 14 and 15).
// The step's own arithmetic is kept as written.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8OPTIMIZER
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kCategory = "fp8-optimizer";
constexpr float kF16Max = 65504.0f;

//===----------------------------------------------------------------------===//
// Recognizing a step
//===----------------------------------------------------------------------===//

/// The roles of the operands and results of one Adam/AdamW step: input
/// operand numbers of the weight, the gradient and the two moments, and the
/// result numbers of their new values. A step over 0-d tensors may leave its
/// weight unknown: its 0-d hyperparameters read like state.
struct AdamStep {
  linalg::GenericOp op;
  std::optional<unsigned> weight;
  unsigned grad, firstMoment, secondMoment;
  unsigned newWeight, newFirstMoment, newSecondMoment;
};

/// Dataflow questions about the body of one linalg.generic.
class BodyFlow {
public:
  explicit BodyFlow(linalg::GenericOp op) : op(op) {
    Block &body = op.getRegion().front();
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    tensorInputs.resize(op.getNumDpsInputs());
    for (OpOperand *input : op.getDpsInputOperands()) {
      unsigned i = input->getOperandNumber();
      tensorInputs[i] = input->get().getType() == resultType &&
                        op.getMatchingIndexingMap(input).isIdentity() &&
                        resultType.getElementType().isF32() &&
                        !body.getArgument(i).getUses().empty();
    }
  }

  /// The tensor inputs (same type as the results, read at the result's
  /// position) that `value` depends on in the body.
  llvm::BitVector getInputs(Value value) {
    auto it = inputsOf.find(value);
    if (it != inputsOf.end())
      return it->second;
    llvm::BitVector inputs(tensorInputs.size());
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &op.getRegion().front() &&
          arg.getArgNumber() < tensorInputs.size() &&
          tensorInputs[arg.getArgNumber()])
        inputs.set(arg.getArgNumber());
    } else if (Operation *def = value.getDefiningOp();
               def && op->isProperAncestor(def)) {
      for (Value operand : def->getOperands())
        inputs |= getInputs(operand);
    }
    inputsOf[value] = inputs;
    return inputs;
  }

  /// Whether `value` is computed from `target` in the body.
  bool dependsOn(Value value, Value target) {
    DenseSet<Value> visited;
    SmallVector<Value> worklist = {value};
    while (!worklist.empty()) {
      Value next = worklist.pop_back_val();
      if (next == target)
        return true;
      Operation *def = next.getDefiningOp();
      if (!def || !op->isProperAncestor(def) || !visited.insert(next).second)
        continue;
      llvm::append_range(worklist, def->getOperands());
    }
    return false;
  }

  /// The tensor input `value` is, if any.
  std::optional<unsigned> getTensorInput(Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || arg.getOwner() != &op.getRegion().front() ||
        arg.getArgNumber() >= tensorInputs.size() ||
        !tensorInputs[arg.getArgNumber()])
      return std::nullopt;
    return arg.getArgNumber();
  }

  /// The readings of `value` as a moving average `beta * state + x` (either
  /// operand order of both ops): `beta` reads no tensor input, `x` reads
  /// exactly one, the gradient. Each is the state's and the gradient's input
  /// numbers; `b1 * m + (1 - b1) * g` reads both ways (m or g the state),
  /// and the step chooses by the gradient the other average shares.
  SmallVector<std::pair<unsigned, unsigned>> matchMovingAverage(Value value) {
    SmallVector<std::pair<unsigned, unsigned>> readings;
    auto add = value.getDefiningOp<arith::AddFOp>();
    if (!add || !op->isProperAncestor(add))
      return readings;
    for (auto [product, rest] : {std::pair(add.getLhs(), add.getRhs()),
                                 std::pair(add.getRhs(), add.getLhs())}) {
      auto mul = product.getDefiningOp<arith::MulFOp>();
      if (!mul || !op->isProperAncestor(mul))
        continue;
      for (auto [beta, state] : {std::pair(mul.getLhs(), mul.getRhs()),
                                 std::pair(mul.getRhs(), mul.getLhs())}) {
        std::optional<unsigned> stateInput = getTensorInput(state);
        llvm::BitVector restInputs = getInputs(rest);
        if (!stateInput || getInputs(beta).any() || restInputs.count() != 1 ||
            restInputs.test(*stateInput))
          continue;
        std::pair reading(*stateInput, unsigned(restInputs.find_first()));
        if (!llvm::is_contained(readings, reading))
          readings.push_back(reading);
      }
    }
    return readings;
  }

private:
  linalg::GenericOp op;
  SmallVector<bool> tensorInputs;
  DenseMap<Value, llvm::BitVector> inputsOf;
};

/// The roles of `op`'s operands if it is an Adam/AdamW step.
std::optional<AdamStep> matchAdamStep(linalg::GenericOp op) {
  if (op.getNumResults() != 3 || op.getNumDpsInputs() < 4 ||
      !llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType type) {
        return type == utils::IteratorType::parallel;
      }))
    return std::nullopt;
  Type resultType = op.getResult(0).getType();
  if (op.getResult(1).getType() != resultType ||
      op.getResult(2).getType() != resultType)
    return std::nullopt;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return std::nullopt;
  BodyFlow flow(op);
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  // Two moving averages of one gradient, and a third result: one reading of
  // each average, the two sharing their gradient and not their state.
  SmallVector<unsigned> averages;
  SmallVector<SmallVector<std::pair<unsigned, unsigned>>> readings;
  for (unsigned i = 0; i < 3; ++i) {
    auto match = flow.matchMovingAverage(yield.getOperand(i));
    if (!match.empty()) {
      averages.push_back(i);
      readings.push_back(std::move(match));
    }
  }
  if (averages.size() != 2)
    return std::nullopt;
  SmallVector<std::pair<unsigned, unsigned>> roles;
  for (auto first : readings[0]) {
    for (auto second : readings[1]) {
      if (first.second != second.second || first.first == second.first)
        continue;
      if (!roles.empty())
        return std::nullopt; // Two readings of the step: ambiguous.
      roles = {first, second};
    }
  }
  if (roles.empty())
    return std::nullopt;
  unsigned weightResult = 3 - averages[0] - averages[1];
  unsigned grad = roles[0].second;
  llvm::BitVector weightInputs = flow.getInputs(yield.getOperand(weightResult));
  // Over 0-d tensors, hyperparameters given as 0-d tensors are tensor inputs
  // too: the weight is one of several.
  bool scalar = cast<RankedTensorType>(resultType).getRank() == 0;
  if (weightInputs.count() < 4 || (weightInputs.count() > 4 && !scalar) ||
      !weightInputs.test(grad) || !weightInputs.test(roles[0].first) ||
      !weightInputs.test(roles[1].first))
    return std::nullopt;
  llvm::BitVector others = weightInputs;
  others.reset(grad);
  others.reset(roles[0].first);
  others.reset(roles[1].first);
  std::optional<unsigned> weight;
  if (others.count() == 1)
    weight = others.find_first();
  // The second moment is the one under a square root that does not also
  // read the first.
  Value averageValues[2] = {yield.getOperand(averages[0]),
                            yield.getOperand(averages[1])};
  int second = -1;
  bool ambiguous = false;
  op.getRegion().walk([&](math::SqrtOp sqrt) {
    bool reads[2] = {flow.dependsOn(sqrt.getOperand(), averageValues[0]),
                     flow.dependsOn(sqrt.getOperand(), averageValues[1])};
    if (reads[0] == reads[1])
      return;
    int which = reads[0] ? 0 : 1;
    ambiguous |= second >= 0 && second != which;
    second = which;
  });
  if (second < 0 || ambiguous)
    return std::nullopt;
  int first = 1 - second;
  return AdamStep{op,
                  weight,
                  grad,
                  roles[first].first,
                  roles[second].first,
                  weightResult,
                  averages[first],
                  averages[second]};
}

//===----------------------------------------------------------------------===//
// Storage of one state tensor
//===----------------------------------------------------------------------===//

/// How one state tensor is stored.
enum class Storage {
  /// Kept as it is (COAT's weight): marked only.
  Unchanged,
  /// fp8.expand_quantize by groups: codes, amax (f32), exponent (i8).
  Expanded,
  /// FP8 codes by a per-tensor pow2 scale of the current amax, and the f32
  /// decode scale.
  TensorCodes,
  /// f16 values by a per-tensor pow2 scale (fmax 65504), and the f32 decode
  /// scale.
  ScaledF16,
};

struct StorageOptions {
  int64_t group;
  int32_t expansionLimit;
  Format format;
};

/// The names of the stored parts, for `fp8.optimizer_state`.
ArrayRef<StringRef> getPartNames(Storage storage) {
  static const StringRef expanded[] = {"codes", "amax", "exponent"};
  static const StringRef codes[] = {"codes", "scale"};
  static const StringRef f16[] = {"values", "scale"};
  static const StringRef unchanged[] = {""};
  switch (storage) {
  case Storage::Unchanged:
    return unchanged;
  case Storage::Expanded:
    return expanded;
  case Storage::TensorCodes:
    return codes;
  case Storage::ScaledF16:
    return f16;
  }
  llvm_unreachable("unknown storage");
}

GranularityAttr getGroupGranularity(MLIRContext *ctx,
                                    const StorageOptions &options) {
  return GranularityAttr::get(ctx, {options.group});
}

/// A tensor of ones of `type`'s rank, for a per-tensor scale.
RankedTensorType getTensorScaleType(RankedTensorType type) {
  return RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1),
                               Float32Type::get(type.getContext()));
}

/// The types of the parts `storage` keeps of a state of `type`.
SmallVector<Type> getPartTypes(Storage storage, RankedTensorType type,
                               const StorageOptions &options) {
  MLIRContext *ctx = type.getContext();
  Type f32 = Float32Type::get(ctx);
  switch (storage) {
  case Storage::Unchanged:
    return {type};
  case Storage::Expanded: {
    SmallVector<int64_t> scaleShape =
        getGroupGranularity(ctx, options).getScaleShape(type.getShape());
    return {type.clone(getFormatType(ctx, options.format)),
            RankedTensorType::get(scaleShape, f32),
            RankedTensorType::get(scaleShape, IntegerType::get(ctx, 8))};
  }
  case Storage::TensorCodes:
    return {type.clone(getFormatType(ctx, options.format)),
            getTensorScaleType(type)};
  case Storage::ScaledF16:
    return {type.clone(Float16Type::get(ctx)), getTensorScaleType(type)};
  }
  llvm_unreachable("unknown storage");
}

/// The single element of `tensor` (all extents 1) as a 0-d tensor.
Value toScalarTensor(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({}, type.getElementType()), tensor,
      ArrayRef<ReassociationIndices>{});
}

/// A linalg.generic that maps every element of `input`, with the 0-d tensor
/// `scalar`, by `body` to a tensor of `type`.
Value mapElements(OpBuilder &b, Location loc, Value input, Value scalar,
                  RankedTensorType type,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  AffineMap broadcast = AffineMap::get(type.getRank(), 0, b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{input, scalar}, init,
             ArrayRef<AffineMap>{identity, broadcast, identity}, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc,
                                       body(nested, nestedLoc, args));
             })
      .getResult(0);
}

/// The f32 state of `type` that the stored `parts` hold.
Value decodeState(OpBuilder &b, Location loc, Storage storage, ValueRange parts,
                  RankedTensorType type, const StorageOptions &options) {
  MLIRContext *ctx = b.getContext();
  switch (storage) {
  case Storage::Unchanged:
    return parts[0];
  case Storage::Expanded:
    return ExpandDequantizeOp::create(b, loc, type, parts[0], parts[1],
                                      parts[2],
                                      getGroupGranularity(ctx, options));
  case Storage::TensorCodes:
    return DequantizeOp::create(b, loc, type, parts[0], parts[1], Value(),
                                GranularityAttr::getTensor(ctx));
  case Storage::ScaledF16:
    // fl32(float(w16) * (1/s)), with the stored decode scale 1/s.
    return mapElements(
        b, loc, parts[0], toScalarTensor(b, loc, parts[1]), type,
        [](OpBuilder &nested, Location l, ValueRange args) {
          Value wide =
              arith::ExtFOp::create(nested, l, nested.getF32Type(), args[0]);
          return arith::MulFOp::create(nested, l, wide, args[1]).getResult();
        });
  }
  llvm_unreachable("unknown storage");
}

/// The parts `storage` keeps of the f32 state `value`.
SmallVector<Value> encodeState(OpBuilder &b, Location loc, Storage storage,
                               Value value, const StorageOptions &options) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Type> partTypes = getPartTypes(storage, type, options);
  switch (storage) {
  case Storage::Unchanged:
    return {value};
  case Storage::Expanded: {
    auto op = ExpandQuantizeOp::create(
        b, loc, partTypes[0], partTypes[1], partTypes[2], value,
        getGroupGranularity(ctx, options),
        b.getI32IntegerAttr(options.expansionLimit));
    return SmallVector<Value>(op.getResults());
  }
  case Storage::TensorCodes: {
    // Current scaling by a power of two: amax, pow2, quantize (what
    // fp8-fuse-dynamic-quantize turns into one fp8.dynamic_quantize).
    GranularityAttr tensor = GranularityAttr::getTensor(ctx);
    Value amax =
        AmaxOp::create(b, loc, partTypes[1], value, tensor, NanPolicy::Ignore);
    auto rule = ScaleRuleAttr::get(ctx, ScaleRuleKind::Pow2, /*margin=*/0,
                                   llvm::APFloat(0.0f));
    auto scale = ComputeScaleOp::create(b, loc, partTypes[1], partTypes[1],
                                        amax, Value(), rule, options.format);
    Value codes = QuantizeOp::create(b, loc, partTypes[0], value,
                                     scale.getScale(), tensor);
    return {codes, scale.getScaleInv()};
  }
  case Storage::ScaledF16: {
    // s = pow2(amax, 65504) and the stored fl32(1/s), as tensors of one
    // element; then w16 = RNE_f16(fl32(w * s)).
    auto scaleType = cast<RankedTensorType>(partTypes[1]);
    Value amax =
        AmaxOp::create(b, loc, scaleType, value,
                       GranularityAttr::getTensor(ctx), NanPolicy::Ignore);
    Value init = tensor::EmptyOp::create(b, loc, scaleType.getShape(),
                                         scaleType.getElementType());
    AffineMap identity = b.getMultiDimIdentityMap(scaleType.getRank());
    auto scales = linalg::GenericOp::create(
        b, loc, TypeRange{scaleType, scaleType}, amax, ValueRange{init, init},
        ArrayRef<AffineMap>{identity, identity, identity},
        SmallVector<utils::IteratorType>(scaleType.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &nested, Location l, ValueRange args) {
          Value scale =
              emitRatioScale(nested, l, args[0], kF16Max, /*margin=*/0,
                             llvm::APFloat(0.0f), /*truncateToPow2=*/true);
          linalg::YieldOp::create(
              nested, l, ValueRange{scale, emitReciprocal(nested, l, scale)});
        });
    Value values = mapElements(
        b, loc, value, toScalarTensor(b, loc, scales.getResult(0)),
        cast<RankedTensorType>(partTypes[0]),
        [](OpBuilder &nested, Location l, ValueRange args) {
          Value scaled = arith::MulFOp::create(nested, l, args[0], args[1]);
          return arith::TruncFOp::create(nested, l, nested.getF16Type(), scaled)
              .getResult();
        });
    return {values, scales.getResult(1)};
  }
  }
  llvm_unreachable("unknown storage");
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// One state tensor a function threads: its argument, the results that
/// return its new value, and how it is stored.
struct ThreadedState {
  unsigned argument;
  Value newValue;
  Storage storage;
  StringRef role;
};

struct FP8OptimizerPass : public fp8::impl::FP8OptimizerBase<FP8OptimizerPass> {
  using FP8OptimizerBase::FP8OptimizerBase;

  void runOnOperation() override;

private:
  /// The states of `step` that the recipe stores, or a reason why they are
  /// not threaded through `function`.
  FailureOr<SmallVector<ThreadedState>>
  getThreadedStates(AdamStep step, func::FuncOp function, std::string &reason);

  /// Replaces the threaded states' arguments and results of `function` by
  /// their stored parts.
  void rewriteFunction(func::FuncOp function, ArrayRef<ThreadedState> states);

  StorageOptions storageOptions;
  bool isCoat = true;
};

FailureOr<SmallVector<ThreadedState>>
FP8OptimizerPass::getThreadedStates(AdamStep step, func::FuncOp function,
                                    std::string &reason) {
  // How the weight, m and v are stored.
  const std::array<Storage, 3> storages =
      isCoat
          ? std::array{Storage::Unchanged, Storage::Expanded, Storage::Expanded}
          : std::array{Storage::ScaledF16, Storage::TensorCodes,
                       Storage::ScaledF16};
  auto type = cast<RankedTensorType>(step.op.getResult(0).getType());
  if (!type.hasStaticShape())
    return reason = "its state has a dynamic shape", failure();
  // Codes and scales of a few elements take more bytes than their f32
  // values (a 0-d state always does; its parts are counted as those of one
  // element in a row, which groups have).
  RankedTensorType counted =
      type.getRank() == 0 ? RankedTensorType::get({1}, type.getElementType())
                          : type;
  auto getBytes = [](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return getTensorBytes(tensor.getShape(), tensor.getElementTypeBitWidth());
  };
  int64_t storedBytes = 0;
  for (Storage storage : storages)
    for (Type part : getPartTypes(storage, counted, storageOptions))
      storedBytes += getBytes(part);
  int64_t f32Bytes = storages.size() * getBytes(counted);
  if (storedBytes >= f32Bytes)
    return reason = llvm::formatv("its state of {0} element{1} would take {2} "
                                  "bytes stored, against {3} in f32",
                                  type.getNumElements(),
                                  type.getNumElements() == 1 ? "" : "s",
                                  storedBytes, f32Bytes)
                        .str(),
           failure();
  // Only a 0-d step leaves its weight unknown, and 0-d state is never
  // stored.
  assert(step.weight && "a step of more than one element has a weight");
  struct Role {
    unsigned input, result;
    Storage storage;
    StringRef name;
  };
  Role roles[] = {{*step.weight, step.newWeight, storages[0], "weight"},
                  {step.firstMoment, step.newFirstMoment, storages[1], "m"},
                  {step.secondMoment, step.newSecondMoment, storages[2], "v"}};
  Operation *ret = function.front().getTerminator();
  SmallVector<ThreadedState> states;
  for (const Role &role : roles) {
    Value old = step.op.getDpsInputOperand(role.input)->get();
    auto arg = dyn_cast<BlockArgument>(old);
    if (!arg || arg.getOwner() != &function.front())
      return reason = ("its " + role.name + " is not an argument of @" +
                       function.getName())
                          .str(),
             failure();
    Value newValue = step.op.getResult(role.result);
    if (!llvm::is_contained(ret->getOperands(), newValue))
      return reason = ("its new " + role.name + " is not a result of @" +
                       function.getName())
                          .str(),
             failure();
    if (llvm::any_of(states, [&](const ThreadedState &state) {
          return state.argument == arg.getArgNumber();
        }))
      return reason = ("its " + role.name + " is the argument of another state")
                          .str(),
             failure();
    states.push_back({arg.getArgNumber(), newValue, role.storage, role.name});
  }
  return states;
}

void FP8OptimizerPass::rewriteFunction(func::FuncOp function,
                                       ArrayRef<ThreadedState> states) {
  MLIRContext *ctx = function.getContext();
  Block &entry = function.front();
  Operation *ret = entry.getTerminator();
  auto attrsFor = [&](StringRef role, StringRef part) {
    std::string name = part.empty() ? role.str() : (role + "." + part).str();
    NamedAttribute attr(StringAttr::get(ctx, kOptimizerStateAttrName),
                        StringAttr::get(ctx, name));
    return DictionaryAttr::get(ctx, attr);
  };

  // Encode every new state right after its step, in the order of the
  // states.
  DenseMap<Value, SmallVector<Value>> encoded;
  DenseMap<Operation *, OpBuilder::InsertPoint> afterStep;
  for (const ThreadedState &state : states) {
    OpBuilder b(ctx);
    Operation *step = state.newValue.getDefiningOp();
    auto it = afterStep.find(step);
    if (it == afterStep.end())
      b.setInsertionPointAfter(step);
    else
      b.restoreInsertionPoint(it->second);
    encoded[state.newValue] =
        encodeState(b, state.newValue.getLoc(), state.storage, state.newValue,
                    storageOptions);
    afterStep[step] = b.saveInsertionPoint();
  }

  // Arguments: insert the stored parts after each state, decode them at the
  // start of the function, and drop the state.
  SmallVector<unsigned> argIndices;
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<Location> argLocs;
  SmallVector<const ThreadedState *> byArgument;
  for (const ThreadedState &state : states)
    byArgument.push_back(&state);
  llvm::sort(byArgument, [](const ThreadedState *a, const ThreadedState *b) {
    return a->argument < b->argument;
  });
  for (const ThreadedState *state : byArgument) {
    BlockArgument arg = entry.getArgument(state->argument);
    auto type = cast<RankedTensorType>(arg.getType());
    for (auto [partType, part] :
         llvm::zip_equal(getPartTypes(state->storage, type, storageOptions),
                         getPartNames(state->storage))) {
      argIndices.push_back(state->argument + 1);
      argTypes.push_back(partType);
      argAttrs.push_back(attrsFor(state->role, part));
      argLocs.push_back(arg.getLoc());
    }
  }
  if (failed(
          function.insertArguments(argIndices, argTypes, argAttrs, argLocs))) {
    function.emitError("fp8-optimizer: cannot insert the stored state's "
                       "arguments");
    return signalPassFailure();
  }
  // The old argument i is now at i plus the parts inserted before it.
  llvm::BitVector erase(entry.getNumArguments());
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  unsigned shift = 0;
  for (const ThreadedState *state : byArgument) {
    unsigned position = state->argument + shift;
    BlockArgument arg = entry.getArgument(position);
    size_t numParts = getPartNames(state->storage).size();
    ValueRange parts = entry.getArguments().slice(position + 1, numParts);
    Value decoded =
        decodeState(b, arg.getLoc(), state->storage, parts,
                    cast<RankedTensorType>(arg.getType()), storageOptions);
    arg.replaceAllUsesWith(decoded);
    erase.set(position);
    shift += numParts;
  }
  if (failed(function.eraseArguments(erase))) {
    function.emitError("fp8-optimizer: cannot erase the f32 state arguments");
    return signalPassFailure();
  }

  // Results: every returned new state becomes its parts.
  SmallVector<Value> operands;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, operand] : llvm::enumerate(ret->getOperands())) {
    const ThreadedState *state = nullptr;
    for (const ThreadedState &candidate : states)
      if (candidate.newValue == operand)
        state = &candidate;
    if (!state) {
      operands.push_back(operand);
      resultTypes.push_back(operand.getType());
      resultAttrs.push_back(function.getResultAttrDict(i));
      continue;
    }
    for (auto [value, part] :
         llvm::zip_equal(encoded[operand], getPartNames(state->storage))) {
      operands.push_back(value);
      resultTypes.push_back(value.getType());
      resultAttrs.push_back(attrsFor(state->role, part));
    }
  }
  ret->setOperands(operands);
  function.setType(
      FunctionType::get(ctx, entry.getArgumentTypes(), resultTypes));
  function.setAllResultAttrs(resultAttrs);
}

void FP8OptimizerPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (recipe != "coat" && recipe != "fp8lm") {
    emitError(module.getLoc()) << "fp8-optimizer: unknown recipe '" << recipe
                               << "'; expected coat or fp8lm";
    return signalPassFailure();
  }
  isCoat = recipe == "coat";
  std::optional<Format> parsedFormat = symbolizeFormat(format);
  if (!parsedFormat ||
      (*parsedFormat != Format::E4M3 && *parsedFormat != Format::E5M2)) {
    emitError(module.getLoc())
        << "fp8-optimizer: format '" << format
        << "' cannot hold optimizer state; expected e4m3 or "
           "e5m2";
    return signalPassFailure();
  }
  if (group <= 0) {
    emitError(module.getLoc()) << "fp8-optimizer: group must be positive, got "
                               << static_cast<int64_t>(group);
    return signalPassFailure();
  }
  if (expansionLimit < 0 || expansionLimit > 8) {
    emitError(module.getLoc())
        << "fp8-optimizer: expansion-limit must be in [0, 8], "
           "got "
        << static_cast<int32_t>(expansionLimit);
    return signalPassFailure();
  }
  storageOptions = {group, expansionLimit, *parsedFormat};

  SymbolTableCollection symbols;
  SymbolUserMap users(symbols, module);
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    SmallVector<AdamStep> steps;
    function.walk([&](linalg::GenericOp op) {
      if (std::optional<AdamStep> step = matchAdamStep(op))
        steps.push_back(*step);
    });
    if (steps.empty())
      continue;
    auto missed = [&](Operation *op, const Twine &why) {
      remark::missed(op->getLoc(),
                     getRemarkOpts(op, kCategory, "state-not-stored"))
          << remark::add("the Adam step {0} keeps its f32 state: {1}",
                         describeForRemarks(op), why.str());
    };
    if (!function.getBody().hasOneBlock()) {
      for (const AdamStep &step : steps)
        missed(step.op, "@" + function.getName() + " has several blocks");
      continue;
    }
    if (!users.getUsers(function).empty()) {
      for (const AdamStep &step : steps)
        missed(step.op, "@" + function.getName() +
                            " is called in this module, so its signature "
                            "stays");
      continue;
    }
    SmallVector<ThreadedState> states;
    DenseSet<unsigned> claimed;
    for (AdamStep step : steps) {
      std::string reason;
      FailureOr<SmallVector<ThreadedState>> threaded =
          getThreadedStates(step, function, reason);
      if (succeeded(threaded) &&
          llvm::any_of(*threaded, [&](const ThreadedState &state) {
            return claimed.contains(state.argument);
          })) {
        reason = "another step updates the same argument";
        threaded = failure();
      }
      if (failed(threaded)) {
        missed(step.op, reason);
        continue;
      }
      for (const ThreadedState &state : *threaded)
        claimed.insert(state.argument);
      remark::passed(step.op.getLoc(),
                     getRemarkOpts(step.op, kCategory, "state-stored"))
          << remark::add("the Adam step {0} stores {1} by recipe {2}",
                         describeForRemarks(step.op),
                         isCoat ? "m and v" : "the weight, m and v",
                         std::string(recipe));
      llvm::append_range(states, *threaded);
    }
    if (!states.empty())
      rewriteFunction(function, states);
  }
}

} // namespace

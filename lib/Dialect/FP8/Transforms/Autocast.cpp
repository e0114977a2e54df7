//===- Autocast.cpp - Linalg contractions to scaled FP8 by recipe ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "SavedActivations.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Transforms/Recipes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8AUTOCAST
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kCategory = "fp8-autocast";

//===----------------------------------------------------------------------===//
// Recognizing contractions
//===----------------------------------------------------------------------===//

/// A contraction C[b?, m, n] (+)= A * B in the shape fp8.scaled_matmul takes.
struct Contraction {
  linalg::LinalgOp op;
  Value lhs, rhs, init;
  bool transposeLhs = false, transposeRhs = false;
  RankedTensorType resultType;
};

/// Matches `op` as a contraction fp8.scaled_matmul can express, or says why
/// not.
FailureOr<Contraction> matchContraction(linalg::LinalgOp op,
                                        std::string &reason) {
  auto fail = [&](StringRef why) {
    reason = why.str();
    return failure();
  };
  if (!op.hasPureTensorSemantics())
    return fail("not on tensors");
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1)
    return fail("not a two-operand contraction");
  if (!linalg::isaContractionOpInterface(op))
    return fail("not a multiply-accumulate contraction");
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!lhsType || !rhsType || !resultType)
    return fail("operands are not ranked tensors");
  if (!isWideFloat(lhsType.getElementType()) ||
      !isWideFloat(rhsType.getElementType()) ||
      !isWideFloat(resultType.getElementType()))
    return fail("element types are not f32, bf16 or f16");

  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return fail("not one M, one N, one K and at most one batch dimension");
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  std::optional<unsigned> batch;
  if (!dims->batch.empty())
    batch = dims->batch[0];

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto positions = [](AffineMap map) -> std::optional<SmallVector<unsigned>> {
    SmallVector<unsigned> result;
    for (AffineExpr expr : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return std::nullopt;
      result.push_back(dim.getPosition());
    }
    return result;
  };
  auto lhsDims = positions(maps[0]), rhsDims = positions(maps[1]),
       outDims = positions(maps[2]);
  if (!lhsDims || !rhsDims || !outDims)
    return fail("indexing maps are not permutations");
  auto withBatch = [&](ArrayRef<unsigned> tail) {
    SmallVector<unsigned> result;
    if (batch)
      result.push_back(*batch);
    llvm::append_range(result, tail);
    return result;
  };
  Contraction c{op, lhs, rhs, init, false, false, resultType};
  if (*outDims != withBatch({m, n}))
    return fail("the result is not indexed [batch?, M, N]");
  if (*lhsDims == withBatch({k, m}))
    c.transposeLhs = true;
  else if (*lhsDims != withBatch({m, k}))
    return fail("the left operand is not indexed [batch?, M, K] or "
                "[batch?, K, M]");
  if (*rhsDims == withBatch({n, k}))
    c.transposeRhs = true;
  else if (*rhsDims != withBatch({k, n}))
    return fail("the right operand is not indexed [batch?, K, N] or "
                "[batch?, N, K]");
  return c;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// A quantized operand: data, decode scale and (NVFP4) global decode scale.
struct Quantized {
  Value data, scale, global;
};

struct FP8AutocastPass : fp8::impl::FP8AutocastBase<FP8AutocastPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult parseOptions();
  bool isExcluded(Operation *op, StringRef function) const;
  void convert(Contraction &c, StringRef function, unsigned ordinal);
  Quantized quantize(OpBuilder &b, Location loc, Value value,
                     const OperandPlan &plan, const GemmPlan &gemm,
                     StringRef stateName);
  Quantized quantizeDelayed(OpBuilder &b, Location loc, Value value,
                            const OperandPlan &plan, StringRef stateName);
  Quantized quantizeStochastic(OpBuilder &b, Location loc, Value value,
                               const OperandPlan &plan, const GemmPlan &gemm);
  Value randomBits(OpBuilder &b, Location loc, Value like);
  Value getCallCounter(OpBuilder &b, Location loc);
  FlatSymbolRefAttr getStateGlobal(StringRef name, DenseElementsAttr init,
                                   Location loc, const Twine &role);

  RecipeOptions options;
  /// Declares the discardable attributes that mark contractions.
  FP8Dialect *dialect = nullptr;
  /// Compiled `exclude` patterns (shared: passes are copied when cloned).
  std::vector<std::shared_ptr<llvm::Regex>> excludes;
  SymbolTable *symbols = nullptr;
  /// One quantization per (value, format, granularity, rule) and function.
  llvm::DenseMap<std::tuple<Value, unsigned, Attribute, Attribute>, Quantized>
      cache;
  unsigned randomStreams = 0;
  /// Per function, the global of the call counter its random bits read
  /// (random-state).
  llvm::DenseMap<Operation *, FlatSymbolRefAttr> callCounters;
  /// A state global of the wrong kind was found.
  bool stateError = false;
  /// A contraction marked for FP8 could not be converted.
  bool markedFailure = false;
  /// The format of saved activations, if they are stored in FP8.
  std::optional<Format> savedFormat;
};

/// Parses an enum option, or reports the valid values.
template <typename EnumT>
LogicalResult parseChoice(ModuleOp module, StringRef option, StringRef value,
                          ArrayRef<std::pair<StringRef, EnumT>> choices,
                          EnumT &result) {
  for (auto [name, choice] : choices)
    if (name == value) {
      result = choice;
      return success();
    }
  SmallVector<StringRef> names;
  for (auto [name, choice] : choices)
    names.push_back(name);
  return emitError(module.getLoc())
         << "fp8-autocast: unknown " << option << " '" << value
         << "'; valid values are " << llvm::join(names, ", ");
}

LogicalResult FP8AutocastPass::parseOptions() {
  ModuleOp module = getOperation();
  std::optional<RecipeKind> kind = parseRecipeName(recipe);
  if (!kind)
    return emitError(module.getLoc())
           << "fp8-autocast: unknown recipe '" << recipe
           << "'; valid recipes are " << llvm::join(getRecipeNames(), ", ");
  options.kind = *kind;
  static const std::pair<StringRef, Format> formats[] = {
      {"e4m3", Format::E4M3}, {"e5m2", Format::E5M2}, {"e2m1", Format::E2M1}};
  auto parseFormat = [&](StringRef option, StringRef value,
                         std::optional<Format> &target) -> LogicalResult {
    if (value.empty())
      return success();
    Format format;
    if (failed(parseChoice<Format>(module, option, value, formats, format)))
      return failure();
    target = format;
    return success();
  };
  if (failed(parseFormat("fwd-format", fwdFormat, options.forwardFormat)) ||
      failed(parseFormat("grad-format", gradFormat, options.gradientFormat)))
    return failure();
  if (options.kind == RecipeKind::NVFP4)
    for (std::optional<Format> format :
         {options.forwardFormat, options.gradientFormat})
      if (format && *format != Format::E2M1)
        return emitError(module.getLoc())
               << "fp8-autocast: recipe nvfp4 quantizes to "
                  "e2m1 only; drop fwd-format/grad-format "
                  "or choose another recipe";
  if (options.kind != RecipeKind::NVFP4)
    for (std::optional<Format> format :
         {options.forwardFormat, options.gradientFormat})
      if (format && *format == Format::E2M1 &&
          options.kind != RecipeKind::MXFP8)
        return emitError(module.getLoc())
               << "fp8-autocast: e2m1 operands need block scales: use recipe "
                  "nvfp4 or mxfp8";
  if (failed(parseChoice<AmaxAlgo>(
          module, "amax-algo", amaxAlgo,
          {{"max", AmaxAlgo::Max}, {"most_recent", AmaxAlgo::MostRecent}},
          options.amaxAlgo)) ||
      failed(parseChoice<ZeroAmaxPolicy>(
          module, "zero-amax", zeroAmax,
          {{"roll", ZeroAmaxPolicy::Roll}, {"skip", ZeroAmaxPolicy::Skip}},
          options.zeroAmax)) ||
      failed(parseChoice<ScaleRuleKind>(module, "e8m0-rounding", e8m0Rounding,
                                        {{"rceil", ScaleRuleKind::E8M0RCeil},
                                         {"floor", ScaleRuleKind::E8M0Floor}},
                                        options.e8m0Rule)))
    return failure();
  if (margin < 0 || margin > 127)
    return emitError(module.getLoc())
           << "fp8-autocast: margin must be in [0, 127], got "
           << static_cast<int>(margin);
  if (history < 1)
    return emitError(module.getLoc())
           << "fp8-autocast: history needs at least 1 entry, got "
           << static_cast<int64_t>(history);
  if (promoteInterval < 0)
    return emitError(module.getLoc())
           << "fp8-autocast: promote-interval must be >= 0, got "
           << static_cast<int64_t>(promoteInterval);
  if (StringRef(savedActivations) != "none") {
    Format format;
    static const std::pair<StringRef, Format> savedFormats[] = {
        {"e4m3", Format::E4M3}, {"e5m2", Format::E5M2}};
    if (failed(parseChoice<Format>(module, "saved-activations",
                                   savedActivations, savedFormats, format)))
      return failure();
    savedFormat = format;
  } else {
    savedFormat.reset();
  }
  if (savedActivationGroup < 1)
    return emitError(module.getLoc())
           << "fp8-autocast: saved-activation-group must be positive, got "
           << static_cast<int64_t>(savedActivationGroup);
  options.margin = margin;
  options.history = history;
  options.promoteInterval = promoteInterval;
  for (const std::string &pattern : exclude) {
    llvm::Regex regex(pattern);
    std::string error;
    if (!regex.isValid(error))
      return emitError(module.getLoc())
             << "fp8-autocast: invalid exclude pattern '" << pattern
             << "': " << error;
    excludes.push_back(std::make_shared<llvm::Regex>(std::move(regex)));
  }
  return success();
}

bool FP8AutocastPass::isExcluded(Operation *op, StringRef function) const {
  SmallVector<StringRef> names{function};
  if (StringAttr name = dialect->getNameAttrHelper().getAttr(op))
    names.push_back(name.getValue());
  if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
    names.push_back(loc.getName().getValue());
  for (const std::shared_ptr<llvm::Regex> &regex : excludes)
    for (StringRef name : names)
      if (regex->match(name))
        return true;
  return false;
}

/// fp8.quantize with the scale 1 of unit scaling.
Quantized quantizeStatic(OpBuilder &b, Location loc, Value value,
                         const OperandPlan &plan) {
  auto type = cast<RankedTensorType>(value.getType());
  auto scaleType = RankedTensorType::get(
      SmallVector<int64_t>(type.getRank(), 1), b.getF32Type());
  Value one = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scaleType, b.getF32FloatAttr(1.0f)));
  Type narrow = getFormatType(b.getContext(), plan.format);
  Value data = QuantizeOp::create(b, loc, type.clone(narrow), value, one,
                                  GranularityAttr::getTensor(b.getContext()));
  return {data, one, Value()};
}

Quantized FP8AutocastPass::quantizeDelayed(OpBuilder &b, Location loc,
                                           Value value, const OperandPlan &plan,
                                           StringRef stateName) {
  MLIRContext *ctx = &getContext();
  auto type = cast<RankedTensorType>(value.getType());
  Type f32 = b.getF32Type();
  auto historyType = RankedTensorType::get({options.history}, f32);
  auto stateScaleType = RankedTensorType::get({1}, f32);
  auto scaleType =
      RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1), f32);

  auto makeGlobal = [&](StringRef suffix, RankedTensorType stateType,
                        float init) {
    return getStateGlobal(
        (stateName + suffix).str(),
        DenseElementsAttr::get(stateType, b.getF32FloatAttr(init)), loc,
        "the delayed-scaling state of this tensor");
  };
  FlatSymbolRefAttr historySym = makeGlobal("_history", historyType, 0.0f);
  FlatSymbolRefAttr scaleSym = makeGlobal("_scale", stateScaleType, 1.0f);
  if (!historySym || !scaleSym)
    return {value, Value(), Value()};

  Value history =
      ml_program::GlobalLoadOp::create(b, loc, historyType, historySym);
  Value stateScale =
      ml_program::GlobalLoadOp::create(b, loc, stateScaleType, scaleSym);
  Value scale = reshapeSingle(b, loc, stateScale, scaleType);
  GranularityAttr tensorGranularity = GranularityAttr::getTensor(ctx);
  Type narrow = getFormatType(ctx, plan.format);
  Value data = QuantizeOp::create(b, loc, type.clone(narrow), value, scale,
                                  tensorGranularity);
  // Record this step's amax and advance the state.
  Value amax = AmaxOp::create(b, loc, scaleType, value, tensorGranularity,
                              NanPolicy::Ignore);
  auto update = UpdateDelayedScaleOp::create(
      b, loc, historyType, stateScaleType, stateScaleType, history, stateScale,
      reshapeSingle(b, loc, amax, stateScaleType), plan.format,
      options.amaxAlgo, options.margin, options.zeroAmax);
  ml_program::GlobalStoreOp::create(b, loc, historySym, update.getNewHistory());
  ml_program::GlobalStoreOp::create(b, loc, scaleSym, update.getNewScale());
  // This step decodes with the scale it encoded with.
  Value ones = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scaleType, b.getF32FloatAttr(1.0f)));
  Value decode = arith::DivFOp::create(b, loc, ones, scale);
  return {data, decode, Value()};
}

/// The mutable ml_program global `@<name>` of `init`'s type, which `role`
/// names in errors: adopted when the module declares it (the caller owns
/// the state), otherwise created at the top of the module with value
/// `init`. Null, with an error, when the module declares it otherwise.
FlatSymbolRefAttr FP8AutocastPass::getStateGlobal(StringRef name,
                                                  DenseElementsAttr init,
                                                  Location loc,
                                                  const Twine &role) {
  auto type = cast<RankedTensorType>(init.getType());
  if (Operation *existing = symbols->lookup(name)) {
    auto global = dyn_cast<ml_program::GlobalOp>(existing);
    if (!global || !global.getIsMutable() || global.getType() != type) {
      existing->emitError() << "fp8-autocast: '@" << name << "' is " << role
                            << " and must be a mutable ml_program.global of "
                               "type "
                            << type;
      stateError = true;
      return {};
    }
    return FlatSymbolRefAttr::get(global.getSymNameAttr());
  }
  OpBuilder moduleBuilder = OpBuilder::atBlockBegin(getOperation().getBody());
  auto global = ml_program::GlobalOp::create(
      moduleBuilder, loc, name, type, /*is_mutable=*/true, init,
      moduleBuilder.getStringAttr("private"));
  symbols->insert(global);
  return FlatSymbolRefAttr::get(global.getSymNameAttr());
}

/// The call counter of the function `b` builds in (random-state), loaded
/// at `b`'s insertion point from `@__fp8_rng_<function>`, which the first
/// call for a function creates (or adopts) and stores advanced by one
/// before each of its returns. Null outside a func.func, and when the
/// module declares the global with another type (an error).
Value FP8AutocastPass::getCallCounter(OpBuilder &b, Location loc) {
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto function = dyn_cast<func::FuncOp>(parent);
  if (!function)
    function = parent->getParentOfType<func::FuncOp>();
  if (!function)
    return {};
  auto type = RankedTensorType::get({1}, b.getI32Type());
  FlatSymbolRefAttr &symbol = callCounters[function];
  if (!symbol) {
    symbol = getStateGlobal(
        ("__fp8_rng_" + function.getName()).str(),
        DenseElementsAttr::get(type, b.getI32IntegerAttr(0)), function.getLoc(),
        "the call counter of @" + function.getName() +
            "'s stochastic rounding");
    if (!symbol)
      return {};
    // counter + 1 as a generated tensor (an elementwise kernel on the
    // GPU), stored before each return, after every read.
    function.walk([&](func::ReturnOp ret) {
      OpBuilder exit(ret);
      Value current = ml_program::GlobalLoadOp::create(exit, loc, type, symbol);
      auto next = tensor::GenerateOp::create(
          exit, loc, type, ValueRange(),
          [&](OpBuilder &nb, Location nloc, ValueRange indices) {
            Value count = tensor::ExtractOp::create(nb, nloc, current, indices);
            Value one =
                arith::ConstantOp::create(nb, nloc, nb.getI32IntegerAttr(1));
            tensor::YieldOp::create(
                nb, nloc, arith::AddIOp::create(nb, nloc, count, one));
          });
      ml_program::GlobalStoreOp::create(exit, loc, symbol, next);
    });
  }
  return ml_program::GlobalLoadOp::create(b, loc, type, symbol);
}

Value FP8AutocastPass::randomBits(OpBuilder &b, Location loc, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  Type i32 = b.getI32Type();
  SmallVector<Value> dynamicSizes = getDynamicSizes(b, loc, like);
  uint32_t stream = static_cast<uint32_t>(seed) * 0x9E3779B9u +
                    static_cast<uint32_t>(seed >> 32) + randomStreams++;
  Value counter = randomState ? getCallCounter(b, loc) : Value();
  auto generate = tensor::GenerateOp::create(
      b, loc, type.clone(i32), dynamicSizes,
      [&](OpBuilder &nb, Location nloc, ValueRange indices) {
        auto c = [&](uint32_t v) -> Value {
          return arith::ConstantOp::create(nb, nloc,
                                           nb.getI32IntegerAttr(int32_t(v)));
        };
        // The row-major linear index, then a murmur3 finalizer over it and
        // the stream.
        Value linear = c(0);
        for (auto [i, index] : llvm::enumerate(indices)) {
          Value extent = arith::IndexCastOp::create(
              nb, nloc, i32, tensor::DimOp::create(nb, nloc, like, i));
          linear = arith::AddIOp::create(
              nb, nloc, arith::MulIOp::create(nb, nloc, linear, extent),
              arith::IndexCastOp::create(nb, nloc, i32, index));
        }
        // The stream, moved by the call counter (0 on the first call).
        Value streamValue = c(stream);
        if (counter) {
          Value zero = arith::ConstantIndexOp::create(nb, nloc, 0);
          Value call = tensor::ExtractOp::create(nb, nloc, counter, zero);
          Value moved = arith::MulIOp::create(nb, nloc, call, c(0x27D4EB2Fu));
          streamValue = arith::AddIOp::create(nb, nloc, streamValue, moved);
        }
        Value h = arith::XOrIOp::create(
            nb, nloc, arith::MulIOp::create(nb, nloc, linear, c(0x9E3779B1u)),
            streamValue);
        for (auto [shift, multiplier] :
             {std::pair<uint32_t, uint32_t>{16, 0x85EBCA6Bu},
              {13, 0xC2B2AE35u}}) {
          h = arith::XOrIOp::create(
              nb, nloc, h, arith::ShRUIOp::create(nb, nloc, h, c(shift)));
          h = arith::MulIOp::create(nb, nloc, h, c(multiplier));
        }
        h = arith::XOrIOp::create(nb, nloc, h,
                                  arith::ShRUIOp::create(nb, nloc, h, c(16)));
        tensor::YieldOp::create(nb, nloc, h);
      });
  return generate.getResult();
}

Quantized FP8AutocastPass::quantizeStochastic(OpBuilder &b, Location loc,
                                              Value value,
                                              const OperandPlan &plan,
                                              const GemmPlan &gemm) {
  MLIRContext *ctx = &getContext();
  auto type = cast<RankedTensorType>(value.getType());
  Type f32 = b.getF32Type();
  auto ones =
      RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1), f32);
  SmallVector<int64_t> scaleShape =
      plan.granularity.getScaleShape(type.getShape());
  auto amaxType = RankedTensorType::get(scaleShape, f32);
  Type narrow = getFormatType(ctx, plan.format);
  // NVFP4 is the recipe with stochastic rounding: the global scale first.
  Value globalAmax = AmaxOp::create(
      b, loc, ones, value, GranularityAttr::getTensor(ctx), NanPolicy::Ignore);
  auto global = ComputeScaleOp::create(b, loc, ones, ones, globalAmax, Value(),
                                       gemm.rule, plan.format);
  Value amax = AmaxOp::create(b, loc, amaxType, value, plan.granularity,
                              NanPolicy::Ignore);
  Value blockScale =
      ComputeScaleOp::create(
          b, loc, RankedTensorType::get(scaleShape, Float8E4M3FNType::get(ctx)),
          Type(), amax, global.getScale(), gemm.rule, plan.format)
          .getScale();
  Value data = QuantizeOp::create(b, loc, type.clone(narrow), value, blockScale,
                                  global.getScale(), randomBits(b, loc, value),
                                  plan.granularity, Overflow::Saturate,
                                  Rounding::Stochastic);
  return {data, blockScale, global.getScaleInv()};
}

Quantized FP8AutocastPass::quantize(OpBuilder &b, Location loc, Value value,
                                    const OperandPlan &plan,
                                    const GemmPlan &gemm, StringRef stateName) {
  auto key = std::make_tuple(value, static_cast<unsigned>(plan.format),
                             Attribute(plan.granularity), Attribute(gemm.rule));
  if (!plan.stochastic)
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
  // Quantize where the value is defined, so that every user can share it.
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());

  Quantized result;
  ScaleRuleKind kind = gemm.rule.getKind();
  if (kind == ScaleRuleKind::Static) {
    result = quantizeStatic(b, loc, value, plan);
  } else if (gemm.delayed) {
    result = quantizeDelayed(b, loc, value, plan, stateName);
  } else if (plan.stochastic) {
    return quantizeStochastic(b, loc, value, plan, gemm);
  } else {
    auto type = cast<RankedTensorType>(value.getType());
    MLIRContext *ctx = &getContext();
    SmallVector<int64_t> scaleShape =
        plan.granularity.getScaleShape(type.getShape());
    ScaleRuleSignature signature = *getRuleSignature(ctx, kind);
    Type globalType;
    if (signature.hasGlobalScale)
      globalType = RankedTensorType::get(
          SmallVector<int64_t>(type.getRank(), 1), b.getF32Type());
    auto op = DynamicQuantizeOp::create(
        b, loc, type.clone(getFormatType(ctx, plan.format)),
        RankedTensorType::get(scaleShape, signature.blockScaleType), globalType,
        /*col_data=*/Type(), /*col_scale=*/Type(), value, plan.granularity,
        /*col_granularity=*/nullptr, /*transposed=*/false, gemm.rule,
        Overflow::Saturate, NanPolicy::Ignore,
        /*scale_layout=*/nullptr, /*col_scale_layout=*/nullptr);
    result = {op.getData(), op.getScale(), op.getGlobalScale()};
  }
  cache[key] = result;
  return result;
}

void FP8AutocastPass::convert(Contraction &c, StringRef function,
                              unsigned ordinal) {
  MLIRContext *ctx = &getContext();
  Operation *op = c.op;
  Location loc = op->getLoc();
  GemmRole role = GemmRole::FProp;
  if (GemmRoleAttr attr = dialect->getRoleAttrHelper().getAttr(op))
    role = attr.getValue();
  unsigned gradientOperand = 0;
  if (IntegerAttr attr = dialect->getGradOperandAttrHelper().getAttr(op))
    gradientOperand = attr.getInt();
  GemmPlan plan = planGemm(ctx, options, role, gradientOperand, c.transposeLhs,
                           c.transposeRhs);

  OpBuilder b(op);
  std::string stateName =
      llvm::formatv("__fp8_state_{0}_{1}", function, ordinal).str();
  if (StringAttr name = dialect->getNameAttrHelper().getAttr(op))
    stateName = ("__fp8_state_" + name.getValue()).str();
  Quantized lhs = quantize(b, loc, c.lhs, plan.lhs, plan, stateName + "_lhs");
  Quantized rhs = quantize(b, loc, c.rhs, plan.rhs, plan, stateName + "_rhs");
  if (stateError)
    return;

  bool accumulate = !isZeroInit(c.init);
  RankedTensorType productType =
      accumulate ? c.resultType.clone(b.getF32Type()) : c.resultType;
  auto recipeAttr = RecipeAttr::get(ctx, options.kind, options.margin,
                                    options.history, options.amaxAlgo,
                                    options.zeroAmax, options.promoteInterval);
  auto matmul = ScaledMatmulOp::create(
      b, loc, productType, /*amax=*/Type(), /*result_scale=*/Type(), lhs.data,
      rhs.data, lhs.scale, rhs.scale, lhs.global, rhs.global, /*bias=*/Value(),
      /*out_scale=*/Value(), /*epilogue_ins=*/ValueRange(),
      plan.lhs.granularity, plan.rhs.granularity, c.transposeLhs,
      c.transposeRhs, options.promoteInterval, recipeAttr,
      GemmRoleAttr::get(ctx, role), /*epilogue_maps=*/ArrayAttr(),
      /*out_granularity=*/GranularityAttr(), /*out_rule=*/ScaleRuleAttr());
  Value result = matmul.getResult();
  if (accumulate) {
    // C = init + A x B, in f32.
    result = addInF32(b, loc, result, c.init, c.resultType);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();

  std::string lhsGranularity = formatGranularity(plan.lhs.granularity);
  std::string rhsGranularity = formatGranularity(plan.rhs.granularity);
  remark::passed(loc, remark::RemarkOpts::name("converted")
                          .category(kCategory)
                          .function(function))
      << remark::add(
             "converted to fp8.scaled_matmul ({0} {1}): A {2} {3}, "
             "B {4} {5}, rule {6}{7}",
             std::string(recipe), stringifyGemmRole(role).str(),
             stringifyFormat(plan.lhs.format).str(), lhsGranularity,
             stringifyFormat(plan.rhs.format).str(), rhsGranularity,
             stringifyScaleRuleKind(plan.rule.getKind()).str(),
             std::string(accumulate ? ", accumulating into the init" : ""));
}

void FP8AutocastPass::runOnOperation() {
  excludes.clear();
  stateError = false;
  markedFailure = false;
  if (failed(parseOptions()))
    return signalPassFailure();
  ModuleOp module = getOperation();
  dialect = getContext().getLoadedDialect<FP8Dialect>();
  FP8Dialect::RoleAttrHelper roleAttr = dialect->getRoleAttrHelper();
  FP8Dialect::AutocastAttrHelper autocastAttr =
      dialect->getAutocastAttrHelper();
  SymbolTable symbolTable(module);
  symbols = &symbolTable;

  SmallVector<FunctionOpInterface> functions;
  module.walk([&](FunctionOpInterface f) { functions.push_back(f); });
  for (FunctionOpInterface function : functions) {
    StringRef name = function.getName();
    cache.clear();
    if (savedFormat) {
      int64_t saved = quantizeSavedActivations(function, savedActivationGroup,
                                               *savedFormat);
      if (saved > 0)
        remark::passed(function.getLoc(),
                       remark::RemarkOpts::name("saved-activations")
                           .category(kCategory)
                           .function(name))
            << remark::add("saved activations of non-linear layers in {0}: "
                           "{1} bytes less",
                           stringifyFormat(*savedFormat).str(), saved);
    }
    SmallVector<linalg::LinalgOp> candidates;
    // Every contraction (dot products and matrix-vector products included,
    // so that each gets a remark) and whatever else could be a matmul.
    function.walk([&](linalg::LinalgOp op) {
      if ((op->getNumResults() == 1 && op.getNumLoops() >= 3 &&
           op.getNumReductionLoops() >= 1) ||
          linalg::isaContractionOpInterface(op) || roleAttr.isAttrPresent(op) ||
          autocastAttr.isAttrPresent(op))
        candidates.push_back(op);
    });
    unsigned ordinal = 0;
    for (linalg::LinalgOp op : candidates) {
      Location loc = op->getLoc();
      auto missed = [&](StringRef reason) {
        remark::missed(
            loc,
            remark::RemarkOpts::name("skipped").category(kCategory).function(
                name))
            << remark::add("{0} left in high precision: {1}",
                           op->getName().getStringRef().str(), reason.str());
      };
      std::string reason;
      FailureOr<Contraction> contraction = matchContraction(op, reason);
      if (failed(contraction)) {
        // A contraction the user marked for FP8 is an error, not a remark.
        StringRef mark;
        if (roleAttr.isAttrPresent(op))
          mark = roleAttr.getNameStr();
        else if (autocastAttr.isAttrPresent(op))
          mark = autocastAttr.getNameStr();
        if (!mark.empty()) {
          op->emitError() << "fp8-autocast: this op is marked for FP8 (" << mark
                          << ") but cannot be converted: " << reason;
          markedFailure = true;
          continue;
        }
        missed(reason);
        continue;
      }
      if (isExcluded(op, name)) {
        missed("excluded by the exclude option");
        continue;
      }
      if (contraction->resultType.getRank() == 3 && !fp8Attention) {
        missed("a batched contraction (attention) stays in high precision "
               "unless fp8-attention=true");
        continue;
      }
      if (minSize > 0) {
        int64_t size = 1;
        bool dynamic = false;
        for (int64_t extent : op.getStaticLoopRanges()) {
          if (ShapedType::isDynamic(extent))
            dynamic = true;
          else
            size *= extent;
        }
        if (!dynamic && size < minSize) {
          missed(llvm::formatv("{0} multiply-adds, below min-size {1}", size,
                               static_cast<int64_t>(minSize))
                     .str());
          continue;
        }
      }
      convert(*contraction, name, ordinal++);
      if (stateError)
        break;
    }
    if (stateError)
      break;
  }
  symbols = nullptr;
  if (stateError || markedFailure)
    signalPassFailure();
}

} // namespace

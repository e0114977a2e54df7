//===- PlanGroupState.cpp - Kernels of range-expanded group state ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// COAT's optimizer state on the GPU: fp8.expand_dequantize and
// fp8.expand_quantize by groups along the last dimension (numerics.md
// section 14). The decodes that feed an elementwise linalg.generic (an
// Adam step after fp8-optimizer) and the encodes of its results become one
// kernel with it: lanes of a warp own a group, about 8 elements each; each
// lane decodes its elements, runs the generic's body on them, and the
// group's lanes reduce each encoded result's largest and smallest
// magnitudes with shuffles, pick the group's exponent and write the codes,
// the amax and the exponent. Every tensor of the step is read once and
// written once. An expand op outside such a step gets a kernel of the same
// kind on its own.
//
// The scalar arithmetic is ScaleRules.h's, which the CPU reference lowering
// uses too: the kernels compute its results bit for bit.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr int64_t kThreads = 256;
constexpr int64_t kWarpsPerBlock = kThreads / 32;
/// Groups of up to this many elements: 16 per lane.
constexpr int64_t kMaxGroup = 512;

/// The group size of `granularity` over `shape` when its groups run along
/// the last dimension only (block [1, .., 1, g]).
std::optional<int64_t> getLastDimGroup(GranularityAttr granularity,
                                       ArrayRef<int64_t> shape) {
  if (shape.empty() || granularity.isTensor())
    return std::nullopt;
  SmallVector<int64_t> block = granularity.getBlockShape(shape);
  for (int64_t extent : ArrayRef(block).drop_back())
    if (extent != 1)
      return std::nullopt;
  return block.back();
}

/// One operand the kernel reads per element: a tensor through `map`, or the
/// codes of `decode` with their group's amax and exponent.
struct GroupInput {
  Value value;
  ExpandDequantizeOp decode;
  AffineMap map;
};

/// One value the kernel computes per element: stored as it is (`wide`),
/// encoded by `encode`, or both.
struct GroupOutput {
  Value value;
  bool wide = false;
  ExpandQuantizeOp encode;
};

/// What one kernel computes: `body` (a linalg.generic, or null: the one
/// input is the one output) over a static `shape` in groups of `group`
/// elements along its last dimension.
struct GroupStateKernel {
  Operation *body = nullptr;
  SmallVector<int64_t> shape;
  int64_t group = 0;
  SmallVector<GroupInput> inputs;
  SmallVector<GroupOutput> outputs;
  /// The registers per thread the kernel may take (nvvm.maxnreg). ptxas's
  /// own choice, 64 where 256 threads could take 255, spills the ragged
  /// step of groups of 128.
  int64_t maxRegisters = 128;

  /// How many consecutive elements a lane reads and writes with one access
  /// per tensor: 4, 2 or 1, the most that divides the group and the row and
  /// keeps the accesses within the widest one (16 bytes) the loop's tensors
  /// allow (1 with index values). Rows and groups start at multiples of
  /// it, and buffers at least 16-byte aligned, so that the accesses are
  /// aligned.
  int64_t getRunWidth() {
    int64_t widest = 1;
    auto visit = [&](Type element) {
      widest =
          std::max(widest, element.isIntOrFloat() ? getElementBytes(element)
                                                  : int64_t(16));
    };
    for (GroupInput &input : inputs)
      visit(input.decode ? input.decode.getInput().getType().getElementType()
                         : getElementTypeOrSelf(input.value.getType()));
    for (GroupOutput &output : outputs)
      if (output.wide)
        visit(getElementTypeOrSelf(output.value.getType()));
    for (int64_t width : {4, 2})
      if (group % width == 0 && shape.back() % width == 0 &&
          width * widest <= 16)
        return width;
    return 1;
  }
  /// The lanes of a warp that own one group: about 8 elements each (a power
  /// of two up to 32), so that the work done once per group (the reductions
  /// of its magnitudes and its exponent), which each of its lanes repeats,
  /// is spread over several elements per lane.
  int64_t getLanesPerGroup() {
    return std::min<int64_t>(
        32, llvm::PowerOf2Ceil(std::max<int64_t>(1, group / 8)));
  }
  int64_t getGroupsPerWarp() { return 32 / getLanesPerGroup(); }
  int64_t getGroups() {
    int64_t rows = 1;
    for (int64_t extent : ArrayRef(shape).drop_back())
      rows *= extent;
    return rows * llvm::divideCeil(shape.back(), group);
  }
  /// A lane's chunks of getRunWidth elements per group: chunk c of the lane
  /// `l` of a group's getLanesPerGroup holds its elements
  /// (c * lanes + l) * width + [0, width).
  int64_t getChunks() {
    return llvm::divideCeil(group, getLanesPerGroup() * getRunWidth());
  }
  int64_t getPerLane() { return getChunks() * getRunWidth(); }
  /// Whether every chunk of every group is valid: groups fill rows, lanes
  /// fill groups and groups fill warps.
  bool isWhole() {
    return shape.back() % group == 0 &&
           group % (getLanesPerGroup() * getRunWidth()) == 0 &&
           getGroups() % getGroupsPerWarp() == 0;
  }

  /// The registers per thread a kernel of more than a CTA per SM may take:
  /// enough for an AdamW step with both moments encoded, 8 elements per lane
  /// (groups of up to 256: 60 to 64 on sm_90a and sm_100a) or 16 (groups of
  /// 512: 96), without spilling, and few enough that getBlocksPerSM blocks
  /// fit an SM's 64K registers.
  int64_t getRegisterBudget() { return getPerLane() <= 8 ? 64 : 128; }
  /// The blocks of kThreads an SM holds at once under getRegisterBudget: the
  /// launch is one wave of them, each warp looping over groups.
  int64_t getBlocksPerSM() { return 65536 / (kThreads * getRegisterBudget()); }

  /// The buffers the kernel takes, in order: per input its tensor or the
  /// codes, amax and exponent; per output its wide tensor, then the codes,
  /// amax and exponent.
  SmallVector<Value> getParams() {
    SmallVector<Value> params;
    for (GroupInput &input : inputs) {
      if (input.decode)
        llvm::append_range(params, input.decode->getOperands());
      else
        params.push_back(input.value);
    }
    for (GroupOutput &output : outputs) {
      if (output.wide)
        params.push_back(output.value);
      if (output.encode)
        llvm::append_range(params, output.encode->getResults());
    }
    return params;
  }
};

/// The group size that every expand op around `op` (decodes it reads,
/// encodes of its results) uses, if they agree, `op` is an elementwise
/// linalg.generic over their shape and any of them exists.
std::optional<int64_t> getStepGroup(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  std::optional<int64_t> group;
  bool agree = true;
  auto visit = [&](GranularityAttr granularity, RankedTensorType type,
                   AffineMap map) {
    std::optional<int64_t> g = getLastDimGroup(granularity, type.getShape());
    if (!g || type.getShape() != ArrayRef(ranges) || !map.isIdentity() ||
        (group && *group != *g))
      agree = false;
    group = g;
  };
  for (OpOperand *input : op.getDpsInputOperands())
    if (auto decode = input->get().getDefiningOp<ExpandDequantizeOp>())
      if (decode->hasOneUse())
        visit(decode.getGranularity(), decode.getType(),
              op.getMatchingIndexingMap(input));
  for (OpResult result : op->getResults())
    for (Operation *user : result.getUsers())
      if (auto encode = dyn_cast<ExpandQuantizeOp>(user))
        visit(encode.getGranularity(), encode.getInput().getType(),
              op.getIndexingMapMatchingResult(result));
  if (!agree || !group)
    return std::nullopt;
  return group;
}

/// The step generic `decode` is folded into, if any.
linalg::GenericOp getFusingStep(ExpandDequantizeOp decode) {
  if (!decode->hasOneUse())
    return {};
  auto step = dyn_cast<linalg::GenericOp>(*decode->getUsers().begin());
  if (!step || !getStepGroup(step))
    return {};
  return step;
}

/// The magnitudes that range-expanded codes of the 8-bit format `narrow`
/// decode to before their group's amax: entry (j + kMaxExpansionSteps) * 128
/// + c is fl32(E_-j(fl32(|v| / fmax))) for the code of magnitude bits c and
/// value v, each step one correctly rounded f32 operation, as
/// emitExpandDecode computes it (a NaN code's entry is a NaN). A decode is
/// then a lookup and a multiply, where it took a division and up to eight
/// square roots per element. A constant of the kernel module, made once.
LLVM::GlobalOp getDecodeTable(OpBuilder &builder, Location loc,
                              FloatType narrow) {
  gpu::GPUModuleOp module = getKernelModule(builder);
  std::string name =
      ("__fp8_expand_decode_" + stringifyFormat(*getFormat(narrow))).str();
  if (auto existing = module.lookupSymbol<LLVM::GlobalOp>(name))
    return existing;
  float fmax = getFormatInfo(*getFormat(narrow)).maxFinite;
  SmallVector<float> table;
  for (int64_t j = -kMaxExpansionSteps; j <= kMaxExpansionSteps; ++j) {
    for (uint64_t bits = 0; bits < 128; ++bits) {
      APFloat value(narrow.getFloatSemantics(), APInt(8, bits));
      bool lost = false;
      value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      float y = value.convertToFloat() / fmax;
      for (int64_t i = 0; i < j; ++i)
        y = std::sqrt(y);
      for (int64_t i = 0; i < -j; ++i)
        y = y * y;
      table.push_back(y);
    }
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto type =
      RankedTensorType::get({int64_t(table.size())}, builder.getF32Type());
  return LLVM::GlobalOp::create(
      builder, loc,
      LLVM::LLVMArrayType::get(builder.getF32Type(), table.size()),
      /*isConstant=*/true, LLVM::Linkage::Internal, name,
      DenseElementsAttr::get(type, ArrayRef<float>(table)), /*alignment=*/16,
      /*addrSpace=*/1);
}

/// The f32 value of the code `code` (of an 8-bit format) in its group
/// (`amax`, i8 exponent `j`), through the decode table `table`: bit for bit
/// emitExpandDecode's.
Value emitTableDecode(KernelBuilder &kb, LLVM::GlobalOp table, Value code,
                      Value amax, Value j) {
  Value bits = kb.bitcast(kb.b.getI8Type(), code);
  Value magnitudeBits = arith::ExtUIOp::create(
      kb.b, kb.loc, kb.b.getI32Type(),
      kb.andI(bits, arith::ConstantIntOp::create(kb.b, kb.loc, kb.b.getI8Type(),
                                                 0x7F)));
  Value exponent = arith::ExtSIOp::create(kb.b, kb.loc, kb.b.getI32Type(), j);
  exponent = arith::MaxSIOp::create(kb.b, kb.loc, exponent,
                                    kb.i32(-kMaxExpansionSteps));
  exponent = arith::MinSIOp::create(kb.b, kb.loc, exponent,
                                    kb.i32(kMaxExpansionSteps));
  Value row = kb.add(exponent, kb.i32(kMaxExpansionSteps));
  Value index = kb.add(kb.mul(row, kb.i32(128)), magnitudeBits);
  Value base = LLVM::AddressOfOp::create(kb.b, kb.loc, table);
  Value magnitude = kb.load(
      kb.f32(), kb.byteOffset(base, kb.mul(kb.zext64(index), kb.i64(4))), 4);
  return math::CopySignOp::create(kb.b, kb.loc, kb.mulf(magnitude, amax),
                                  kb.extToF32(code));
}

/// `count` consecutive elements of type `element` at element `offset` (i64,
/// a multiple of `count`) of the buffer at `base`: one load, of a vector when
/// `count` > 1 (small floats through integers of their width).
SmallVector<Value> loadRun(KernelBuilder &kb, Value base, Type element,
                           Value offset, int64_t count) {
  if (count == 1)
    return {loadElement(kb, base, element, offset)};
  int64_t bytes = getElementBytes(element);
  Type stored =
      isSoftFloatType(element) ? kb.b.getIntegerType(bytes * 8) : element;
  SmallVector<Value> run = loadElements(
      kb, stored, count, kb.byteOffset(base, kb.mul(offset, kb.i64(bytes))),
      count * bytes);
  if (stored != element)
    for (Value &value : run)
      value = kb.bitcast(element, value);
  return run;
}

/// Stores `values`, consecutive elements of one type, at element `offset`
/// (i64, a multiple of their count) of the buffer at `base`: one store.
void storeRun(KernelBuilder &kb, Value base, ArrayRef<Value> values,
              Value offset) {
  Type element = values.front().getType();
  if (values.size() == 1)
    return storeElement(kb, base, values.front(), offset);
  int64_t bytes = getElementBytes(element);
  SmallVector<Value> stored(values);
  if (isSoftFloatType(element))
    for (Value &value : stored)
      value = kb.bitcast(kb.b.getIntegerType(bytes * 8), value);
  storeElements(kb, stored, kb.byteOffset(base, kb.mul(offset, kb.i64(bytes))),
                values.size() * bytes);
}

/// The E4M3 or E5M2 codes (i8) of the f32 `scaled` values, which
/// emitExpandScaled computed from `xs`: pairs rounded by cvt.rn.satfinite,
/// the bits of fp8.convert's round-to-nearest-even with saturation; NaN
/// codes take the CPU's sign and payload from the NaN `x` that `scaled`
/// propagates (a GPU division returns the canonical NaN).
SmallVector<Value> emitCodes(KernelBuilder &kb, ArrayRef<Value> scaled,
                             ArrayRef<Value> xs, Format format) {
  SmallVector<Value> codes;
  for (size_t i = 0; i < scaled.size(); i += 2) {
    bool pair = i + 1 < scaled.size();
    Value hi = pair ? scaled[i + 1] : kb.f32(0.0f);
    Value pairCodes =
        kb.cvtSatFinite(scaled[i], hi, format, xs[i], pair ? xs[i + 1] : hi);
    codes.push_back(arith::TruncIOp::create(kb.b, kb.loc, kb.i8(), pairCodes));
    if (pair)
      codes.push_back(arith::TruncIOp::create(
          kb.b, kb.loc, kb.i8(),
          arith::ShRUIOp::create(
              kb.b, kb.loc, pairCodes,
              arith::ConstantOp::create(kb.b, kb.loc,
                                        kb.b.getI16IntegerAttr(8)))));
  }
  return codes;
}

/// Builds the kernel `name` of `k`, or says why it cannot.
FailureOr<LLVM::LLVMFuncOp> buildGroupStateKernel(OpBuilder &builder,
                                                  GroupStateKernel &k,
                                                  StringRef name,
                                                  std::string &reason) {
  if (k.group > kMaxGroup) {
    reason = llvm::formatv("its groups of {0} elements are longer than {1}",
                           k.group, kMaxGroup)
                 .str();
    return failure();
  }
  int64_t total = 1;
  for (int64_t extent : k.shape)
    total *= extent;
  if (total >= (int64_t(1) << 31)) {
    reason = "it has 2^31 elements or more";
    return failure();
  }
  if (k.body) {
    if (failed(verifyClonableBody(k.body, reason)))
      return failure();
    auto linalgOp = cast<linalg::LinalgOp>(k.body);
    if (llvm::any_of(linalgOp.getRegionOutputArgs(),
                     [](BlockArgument arg) { return !arg.use_empty(); })) {
      reason = "its body reads the initial values of its results";
      return failure();
    }
  }
  Location loc = k.body ? k.body->getLoc() : k.outputs.front().value.getLoc();
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<Value> params = k.getParams();
  SmallVector<KernelParamKind> kinds(params.size(), KernelParamKind::Buffer);
  LLVM::LLVMFuncOp func = createKernel(builder, loc, name, kinds, kThreads);
  func->setAttr("nvvm.maxnreg", builder.getI32IntegerAttr(k.maxRegisters));
  Block &entry = func.getBody().front();
  builder.setInsertionPointToStart(&entry);
  KernelBuilder kb(builder, loc);

  int64_t cols = k.shape.back();
  int64_t groupsPerRow = llvm::divideCeil(cols, k.group);
  int64_t groups = k.getGroups();
  int64_t width = k.getRunWidth();
  int64_t chunks = k.getChunks();
  int64_t perLane = k.getPerLane();
  auto rank = static_cast<int64_t>(k.shape.size());
  auto iterationType = RankedTensorType::get(k.shape, kb.f32());
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  float inf = std::numeric_limits<float>::infinity();

  // The decode table of each input's codes (8-bit formats), made before
  // the loop, whose body is built before it joins the module.
  SmallVector<LLVM::GlobalOp> decodeTables;
  for (GroupInput &input : k.inputs) {
    Type narrow = input.decode
                      ? input.decode.getInput().getType().getElementType()
                      : Type();
    decodeTables.push_back(
        narrow && narrow.getIntOrFloatBitWidth() == 8
            ? getDecodeTable(builder, loc, cast<FloatType>(narrow))
            : LLVM::GlobalOp());
  }

  // Inputs of one element for the whole loop (an Adam step's learning rate
  // and bias corrections), loaded once before it: what the body computes
  // from them alone then leaves the loop too.
  SmallVector<Value> invariants;
  unsigned firstParam = 0;
  for (GroupInput &input : k.inputs) {
    Value base = entry.getArgument(firstParam);
    firstParam += input.decode ? 3 : 1;
    invariants.push_back(
        !input.decode && input.map.getNumResults() == 0
            ? loadElement(kb, base, getElementTypeOrSelf(input.value.getType()),
                          kb.i64(0))
            : Value());
  }

  // Each warp holds getGroupsPerWarp groups at a time, `lanes` lanes each:
  // lane `lane` of the group in its `slot`.
  int64_t lanes = k.getLanesPerGroup();
  int64_t groupsPerWarp = k.getGroupsPerWarp();
  Value laneOfWarp = kb.urem(kb.threadId(), kb.i32(32));
  Value lane = kb.urem(laneOfWarp, kb.i32(lanes));
  Value slot = kb.udiv(laneOfWarp, kb.i32(lanes));
  Value warp = kb.add(kb.mul(kb.blockId(), kb.i32(kWarpsPerBlock)),
                      kb.udiv(kb.threadId(), kb.i32(32)));
  Value warps = kb.mul(kb.gridDim(), kb.i32(kWarpsPerBlock));
  kb.forLoop(
      warp, kb.i32(llvm::divideCeil(groups, groupsPerWarp)), warps,
      ValueRange{}, [&](Value step, ValueRange) -> SmallVector<Value> {
        // The slots past the last group take it again and store nothing.
        Value group = kb.add(kb.mul(step, kb.i32(groupsPerWarp)), slot);
        Value groupOk = kb.boolean(true);
        if (groups % groupsPerWarp != 0) {
          groupOk = kb.ult(group, kb.i32(groups));
          group = kb.select(groupOk, group, kb.i32(groups - 1));
        }
        Value row = kb.udiv(group, kb.i32(groupsPerRow));
        Value first =
            kb.mul(kb.urem(group, kb.i32(groupsPerRow)), kb.i32(k.group));
        SmallVector<Value> leading(rank - 1);
        Value rest = row;
        for (int64_t d = rank - 2; d >= 0; --d) {
          leading[d] = kb.urem(rest, kb.i32(k.shape[d]));
          rest = kb.udiv(rest, kb.i32(k.shape[d]));
        }
        Value groupOffset = kb.zext64(group);
        // Each parameter's base pointer, in the order of getParams().
        unsigned param = 0;
        auto next = [&]() { return entry.getArgument(param++); };
        struct InputBases {
          Value data, amax, exponent;
        };
        SmallVector<InputBases> inputBases;
        for (GroupInput &input : k.inputs) {
          InputBases bases{next(), {}, {}};
          if (input.decode) {
            bases.amax = loadElement(kb, next(), kb.f32(), groupOffset);
            bases.exponent = loadElement(kb, next(), kb.i8(), groupOffset);
          }
          inputBases.push_back(bases);
        }
        struct OutputBases {
          Value wide, codes, amax, exponent;
        };
        SmallVector<OutputBases> outputBases;
        for (GroupOutput &output : k.outputs) {
          OutputBases bases;
          if (output.wide)
            bases.wide = next();
          if (output.encode) {
            bases.codes = next();
            bases.amax = next();
            bases.exponent = next();
          }
          outputBases.push_back(bases);
        }

        // The lane's elements by chunks (getChunks), each read and written
        // by one vector access per tensor of the loop's shape. A chunk is
        // valid or invalid as a whole, since `width` divides the group and
        // the row. The loads go first, all of them, so that their latencies
        // overlap: the decodes and the step's body between them would
        // otherwise wait for each in turn.
        SmallVector<Value> valid, offsets;
        SmallVector<SmallVector<Value>> raw(perLane);
        SmallVector<SmallVector<Value>> values(k.outputs.size());
        for (int64_t c = 0; c < chunks; ++c) {
          Value within =
              kb.add(kb.mul(lane, kb.i32(width)), kb.i32(lanes * width * c));
          Value col = kb.add(first, within);
          // Where groups fill rows and lanes fill groups, every chunk is
          // valid, and its accesses need no branch (loads that only a
          // conditional store reads would sink into its branch and wait
          // for the decodes and the step before them).
          Value ok = kb.boolean(true);
          if (!k.isWhole()) {
            ok = kb.andI(groupOk, kb.ult(col, kb.i32(cols)));
            if (lanes * width * (c + 1) > k.group)
              ok = kb.andI(ok, kb.ult(within, kb.i32(k.group)));
          }
          // Lanes past the group's end read its first elements and store
          // nothing.
          SmallVector<Value> ivs(leading);
          ivs.push_back(kb.select(ok, col, first));
          Value offset = getElementOffset(kb, identity, iterationType, ivs);
          valid.push_back(ok);
          offsets.push_back(offset);
          for (auto [input, bases, invariant] :
               llvm::zip_equal(k.inputs, inputBases, invariants)) {
            if (invariant) {
              for (int64_t e = 0; e < width; ++e)
                raw[c * width + e].push_back(invariant);
              continue;
            }
            Type element =
                input.decode
                    ? input.decode.getInput().getType().getElementType()
                    : cast<RankedTensorType>(input.value.getType())
                          .getElementType();
            SmallVector<Value> run;
            if (input.decode || input.map.isIdentity()) {
              run = loadRun(kb, bases.data, element, offset, width);
            } else {
              // A broadcast operand: each element by itself (the loads of
              // equal addresses fold).
              auto type = cast<RankedTensorType>(input.value.getType());
              for (int64_t e = 0; e < width; ++e) {
                SmallVector<Value> at(ivs);
                at.back() = kb.add(ivs.back(), kb.i32(e));
                run.push_back(
                    loadElement(kb, bases.data, element,
                                getElementOffset(kb, input.map, type, at)));
              }
            }
            for (int64_t e = 0; e < width; ++e)
              raw[c * width + e].push_back(run[e]);
          }
        }
        for (int64_t i = 0; i < perLane; ++i) {
          SmallVector<Value> loaded;
          for (auto [input, bases, table, value] :
               llvm::zip_equal(k.inputs, inputBases, decodeTables, raw[i])) {
            if (!input.decode) {
              loaded.push_back(value);
              continue;
            }
            Type narrow = input.decode.getInput().getType().getElementType();
            Value decoded;
            if (table) {
              decoded =
                  emitTableDecode(kb, table, value, bases.amax, bases.exponent);
            } else {
              float fmax = getFormatInfo(*getFormat(narrow)).maxFinite;
              decoded = emitExpandDecode(builder, loc, kb.extToF32(value),
                                         bases.amax, bases.exponent, fmax,
                                         ExpansionSteps::Looped);
            }
            Type wide = input.decode.getType().getElementType();
            if (!wide.isF32())
              decoded = arith::TruncFOp::create(builder, loc, wide, decoded);
            loaded.push_back(decoded);
          }
          if (!k.body) {
            values.front().push_back(loaded.front());
            continue;
          }
          IRMapping mapping;
          Block &body = k.body->getRegion(0).front();
          for (auto [arg, value] : llvm::zip(body.getArguments(), loaded))
            mapping.map(arg, value);
          SmallVector<Value> yielded = cloneBody(builder, body, mapping);
          for (auto [o, output] : llvm::enumerate(k.outputs)) {
            unsigned number = cast<OpResult>(output.value).getResultNumber();
            values[o].push_back(yielded[number]);
          }
        }

        for (auto [o, output] : llvm::enumerate(k.outputs)) {
          const OutputBases &bases = outputBases[o];
          if (output.wide)
            for (int64_t c = 0; c < chunks; ++c)
              kb.ifThen(valid[c], [&] {
                storeRun(kb, bases.wide,
                         ArrayRef(values[o]).slice(c * width, width),
                         offsets[c]);
              });
          if (!output.encode)
            continue;
          // The group's largest finite magnitude and smallest finite
          // nonzero one: exact, so any order of reduction gives them.
          Value amax = kb.f32(0.0f), amin = kb.f32(inf);
          for (int64_t i = 0; i < perLane; ++i) {
            Value magnitude = kb.absBits(kb.extToF32(values[o][i]));
            Value counts = kb.andI(
                valid[i / width],
                arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLT,
                                      magnitude, kb.f32(inf)));
            amax = kb.select(counts, kb.maxf(amax, magnitude, false), amax);
            Value smaller = arith::CmpFOp::create(
                builder, loc, arith::CmpFPredicate::OLT, magnitude, amin);
            Value nonzero =
                arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGT,
                                      magnitude, kb.f32(0.0f));
            amin = kb.select(kb.andI(kb.andI(counts, nonzero), smaller),
                             magnitude, amin);
          }
          amax = kb.warpMax(amax, lanes, /*propagateNaN=*/false);
          amin = kb.warpReduce(amin, lanes, [&](Value x, Value y) {
            Value less = arith::CmpFOp::create(builder, loc,
                                               arith::CmpFPredicate::OLT, y, x);
            return kb.select(less, y, x);
          });
          Type narrow = output.encode.getData().getType().getElementType();
          float fmax = getFormatInfo(*getFormat(narrow)).maxFinite;
          int64_t limit = output.encode.getLimit();
          Value exponent = emitExpansionExponent(builder, loc, amax, amin, fmax,
                                                 limit, ExpansionSteps::Looped);
          SmallVector<Value> xs = llvm::map_to_vector(
              values[o], [&](Value value) { return kb.extToF32(value); });
          SmallVector<Value> codes =
              emitCodes(kb,
                        emitExpandScaled(builder, loc, xs, amax, exponent, fmax,
                                         limit, ExpansionSteps::Looped),
                        xs, *getFormat(narrow));
          for (int64_t c = 0; c < chunks; ++c)
            kb.ifThen(valid[c], [&] {
              storeRun(kb, bases.codes, ArrayRef(codes).slice(c * width, width),
                       offsets[c]);
            });
          kb.ifThen(kb.andI(groupOk, kb.eq(lane, kb.i32(0))), [&] {
            storeElement(kb, bases.amax, amax, groupOffset);
            storeElement(kb, bases.exponent, exponent, groupOffset);
          });
        }
        return {};
      });
  return finishClonedBodyKernel(builder, loc, func, reason);
}

/// Builds and launches the kernel of `k` for `op`.
LogicalResult planGroupStateKernel(PlanBuilder &plan, Operation *op,
                                   GroupStateKernel &k) {
  std::string reason;
  std::string name =
      llvm::formatv("fp8_group_state_{0}_{1}", plan.getFunction().getName(),
                    plan.elementwiseCount++)
          .str();
  // getGroupsPerWarp groups per warp. Where that is more than a CTA per SM,
  // the registers are capped so that getBlocksPerSM CTAs fit an SM, and the
  // launch is at most that one wave, its warps looping over the groups.
  int64_t warps = llvm::divideCeil(k.getGroups(), k.getGroupsPerWarp());
  int64_t blocks =
      std::max<int64_t>(1, llvm::divideCeil(warps, kWarpsPerBlock));
  if (blocks > plan.getNumSMs()) {
    k.maxRegisters = k.getRegisterBudget();
    blocks = std::min(blocks, plan.getNumSMs() * k.getBlocksPerSM());
  }
  OpBuilder builder = plan.getKernelBuilder();
  FailureOr<LLVM::LLVMFuncOp> kernel =
      buildGroupStateKernel(builder, k, name, reason);
  if (failed(kernel))
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: " << reason;
  // Equal steps (parameters of one shape and recipe) share a kernel, named
  // by its shape and a digest of its code.
  kernel =
      plan.internKernel(*kernel, "fp8_group_state_" + formatShapeTag(k.shape));
  SmallVector<LaunchParam> params;
  for (Value value : k.getParams())
    params.push_back(BufferParam{plan.bufferOf(value)});
  plan.addKernelLaunch(*kernel, {blocks, 1, 1}, kThreads, /*sharedBytes=*/0,
                       std::move(params), /*persistent=*/false);
  return success();
}

} // namespace

bool mlir::fp8::isGroupStateStep(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  return generic && getStepGroup(generic).has_value();
}

LogicalResult mlir::fp8::planGroupStateStep(PlanBuilder &plan,
                                            linalg::LinalgOp linalgOp) {
  auto op = cast<linalg::GenericOp>(linalgOp.getOperation());
  GroupStateKernel k;
  k.body = op;
  k.shape = op.getStaticLoopRanges();
  k.group = *getStepGroup(op);
  for (OpOperand *input : op.getDpsInputOperands()) {
    GroupInput in{input->get(), {}, op.getMatchingIndexingMap(input)};
    auto decode = input->get().getDefiningOp<ExpandDequantizeOp>();
    if (decode && getFusingStep(decode) == op)
      in.decode = decode;
    else if (!in.map.isProjectedPermutation())
      return op->emitError("fp8 GPU lowering: 'linalg.generic' has no kernel: "
                           "an indexing map is not a projected permutation");
    k.inputs.push_back(in);
  }
  for (OpResult result : op->getResults()) {
    if (!op.getIndexingMapMatchingResult(result).isIdentity())
      return op->emitError("fp8 GPU lowering: 'linalg.generic' has no kernel: "
                           "a result is not written at the loop's position");
    GroupOutput output{result};
    for (Operation *user : result.getUsers()) {
      auto encode = dyn_cast<ExpandQuantizeOp>(user);
      if (!encode) {
        output.wide = true;
        continue;
      }
      plan.foldedGroupOps.insert(encode);
      if (output.encode) {
        // A second encode of the same values: an output of its own.
        k.outputs.push_back(GroupOutput{result, false, encode});
        continue;
      }
      output.encode = encode;
    }
    // A result nothing reads is still the op's result: store it.
    if (!output.encode)
      output.wide = true;
    k.outputs.push_back(output);
  }
  return planGroupStateKernel(plan, op, k);
}

LogicalResult mlir::fp8::planExpandDequantize(PlanBuilder &plan,
                                              ExpandDequantizeOp op) {
  if (getFusingStep(op))
    return success(); // decoded by the step's kernel
  GroupStateKernel k;
  k.shape = llvm::to_vector(op.getType().getShape());
  std::optional<int64_t> group = getLastDimGroup(op.getGranularity(), k.shape);
  if (!op.getType().hasStaticShape() || !group)
    return op->emitError("fp8 GPU lowering: 'fp8.expand_dequantize' has no "
                         "kernel: its groups must run along the last "
                         "dimension of a static shape");
  k.group = *group;
  k.inputs.push_back(GroupInput{op.getResult(), op, {}});
  k.outputs.push_back(GroupOutput{op.getResult(), /*wide=*/true, {}});
  return planGroupStateKernel(plan, op, k);
}

LogicalResult mlir::fp8::planExpandQuantize(PlanBuilder &plan,
                                            ExpandQuantizeOp op) {
  if (plan.foldedGroupOps.contains(op))
    return success(); // encoded by its step's kernel
  auto type = op.getInput().getType();
  GroupStateKernel k;
  k.shape = llvm::to_vector(type.getShape());
  std::optional<int64_t> group = getLastDimGroup(op.getGranularity(), k.shape);
  if (!type.hasStaticShape() || !group)
    return op->emitError("fp8 GPU lowering: 'fp8.expand_quantize' has no "
                         "kernel: its groups must run along the last "
                         "dimension of a static shape");
  k.group = *group;
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), op.getContext());
  k.inputs.push_back(GroupInput{op.getInput(), {}, identity});
  k.outputs.push_back(GroupOutput{op.getInput(), /*wide=*/false, op});
  return planGroupStateKernel(plan, op, k);
}

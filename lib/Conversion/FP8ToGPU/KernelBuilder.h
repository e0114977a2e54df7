//===- KernelBuilder.h - Helpers for building NVVM kernels ------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A thin layer over OpBuilder for kernel bodies: i32/f32 arithmetic (arith),
// structured control flow (scf), memory through LLVM pointers (global
// address space 1, shared 3) and the special registers and barriers of
// NVVM. Kernels read like the CUDA they replace.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_CONVERSION_FP8TOGPU_KERNELBUILDER_H
#define FP8_LIB_CONVERSION_FP8TOGPU_KERNELBUILDER_H

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "llvm/Support/FormatVariadic.h"

namespace mlir::fp8 {

/// The external shared array every kernel's dynamic shared memory starts at.
constexpr StringLiteral kDynamicSharedMemory = "__fp8_dynamic_smem";

/// Short names of element types in kernel names.
inline StringRef getKernelTag(Format format) { return stringifyFormat(format); }
inline StringRef getKernelTag(WideElement element) {
  switch (element) {
  case WideElement::F32:
    return "f32";
  case WideElement::BF16:
    return "bf16";
  case WideElement::F16:
    return "f16";
  }
  llvm_unreachable("unknown element");
}
/// A scale rule with its parameters as identifier characters
/// ("pow2_margin_1").
std::string getKernelTag(ScaleRuleAttr rule);
inline Type getElementType(OpBuilder &b, WideElement element) {
  switch (element) {
  case WideElement::F32:
    return b.getF32Type();
  case WideElement::BF16:
    return b.getBF16Type();
  case WideElement::F16:
    return b.getF16Type();
  }
  llvm_unreachable("unknown element");
}

/// The gpu.module a kernel builder inserts into.
inline gpu::GPUModuleOp getKernelModule(OpBuilder &builder) {
  Operation *parent = builder.getInsertionBlock()->getParentOp();
  if (auto module = dyn_cast<gpu::GPUModuleOp>(parent))
    return module;
  return parent->getParentOfType<gpu::GPUModuleOp>();
}

/// The kernel `name` if the module has it already.
inline LLVM::LLVMFuncOp lookupKernel(OpBuilder &builder, StringRef name) {
  gpu::GPUModuleOp module = getKernelModule(builder);
  assert(module && "kernels are built inside a gpu.module");
  return module.lookupSymbol<LLVM::LLVMFuncOp>(name);
}

/// Creates the kernel `name` taking parameters of `kinds` with `threads`
/// threads per block at the end of the module, with an entry block, and the
/// module's dynamic shared memory array if it has none yet. Leaves the
/// builder's insertion point at the end of the module.
LLVM::LLVMFuncOp createKernel(OpBuilder &builder, Location loc, StringRef name,
                              ArrayRef<KernelParamKind> kinds, int64_t threads);

/// The kinds of `params`, a kernel family's parameter list.
template <typename Param>
SmallVector<KernelParamKind> getParamKinds(ArrayRef<Param> params) {
  return llvm::map_to_vector(params,
                             [](Param param) { return getParamKind(param); });
}

/// The arguments of a kernel by parameter, `params` being the parameters the
/// kernel takes, in order.
template <typename Param>
class KernelArgs {
public:
  KernelArgs(LLVM::LLVMFuncOp func, ArrayRef<Param> params)
      : arguments(func.getArguments()), params(params) {
    assert(arguments.size() == params.size() && "one argument per parameter");
  }

  /// The argument of `param`, or null if the kernel does not take it.
  Value lookup(Param param) const {
    const Param *it = llvm::find(params, param);
    if (it == params.end())
      return Value();
    return arguments[it - params.begin()];
  }
  /// The argument of `param`, which the kernel takes.
  Value operator[](Param param) const {
    Value arg = lookup(param);
    assert(arg && "the kernel does not take this parameter");
    return arg;
  }

private:
  ArrayRef<BlockArgument> arguments;
  SmallVector<Param> params;
};

class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &b;
  Location loc;

  // Types.
  Type i1() { return b.getI1Type(); }
  Type i8() { return b.getI8Type(); }
  Type i16() { return b.getI16Type(); }
  Type i32() { return b.getI32Type(); }
  Type i64() { return b.getI64Type(); }
  Type f32() { return b.getF32Type(); }
  LLVM::LLVMPointerType ptr(unsigned space = 0) {
    return LLVM::LLVMPointerType::get(b.getContext(), space);
  }

  // Constants.
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value boolean(bool v) {
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(v));
  }

  // Integer arithmetic (signless, i32 unless both operands are i64).
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value udiv(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value urem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivUIOp::create(b, loc, x, y);
  }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value lshr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value minU(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value maxU(Value x, Value y) { return arith::MaxUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  /// Whether the float `x` is NaN.
  Value isNaN(Value x) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value zext64(Value x) { return arith::ExtUIOp::create(b, loc, i64(), x); }
  Value trunc32(Value x) { return arith::TruncIOp::create(b, loc, i32(), x); }

  // Float arithmetic.
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return LLVM::FMAOp::create(b, loc, x, y, z);
  }
  Value bitcast(Type type, Value x) {
    return arith::BitcastOp::create(b, loc, type, x);
  }

  /// `x`, an f32, bf16 or f16 scalar, as f32 (exactly).
  Value extToF32(Value x) {
    if (x.getType().isF32())
      return x;
    return arith::ExtFOp::create(b, loc, f32(), x);
  }

  /// The larger of `x` and `y`: NaN if either is (max.NaN), or, for inputs
  /// that are never NaN, by comparison (arith.maxnumf would become a
  /// libdevice call in convert-gpu-to-nvvm).
  Value maxf(Value x, Value y, bool propagateNaN) {
    if (propagateNaN)
      return arith::MaximumFOp::create(b, loc, x, y);
    Value greater =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
    return select(greater, x, y);
  }

  /// The larger of two magnitudes (float scalars or vectors with their sign
  /// bits clear): with `propagateNaN` a NaN wins (max.NaN), otherwise a NaN
  /// loses to any number (max, IEEE 754 maxNum), so that a maximum folded
  /// from 0 ignores NaNs. One instruction per element, or per two 16-bit
  /// elements (max.bf16x2, max.f16x2).
  Value maxMagnitude(Value x, Value y, bool propagateNaN) {
    // Vectors of 16-bit floats by max.{bf16,f16}x2 (the NVPTX backend
    // would widen arith's maximum to f32 and narrow it again).
    auto vector = dyn_cast<VectorType>(x.getType());
    Type element = getElementTypeOrSelf(x.getType());
    if (vector && vector.getNumElements() % 2 == 0 &&
        (element.isBF16() || element.isF16())) {
      std::string name =
          llvm::formatv("llvm.nvvm.fmax{0}.{1}x2", propagateNaN ? ".nan" : "",
                        element.isBF16() ? "bf16" : "f16");
      auto pairType = VectorType::get({2}, element);
      SmallVector<Value> pairs;
      for (int64_t i = 0; i < vector.getNumElements(); i += 2) {
        Value maxima = LLVM::CallIntrinsicOp::create(
                           b, loc, pairType, b.getStringAttr(name),
                           ValueRange{slice(x, i, 2), slice(y, i, 2)})
                           .getResult(0);
        pairs.push_back(maxima);
      }
      // Concatenated back, neighbours first.
      while (pairs.size() > 1) {
        SmallVector<Value> joined;
        for (size_t i = 0; i < pairs.size(); i += 2) {
          int64_t n = cast<VectorType>(pairs[i].getType()).getNumElements();
          SmallVector<int32_t> mask =
              llvm::to_vector(llvm::seq<int32_t>(0, int32_t(2 * n)));
          joined.push_back(LLVM::ShuffleVectorOp::create(b, loc, pairs[i],
                                                         pairs[i + 1], mask));
        }
        pairs = std::move(joined);
      }
      return pairs.front();
    }
    // Others by LLVM's intrinsic, named (arith's maxnumf would become a
    // libdevice call).
    assert((element.isF32() || element.isBF16() || element.isF16()) &&
           "magnitudes of f32, bf16 or f16");
    std::string suffix =
        element.isF32() ? "f32" : (element.isBF16() ? "bf16" : "f16");
    if (vector)
      suffix = llvm::formatv("v{0}{1}", vector.getNumElements(), suffix);
    std::string name = llvm::formatv(
        "llvm.{0}.{1}", propagateNaN ? "maximum" : "maxnum", suffix);
    return LLVM::CallIntrinsicOp::create(
               b, loc, x.getType(), b.getStringAttr(name), ValueRange{x, y})
        .getResult(0);
  }
  /// Elements [first, first + count) of `vector`.
  Value slice(Value vector, int64_t first, int64_t count) {
    SmallVector<int32_t> mask = llvm::to_vector(
        llvm::seq<int32_t>(int32_t(first), int32_t(first + count)));
    return LLVM::ShuffleVectorOp::create(b, loc, vector, vector, mask);
  }
  /// maxMagnitude over the elements of `vector` (a power-of-two count of at
  /// least 2), halves against halves: the first half's element i against
  /// the second half's, so that 16-bit pairs stay packed.
  Value reduceMaxMagnitude(Value vector, bool propagateNaN) {
    int64_t n = cast<VectorType>(vector.getType()).getNumElements();
    assert(n >= 2 && llvm::isPowerOf2_64(n) && "halves of a power of two");
    for (; n > 2; n /= 2)
      vector = maxMagnitude(slice(vector, 0, n / 2),
                            slice(vector, n / 2, n / 2), propagateNaN);
    auto element = [&](int64_t i) {
      return LLVM::ExtractElementOp::create(b, loc, vector, i32(i)).getResult();
    };
    return maxMagnitude(element(0), element(1), propagateNaN);
  }

  /// |x| of a float scalar or vector (f32, bf16, f16) by clearing the sign
  /// bits (NaN stays NaN; convert-gpu-to-nvvm would call libdevice for
  /// math.absf).
  Value absBits(Value x) {
    unsigned width = getElementTypeOrSelf(x.getType()).getIntOrFloatBitWidth();
    Type element = b.getIntegerType(width);
    Type bits = element;
    if (auto vector = dyn_cast<VectorType>(x.getType()))
      bits = vector.clone(element);
    IntegerAttr maskValue = b.getIntegerAttr(
        element, APInt::getSignedMaxValue(width).getZExtValue());
    Value mask = arith::ConstantOp::create(
        b, loc,
        isa<VectorType>(bits)
            ? TypedAttr(DenseElementsAttr::get(cast<ShapedType>(bits),
                                               maskValue.getValue()))
            : TypedAttr(maskValue));
    return bitcast(x.getType(), andI(bitcast(bits, x), mask));
  }
  /// The E4M3 or E5M2 codes of `lo` and `hi` as an i16 in memory order (lo
  /// in the low byte): one cvt.rn.satfinite.{e4m3,e5m2}x2.f32, whose NaN
  /// code (0x7F) is replaced by the one numerics.md gives a NaN product of
  /// `sourceLo` and `sourceHi`, the elements that `lo` and `hi` were scaled
  /// from (getNaNCode): a GPU multiply returns the canonical NaN, whatever
  /// its operands. With `positiveFactors` (scales a
  /// rule computed, or E8M0 scales: each multiplier is positive, or NaN and
  /// then every product of the block is NaN) the codes of values that are
  /// not NaN carry their sources' signs, and E4M3 takes them without a
  /// test.
  Value cvtSatFinite(Value lo, Value hi, Format format, Value sourceLo,
                     Value sourceHi, bool positiveFactors = false);
  /// The NaN code (E4M3 or E5M2, as an i16 below 256) that a NaN product of
  /// the f32 element `x` takes (numerics.md section 2): `x`'s sign, the
  /// all-ones magnitude of E4M3, E5M2's infinity with the quiet bit and, when
  /// `x` is itself NaN, its top payload bits.
  Value getNaNCode(Value x, Format format);
  /// The NaN a NaN product of the f32 element `x` is: `x` when it is NaN,
  /// else the quiet NaN with `x`'s sign.
  Value getElementNaN(Value x) {
    Value bits = bitcast(i32(), x);
    Value signedNaN =
        bitcast(f32(), orI(andI(bits, i32(INT32_MIN)), i32(0x7FC00000)));
    return select(isNaN(x), x, signedNaN);
  }
  /// Folds the non-negative f32 `value` into the f32 at `address` with an
  /// atomic max on its bits: they order as unsigned integers, NaN above
  /// infinity.
  void atomicMaxNonNegative(Value address, Value value) {
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::umax, address,
                              bitcast(i32(), value),
                              LLVM::AtomicOrdering::monotonic);
  }

  // Special registers.
  Value threadId() { return NVVM::ThreadIdXOp::create(b, loc, i32()); }
  Value blockId() { return NVVM::BlockIdXOp::create(b, loc, i32()); }
  Value blockIdY() { return NVVM::BlockIdYOp::create(b, loc, i32()); }
  Value gridDim() { return NVVM::GridDimXOp::create(b, loc, i32()); }

  // Memory.
  /// `base` + `offset` bytes (`offset` i32 or i64).
  Value byteOffset(Value base, Value offset) {
    return LLVM::GEPOp::create(b, loc, base.getType(), i8(), base,
                               ValueRange{offset});
  }
  Value byteOffset(Value base, int64_t offset) {
    return LLVM::GEPOp::create(b, loc, base.getType(), i8(), base,
                               ArrayRef<LLVM::GEPArg>{int32_t(offset)});
  }
  Value load(Type type, Value pointer, unsigned alignment = 0) {
    return LLVM::LoadOp::create(b, loc, type, pointer, alignment);
  }
  void store(Value value, Value pointer, unsigned alignment = 0) {
    LLVM::StoreOp::create(b, loc, value, pointer, alignment);
  }
  /// The dynamic shared memory of `kernel`'s module (a 1024-byte aligned
  /// pointer in address space 3).
  Value dynamicSharedMemory(LLVM::LLVMFuncOp kernel) {
    auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
    auto global = cast<LLVM::GlobalOp>(
        SymbolTable::lookupSymbolIn(module, kDynamicSharedMemory));
    return LLVM::AddressOfOp::create(b, loc, global);
  }
  /// The 32-bit shared-window address of a shared pointer.
  Value sharedAddress(Value sharedPointer) {
    return LLVM::PtrToIntOp::create(b, loc, i32(), sharedPointer);
  }

  // Control flow.
  void barrier() { NVVM::Barrier0Op::create(b, loc); }
  /// The f32 `value` combined by `combine` over aligned groups of `lanes`
  /// lanes (a power of two up to 32) of a full warp: a butterfly of
  /// shuffles (offsets lanes / 2, .., 1), so that every lane of a group
  /// holds the result.
  Value warpReduce(Value value, int64_t lanes,
                   function_ref<Value(Value, Value)> combine) {
    for (int64_t offset = lanes / 2; offset >= 1; offset /= 2)
      value = combine(value, shuffleXor(value, offset));
    return value;
  }
  /// The f32 `value` of lane (this lane xor `offset`) of a full warp.
  Value shuffleXor(Value value, int64_t offset) {
    return NVVM::ShflOp::create(b, loc, f32(), i32(-1), value, i32(offset),
                                i32(0x1f), NVVM::ShflKind::bfly, UnitAttr());
  }
  /// The maximum of `value` over aligned groups of `lanes` lanes of a full
  /// warp (see warpReduce).
  Value warpMax(Value value, int64_t lanes, bool propagateNaN) {
    return warpReduce(value, lanes, [&](Value x, Value y) {
      return maxf(x, y, propagateNaN);
    });
  }

  void ifThen(Value cond, function_ref<void()> then) {
    auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    then();
  }
  /// A counted loop over [lb, ub) by `step` (i32) carrying `inits`; `body`
  /// gets the induction variable and the carried values and returns the next
  /// ones. With `unsignedBounds` the bounds compare as unsigned: a
  /// grid-stride loop over up to 2^31 - 1 elements steps past 2^31 - 1 after
  /// its last element, which a signed comparison reads as negative, and
  /// would go on.
  ValueRange forLoop(Value lb, Value ub, Value step, ValueRange inits,
                     function_ref<SmallVector<Value>(Value, ValueRange)> body,
                     bool unsignedBounds = false) {
    auto op = scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToEnd(nb.getInsertionBlock());
          scf::YieldOp::create(b, loc, body(iv, args));
        });
    op.setUnsignedCmp(unsignedBounds);
    return op.getResults();
  }
};

/// Returns the kernel of `config` if the module holds it already, else
/// creates it from the configuration's name, parameters and threads per
/// block and has `emitBody(kb, config, kernel)` fill it from the start of its
/// entry block.
template <typename Config, typename EmitBody>
LLVM::LLVMFuncOp buildKernel(OpBuilder &builder, Location loc,
                             const Config &config, EmitBody emitBody) {
  std::string name = config.getKernelName();
  if (LLVM::LLVMFuncOp existing = lookupKernel(builder, name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  LLVM::LLVMFuncOp func =
      createKernel(builder, loc, name,
                   getParamKinds<typename Config::Param>(config.getParams()),
                   getKernelThreads(config));
  builder.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(builder, loc);
  emitBody(kb, config, func);
  return func;
}

/// buildKernel with an emitter class: Emitter(kb, config, kernel).emit()
/// fills the kernel.
template <typename Emitter, typename Config>
LLVM::LLVMFuncOp buildKernel(OpBuilder &builder, Location loc,
                             const Config &config) {
  return buildKernel(
      builder, loc, config,
      [](KernelBuilder &kb, const Config &config, LLVM::LLVMFuncOp kernel) {
        Emitter(kb, config, kernel).emit();
      });
}

/// What every kernel emitter holds: the builder, the configuration, the
/// kernel, and its arguments by parameter.
template <typename Config>
class KernelEmitter {
public:
  KernelEmitter(KernelBuilder &kb, const Config &config, LLVM::LLVMFuncOp func)
      : kb(kb), config(config), func(func), args(func, config.getParams()) {}

protected:
  using Param = typename Config::Param;

  /// The argument of `param`, or null if the kernel does not take it.
  Value getArg(Param param) const { return args.lookup(param); }

  KernelBuilder &kb;
  const Config &config;
  LLVM::LLVMFuncOp func;

private:
  KernelArgs<Param> args;
};

/// Bytes of one element of `type` in memory (small floats take a byte each).
inline int64_t getElementBytes(Type type) {
  return std::max<int64_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

/// Element `offset` (i64, counted in elements) of the buffer at `base`, of
/// type `element`: small floats and index values go through integers of
/// their width in memory.
Value loadElement(KernelBuilder &kb, Value base, Type element, Value offset);

/// The i64 offset, in elements, of the element of a row-major tensor of
/// `type` that `map` (a projected permutation of the loop indices) reads at
/// the i32 loop indices `ivs`.
Value getElementOffset(KernelBuilder &kb, AffineMap map, RankedTensorType type,
                       ArrayRef<Value> ivs);

/// Stores `value` as element `offset` (i64) of the buffer at `base`.
void storeElement(KernelBuilder &kb, Value base, Value value, Value offset);

/// Rewrites in `kernel` what the NVVM lowering would leave to libdevice,
/// which the pipeline does not link, or not lower at all: fp8.convert and
/// small-float casts become integer arithmetic, arith.minnumf and math.ctlz
/// LLVM's intrinsics.
void expandForNVVM(LLVM::LLVMFuncOp kernel);

/// Why the scalar body of the linalg op `op` cannot be cloned into a kernel
/// (it reads loop indices unless `indices` are given to it, captures a
/// non-constant value other than the tensors that `gathers` lets it read by
/// tensor.extract, or has ops other than arith and math ones without
/// regions), or success.
LogicalResult verifyClonableBody(Operation *op, std::string &reason,
                                 bool indices = false, bool gathers = false);

/// The tensors the body of `op` reads by tensor.extract at indices it
/// computes (captured from outside: a concatenation read piecewise, see
/// fp8-fuse-elementwise), in the order of their first reads.
SmallVector<Value> getGatheredTensors(Operation *op);

/// Loads the element that a cloned tensor.extract reads: `indices` are its
/// indices, mapped.
using GatherFn = function_ref<Value(tensor::ExtractOp, ValueRange indices)>;

/// Clones the scalar body `body` of a linalg op (or of an epilogue region)
/// at the builder's insertion point: the constants its region captures, then
/// its ops but the last (its yield) and `skip`, extending `mapping` (which
/// maps the block arguments it reads). Each linalg.index reads
/// `indices[dim]`, an i32 loop index; each tensor.extract is `gather`'s load
/// (bodies that verifyClonableBody accepted with `gathers`). Returns the
/// values the yield yields, mapped.
SmallVector<Value> cloneBody(OpBuilder &builder, Block &body,
                             IRMapping &mapping, ArrayRef<Value> indices = {},
                             Operation *skip = nullptr,
                             GatherFn gather = nullptr);

/// `count` elements of `type` at `address`: one load, of a vector when
/// `count` > 1.
SmallVector<Value> loadElements(KernelBuilder &kb, Type type, int64_t count,
                                Value address, unsigned alignment);
/// Stores `values`, of one type, at `address`: one store, of a vector when
/// there are several.
void storeElements(KernelBuilder &kb, ArrayRef<Value> values, Value address,
                   unsigned alignment);

/// The first op of `kernel` that the NVVM lowering would turn into a
/// libdevice call (a math op left by expandClonedBodyForNVVM), or null.
Operation *findLibdeviceOp(LLVM::LLVMFuncOp kernel);

/// Rewrites the arith and math ops cloned from linalg bodies into `kernel`
/// for the NVVM lowering without libdevice: math functions by polynomial
/// approximation, small-float casts by integer code, maxnumf/minnumf by
/// comparison, absf by the sign bit, fma as LLVM's. Returns the first op
/// left that would still need libdevice, or null.
Operation *expandClonedBodyForNVVM(LLVM::LLVMFuncOp kernel);

/// Ends `kernel`, whose body cloned linalg bodies, with a return at the
/// builder's insertion point (the end of its entry block) and rewrites it by
/// expandClonedBodyForNVVM; erases it and says why in `reason` when an op
/// would still need libdevice.
FailureOr<LLVM::LLVMFuncOp> finishClonedBodyKernel(OpBuilder &builder,
                                                   Location loc,
                                                   LLVM::LLVMFuncOp kernel,
                                                   std::string &reason);

/// A digest of the scalar body `body` (its ops, their operands by position,
/// attributes and types, and the values of constants it captures) that
/// names the kernels cloning it: equal bodies share a kernel, different
/// ones do not.
std::string getBodyDigest(Block &body);

/// Stores element `index` (i64) of a decode-scale array from `scale`, what
/// a scale rule gave (ScaleRules.h emitScaleRule): fl32(1 / s) as an f32 for
/// f32 rules, the E8M0 or E4M3 code as a byte otherwise.
void storeDecodeScale(KernelBuilder &kb, Value scales, Value index,
                      Value scale);

/// (tile row, tile column) of persistent tile index `t` in an output of
/// `tilesM` x `tilesN` tiles, ordered in groups of `groupRows` tile rows so
/// that tiles computed at the same time share operands in L2.
inline std::pair<Value, Value> getGroupedTile(KernelBuilder &kb, Value t,
                                              Value tilesM, Value tilesN,
                                              int64_t groupRows) {
  Value perGroup = kb.mul(kb.i32(groupRows), tilesN);
  Value group = kb.udiv(t, perGroup);
  Value firstRow = kb.mul(group, kb.i32(groupRows));
  Value rowsInGroup = kb.minU(kb.sub(tilesM, firstRow), kb.i32(groupRows));
  Value inGroup = kb.urem(t, perGroup);
  return {kb.add(firstRow, kb.urem(inGroup, rowsInGroup)),
          kb.udiv(inGroup, rowsInGroup)};
}

/// The f32 identity of `combiner`: combining it with any value gives that
/// value (-0 for sums, 1 for products, -inf for maxima, +inf for minima).
Value getCombinerIdentity(KernelBuilder &kb, ReductionCombiner combiner);
/// `x` and `y` (f32) combined by `combiner`.
Value combineValues(KernelBuilder &kb, ReductionCombiner combiner, Value x,
                    Value y);

/// The body of a linalg op reducing into one init: ops computing a term
/// from the elements read, then one combiner of the term and the
/// accumulator (the init's block argument), yielded.
struct ReductionBody {
  ReductionCombiner combiner = ReductionCombiner::Add;
  /// The yielded combiner, and the accumulator it reads.
  Operation *combinerOp = nullptr;
  BlockArgument accumulator;
  /// The combiner's other operand.
  Value term;
};
/// The reduction body of `op`, or failure with a reason.
FailureOr<ReductionBody> matchReductionBody(Operation *op, std::string &reason);
/// The constant that a linalg.fill of a scalar constant writes into
/// `value`, if that is where `value` comes from (a reduction's init).
std::optional<double> getFilledConstant(Value value);

} // namespace mlir::fp8

#endif // FP8_LIB_CONVERSION_FP8TOGPU_KERNELBUILDER_H

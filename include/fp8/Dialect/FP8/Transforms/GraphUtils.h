//===- GraphUtils.h - Linalg graph helpers shared by passes -----*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_TRANSFORMS_GRAPHUTILS_H
#define FP8_DIALECT_FP8_TRANSFORMS_GRAPHUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/Value.h"

namespace mlir::fp8 {

class DequantizeOp;

/// Whether `op` decodes by one f32 scale (granularity `tensor`, no global
/// scale) into a static shape: what createTensorDequantizeGeneric rewrites.
bool isTensorDequantize(DequantizeOp op);

/// The elementwise linalg.generic that the per-tensor `op`
/// (isTensorDequantize) computes, `fl32(float(q) * d)` rounded to the result
/// type, created before `op`; returns its result. The scale is read as a 0-d
/// tensor, so that elementwise fusion and the GPU's elementwise kernels take
/// it.
Value createTensorDequantizeGeneric(OpBuilder &b, DequantizeOp op);

/// True when `init` is an empty tensor, zero-filled (`linalg.fill` of 0) or a
/// zero constant: a contraction into it yields the product alone.
bool isZeroInit(Value init);

/// `lhs + rhs` elementwise as a `linalg.generic`, computed in f32 and
/// rounded once to the element type of `resultType`. Both operands have the
/// shape of `resultType`; `rhs` supplies the dynamic sizes.
Value addInF32(OpBuilder &b, Location loc, Value lhs, Value rhs,
               RankedTensorType resultType);

/// A tensor of `type` filled with zeros; `like` (of the same shape) supplies
/// the dynamic sizes.
Value createZeros(OpBuilder &b, Location loc, RankedTensorType type,
                  Value like);

/// The dynamic sizes of the ranked tensor `like` (`tensor.dim`), in order,
/// for a tensor of the same shape.
SmallVector<Value> getDynamicSizes(OpBuilder &b, Location loc, Value like);

/// `value` with its last two dimensions swapped (a `linalg.transpose`).
Value transposeLastTwo(OpBuilder &b, Location loc, Value value);

/// Whether the transpose `permutation` swaps the last two dimensions and
/// keeps the leading ones (a transpose of each matrix of a batch).
bool isLastTwoSwap(ArrayRef<int64_t> permutation);

/// The single element of the ranked tensor `tensor`, whose extents are all 1.
Value extractSingle(OpBuilder &b, Location loc, Value tensor);

/// The single element of `tensor` as a tensor of `type` (all extents 1, of
/// any rank): `tensor` itself when it has that type.
Value reshapeSingle(OpBuilder &b, Location loc, Value tensor,
                    RankedTensorType type);

/// The options of an optimization remark `name` about `op` in `category`
/// (what `-remarks-filter` selects), naming the function that holds `op`.
remark::RemarkOpts getRemarkOpts(Operation *op, StringRef category,
                                 StringRef name);

/// getRemarkOpts in the category of the GPU graph's fusions and refusals
/// (`-remarks-filter=fp8-gpu`).
remark::RemarkOpts getFP8GPURemarkOpts(Operation *op, StringRef name);

/// The function argument and result attribute by which fp8-optimizer marks
/// the optimizer state it stores (`m.codes`, `weight.scale`, ...); the GPU
/// lowering copies it into the manifest's buffer roles.
constexpr llvm::StringLiteral kOptimizerStateAttrName = "fp8.optimizer_state";

/// The function argument attribute (unit) that marks a weight for
/// fp8-prepare-weights: a value that changes once per optimizer step or
/// never, so that what only the weights determine can be computed once.
constexpr llvm::StringLiteral kWeightAttrName = "fp8.weight";

/// The suffix of the prepare function fp8-prepare-weights builds for a
/// function, `@<function>_prepare`, or for a prepare group,
/// `@<group>_prepare`.
constexpr llvm::StringLiteral kPrepareSuffix = "_prepare";

/// The function attribute (a string) that puts functions reading the same
/// weights, such as a layer's forward and backward functions, in one prepare
/// group: fp8-prepare-weights prepares their weights once, for all of them.
constexpr llvm::StringLiteral kPrepareGroupAttrName = "fp8.prepare_group";

/// The function attribute (a flat symbol reference) by which
/// fp8-prepare-weights names the prepare function whose results a function
/// takes.
constexpr llvm::StringLiteral kPrepareAttrName = "fp8.prepare";

/// The function argument attribute by which fp8-prepare-weights marks an
/// argument that its prepare function computes: the result number (i64).
constexpr llvm::StringLiteral kPreparedAttrName = "fp8.prepared";

/// The function argument attribute (`#fp8.tcgen05_scale_layout`) by which
/// fp8-assign-scale-layouts marks block scales that the caller passes in the
/// tcgen05 scale layout: a prepare function's result whose quantization
/// writes that layout for the sm_100a GEMMs of the function taking it.
constexpr llvm::StringLiteral kScaleLayoutAttrName = "fp8.scale_layout";

/// The value that the prepare function returns for `arg`, an argument that
/// fp8-prepare-weights marked `fp8.prepared` in a function naming its
/// prepare function (`fp8.prepare`); null for any other argument.
Value getPreparedValue(BlockArgument arg);

/// Whether `use` is operand A or B of an fp8.scaled_matmul (not a scale).
bool isGemmOperand(OpOperand &use);

/// Whether `value` has uses and each is operand A or B of an
/// fp8.scaled_matmul.
bool isReadOnlyAsGemmOperand(Value value);

/// Whether transposing `value` keeps its bytes in place: at most one of its
/// dimensions has an extent other than 1.
bool isTransposeInvariant(Value value);

/// Whether the rows of `type` (its innermost dimension, packed) are whole
/// 16-byte units, as TMA reads them; a 0-d tensor has none to pad.
bool hasWhole16ByteRows(RankedTensorType type);

/// Bytes of a tensor of `shape` with elements of `bits` bits (packed).
int64_t getTensorBytes(ArrayRef<int64_t> shape, int64_t bits);

/// Whether `type` is f32, bf16 or f16: the wide element types of GEMM
/// operands, results and of what the quantizations read.
bool isWideFloat(Type type);

/// Whether `type` is a scalar, a vector or a statically shaped tensor: the
/// shapes that elementwise rewrites emitting splat constants can take.
bool hasExpandableShape(Type type);

/// Whether `op` computes each element of its results from the elements of
/// its inputs at the same (or a broadcast) position, with nothing else: the
/// linalg ops that fuse into a chain or an epilogue. Otherwise `reason`
/// completes "the op ...". Transposes stay for the quantize kernels, which
/// fold them into their copies; fills are folded where they are read.
/// `indices`: its body may also read the loop indices (linalg.index, a
/// causal mask), as a consumer that producers fuse into may.
bool isFusableElementwise(Operation *op, std::string &reason,
                          bool indices = false);

/// A short name of `op` for remarks: its op name and its fp8.name if any.
std::string describeForRemarks(Operation *op);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_TRANSFORMS_GRAPHUTILS_H

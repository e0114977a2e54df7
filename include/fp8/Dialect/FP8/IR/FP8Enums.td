//===- FP8Enums.td - fp8 dialect enums ---------------------*- tablegen -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FP8ENUMS_TD
#define FP8_DIALECT_FP8_IR_FP8ENUMS_TD

include "mlir/IR/EnumAttr.td"

def FP8_Format : I32EnumAttr<"Format", "low-precision element format", [
    I32EnumAttrCase<"E4M3", 0, "e4m3">,
    I32EnumAttrCase<"E5M2", 1, "e5m2">,
    I32EnumAttrCase<"E2M1", 2, "e2m1">,
    I32EnumAttrCase<"E2M3", 3, "e2m3">,
    I32EnumAttrCase<"E3M2", 4, "e3m2">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_Rounding : I32EnumAttr<"Rounding", "rounding of the encode step", [
    I32EnumAttrCase<"RNE", 0, "rne">,
    I32EnumAttrCase<"Stochastic", 1, "stochastic">,
    I32EnumAttrCase<"RCeil", 2, "rceil">,
    I32EnumAttrCase<"Floor", 3, "floor">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_Overflow : I32EnumAttr<"Overflow", "treatment of values beyond the largest finite code", [
    I32EnumAttrCase<"Saturate", 0, "saturate">,
    I32EnumAttrCase<"NonFinite", 1, "nonfinite">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_NanPolicy : I32EnumAttr<"NanPolicy", "how amax treats NaN elements", [
    I32EnumAttrCase<"Ignore", 0, "ignore">,
    I32EnumAttrCase<"Propagate", 1, "propagate">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_ScaleRuleKind : I32EnumAttr<"ScaleRuleKind", "rule deriving a scale from an amax", [
    I32EnumAttrCase<"Ratio", 0, "ratio">,
    I32EnumAttrCase<"Pow2", 1, "pow2">,
    I32EnumAttrCase<"E8M0RCeil", 2, "e8m0_rceil">,
    I32EnumAttrCase<"E8M0Floor", 3, "e8m0_floor">,
    I32EnumAttrCase<"NVFP4", 4, "nvfp4">,
    I32EnumAttrCase<"Pow2Bias", 5, "pow2_bias">,
    I32EnumAttrCase<"Static", 6, "static">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_AmaxAlgo : I32EnumAttr<"AmaxAlgo", "reduction of a delayed-scaling amax history", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"MostRecent", 1, "most_recent">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_ZeroAmaxPolicy : I32EnumAttr<"ZeroAmaxPolicy",
    "what a delayed-scaling step with amax 0 does", [
    I32EnumAttrCase<"Roll", 0, "roll">,
    I32EnumAttrCase<"Skip", 1, "skip">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_RecipeKind : I32EnumAttr<"RecipeKind", "named FP8 training recipe", [
    I32EnumAttrCase<"TensorDelayed", 0, "tensor_delayed">,
    I32EnumAttrCase<"TensorCurrent", 1, "tensor_current">,
    I32EnumAttrCase<"Rowwise", 2, "rowwise">,
    I32EnumAttrCase<"DeepSeek", 3, "deepseek">,
    I32EnumAttrCase<"MXFP8", 4, "mxfp8">,
    I32EnumAttrCase<"NVFP4", 5, "nvfp4">,
    I32EnumAttrCase<"Graphcore", 6, "graphcore">,
    I32EnumAttrCase<"Unit", 7, "unit">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_GemmRole : I32EnumAttr<"GemmRole", "which GEMM of a linear layer a contraction is", [
    I32EnumAttrCase<"FProp", 0, "fprop">,
    I32EnumAttrCase<"DGrad", 1, "dgrad">,
    I32EnumAttrCase<"WGrad", 2, "wgrad">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

def FP8_UnitOpKind : I32EnumAttr<"UnitOpKind",
    "what an op is to fp8-unit-scale, as `fp8.unit_op` declares it", [
    I32EnumAttrCase<"Gelu", 0, "gelu">,
    I32EnumAttrCase<"GeluGrad", 1, "gelu_grad">,
    I32EnumAttrCase<"Softmax", 2, "softmax">,
    I32EnumAttrCase<"SoftmaxGrad", 3, "softmax_grad">,
    I32EnumAttrCase<"CrossEntropyGrad", 4, "cross_entropy_grad">,
    I32EnumAttrCase<"Residual", 5, "residual">,
    I32EnumAttrCase<"LayerNormGrad", 6, "layernorm_grad">,
    I32EnumAttrCase<"None", 7, "none">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::fp8";
}

#endif // FP8_DIALECT_FP8_IR_FP8ENUMS_TD

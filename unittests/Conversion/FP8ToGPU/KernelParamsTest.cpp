//===- KernelParamsTest.cpp - Kernel signatures from parameter lists ------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A kernel configuration's getParams() is the one statement of its kernel's
// parameter order: the builders declare the kernel from it and the lowering
// orders launch arguments by it. These tests build kernels and check that
// each takes exactly the listed parameters, typed by their kinds, with tensor
// maps as grid constants, and that the lists follow the configurations.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fp8;

namespace {

template <typename Param>
SmallVector<KernelParamKind> getKinds(ArrayRef<Param> params) {
  return llvm::map_to_vector(params,
                             [](Param param) { return getParamKind(param); });
}

class KernelParamsTest : public ::testing::Test {
protected:
  KernelParamsTest() {
    DialectRegistry registry;
    registerAllDialectsAndExtensions(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    OpBuilder b(&context);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
    kernels = gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "kernels");
  }

  /// A builder inserting into the gpu.module.
  OpBuilder getBuilder() { return OpBuilder::atBlockEnd(kernels.getBody()); }

  /// Expects `kernel` to take one argument per parameter, of the kinds
  /// `kinds`, with only tensor maps as grid constants.
  void expectSignature(LLVM::LLVMFuncOp kernel,
                       ArrayRef<KernelParamKind> kinds) {
    ASSERT_TRUE(kernel);
    ASSERT_EQ(kernel.getNumArguments(), kinds.size());
    auto generic = LLVM::LLVMPointerType::get(&context);
    auto global = LLVM::LLVMPointerType::get(&context, 1);
    for (auto [index, kind] : llvm::enumerate(kinds)) {
      Type type = kernel.getArgumentTypes()[index];
      bool gridConstant = bool(kernel.getArgAttr(
          index, NVVM::NVVMDialect::getGridConstantAttrName()));
      switch (kind) {
      case KernelParamKind::TensorMap:
        EXPECT_EQ(type, generic) << "argument " << index;
        EXPECT_TRUE(gridConstant) << "argument " << index;
        break;
      case KernelParamKind::Buffer:
        EXPECT_EQ(type, global) << "argument " << index;
        EXPECT_FALSE(gridConstant) << "argument " << index;
        break;
      case KernelParamKind::I32:
        EXPECT_TRUE(type.isInteger(32)) << "argument " << index;
        EXPECT_FALSE(gridConstant) << "argument " << index;
        break;
      }
    }
  }

  /// Builds the kernel of `config` with `build` and expects it to take the
  /// configuration's parameters.
  template <typename Config>
  void expectKernelTakesParams(const Config &config,
                               LLVM::LLVMFuncOp (*build)(OpBuilder &, Location,
                                                         const Config &)) {
    OpBuilder b = getBuilder();
    expectSignature(build(b, b.getUnknownLoc(), config),
                    getKinds<typename Config::Param>(config.getParams()));
  }

  template <typename Config>
  void expectValid(const Config &config) {
    std::string reason;
    EXPECT_TRUE(succeeded(config.verify(reason))) << reason;
  }

  /// Expects `config` to have no kernel, for a reason that mentions `what`.
  template <typename Config>
  void expectInvalid(const Config &config, StringRef what) {
    std::string reason;
    EXPECT_TRUE(failed(config.verify(reason)));
    EXPECT_NE(reason.find(what.str()), std::string::npos) << reason;
  }

  /// The ops named `name` in `source`, in order, parsed into a module that
  /// the fixture keeps; none when it does not parse.
  SmallVector<Operation *> parseOps(StringRef source, StringRef name) {
    parsed = parseSourceString<ModuleOp>(source, &context);
    SmallVector<Operation *> ops;
    if (parsed)
      parsed->walk([&](Operation *op) {
        if (op->getName().getStringRef() == name)
          ops.push_back(op);
      });
    return ops;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  OwningOpRef<ModuleOp> parsed;
  gpu::GPUModuleOp kernels;
};

TEST_F(KernelParamsTest, GemmParamsFollowTheConfiguration) {
  using P = GemmParam;
  GemmSM90Config plain;
  EXPECT_EQ(plain.getParams(),
            (SmallVector<P>{P::TensorMapA, P::TensorMapB, P::Out, P::ScaleA,
                            P::ScaleB, P::M, P::N, P::K}));

  GemmSM100Config full;
  full.bias = WideElement::BF16;
  full.globalScales = true;
  full.fp8Out = Format::E4M3;
  full.outAmax = true;
  EXPECT_EQ(
      full.getParams(),
      (SmallVector<P>{P::TensorMapA, P::TensorMapB, P::Out, P::ScaleA,
                      P::ScaleB, P::Bias, P::GlobalScaleA, P::GlobalScaleB,
                      P::OutScale, P::Amax, P::M, P::N, P::K}));
}

TEST_F(KernelParamsTest, BatchedGemmsTakeBatchParams) {
  // The batch count and the scales' batch strides follow the extents.
  using P = GemmParam;
  GemmSM90Config sm90;
  sm90.batched = true;
  EXPECT_EQ(sm90.getParams(),
            (SmallVector<P>{P::TensorMapA, P::TensorMapB, P::Out, P::ScaleA,
                            P::ScaleB, P::M, P::N, P::K, P::Batches,
                            P::ScaleABatchStride, P::ScaleBBatchStride}));
  expectValid(sm90);
  expectKernelTakesParams(sm90, buildGemmSM90Kernel);

  // MXFP8 block scales in the tcgen05 layout of each matrix.
  GemmSM100Config sm100;
  sm100.batched = true;
  sm100.scaling = GemmScaling::Block;
  sm100.bias = WideElement::F32;
  expectValid(sm100);
  expectKernelTakesParams(sm100, buildGemmSM100Kernel);
  GemmSM100Config unbatched = sm100;
  unbatched.batched = false;
  EXPECT_NE(sm100.getKernelName(), unbatched.getKernelName());
}

TEST_F(KernelParamsTest, GemmSM90Kernel) {
  GemmSM90Config config;
  config.bias = WideElement::F32;
  config.fp8Out = Format::E5M2;
  config.outAmax = true;
  expectValid(config);
  expectKernelTakesParams(config, buildGemmSM90Kernel);
}

TEST_F(KernelParamsTest, GemmEpilogueInputsComeLast) {
  // The epilogue of a scaled matmul: the product (bf16), a residual and a
  // row vector, FP8 codes of the yielded f32 values with their amax.
  OwningOpRef<ModuleOp> source = parseSourceString<ModuleOp>(
      R"mlir(
      func.func @f(%a: tensor<128x128xf8E4M3FN>, %s: tensor<1x1xf32>,
                   %r: tensor<128x128xf32>, %v: tensor<128xbf16>)
          -> (tensor<128x128xf8E4M3FN>, tensor<1x1xf32>) {
        %y, %m = fp8.scaled_matmul %a, %a scales(%s, %s) by(<tensor>, <tensor>)
            out_scale(%s : tensor<1x1xf32>) transpose_rhs
            epilogue_ins(%r, %v : tensor<128x128xf32>, tensor<128xbf16>)
            epilogue_maps([affine_map<(m, n) -> (m, n)>,
                           affine_map<(m, n) -> (n)>])
            : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>,
              tensor<1x1xf32>, tensor<1x1xf32>
              -> tensor<128x128xf8E4M3FN>, amax tensor<1x1xf32>
            epilogue {
            ^bb0(%c: bf16, %x: f32, %b: bf16):
              %s0 = arith.addf %c, %b : bf16
              %w = arith.extf %s0 : bf16 to f32
              %t = arith.addf %w, %x : f32
              fp8.yield %t : f32
            }
        return %y, %m : tensor<128x128xf8E4M3FN>, tensor<1x1xf32>
      })mlir",
      &context);
  ASSERT_TRUE(source);
  ScaledMatmulOp op;
  source->walk([&](ScaledMatmulOp found) { op = found; });
  ASSERT_TRUE(op);
  GemmEpilogue epilogue;
  epilogue.product = WideElement::BF16;
  epilogue.inputs = {{WideElement::F32, GemmEpilogue::Read::Matrix},
                     {WideElement::BF16, GemmEpilogue::Read::Column}};
  epilogue.body = &op.getEpilogue().front();
  epilogue.tag = "t";

  using P = GemmParam;
  GemmSM90Config sm90;
  sm90.fp8Out = Format::E4M3;
  sm90.outAmax = true;
  sm90.epilogue = epilogue;
  EXPECT_EQ(sm90.getParams(),
            (SmallVector<P>{P::TensorMapA, P::TensorMapB, P::Out, P::ScaleA,
                            P::ScaleB, P::OutScale, P::Amax, P::M, P::N, P::K,
                            P::EpilogueInput, P::EpilogueInput}));
  EXPECT_NE(sm90.getKernelName().find("_amax_epibf16_t_"), std::string::npos)
      << sm90.getKernelName();
  expectValid(sm90);
  expectKernelTakesParams(sm90, buildGemmSM90Kernel);

  GemmSM100Config sm100;
  sm100.fp8Out = Format::E4M3;
  sm100.outAmax = true;
  sm100.epilogue = epilogue;
  expectValid(sm100);
  expectKernelTakesParams(sm100, buildGemmSM100Kernel);

  // A batch's epilogue reads scalars only (one for all matrices); a body
  // must take the product and the inputs.
  GemmSM90Config batched = sm90;
  batched.batched = true;
  expectInvalid(batched, "reads scalars only");
  for (GemmEpilogue::Input &input : batched.epilogue->inputs)
    input.read = GemmEpilogue::Read::Scalar;
  expectValid(batched);
  expectKernelTakesParams(batched, buildGemmSM90Kernel);
  GemmSM90Config missing = sm90;
  missing.epilogue->inputs.pop_back();
  expectInvalid(missing, "one value per input");

  // Staged: the f32 matrix becomes a tensor map, the column stays a buffer.
  // Its 64 KiB tile (1024-aligned, after the ring and the staging slot's
  // two barriers) leaves 5 of the 7 stages.
  GemmSM90Config staged = sm90;
  staged.stagedMatrices = true;
  EXPECT_EQ(staged.getParams(),
            (SmallVector<P>{P::TensorMapA, P::TensorMapB, P::Out, P::ScaleA,
                            P::ScaleB, P::OutScale, P::Amax, P::M, P::N, P::K,
                            P::EpilogueTensorMap, P::EpilogueInput}));
  expectValid(staged);
  EXPECT_EQ(staged.getStagedInputBytes(), 128 * 128 * 4);
  EXPECT_EQ(staged.getStages(), 5);
  EXPECT_EQ(staged.getStagedBarrierOffset(), 5 * (256 * 128 + 16));
  EXPECT_EQ(staged.getStagedInputOffset(), 164864);
  EXPECT_EQ(staged.getSharedMemoryBytes(), 164864 + 65536);
  EXPECT_NE(staged.getKernelName().find("_stg_128x128_s5"), std::string::npos)
      << staged.getKernelName();
  expectKernelTakesParams(staged, buildGemmSM90Kernel);
  // 128 x 192 tiles would stage 96 KiB and keep 3 stages; nothing to stage
  // without a matrix; sm_100a does not stage.
  GemmSM90Config wide = staged;
  wide.blockN = 192;
  EXPECT_EQ(wide.getStages(), 3);
  expectInvalid(wide, "at least 4");
  GemmSM90Config columns = staged;
  columns.epilogue->inputs[0].read = GemmEpilogue::Read::Row;
  expectInvalid(columns, "reads a matrix");
  GemmSM100Config sm100Staged = sm100;
  sm100Staged.stagedMatrices = true;
  expectInvalid(sm100Staged, "global memory");
}

TEST_F(KernelParamsTest, GemmSM90StoresByTma) {
  // The result becomes a tensor map; its 32 KiB bf16 tile follows the ring
  // (6 stages and their barriers, then the staging slot's barriers),
  // 1024-aligned.
  using P = GemmParam;
  GemmSM90Config stored;
  stored.tmaStore = true;
  EXPECT_EQ(stored.getParams(),
            (SmallVector<P>{P::TensorMapA, P::TensorMapB, P::OutTensorMap,
                            P::ScaleA, P::ScaleB, P::M, P::N, P::K}));
  expectValid(stored);
  EXPECT_EQ(stored.getResultTileBytes(), 128 * 128 * 2);
  EXPECT_EQ(stored.getStages(), 6);
  EXPECT_EQ(stored.getResultTileOffset(), 197632);
  EXPECT_EQ(stored.getSharedMemoryBytes(), 197632 + 32768);
  EXPECT_NE(stored.getKernelName().find("_tma_128x128_s6"), std::string::npos)
      << stored.getKernelName();
  expectKernelTakesParams(stored, buildGemmSM90Kernel);
  // f32 at 128 x 192: a 96 KiB tile leaves 3 stages.
  GemmSM90Config wide = stored;
  wide.out = WideElement::F32;
  wide.blockN = 192;
  EXPECT_EQ(wide.getStages(), 3);
  expectInvalid(wide, "result tile of the TMA store (98304 bytes) leaves 3");
  // FP8 codes in 64-column tiles: 64-byte rows, not whole boxes.
  GemmSM90Config narrow = stored;
  narrow.fp8Out = Format::E4M3;
  narrow.blockN = 64;
  expectInvalid(narrow, "boxes of 128 bytes");
  // Not with an epilogue warpgroup; not on sm_100a.
  GemmSM90Config handOver = stored;
  handOver.epilogueWarpgroup = true;
  expectInvalid(handOver, "epilogue warpgroup");
  // Head-major results whose heads hold whole 128-byte boxes.
  GemmSM90Config heads = stored;
  heads.outHeadDim = 64;
  expectValid(heads);
  heads.outHeadDim = 32;
  expectInvalid(heads, "does not hold whole");
  GemmSM100Config sm100;
  sm100.tmaStore = true;
  expectInvalid(sm100, "from registers");
}

TEST_F(KernelParamsTest, GemmSM90MulticastsB) {
  // Clusters of two; the parameters and the shared memory are unchanged.
  GemmSM90Config paired;
  paired.multicastB = true;
  expectValid(paired);
  EXPECT_EQ(paired.getClusterSize(), 2);
  EXPECT_EQ(getKernelCluster(paired), (std::array<int64_t, 3>{2, 1, 1}));
  EXPECT_EQ(paired.getParams(), GemmSM90Config().getParams());
  EXPECT_EQ(paired.getSharedMemoryBytes(),
            GemmSM90Config().getSharedMemoryBytes());
  EXPECT_NE(paired.getKernelName().find("_mc_128x128_s7"), std::string::npos)
      << paired.getKernelName();
  expectKernelTakesParams(paired, buildGemmSM90Kernel);
  EXPECT_EQ(getKernelCluster(GemmSM90Config()),
            (std::array<int64_t, 3>{1, 1, 1}));
  // B in K-major halves, to the consumers' epilogue; not on sm_100a.
  GemmSM90Config mnMajor = paired;
  mnMajor.wideOperands = WideElement::BF16;
  mnMajor.promoteInterval = 0;
  mnMajor.mnMajorB = true;
  expectInvalid(mnMajor, "not MN-major");
  GemmSM90Config handOver = paired;
  handOver.epilogueWarpgroup = true;
  expectInvalid(handOver, "epilogue warpgroup");
  GemmSM100Config sm100;
  sm100.multicastB = true;
  expectInvalid(sm100, "one CTA per cluster");
}

TEST_F(KernelParamsTest, GemmSM90RejectsGlobalScales) {
  GemmSM90Config config;
  config.globalScales = true;
  expectInvalid(config, "global scales");
}

TEST_F(KernelParamsTest, GemmSM90StagesColumnScales) {
  // DeepSeek's weight gradients: 1x128 on both operands. Each consumer
  // warpgroup stages two buffers of 128 f32 column scales after the ring and
  // its barriers; 7 stages still fit.
  GemmSM90Config wgrad;
  wgrad.scaling = GemmScaling::Block;
  expectValid(wgrad);
  EXPECT_TRUE(wgrad.stagesColumnScales());
  EXPECT_EQ(wgrad.getColumnScaleBytes(), 2 * 2 * 128 * 4);
  EXPECT_EQ(wgrad.getStages(), 7);
  EXPECT_EQ(wgrad.getColumnScaleOffset(), 7 * (256 * 128 + 16));
  EXPECT_EQ(wgrad.getSharedMemoryBytes(), 7 * (256 * 128 + 16) + 2048);
  expectKernelTakesParams(wgrad, buildGemmSM90Kernel);

  // Square weight blocks and per-tensor scales stage nothing.
  GemmSM90Config square = wgrad;
  square.bRowsPerScale = 128;
  EXPECT_FALSE(square.stagesColumnScales());
  EXPECT_EQ(square.getColumnScaleBytes(), 0);
  EXPECT_EQ(GemmSM90Config().getColumnScaleBytes(), 0);

  // 32-wide E8M0 blocks: four blocks per K tile. At 128 columns the 8 KiB
  // of staged scales cost a stage.
  GemmSM90Config mx = wgrad;
  mx.kGroup = 32;
  mx.e8m0Scales = true;
  EXPECT_EQ(mx.getColumnScaleBytes(), 2 * 2 * 4 * 128 * 4);
  EXPECT_EQ(mx.getStages(), 6);
  expectValid(mx);
  mx.blockN = 64;
  EXPECT_EQ(mx.getStages(), 8);
  expectValid(mx);

  // A partial sum per block where they fit in 160 registers with the
  // accumulator: 128 x 64 tiles hold four of 32, 128 x 128 would need 320.
  EXPECT_EQ(mx.getPartialSums(), 4);
  expectKernelTakesParams(mx, buildGemmSM90Kernel);
  mx.blockN = 128;
  EXPECT_EQ(mx.getPartialSums(), 1);
  EXPECT_EQ(wgrad.getPartialSums(), 1);
  GemmSM90Config narrow;
  narrow.blockN = 64;
  narrow.promoteInterval = 1;
  EXPECT_EQ(narrow.getPartialSums(), 4);
  narrow.promoteInterval = 2;
  EXPECT_EQ(narrow.getPartialSums(), 2);
  narrow.promoteInterval = 4;
  EXPECT_EQ(narrow.getPartialSums(), 1);
  narrow.promoteInterval = 0;
  EXPECT_EQ(narrow.getPartialSums(), 1);
  narrow.promoteInterval = 8;
  EXPECT_EQ(narrow.getPartialSums(), 1);
  narrow.promoteInterval = 2;
  narrow.blockN = 128;
  EXPECT_EQ(narrow.getPartialSums(), 1);

  // A forced depth that leaves no room for the staged scales is refused.
  GemmSM90Config deep = wgrad;
  deep.stages = 7;
  deep.kGroup = 32;
  expectInvalid(deep, "staged column scales");
}

TEST_F(KernelParamsTest, GemmSM90WideTiles) {
  // 128 x 192 tiles (sm90-tile-n=192): five stages of 40 KiB.
  GemmSM90Config wide;
  wide.blockN = 192;
  expectValid(wide);
  EXPECT_EQ(wide.getStages(), 5);
  EXPECT_EQ(wide.getSharedMemoryBytes(), 5 * (320 * 128 + 16));
  expectKernelTakesParams(wide, buildGemmSM90Kernel);

  // Block scales of 128 along K allow them: over B's 128 x 128 squares a
  // tile straddles two; per column of B the two buffers of each consumer
  // warpgroup hold 256 scales (two loads per thread). Blocks of 32 do not,
  // and other widths are refused.
  GemmSM90Config scaled = wide;
  scaled.scaling = GemmScaling::Block;
  scaled.bRowsPerScale = 128;
  expectValid(scaled);
  EXPECT_TRUE(scaled.straddlesTwoBBlocks());
  expectKernelTakesParams(scaled, buildGemmSM90Kernel);
  GemmSM90Config columns = scaled;
  columns.bRowsPerScale = 1;
  expectValid(columns);
  EXPECT_FALSE(columns.straddlesTwoBBlocks());
  EXPECT_EQ(columns.getColumnScaleBufferBytes(), 256 * 4);
  expectKernelTakesParams(columns, buildGemmSM90Kernel);
  GemmSM90Config mx = columns;
  mx.kGroup = 32;
  expectInvalid(mx, "blocks of 128 along K");
  GemmSM90Config odd;
  odd.blockN = 160;
  expectInvalid(odd, "64, 128 or 192 columns");
}

TEST_F(KernelParamsTest, GemmSM90EpilogueWarpgroup) {
  // 512 threads; the 64 KiB hand-over (after the ring and its two
  // barriers, 1024-aligned) leaves 5 stages of 32 KiB.
  GemmSM90Config config;
  config.epilogueWarpgroup = true;
  expectValid(config);
  EXPECT_EQ(config.getThreads(), 512);
  EXPECT_EQ(getKernelThreads(config), 512);
  EXPECT_EQ(config.getHandOverBytes(), 128 * 128 * 4);
  EXPECT_EQ(config.getStages(), 5);
  EXPECT_EQ(config.getHandOverOffset(), 164864);
  EXPECT_EQ(config.getSharedMemoryBytes(), 164864 + 65536);
  EXPECT_NE(config.getKernelName().find("_ewg_128x128_s5"), std::string::npos)
      << config.getKernelName();
  expectKernelTakesParams(config, buildGemmSM90Kernel);
  GemmSM90Config plain;
  EXPECT_EQ(getKernelThreads(plain), 384);

  // Wide tiles, row/column scales, f32 results and staged inputs are
  // refused.
  GemmSM90Config wide = config;
  wide.blockN = 192;
  expectInvalid(wide, "64 or 128 columns");
  GemmSM90Config rowCol = config;
  rowCol.scaling = GemmScaling::RowCol;
  expectInvalid(rowCol, "spill");
  GemmSM90Config f32 = config;
  f32.out = WideElement::F32;
  expectInvalid(f32, "spill");
}

TEST(GemmSM90TilesTest, WideTileEstimate) {
  // The shapes the H100 timed on 2026-11-27 (132 multiprocessors), against
  // what 128 x 192 tiles gained there: 8192^3 1.12x (estimated 1.14),
  // 4096 x 24576 1.07x (1.10), 4096 x 7168 1.06x (1.05), 4096 x 4096 1.00x
  // (1.00), 2048 x 2048 0.85x (0.75), 1024 x 1024 0.88x (0.75).
  EXPECT_NEAR(estimateSM90WideTileSpeedup(1, 8192, 8192, 132), 1.138, 1e-3);
  EXPECT_NEAR(estimateSM90WideTileSpeedup(1, 4096, 24576, 132), 1.097, 1e-3);
  EXPECT_NEAR(estimateSM90WideTileSpeedup(1, 4096, 7168, 132), 1.045, 1e-3);
  EXPECT_NEAR(estimateSM90WideTileSpeedup(1, 4096, 4096, 132), 0.996, 1e-3);
  EXPECT_NEAR(estimateSM90WideTileSpeedup(1, 2048, 2048, 132), 0.747, 1e-3);
  EXPECT_NEAR(estimateSM90WideTileSpeedup(1, 1024, 1024, 132), 0.747, 1e-3);
  // Batches count as rows of tiles.
  EXPECT_DOUBLE_EQ(estimateSM90WideTileSpeedup(2, 4096, 8192, 132),
                   estimateSM90WideTileSpeedup(1, 8192, 8192, 132));
}

TEST_F(KernelParamsTest, GemmSM100Kernel) {
  // NVFP4 with every optional parameter but the FP8 out scale.
  GemmSM100Config config;
  config.aFormat = config.bFormat = Format::E2M1;
  config.scaling = GemmScaling::Block;
  config.scaleBlock = 16;
  config.e8m0Scales = false;
  config.globalScales = true;
  config.bias = WideElement::BF16;
  config.outAmax = true;
  expectValid(config);
  expectKernelTakesParams(config, buildGemmSM100Kernel);
}

TEST_F(KernelParamsTest, QuantizeKernels) {
  using P = QuantizeParam;
  QuantizeConfig amax;
  amax.phase = QuantizeConfig::Phase::Amax;
  amax.fused = false;
  amax.tileBlockRows = QuantizeConfig::kTileRows;
  amax.tileBlockCols = QuantizeConfig::kTileCols;
  expectValid(amax);
  EXPECT_EQ(amax.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Rows, P::Cols, P::BlockRows,
                            P::BlockCols}));

  // NVFP4 codes with their block scales in the tcgen05 layout.
  QuantizeConfig nvfp4;
  nvfp4.format = Format::E2M1;
  nvfp4.rule = ScaleRuleAttr::get(&context, ScaleRuleKind::NVFP4);
  nvfp4.tileBlockCols = 16;
  nvfp4.twoLevel = true;
  nvfp4.tcgen05Scales = true;
  expectValid(nvfp4);
  EXPECT_EQ(nvfp4.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Codes, P::Scales, P::Rows,
                            P::Cols, P::BlockRows, P::BlockCols, P::Pitch,
                            P::GlobalScale, P::ScaleKChunks}));

  // NVFP4 codes by given E4M3 block scales under a given global scale,
  // stochastically rounded: the random words last.
  QuantizeConfig given;
  given.format = Format::E2M1;
  given.tileBlockRows = 16;
  given.tileBlockCols = 1;
  given.fused = false;
  given.givenScales = true;
  given.twoLevel = true;
  given.stochastic = true;
  given.transposed = true;
  expectValid(given);
  EXPECT_EQ(given.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Codes, P::Scales, P::Rows,
                            P::Cols, P::BlockRows, P::BlockCols, P::Pitch,
                            P::GlobalScale, P::RandomBits}));

  // A batch of matrices: the strides of the scales and of the amax buffer.
  QuantizeConfig batchedAmax = amax;
  batchedAmax.batched = true;
  EXPECT_EQ(batchedAmax.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Rows, P::Cols, P::BlockRows,
                            P::BlockCols, P::AmaxBatchStride}));
  QuantizeConfig batched;
  batched.rule = ScaleRuleAttr::get(&context, ScaleRuleKind::Pow2);
  batched.tileBlockRows = QuantizeConfig::kTileRows;
  batched.fused = false;
  batched.transposed = true;
  batched.batched = true;
  expectValid(batched);
  EXPECT_EQ(batched.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Codes, P::Scales, P::Rows,
                            P::Cols, P::BlockRows, P::BlockCols, P::Pitch,
                            P::ScaleBatchStride, P::AmaxBatchStride}));

  // Codes by a given scale with their transposed copy: both copies read
  // the given scales (Amax, PairAmax); stochastic rounding is not paired.
  QuantizeConfig givenPair;
  givenPair.tileBlockRows = QuantizeConfig::kTileRows;
  givenPair.fused = false;
  givenPair.givenScales = true;
  givenPair.pair = QuantizeConfig::Pair{Format::E5M2, QuantizeConfig::kTileRows,
                                        QuantizeConfig::kTileCols,
                                        /*fused=*/false, /*transposed=*/true};
  expectValid(givenPair);
  EXPECT_EQ(givenPair.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Codes, P::Scales, P::Rows,
                            P::Cols, P::BlockRows, P::BlockCols, P::Pitch,
                            P::PairAmax, P::PairCodes, P::PairScales,
                            P::PairBlockRows, P::PairBlockCols, P::PairPitch}));
  QuantizeConfig stochasticPair = givenPair;
  stochasticPair.stochastic = true;
  std::string reason;
  EXPECT_TRUE(failed(stochasticPair.verify(reason)));

  // A paired batch: each copy steps to its matrix by its own strides.
  QuantizeConfig batchedPair = givenPair;
  batchedPair.batched = true;
  expectValid(batchedPair);
  EXPECT_EQ(batchedPair.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Codes, P::Scales, P::Rows,
                            P::Cols, P::BlockRows, P::BlockCols, P::Pitch,
                            P::ScaleBatchStride, P::AmaxBatchStride,
                            P::PairAmax, P::PairCodes, P::PairScales,
                            P::PairBlockRows, P::PairBlockCols, P::PairPitch,
                            P::PairScaleBatchStride, P::PairAmaxBatchStride}));
  QuantizeConfig batchedPairAmax = batchedPair;
  batchedPairAmax.givenScales = false;
  batchedPairAmax.phase = QuantizeConfig::Phase::Amax;
  expectValid(batchedPairAmax);
  EXPECT_EQ(batchedPairAmax.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Rows, P::Cols, P::BlockRows,
                            P::BlockCols, P::AmaxBatchStride, P::PairAmax,
                            P::PairBlockRows, P::PairBlockCols,
                            P::PairAmaxBatchStride}));

  // The grid-stride amax of a whole matrix takes the amax kernel's
  // parameters, and no shared memory; it measures one matrix alone.
  QuantizeConfig wholeMatrix = amax;
  wholeMatrix.wholeMatrixAmax = true;
  expectValid(wholeMatrix);
  EXPECT_EQ(wholeMatrix.getParams(), amax.getParams());
  EXPECT_EQ(wholeMatrix.getSharedMemoryBytes(), 0);
  EXPECT_NE(wholeMatrix.getKernelName(), amax.getKernelName());
  QuantizeConfig wholeBatch = wholeMatrix;
  wholeBatch.batched = true;
  EXPECT_TRUE(failed(wholeBatch.verify(reason)));

  // 128 x 128 blocks fused in tiles of 128 rows, named so; blocks of 128
  // rows in 32-row tiles must be measured by an amax kernel first.
  QuantizeConfig tall;
  tall.rule = ScaleRuleAttr::get(&context, ScaleRuleKind::Pow2);
  tall.tileRows = QuantizeConfig::kPairTileRows;
  tall.tileBlockRows = QuantizeConfig::kPairTileRows;
  tall.tileBlockCols = QuantizeConfig::kTileCols;
  tall.transposed = true;
  expectValid(tall);
  EXPECT_NE(tall.getKernelName().find("_b128x128_"), std::string::npos);
  EXPECT_NE(tall.getKernelName().find("_r128"), std::string::npos);
  EXPECT_EQ(tall.getParams(),
            (SmallVector<P>{P::Input, P::Amax, P::Codes, P::Scales, P::Rows,
                            P::Cols, P::BlockRows, P::BlockCols, P::Pitch}));
  QuantizeConfig shortTile = tall;
  shortTile.tileRows = QuantizeConfig::kTileRows;
  EXPECT_TRUE(failed(shortTile.verify(reason)));

  for (const QuantizeConfig &config :
       {amax, nvfp4, given, batchedAmax, batched, givenPair, batchedPair,
        batchedPairAmax, wholeMatrix, tall})
    expectKernelTakesParams(config, buildQuantizeKernel);
}

TEST_F(KernelParamsTest, QuantizePrologueInputsReplaceTheInput) {
  // A bias add computed where the kernels load their input: no Input, the
  // prologue's two inputs last, in both phases and in a pair.
  SmallVector<Operation *> generics = parseOps(
      R"mlir(
      func.func @f(%x: tensor<4x8xbf16>, %b: tensor<8xbf16>,
                   %e: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
        %y = linalg.generic {
            indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                             affine_map<(d0, d1) -> (d1)>,
                             affine_map<(d0, d1) -> (d0, d1)>],
            iterator_types = ["parallel", "parallel"]}
            ins(%x, %b : tensor<4x8xbf16>, tensor<8xbf16>)
            outs(%e : tensor<4x8xbf16>) {
          ^bb0(%in: bf16, %bias: bf16, %out: bf16):
            %s = arith.addf %in, %bias : bf16
            linalg.yield %s : bf16
          } -> tensor<4x8xbf16>
        return %y : tensor<4x8xbf16>
      })mlir",
      "linalg.generic");
  ASSERT_EQ(generics.size(), 1u);
  Block *body = &generics[0]->getRegion(0).front();
  using P = QuantizeParam;
  QuantizePrologue prologue;
  prologue.body = body;
  prologue.inputs = {{BFloat16Type::get(&context), ElementRead::Matrix, 0,
                      /*vectorLoads=*/true},
                     {BFloat16Type::get(&context), ElementRead::Column, 1}};
  prologue.tag = "_mvc_test";

  QuantizeConfig amax;
  amax.phase = QuantizeConfig::Phase::Amax;
  amax.fused = false;
  amax.prologue = prologue;
  expectValid(amax);
  EXPECT_EQ(amax.getParams(),
            (SmallVector<P>{P::Amax, P::Rows, P::Cols, P::BlockRows,
                            P::BlockCols, P::PrologueInput, P::PrologueInput}));
  EXPECT_NE(amax.getKernelName().find("_pro_mvc_test"), std::string::npos);

  QuantizeConfig pair;
  pair.rule = ScaleRuleAttr::get(&context, ScaleRuleKind::Pow2);
  pair.tileBlockCols = 32;
  pair.tileRows = QuantizeConfig::kTileRows;
  pair.pair = QuantizeConfig::Pair{Format::E4M3, 32, 1, true, true};
  pair.prologue = prologue;
  expectValid(pair);
  SmallVector<P> params = pair.getParams();
  EXPECT_EQ(llvm::count(params, P::Input), 0);
  EXPECT_EQ(ArrayRef<P>(params).take_back(3),
            ArrayRef<P>({P::PairPitch, P::PrologueInput, P::PrologueInput}));

  // Batched kernels read one matrix's prologue: refused.
  QuantizeConfig batched = amax;
  batched.batched = true;
  expectInvalid(batched, "prologue");

  for (const QuantizeConfig &config : {amax, pair})
    expectKernelTakesParams(config, buildQuantizeKernel);
}

TEST_F(KernelParamsTest, ComputeScaleKernels) {
  using P = ComputeScaleParam;
  // NVFP4's global scale and its reciprocal, then its block scales.
  ComputeScaleConfig global;
  global.rule = ScaleRuleAttr::get(&context, ScaleRuleKind::NVFP4);
  global.format = Format::E2M1;
  global.inverse = true;
  EXPECT_EQ(global.getParams(),
            (SmallVector<P>{P::Amax, P::Scale, P::ScaleInv, P::Count}));
  ComputeScaleConfig blocks = global;
  blocks.global = true;
  blocks.inverse = false;
  EXPECT_EQ(blocks.getParams(),
            (SmallVector<P>{P::Amax, P::GlobalScale, P::Scale, P::Count}));
  EXPECT_NE(global.getKernelName(), blocks.getKernelName());
  ComputeScaleConfig e8m0;
  e8m0.rule = ScaleRuleAttr::get(&context, ScaleRuleKind::E8M0RCeil);
  for (const ComputeScaleConfig &config : {global, blocks, e8m0})
    expectKernelTakesParams(config, buildComputeScaleKernel);
}

TEST_F(KernelParamsTest, ScaleLayoutKernel) {
  ScaleLayoutConfig config;
  EXPECT_EQ(config.getParams().size(), 9u);
  EXPECT_EQ(config.getParams().back(), ScaleLayoutParam::Bytes);
  expectKernelTakesParams(config, buildScaleLayoutKernel);

  // Staged from f32 powers of two: one more, last.
  ScaleLayoutConfig f32;
  f32.f32Source = true;
  EXPECT_EQ(f32.getParams().size(), 10u);
  EXPECT_EQ(f32.getParams().back(), ScaleLayoutParam::KBlocksPerScale);
  EXPECT_NE(f32.getKernelName(), config.getKernelName());
  expectKernelTakesParams(f32, buildScaleLayoutKernel);
}

TEST_F(KernelParamsTest, DelayedScaleKernel) {
  DelayedScaleConfig config;
  EXPECT_EQ(config.getParams().back(), DelayedScaleParam::HistoryLength);
  expectKernelTakesParams(config, buildDelayedScaleKernel);
}

TEST_F(KernelParamsTest, ReductionKernels) {
  using P = ReductionParam;
  using Axis = ReductionConfig::Axis;
  // A warp per bf16 row, 16-byte loads.
  ReductionConfig rows;
  rows.input = WideElement::BF16;
  rows.vectorLoads = true;
  expectValid(rows);
  EXPECT_EQ(rows.getVectorWidth(), 8);
  EXPECT_EQ(rows.getParams(),
            (SmallVector<P>{P::Input, P::Init, P::Out, P::Rows, P::Cols}));

  // A CTA per row of the maximum, without NaNs.
  ReductionConfig cta = rows;
  cta.rowThreads = ReductionConfig::kThreads;
  cta.combiner = ReductionCombiner::MaxNum;
  expectValid(cta);
  EXPECT_EQ(cta.getSharedMemoryBytes(), 32);

  // Column sums in two launches: f32 partials of splits of the rows, then
  // their reduction into bf16 results.
  ReductionConfig partial;
  partial.axis = Axis::Columns;
  partial.input = WideElement::F16;
  partial.partial = true;
  expectValid(partial);
  EXPECT_EQ(partial.getParams(),
            (SmallVector<P>{P::Input, P::Partials, P::Batches, P::Rows, P::Cols,
                            P::SplitRows}));
  ReductionConfig finish;
  finish.axis = Axis::Columns;
  finish.out = WideElement::BF16;
  finish.vectorLoads = true;
  expectValid(finish);
  EXPECT_EQ(finish.getParams(),
            (SmallVector<P>{P::Input, P::Init, P::Out, P::Batches, P::Rows,
                            P::Cols, P::SplitRows}));

  // Filled zeros as the init: no Init buffer, the constant in the name.
  ReductionConfig zeros = finish;
  zeros.initValue = 0.0f;
  expectValid(zeros);
  EXPECT_EQ(zeros.getParams(),
            (SmallVector<P>{P::Input, P::Out, P::Batches, P::Rows, P::Cols,
                            P::SplitRows}));
  EXPECT_NE(zeros.getKernelName().find("_i00000000"), std::string::npos)
      << zeros.getKernelName();
  ReductionConfig lowest = rows;
  lowest.initValue = -INFINITY;
  EXPECT_EQ(lowest.getParams(),
            (SmallVector<P>{P::Input, P::Out, P::Rows, P::Cols}));
  EXPECT_NE(lowest.getKernelName().find("_iff800000"), std::string::npos)
      << lowest.getKernelName();

  for (const ReductionConfig &config :
       {rows, cta, partial, finish, zeros, lowest})
    expectKernelTakesParams(config, buildReductionKernel);
}

TEST_F(KernelParamsTest, ReductionRejectsOtherRowGroups) {
  ReductionConfig config;
  config.rowThreads = 64;
  expectInvalid(config, "a warp");

  config.rowThreads = 32;
  config.partial = true;
  expectInvalid(config, "partials");
}

TEST_F(KernelParamsTest, ReductionPrologueNamesTheKernel) {
  // Sums of squares and sums of magnitudes: one kernel each, named by the
  // ops cloned from the body.
  SmallVector<Operation *> reductions = parseOps(
      R"mlir(
      func.func @f(%x: tensor<4x8xf32>, %init: tensor<4xf32>)
          -> (tensor<4xf32>, tensor<4xf32>) {
        %sq = linalg.reduce ins(%x : tensor<4x8xf32>)
            outs(%init : tensor<4xf32>) dimensions = [1]
          (%in: f32, %acc: f32) {
            %p = arith.mulf %in, %in : f32
            %s = arith.addf %p, %acc : f32
            linalg.yield %s : f32
          }
        %abs = linalg.reduce ins(%x : tensor<4x8xf32>)
            outs(%init : tensor<4xf32>) dimensions = [1]
          (%in: f32, %acc: f32) {
            %a = math.absf %in : f32
            %s = arith.addf %a, %acc : f32
            linalg.yield %s : f32
          }
        return %sq, %abs : tensor<4xf32>, tensor<4xf32>
      })mlir",
      "linalg.reduce");
  ASSERT_EQ(reductions.size(), 2u);
  ReductionConfig squares, magnitudes;
  squares.prologue = reductions[0];
  magnitudes.prologue = reductions[1];
  EXPECT_NE(squares.getKernelName(), magnitudes.getKernelName());
  EXPECT_NE(squares.getKernelName().find("_p"), std::string::npos);
  for (const ReductionConfig &config : {squares, magnitudes})
    expectKernelTakesParams(config, buildReductionKernel);
}

TEST_F(KernelParamsTest, ReductionEpilogueNamesTheKernel) {
  // f32 sums rounded to bf16 or scaled by a reader: named by its body; an
  // i32 result is refused.
  SmallVector<Operation *> generics = parseOps(
      R"mlir(
      func.func @f(%s: tensor<4xf32>, %b: tensor<4xbf16>, %i: tensor<4xi32>)
          -> (tensor<4xbf16>, tensor<4xbf16>, tensor<4xi32>) {
        %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                              affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
            ins(%s : tensor<4xf32>) outs(%b : tensor<4xbf16>) {
          ^bb0(%a: f32, %o: bf16):
            %t = arith.truncf %a : f32 to bf16
            linalg.yield %t : bf16
          } -> tensor<4xbf16>
        %h = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                              affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
            ins(%s : tensor<4xf32>) outs(%b : tensor<4xbf16>) {
          ^bb0(%a: f32, %o: bf16):
            %c = arith.constant 0.5 : f32
            %m = arith.mulf %a, %c : f32
            %t = arith.truncf %m : f32 to bf16
            linalg.yield %t : bf16
          } -> tensor<4xbf16>
        %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                              affine_map<(d0) -> (d0)>],
                             iterator_types = ["parallel"]}
            ins(%s : tensor<4xf32>) outs(%i : tensor<4xi32>) {
          ^bb0(%a: f32, %o: i32):
            %t = arith.fptosi %a : f32 to i32
            linalg.yield %t : i32
          } -> tensor<4xi32>
        return %r, %h, %n : tensor<4xbf16>, tensor<4xbf16>, tensor<4xi32>
      })mlir",
      "linalg.generic");
  ASSERT_EQ(generics.size(), 3u);
  ReductionConfig rounded, halved, integers;
  rounded.axis = halved.axis = ReductionConfig::Axis::Columns;
  rounded.epilogue = generics[0];
  halved.epilogue = generics[1];
  integers.epilogue = generics[2];
  expectValid(rounded);
  expectValid(halved);
  EXPECT_NE(rounded.getKernelName(), halved.getKernelName());
  EXPECT_NE(rounded.getKernelName().find("_e"), std::string::npos);
  expectInvalid(integers, "epilogue");
  for (const ReductionConfig &config : {rounded, halved})
    expectKernelTakesParams(config, buildReductionKernel);
}

TEST_F(KernelParamsTest, LayoutKernels) {
  using P = LayoutParam;
  // A copy takes the box's extents and both sides' strides for its rank.
  LayoutConfig copy;
  copy.elementBytes = 2;
  copy.rank = 2;
  copy.vector = 8;
  expectValid(copy);
  EXPECT_EQ(
      copy.getParams(),
      (SmallVector<P>{P::Input, P::Output, P::InputOffset, P::OutputOffset,
                      P::Extent0, P::Extent1, P::InputStride0, P::InputStride1,
                      P::OutputStride0, P::OutputStride1}));

  LayoutConfig transpose;
  transpose.kind = LayoutConfig::Kind::Transpose;
  transpose.elementBytes = 1;
  transpose.rank = LayoutConfig::kMaxRank;
  transpose.inputContiguousDim = 2;
  expectValid(transpose);
  SmallVector<P> params = transpose.getParams();
  ASSERT_EQ(params.size(), 16u);
  EXPECT_EQ(params[4], P::Extent0);
  EXPECT_EQ(params[7], P::Extent3);
  EXPECT_EQ(params[8], P::InputStride0);
  EXPECT_EQ(params.back(), P::OutputStride3);
  EXPECT_EQ(transpose.getSharedMemoryBytes(),
            LayoutConfig::kTile * (LayoutConfig::kTile + 1) * 4);

  for (const LayoutConfig &config : {copy, transpose})
    expectKernelTakesParams(config, buildLayoutKernel);
}

TEST_F(KernelParamsTest, LayoutConfigurationsWithoutKernel) {
  std::string reason;
  LayoutConfig wide;
  wide.elementBytes = 8;
  expectInvalid(wide, "1, 2 or 4 bytes");

  // 32 bytes per access.
  LayoutConfig vector;
  vector.vector = 8;
  EXPECT_TRUE(failed(vector.verify(reason)));

  // The input contiguous along the output's innermost dimension is a copy.
  LayoutConfig innermost;
  innermost.kind = LayoutConfig::Kind::Transpose;
  innermost.rank = 2;
  innermost.inputContiguousDim = 1;
  EXPECT_TRUE(failed(innermost.verify(reason)));

  LayoutConfig deep;
  deep.rank = LayoutConfig::kMaxRank + 1;
  EXPECT_TRUE(failed(deep.verify(reason)));
}

TEST_F(KernelParamsTest, ElementwiseKernel) {
  // A broadcast bias add whose init (a tensor.empty) the body ignores: the
  // kernel takes the two inputs and the result. An accumulation reads its
  // init, which it takes too.
  SmallVector<Operation *> generics = parseOps(
      R"mlir(
      func.func @f(%x: tensor<4x8xf32>, %bias: tensor<8xf32>)
          -> tensor<4x8xf32> {
        %init = tensor.empty() : tensor<4x8xf32>
        %sum = linalg.generic {
            indexing_maps = [affine_map<(i, j) -> (i, j)>,
                             affine_map<(i, j) -> (j)>,
                             affine_map<(i, j) -> (i, j)>],
            iterator_types = ["parallel", "parallel"]}
            ins(%x, %bias : tensor<4x8xf32>, tensor<8xf32>)
            outs(%init : tensor<4x8xf32>) {
        ^bb0(%a: f32, %c: f32, %out: f32):
          %s = arith.addf %a, %c : f32
          linalg.yield %s : f32
        } -> tensor<4x8xf32>
        %acc = linalg.generic {
            indexing_maps = [affine_map<(i, j) -> (i, j)>,
                             affine_map<(i, j) -> (i, j)>],
            iterator_types = ["parallel", "parallel"]}
            ins(%x : tensor<4x8xf32>) outs(%sum : tensor<4x8xf32>) {
        ^bb0(%a: f32, %out: f32):
          %s = arith.addf %a, %out : f32
          linalg.yield %s : f32
        } -> tensor<4x8xf32>
        return %acc : tensor<4x8xf32>
      })mlir",
      "linalg.generic");
  ASSERT_EQ(generics.size(), 2u);
  Operation *biasAdd = generics[0], *accumulate = generics[1];

  SmallVector<Value> params = getElementwiseParams(biasAdd);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0], biasAdd->getOperand(0));
  EXPECT_EQ(params[1], biasAdd->getOperand(1));
  EXPECT_EQ(params[2], biasAdd->getResult(0));
  SmallVector<Value> accumulateParams = getElementwiseParams(accumulate);
  ASSERT_EQ(accumulateParams.size(), 3u);
  EXPECT_EQ(accumulateParams[1], accumulate->getOperand(1));

  OpBuilder b = getBuilder();
  std::string reason;
  for (auto [op, name] :
       {std::pair(biasAdd, "bias_add"), std::pair(accumulate, "accumulate")}) {
    FailureOr<LLVM::LLVMFuncOp> kernel =
        buildElementwiseKernel(b, op, name, reason);
    ASSERT_TRUE(succeeded(kernel)) << reason;
    expectSignature(
        *kernel, SmallVector<KernelParamKind>(getElementwiseParams(op).size(),
                                              KernelParamKind::Buffer));
  }
}

} // namespace

// `dlc compile`: ONNX -> shared library, or the IR/object of any phase with --emit.
#include "compiler/Compiler.h"
#include "compiler/TensorFile.h"
#include "compiler/TrainingSpec.h"
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"

#include "llvm/Support/FileSystem.h"

#include <cstdio>

namespace dlc::cli {

static const char *kHelp =
    "usage: dlc compile MODEL.onnx -o OUT [options]\n"
    "\n"
    "Compiles an ONNX model to a shared library that runtime/dlc_runtime.h loads\n"
    "(`dlc run OUT.so`), or writes an intermediate stage with --emit.\n"
    "\n"
    "options:\n"
    "  -o PATH                    output file (required; '-' writes IR to stdout)\n"
    "  -O0 | -O1 | -O2 | -O3      LLVM optimization level (default -O3)\n"
    "  --target=host|x86-64-v3|x86-64-v4|cuda:ARCH\n"
    "                             CPU to generate code for (default host: this machine's\n"
    "                             CPU, features and caches, AVX-512 where present);\n"
    "                             x86-64-v3 gets AVX2 kernels (16 ymm registers);\n"
    "                             cuda:sm_80|sm_86|sm_89|sm_90|sm_90a: NVIDIA GPU kernels\n"
    "                             (PTX, static shapes) in an x86-64 library whose host\n"
    "                             code launches them through the CUDA driver\n"
    "  --emit=graph|linalg|llvm|obj|so|ptx\n"
    "                             graph: dlc_graph IR after graph optimization; linalg: IR\n"
    "                             after lowering to linalg; llvm: LLVM IR; obj: object file;\n"
    "                             so: shared library (default); ptx: the GPU kernels'\n"
    "                             PTX (--target=cuda:ARCH)\n"
    "  --cuda-schedule-on-cpu     testing: with --target=cuda:ARCH, compile the kernels'\n"
    "                             block and thread schedules as CPU loops instead of PTX\n"
    "                             (a CPU library that computes what the kernels compute)\n"
    "  --input-shape NAME=DxDx..  fix the shape of input NAME (repeatable); symbolic dims\n"
    "                             default to 1. A sequence input NAME takes one per\n"
    "                             element, NAME[0]=.., NAME[1]=.. (this sets its length).\n"
    "                             In the comma form NAME=D,D,.. a dim may name a --dims\n"
    "                             symbol (--input-shape 'seq[0]=n,4' --dims n=1..64)\n"
    "  --dims NAME=MIN..MAX[,..]  keep the symbolic dim NAME (an ONNX dim_param) dynamic:\n"
    "                             the compiled model runs any size in [MIN, MAX] (e.g.\n"
    "                             --dims batch=1..64,seq=1..512); runs outside it are\n"
    "                             rejected naming the input and dim. With --train and no\n"
    "                             --dims, every symbolic dim of the inputs stays dynamic\n"
    "                             (1..65536) unless --input-shape fixes it\n"
    "  --input-value NAME=FILE    compile for this value of input NAME (.npy or .pb;\n"
    "                             repeatable): needed where an input sets shapes or\n"
    "                             axes (Reshape's shape, ReduceSum's axes, ...); runs\n"
    "                             with another value are rejected\n"
    "  --max-memory SIZE          the largest tensor the model may hold (a constant,\n"
    "                             initializer or node result), e.g. 512M or 8G; a node\n"
    "                             over it is an error naming it (default: half of this\n"
    "                             machine's physical memory)\n"
    "  --timing                   print the time each compiler pass takes (stderr)\n"
    "  --dump-config              print how each op is compiled (stderr): for quantized\n"
    "                             models, each MatMul/Gemm/Conv of dequantized values:\n"
    "                             integer, or kept float and why; the target (ISA,\n"
    "                             registers, caches), then each kernel's kind (int8 ones:\n"
    "                             which dot product), loop bounds, tile sizes, and which\n"
    "                             loop threads split; then the intermediates' arena: its\n"
    "                             size, and the largest buffers live at its peak\n"
    "  --grad-of=OUTPUT           also output the gradient of the sum of OUTPUT (the loss\n"
    "                             itself when it is a scalar) with respect to every float\n"
    "                             input, as outputs named grad_<input> (reverse-mode\n"
    "                             autodiff of the graph)\n"
    "  --grad-initializers        with --grad-of: also output the gradient of every float\n"
    "                             initializer, as grad_<initializer>\n"
    "\n"
    "quantization (of a float model, in one step; `dlc quantize` writes the model):\n"
    "  --quantize=int8            post-training static quantization with --calib, as\n"
    "                             `dlc quantize` does, then compile the QDQ model: Conv,\n"
    "                             MatMul and Gemm of constant weights run int8 kernels\n"
    "  --quantize=dynamic         MatMul and Gemm weights as s8, activations quantized per\n"
    "                             call (DynamicQuantizeLinear + MatMulInteger, ONNX\n"
    "                             Runtime's quantize_dynamic form; transformers)\n"
    "  --quantize=int4-weights    MatMul/Gemm weights of 4096 elements or more as 4-bit codes\n"
    "                             in blocks of 32 (com.microsoft MatMulNBits); activations\n"
    "                             stay float. Products of up to 4 rows (decoding) keep the\n"
    "                             codes, two per byte, and dequantize them in the kernel;\n"
    "                             larger ones get the weights dequantized when compiling\n"
    "  --calib DATA.npz           calibration inputs of --quantize=int8 (see dlc quantize\n"
    "                             --help for the layout)\n"
    "  --method=minmax|percentile[:P]|entropy\n"
    "                             --quantize=int8's calibration method (default minmax)\n"
    "  --per-channel              one weight scale per output channel\n"
    "  --exclude=NODE,...         nodes to keep float\n"
    "  Each Conv/MatMul/Gemm gets a line on stderr: quantized (with its range), or why not\n"
    "  (-q, --quiet: no such lines).\n"
    "  --precision=fp32|bf16      bf16: MatMul/Gemm/Conv inputs (activations and weights)\n"
    "                             rounded to bf16, products accumulated in fp32; reductions,\n"
    "                             softmax, norms and attention stay fp32. Packed weights are\n"
    "                             stored as bf16 (half the bytes: faster where weights\n"
    "                             dominate, e.g. batch-1 MatMuls) and widened to fp32 in\n"
    "                             the kernel; with AVX512-BF16, MatMuls run on vdpbf16ps\n"
    "\n"
    "training (a module that runs one optimization step per call):\n"
    "  --train                    build a training step: it takes the model's inputs plus\n"
    "                             `labels` and returns `loss`, updating every float\n"
    "                             initializer that is not frozen (run it with dlc train)\n"
    "  --loss=mse:OUTPUT|xent:OUTPUT\n"
    "                             mse: mean squared error, labels shaped like OUTPUT;\n"
    "                             xent: mean softmax cross-entropy of [batch, classes]\n"
    "                             logits, labels int64 class indices [batch]\n"
    "  --optimizer=sgd:lr=0.1[,momentum=..,weight_decay=..]\n"
    "            |adam:lr=0.001[,beta1=..,beta2=..,eps=..,weight_decay=..]\n"
    "            |adamw:lr=..[,...]   (default sgd:lr=0.01; adam's weight_decay is L2 as in\n"
    "                             PyTorch's Adam, adamw's is decoupled)\n"
    "  --freeze=NAME,...          float initializers to keep constant\n"
    "  --remat=store-all|recompute-all|auto:MIB\n"
    "                             activations for the backward pass: store all (default),\n"
    "                             recompute those of cheap ops (elementwise, data movement)\n"
    "                             from stored contraction/conv/pool/reduction results, or\n"
    "                             recompute the largest until the saved ones fit MIB\n"
    "  A training step's memory is printed on stderr: parameters, gradients, optimizer\n"
    "  state, activations saved for the backward pass, and the peak of live tensors.\n"
    "  -h, --help                 show this help\n";

/// A training step's memory (dlc-training-step's analysis), on stderr.
static void printMemoryReport(Compilation &c) {
  std::optional<MemoryReport> report = c.memoryReport();
  if (!report)
    return;
  auto size = [](int64_t bytes) {
    char buf[32];
    if (bytes < 1024)
      std::snprintf(buf, sizeof buf, "%lld B", (long long)bytes);
    else if (bytes < (1 << 20))
      std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024);
    else
      std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1 << 20));
    return std::string(buf);
  };
  std::fprintf(stderr,
               "memory: parameters %s, gradients %s, optimizer state %s\n"
               "memory: saved activations %s (%lld tensors), peak planned %s\n",
               size(report->parameterBytes).c_str(), size(report->gradientBytes).c_str(),
               size(report->optimizerStateBytes).c_str(),
               size(report->savedActivationBytes).c_str(), (long long)report->savedActivations,
               size(report->peakBytes).c_str());
}

int compileCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2,
                 {{"-o", true}, {"-O", true}, {"--target", true}, {"--emit", true},
                  {"--input-shape", true, true}, {"--dims", true, true}, {"--input-value", true, true}, {"--timing", false}, {"--cuda-schedule-on-cpu", false}, {"--dump-config", false}, {"--grad-of", true}, {"--grad-initializers", false}, {"--train", false}, {"--loss", true}, {"--optimizer", true}, {"--freeze", true}, {"--remat", true}, {"--max-memory", true}, {"--quantize", true}, {"--precision", true}, {"--calib", true}, {"--method", true}, {"--per-channel", false}, {"--exclude", true, true}, {"-q", false}, {"--quiet", false}, {"--help", false}, {"-h", false}},
                 args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1)
    return fail("expected exactly one model file (dlc compile MODEL.onnx -o OUT)");
  if (!args.has("-o"))
    return fail("missing -o OUT");
  CompileOptions options;
  std::string opt = args.get("-O", "3");
  if (opt.size() != 1 || opt[0] < '0' || opt[0] > '3')
    return fail("invalid optimization level '-O" + opt + "' (expected -O0 to -O3)");
  options.optLevel = opt[0] - '0';
  options.target = args.get("--target", "host");
  if (args.has("--max-memory") &&
      !parseBytes("--max-memory", args.get("--max-memory"), options.maxMemory, error))
    return fail(error);
  options.timing = args.has("--timing");
  options.dumpConfig = args.has("--dump-config");
  options.gradOf = args.get("--grad-of", "");
  if (args.has("--grad-of") && options.gradOf.empty())
    return fail("--grad-of needs an output name (--grad-of=OUTPUT)");
  options.gradInitializers = args.has("--grad-initializers");
  if (options.gradInitializers && options.gradOf.empty())
    return fail("--grad-initializers is only valid with --grad-of=OUTPUT");
  if (args.has("--train")) {
    if (!args.has("--loss"))
      return fail("--train needs --loss=mse:OUTPUT or --loss=xent:OUTPUT");
    // The library says what was expected; the message names the flag.
    TrainingOptions training;
    auto check = [&](bool ok, const char *flag, const std::string &spec) {
      if (!ok)
        error = "invalid " + std::string(flag) + " '" + spec + "': " + error;
      return ok;
    };
    std::string loss = args.get("--loss"), optimizer = args.get("--optimizer", "sgd:lr=0.01"),
                remat = args.get("--remat", "store-all");
    if (!check(parseLossSpec(loss, training, error), "--loss", loss) ||
        !check(parseOptimizerSpec(optimizer, training, error), "--optimizer", optimizer) ||
        !check(parseRematSpec(remat, training, error), "--remat", remat))
      return fail(error);
    parseFreezeList(args.get("--freeze", ""), training);
    options.training = training;
    if (!options.gradOf.empty())
      return fail("--grad-of and --train cannot be combined");
  } else {
    for (const char *flag : {"--loss", "--optimizer", "--freeze", "--remat"})
      if (args.has(flag))
        return fail(std::string(flag) + " is only valid with --train");
  }
  if (args.has("--precision")) {
    std::string precision = args.get("--precision");
    if (precision != "fp32" && precision != "bf16")
      return fail("--precision expects fp32 or bf16, got '" + precision + "'");
    options.bf16Contractions = precision == "bf16";
    if (options.bf16Contractions && (args.has("--train") || !options.gradOf.empty()))
      return fail("--precision=bf16 cannot be combined with --train or --grad-of");
  }
  if (!checkTarget(options.target, error))
    return fail(error);
  options.cudaScheduleOnCpu = args.has("--cuda-schedule-on-cpu");
  bool cuda = options.target.rfind("cuda", 0) == 0;
  if (options.cudaScheduleOnCpu && !cuda)
    return fail("--cuda-schedule-on-cpu needs --target=cuda:ARCH");
  if (cuda && (args.has("--train") || !options.gradOf.empty() || args.has("--dims") ||
               args.has("--quantize") || options.bf16Contractions))
    return fail("--target=" + options.target + " compiles static-shape fp32 inference only "
                "(not with --train, --grad-of, --dims, --quantize or --precision=bf16)");
  if (!parseInputShapes(args, options.inputShapes, error, &options.inputShapeSymbols))
    return fail(error);
  if (!parseDynamicDims(args, options.dynamicDims, error))
    return fail(error);
  for (const std::string &spec : args.all("--input-value")) {
    std::string name, file;
    if (!splitAssignment(spec, name, file))
      return fail("invalid --input-value '" + spec + "' (expected NAME=FILE.npy or NAME=FILE.pb)");
    dlc_tensor_t *t = loadTensorFile(file, error);
    if (!t)
      return fail(error);
    options.inputValues[name] = tensorValue(t);
    options.inputShapes.emplace(name, options.inputValues[name].shape);
    dlc_tensor_free(t);
  }
  std::string emit = args.get("--emit", "so");
  Phase phase;
  if (emit == "graph")
    phase = Phase::Graph;
  else if (emit == "linalg")
    phase = Phase::Linalg;
  else if (emit == "llvm")
    phase = Phase::LLVM;
  else if (emit == "obj")
    phase = Phase::Obj;
  else if (emit == "so")
    phase = Phase::So;
  else if (emit == "ptx")
    phase = Phase::Ptx;
  else
    return fail("invalid --emit '" + emit + "' (expected graph, linalg, llvm, obj, so or ptx)");
  if (phase == Phase::Ptx && (!cuda || options.cudaScheduleOnCpu))
    return fail("--emit=ptx needs --target=cuda:ARCH");

  const std::string &model = args.positional[0], out = args.get("-o");
  // --quantize: the quantized model, in a temporary file that the import reads.
  std::string quantized;
  if (args.has("--quantize")) {
    std::string mode = args.get("--quantize");
    if (mode != "int8" && mode != "dynamic" && mode != "int4-weights")
      return fail("--quantize expects int8, dynamic or int4-weights, got '" + mode + "'");
    if (args.has("--train") || !options.gradOf.empty())
      return fail("--quantize cannot be combined with --train or --grad-of");
    QuantizeRequest request;
    request.options.dynamic = mode == "dynamic";
    request.options.int4Weights = mode == "int4-weights";
    if (int rc = parseQuantizeRequest(args, request))
      return rc;
    if (int rc = quantizeToFile(request, quantized))
      return rc;
  } else {
    for (const char *flag : {"--calib", "--method", "--per-channel", "--exclude", "-q", "--quiet"})
      if (args.has(flag))
        return fail(std::string(flag) + " is only valid with --quantize");
  }
  // A training step keeps the model's symbolic dims dynamic (any batch, dlc train --batch)
  // unless --dims or --input-shape fix them.
  if (args.has("--train") && !args.has("--dims") && isOnnxPath(model)) {
    Compilation probe({});
    if (auto summary = summarizeOnnxFile(probe.context(), model); succeeded(summary))
      for (const TensorSummary &in : summary->inputs)
        if (!options.inputShapes.count(in.name))
          for (const std::string &d : in.dims)
            if (!d.empty() && d != "?" && !std::isdigit(static_cast<unsigned char>(d[0])))
              options.dynamicDims.emplace(d, std::make_pair(int64_t(1), kDefaultTrainingDimMax));
  }
  Compilation c(options);
  auto report = [&]() {
    for (const std::string &e : c.errors())
      std::fprintf(stderr, "error: %s\n", e.c_str());
    return 1;
  };
  if (!quantized.empty()) {
    llvm::LogicalResult imported = c.importOnnx(quantized);
    llvm::sys::fs::remove(quantized);
    c.setSourceName(model);
    if (failed(imported))
      return report();
  } else if (failed(c.importOnnx(model)))
    return report();
  std::string data;
  switch (phase) {
  case Phase::Graph:
  case Phase::Linalg:
    if (failed(c.runTo(phase)))
      return report();
    printMemoryReport(c);
    data = c.printIR();
    break;
  case Phase::LLVM:
    if (failed(c.emitLLVMIR(data)))
      return report();
    break;
  case Phase::Obj:
    if (failed(c.emitObject(data)))
      return report();
    break;
  case Phase::Ptx:
    if (failed(c.emitPtx(data)))
      return report();
    break;
  case Phase::So:
    if (failed(c.writeSharedLibrary(out)))
      return report();
    printMemoryReport(c);
    return 0;
  }
  if (out == "-") {
    std::fwrite(data.data(), 1, data.size(), stdout); // checked at exit (main.cpp)
    return 0;
  }
  if (!writeFileAtomically(out, data, error))
    return fail(error);
  return 0;
}

} // namespace dlc::cli

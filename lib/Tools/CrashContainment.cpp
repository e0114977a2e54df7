//===- CrashContainment.cpp - Crashes become one diagnostic ---------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Own signal handlers rather than llvm::CrashRecoveryContext or a callback of
// LLVM's signal handler: a recovery context only catches crashes on the
// thread that set it up, while nested passes run on the pass manager's worker
// threads; and LLVM's handler resets the disposition of every signal as it
// enters (SA_RESETHAND), so a second worker crashing in the same bug a moment
// later would kill the process before the first one has reported. Ours stays
// installed: the first crashing thread reports and ends the process, the
// others wait for it.
//
//===----------------------------------------------------------------------===//

#include "CrashContainment.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;

namespace {
/// What the driver thread is doing, outside of any pass.
enum class DriverPhase { ReadingInput, Parsing, RunningPipeline, Printing };

/// A pass running on the current thread, and the name of the operation it
/// runs on. Trivial, so that a signal handler can read it without running a
/// thread_local constructor.
struct PassFrame {
  Pass *pass;
  const void *opName;
};
} // namespace

static std::atomic<DriverPhase> driverPhase{DriverPhase::ReadingInput};
/// Set once, before any handler is installed.
static const std::string *inputNameForDiagnostics;

/// Nested pipelines push a frame per level (an adaptor, then its passes);
/// worker threads have their own frames. Deeper levels are counted only.
static constexpr unsigned kMaxPassFrames = 16;
static thread_local PassFrame passFrames[kMaxPassFrames];
static thread_local unsigned passDepth;

/// Writes where the process was, e.g. "in pass 'canonicalize' on
/// 'func.func'". Allocates nothing: it also runs when memory is exhausted.
static void describeWhere(raw_ostream &os) {
  if (passDepth != 0) {
    const PassFrame &frame =
        passFrames[std::min(passDepth, kMaxPassFrames) - 1];
    StringRef name = frame.pass->getArgument();
    if (name.empty())
      name = frame.pass->getName();
    os << "in pass '" << name << "' on '"
       << OperationName::getFromOpaquePointer(frame.opName).getStringRef()
       << "'";
    return;
  }
  switch (driverPhase.load()) {
  case DriverPhase::ReadingInput:
    os << "while reading the input";
    return;
  case DriverPhase::Parsing:
    os << "while parsing";
    return;
  case DriverPhase::RunningPipeline:
    os << "while running the pass pipeline";
    return;
  case DriverPhase::Printing:
    os << "while printing the output";
    return;
  }
}

static std::atomic<bool> reportStarted{false};
static thread_local bool reportingOnThisThread;

/// Lets one thread report: a thread that fails while another reports waits
/// for it to end the process, and a failure inside the report ends it at once.
/// Then prints `<input>: error: ` to the unbuffered llvm::errs().
static raw_ostream &startReport() {
  if (reportingOnThisThread)
    std::_Exit(1);
  reportingOnThisThread = true;
  if (reportStarted.exchange(true))
    while (true)
      pause();
  return llvm::errs() << *inputNameForDiagnostics << ": error: ";
}

/// Removes the output files registered for removal on a signal
/// (llvm::ToolOutputFile does) and ends the process at once: the state of the
/// failed thread is unknown, so no destructor or exit handler runs.
[[noreturn]] static void exitAfterReport() {
  llvm::sys::RunInterruptHandlers();
  std::_Exit(1);
}

static constexpr StringLiteral kDebugHint =
    " (rerun with --debug-crash for a stack dump)\n";

static void onCrashSignal(int) {
  describeWhere(startReport() << "the input triggered an internal error ");
  llvm::errs() << ": a crash" << kDebugHint;
  exitAfterReport();
}

static void onFatalError(void *, const char *reason, bool genCrashDiag) {
  // Without genCrashDiag LLVM reports a failure of the environment (an output
  // stream that cannot be written), not a bug.
  if (!genCrashDiag) {
    describeWhere(startReport());
    llvm::errs() << ": " << reason << "\n";
    exitAfterReport();
  }
  describeWhere(startReport() << "the input triggered an internal error ");
  llvm::errs() << ": " << reason << kDebugHint;
  exitAfterReport();
}

static void onBadAlloc(void *, const char *reason, bool) {
  describeWhere(startReport() << "out of memory ");
  llvm::errs() << " (" << reason
               << "): the input needs more memory than the process may use\n";
  exitAfterReport();
}

/// The signals of a crash: faults, and abort() after a failed check. LLVM's
/// handlers keep the interrupts (which remove the output files too).
static constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                                        SIGABRT, SIGTRAP, SIGSYS};

void fp8::installCrashContainment(StringRef inputName,
                                  DialectRegistry &registry) {
  inputNameForDiagnostics =
      new std::string(inputName == "-" ? "<stdin>" : inputName.str());
  struct sigaction action = {};
  action.sa_handler = onCrashSignal;
  // SA_NODEFER: a crash inside the report reaches startReport, which exits.
  action.sa_flags = SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal : kCrashSignals)
    sigaction(signal, &action, nullptr);
  llvm::install_fatal_error_handler(onFatalError);
  llvm::install_bad_alloc_error_handler(onBadAlloc);
  // MlirOptMain makes one context from `registry` per input chunk, and a
  // context loads the builtin dialect first: a chunk's parsing starts here.
  registry.addExtension(+[](MLIRContext *, BuiltinDialect *) {
    driverPhase = DriverPhase::Parsing;
  });
}

void fp8::useAlternateSignalStack() {
  // Sanitizer runtimes give each thread a signal stack and unmap whichever
  // one is installed when the thread ends: keep theirs. Ours is mapped (an
  // unmap cannot hit the heap) and lives as long as the process.
  stack_t stack = {};
  if (sigaltstack(nullptr, &stack) == 0 && !(stack.ss_flags & SS_DISABLE))
    return;
  static constexpr size_t kSize = 1 << 16;
  void *memory = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    return;
  stack.ss_sp = memory;
  stack.ss_size = kSize;
  stack.ss_flags = 0;
  sigaltstack(&stack, nullptr);
}

namespace {
/// Keeps the pass frames and driverPhase up to date while the pipeline runs.
class PassTracking : public PassInstrumentation {
public:
  /// `lastPass` is the last pass of the top-level pipeline: when it is done,
  /// the driver prints the result.
  explicit PassTracking(Pass *lastPass) : lastPass(lastPass) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    if (passDepth < kMaxPassFrames)
      passFrames[passDepth] = {pass, op->getName().getAsOpaquePointer()};
    ++passDepth;
  }
  void runAfterPass(Pass *pass, Operation *) override { popPass(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { popPass(pass); }

private:
  void popPass(Pass *pass) {
    --passDepth;
    if (pass == lastPass && passDepth == 0)
      driverPhase = DriverPhase::Printing;
  }

  Pass *lastPass;
};
} // namespace

void fp8::trackPassesForCrashes(PassManager &pm) {
  if (pm.empty()) {
    driverPhase = DriverPhase::Printing;
    return;
  }
  driverPhase = DriverPhase::RunningPipeline;
  pm.addInstrumentation(std::make_unique<PassTracking>(&*std::prev(pm.end())));
}

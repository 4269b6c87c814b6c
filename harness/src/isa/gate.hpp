#pragma once
// The instruction-set gate (docs/cli.md, "Instruction set"): the extensions the measured code was
// compiled for against those of the host it runs on. Declarations only: gate.cpp is compiled for
// the x86-64 baseline and uses the C library alone, because it runs before anything compiled with
// TFBENCH_ARCH's -march may.

#include <cstddef>

namespace tfbench::harness::impl {

/// Exit code of a command refused because the host lacks an extension the binary requires.
inline constexpr int kIsaMismatchExit = 4;

/// "sse3,ssse3,...,": what the measured code's -march lets the compiler use (required.cpp).
extern const char isa_required_list[];
/// The build host's extensions (its -march=native), same form; "unknown" if not resolved.
extern const char isa_build_host_list[];
/// TFBENCH_ARCH as built: "native (cooperlake)", "x86-64-v3", "none".
const char* isa_build_arch();
/// The build host's CPU model, as its /proc/cpuinfo names it.
const char* isa_build_host_cpu();
/// This host's extensions among those checked, same form, less those TFBENCH_ISA_SIMULATE_MISSING
/// names (a comma list; for tests: the gate then acts as on a host without them).
const char* isa_run_host_list();
/// This host's CPU model ("unknown" if /proc/cpuinfo does not say).
const char* isa_run_host_cpu();
/// The entries of the comma list `required` missing from the comma list `supported`, written to
/// `out` joined by ", " (truncated to `size`); returns how many.
int isa_missing(const char* required, const char* supported, char* out, std::size_t size);
/// The message of a refusal: what is missing, what the binary was built for and on, how to fix it.
void isa_refusal_message(const char* missing, const char* build_arch, const char* build_cpu,
                         const char* run_cpu, char* out, std::size_t size);
/// TFBENCH_ALLOW_ISA_MISMATCH=1: run anyway (experts; recorded in the run's isa_mismatch).
bool isa_mismatch_allowed();
/// Whether a missing extension refuses the command rather than warns: a command that runs measured
/// code (`run`, `worker`) and any program that is not tfbench (the tests). `program` is argv[0],
/// `subcommand` the first argument that is not an option (null: none).
bool isa_refuses(const char* program, const char* subcommand);

}  // namespace tfbench::harness::impl

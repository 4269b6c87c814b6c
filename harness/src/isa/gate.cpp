// The instruction-set gate. It runs as a constructor of the highest priority a program may use,
// before every other static initializer of the executable and before main: all of those, main
// included, are compiled with TFBENCH_ARCH's -march and may hold instructions this host lacks
// (an AVX-512 store of a zeroed struct is enough for SIGILL). That is also why this file is compiled
// for the x86-64 baseline (harness/CMakeLists.txt) and uses the C library only: an inline function
// of a C++ header (std::string, std::vector) would be merged by the linker with a copy from a file
// compiled with -march, and the linker may keep either. __builtin_cpu_supports reports an extension
// only when the OS also saves its registers (libgcc checks XGETBV), so AVX-512 disabled by the
// kernel or a hypervisor counts as missing.

#include "isa/gate.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef TFBENCH_BUILD_ARCH
#define TFBENCH_BUILD_ARCH "unknown"
#endif
#ifndef TFBENCH_BUILD_HOST_CPU
#define TFBENCH_BUILD_HOST_CPU "unknown"
#endif

namespace tfbench::harness::impl {
namespace {

struct Probe {
  const char* name;
  bool (*supported)();
};

#define TFBENCH_ISA(name) {name, [] { return __builtin_cpu_supports(name) != 0; }},
#define TFBENCH_ISA_ALL 1
const Probe kProbes[] = {
#include "isa/features.inc"
    {nullptr, nullptr}};

/// Whether the comma list `list` holds `name` (of length n).
bool contains(const char* list, const char* name, std::size_t n) {
  for (const char* p = list; *p;) {
    const char* end = p;
    while (*end && *end != ',') ++end;
    if (static_cast<std::size_t>(end - p) == n && std::strncmp(p, name, n) == 0) return true;
    p = *end ? end + 1 : end;
  }
  return false;
}

void append(char* out, std::size_t size, const char* text, std::size_t n) {
  const std::size_t used = std::strlen(out);
  if (used + 1 >= size) return;
  if (n > size - used - 1) n = size - used - 1;
  std::memcpy(out + used, text, n);
  out[used + n] = '\0';
}

void say(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

const char* base_name(const char* path) {
  const char* base = path;
  for (const char* p = path; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

char run_host_list[1024];
char run_host_cpu[256];

}  // namespace

const char* isa_build_arch() {
  return TFBENCH_BUILD_ARCH;
}

const char* isa_build_host_cpu() {
  return TFBENCH_BUILD_HOST_CPU;
}

const char* isa_run_host_list() {
  if (run_host_list[0]) return run_host_list;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();  // needed when called before the constructors of libgcc have run
#endif
  const char* simulated = std::getenv("TFBENCH_ISA_SIMULATE_MISSING");
  for (const Probe* p = kProbes; p->name; ++p) {
    if (!p->supported() || (simulated && contains(simulated, p->name, std::strlen(p->name)))) continue;
    append(run_host_list, sizeof(run_host_list), p->name, std::strlen(p->name));
    append(run_host_list, sizeof(run_host_list), ",", 1);
  }
  if (!run_host_list[0]) append(run_host_list, sizeof(run_host_list), ",", 1);  // computed: none
  return run_host_list;
}

const char* isa_run_host_cpu() {
  if (run_host_cpu[0]) return run_host_cpu;
  std::snprintf(run_host_cpu, sizeof(run_host_cpu), "unknown");
  if (std::FILE* in = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof(line), in)) {
      if (std::strncmp(line, "model name", 10) != 0) continue;
      const char* value = line;
      while (*value && *value != ':') ++value;
      if (!*value) break;
      ++value;
      while (*value == ' ' || *value == '\t') ++value;
      std::size_t n = std::strlen(value);
      while (n > 0 && (value[n - 1] == '\n' || value[n - 1] == ' ')) --n;
      run_host_cpu[0] = '\0';
      append(run_host_cpu, sizeof(run_host_cpu), value, n);
      break;
    }
    std::fclose(in);
  }
  return run_host_cpu;
}

int isa_missing(const char* required, const char* supported, char* out, std::size_t size) {
  int count = 0;
  if (size > 0) out[0] = '\0';
  for (const char* p = required; *p;) {
    const char* end = p;
    while (*end && *end != ',') ++end;
    const std::size_t n = static_cast<std::size_t>(end - p);
    if (n > 0 && !contains(supported, p, n)) {
      if (count++ > 0) append(out, size, ", ", 2);
      append(out, size, p, n);
    }
    p = *end ? end + 1 : end;
  }
  return count;
}

void isa_refusal_message(const char* missing, const char* build_arch, const char* build_cpu,
                         const char* run_cpu, char* out, std::size_t size) {
  std::snprintf(out, size,
                "tfbench: refusing to run: this binary was built with TFBENCH_ARCH=%s on a \"%s\" and "
                "its code uses %s, which this CPU (\"%s\") does not support: it would die with SIGILL "
                "(illegal instruction).\n"
                "  Fix: rebuild on this node (scripts/build.sh default), or build once for every node "
                "type with an explicit -march they all support, e.g. TFBENCH_ARCH=x86-64-v3 "
                "scripts/build.sh default.\n"
                "  TFBENCH_ALLOW_ISA_MISMATCH=1 runs anyway (recorded in the result file's isa_mismatch).\n",
                build_arch, build_cpu, missing, run_cpu);
}

bool isa_mismatch_allowed() {
  const char* allow = std::getenv("TFBENCH_ALLOW_ISA_MISMATCH");
  return allow && std::strcmp(allow, "1") == 0;
}

bool isa_refuses(const char* program, const char* subcommand) {
  if (std::strcmp(base_name(program), "tfbench") != 0) return true;
  return subcommand && (std::strcmp(subcommand, "run") == 0 || std::strcmp(subcommand, "worker") == 0);
}

namespace {

void check_instruction_set(int argc, char** argv) {
  char missing[512];
  if (isa_missing(isa_required_list, isa_run_host_list(), missing, sizeof(missing)) == 0) return;
  const char* program = argc > 0 && argv && argv[0] ? argv[0] : "";
  const char* subcommand = nullptr;
  bool query = false;
  for (int i = 1; i < argc; ++i) {
    if (!subcommand && argv[i][0] != '-') subcommand = argv[i];
    if (std::strcmp(argv[i], "--query-variants") == 0) query = true;
  }
  // The worker that `list` asks which variants it offers: `list` warns, and so the query goes on.
  if (query && subcommand && std::strcmp(subcommand, "worker") == 0) return;
  char text[2048];
  if (isa_mismatch_allowed()) {
    if (subcommand && std::strcmp(subcommand, "worker") == 0) return;  // its parent said it
    std::snprintf(text, sizeof(text),
                  "tfbench: warning: running code built for TFBENCH_ARCH=%s, which uses %s, on a CPU "
                  "without (TFBENCH_ALLOW_ISA_MISMATCH=1): it may die with SIGILL\n",
                  isa_build_arch(), missing);
    say(text);
    return;
  }
  if (isa_refuses(program, subcommand)) {
    isa_refusal_message(missing, isa_build_arch(), isa_build_host_cpu(), isa_run_host_cpu(), text,
                        sizeof(text));
    say(text);
    _exit(kIsaMismatchExit);  // no exit(): its handlers and destructors were compiled with -march
  }
  std::snprintf(text, sizeof(text),
                "tfbench: warning: this binary was built with TFBENCH_ARCH=%s and uses %s, which this CPU "
                "does not support: `run` refuses, and this command may die with SIGILL\n",
                isa_build_arch(), missing);
  say(text);
}

// argc and argv as glibc passes them to every constructor of the executable.
__attribute__((constructor(101))) void gate_at_startup(int argc, char** argv, char**) {
  check_instruction_set(argc, argv);
}

}  // namespace
}  // namespace tfbench::harness::impl

/// Referenced by the link options of tfbench_isa (harness/CMakeLists.txt), so that every program
/// linked with it holds the gate even if nothing else calls into this file.
extern "C" const int tfbench_isa_gate_anchor = 1;

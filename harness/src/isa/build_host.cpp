// Compiled with -march=native whatever TFBENCH_ARCH is: the extensions of the build host, as the
// compiler sees them. Data only. TFBENCH_NATIVE_KEY (the build's key of the native resolution) is
// part of the data so that a compiler cache shared by hosts of two CPU types keeps two copies.

#include "isa/gate.hpp"

namespace tfbench::harness::impl {

#if defined(TFBENCH_NATIVE_KEY)
#define TFBENCH_ISA(name) name ","
#define TFBENCH_ISA_ALL 0
const char isa_build_host_list[] = ""
#include "isa/features.inc"
    ;
const char isa_native_key[] = TFBENCH_NATIVE_KEY;
#else
const char isa_build_host_list[] = "unknown";  // the compiler does not resolve -march=native
#endif

}  // namespace tfbench::harness::impl

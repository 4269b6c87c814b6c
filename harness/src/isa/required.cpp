// Compiled with the flags of all measured code (tfbench::flags, TFBENCH_ARCH's -march): the
// compiler's own predefined macros say which extensions it may have used in every other
// translation unit, so this list is the truth of the binary, not of the build's configuration.
// Data only: nothing here executes before the gate has checked the host.

#include "isa/gate.hpp"

namespace tfbench::harness::impl {

#define TFBENCH_ISA(name) name ","
#define TFBENCH_ISA_ALL 0
const char isa_required_list[] = ""
#include "isa/features.inc"
    ;

}  // namespace tfbench::harness::impl

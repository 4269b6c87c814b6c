#pragma once
// SHA-256 of the config texts (the run's `config_sha256`), FIPS 180-4, by OpenSSL's EVP digest.

#include <string>
#include <string_view>

namespace tfbench::harness {

/// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace tfbench::harness

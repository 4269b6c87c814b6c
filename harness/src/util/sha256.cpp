#include "tfbench/harness/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace tfbench::harness {

// OpenSSL's EVP digest (libssl-dev): a maintained implementation rather than a hand-written one.
std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("sha256: OpenSSL's EVP_Digest failed");
  }
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0xF]);
  }
  return out;
}

}  // namespace tfbench::harness

#include "packed_small/case_operands.hpp"

#include <cstdint>
#include <tuple>

#include "common/live_by_case.hpp"

namespace tfbench::workloads::packed_small {

template <class T>
std::shared_ptr<CaseOperands<T>> case_operands(const GemmBatchShape& s, const GemmBatchSeeds& seeds,
                                               int threads) {
  using Key = std::tuple<int, int, std::int64_t, std::uint64_t, std::uint64_t, int>;
  return LiveByCase<CaseOperands<T>, Key>::get(Key{s.n, s.ld, s.batch, seeds.a, seeds.b, threads}, [&] {
    auto operands = std::make_shared<CaseOperands<T>>(
        CaseOperands<T>{AlignedBuffer<T>(s.elements(), threads, operand_page_offset(0)),
                        AlignedBuffer<T>(s.elements(), threads, operand_page_offset(1)),
                        AlignedBuffer<T>(s.elements(), threads, operand_page_offset(2))});
    fill_operand(operands->a.data(), s, seeds.a, threads);
    fill_operand(operands->b.data(), s, seeds.b, threads);
    return operands;
  });
}

template std::shared_ptr<CaseOperands<double>> case_operands<double>(const GemmBatchShape&,
                                                                     const GemmBatchSeeds&, int);
template std::shared_ptr<CaseOperands<float>> case_operands<float>(const GemmBatchShape&,
                                                                   const GemmBatchSeeds&, int);

}  // namespace tfbench::workloads::packed_small

// The contraction lowering (impl layer) against the naive reference: every route, every
// combination of borrowed/packed operands and direct/scratch destination, N-ary paths.

#include <catch2/catch.hpp>

#include "reference.hpp"
#include "test_context.hpp"
#include "tfbench/engine/ops/contraction_stats.hpp"
#include "tfbench/engine/ops/impl/einsum_program.hpp"
#include "view_scratch.hpp"

namespace {

using namespace tfbench;
using tfbench::testing::StridedHost;
using C128 = Kokkos::complex<double>;
using tfbench::testing::index_t;

/// The operands live in host vectors: a device space (cuda) runs these on Serial, as the facade tests do.
impl::ExecTarget target() {
  const auto space = tfbench::testing::space();
  if (!tfbench::is_host_space(space)) return {tfbench::ExecSpaceKind::Serial, 1};
  return {space, tfbench::testing::threads()};
}

template <class T>
impl::RawLayout layout_of(const StridedHost<T>& h) {
  return {h.shape.data(), h.strides.data(), h.rank()};
}

/// Runs `text` through plan_einsum/run_einsum into `dest` and compares with the naive reference.
template <class T>
double einsum_error(const std::string& text, std::vector<StridedHost<T>*> ops, StridedHost<T>& dest) {
  const auto spec = ops::parse_einsum(text);
  std::vector<impl::RawLayout> layouts;
  std::vector<const T*> data;
  std::vector<const StridedHost<T>*> cops;
  for (auto* op : ops) {
    layouts.push_back(layout_of(*op));
    data.push_back(op->data());
    cops.push_back(op);
  }
  const auto program = impl::plan_einsum(spec, layouts.data(), dest.strides.data(), "test");
  tfbench::testing::ViewScratchArena<Kokkos::HostSpace> scratch;
  const impl::OpContext ctx{target(), &scratch};
  impl::run_einsum<T>(ctx, program, data.data(), dest.data());
  Kokkos::fence();
  std::vector<index_t> shape;
  const auto want = tfbench::testing::naive_einsum<T>(text, cops, &shape);
  std::vector<T> got;
  tfbench::testing::for_each_index(shape,
                                   [&](const std::vector<index_t>& idx) { got.push_back(dest.at(idx)); });
  return tfbench::testing::max_relative_error(got, want);
}

}  // namespace

TEMPLATE_TEST_CASE("binary contraction: every borrow/pack/destination combination", "[ops][contraction]",
                   double, float, C128) {
  // "ik,kj->ij" with M=24, K=20, N=28 (above the direct-kernel size): A and B stored normal,
  // transposed or padded; the destination compact, transposed or padded.
  std::mt19937_64 rng(7);
  const index_t M = 24, K = 20, N = 28;
  struct Form {
    std::vector<int> order;
    index_t pad;
    const char* name;
  };
  struct Case {
    Form form;
    bool flip;
    bool packed;
  };
  const Case forms[] = {{{{0, 1}, 0, "normal"}, false, false},
                        {{{1, 0}, 0, "transposed"}, false, false},
                        {{{0, 1}, 3, "padded (leading dimension)"}, false, false},
                        {{{1, 0}, 2, "padded transposed"}, false, false},
                        {{{0, 1}, 0, "reversed rows"}, true, true}};
  for (const auto& ca : forms) {
    for (const auto& cb : forms) {
      for (const auto& cc : forms) {
        const Form &fa = ca.form, &fb = cb.form, &fc = cc.form;
        auto a = tfbench::testing::make_strided<TestType>({M, K}, fa.order, fa.pad, {ca.flip, false});
        auto b = tfbench::testing::make_strided<TestType>({K, N}, fb.order, fb.pad, {cb.flip, false});
        auto c = tfbench::testing::make_strided<TestType>({M, N}, fc.order, fc.pad, {cc.flip, false});
        tfbench::testing::fill_random(a, rng);
        tfbench::testing::fill_random(b, rng);
        ops::reset_contraction_stats();
        const double err = einsum_error<TestType>("ik,kj->ij", {&a, &b}, c);
        INFO("A " << fa.name << ", B " << fb.name << ", C " << fc.name);
        CHECK(err < tfbench::testing::Tolerance<TestType>::value);
        const auto st = ops::contraction_stats();
        CHECK(st.gemm == 1);
        const int packed = (ca.packed ? 1 : 0) + (cb.packed ? 1 : 0);
        CHECK(st.packed_operands == static_cast<std::uint64_t>(packed));
        CHECK(st.borrowed_operands == static_cast<std::uint64_t>(2 - packed));
        CHECK(st.output_via_scratch == (cc.packed ? 1u : 0u));
      }
    }
  }
}

TEMPLATE_TEST_CASE("contraction routes", "[ops][contraction]", double, float, C128) {
  std::mt19937_64 rng(11);
  auto run = [&](const std::string& text, std::vector<std::vector<index_t>> shapes,
                 std::vector<std::vector<int>> orders, std::vector<index_t> out_shape) {
    std::vector<StridedHost<TestType>> ops;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      ops.push_back(tfbench::testing::make_strided<TestType>(shapes[i], orders[i]));
      tfbench::testing::fill_random(ops.back(), rng);
    }
    std::vector<StridedHost<TestType>*> ptrs;
    for (auto& o : ops) ptrs.push_back(&o);
    auto dest = tfbench::testing::make_strided<TestType>(out_shape);
    ops::reset_contraction_stats();
    const double err = einsum_error<TestType>(text, ptrs, dest);
    INFO(text);
    CHECK(err < tfbench::testing::Tolerance<TestType>::value);
    return ops::contraction_stats();
  };
  SECTION("all-batch contraction runs as an elementwise product") {
    const auto st = run("abc,cab->abc", {{5, 6, 7}, {7, 5, 6}}, {{}, {}}, {5, 6, 7});
    CHECK(st.elementwise_product == 1);
    CHECK(st.all_batch == 1);
    CHECK(st.gemm + st.batched_gemm + st.direct == 0);
  }
  SECTION("outer product with a batch label: elementwise, not all-batch") {
    const auto st = run("ib,jb->ijb", {{30, 4}, {20, 4}}, {{}, {1, 0}}, {30, 20, 4});
    CHECK(st.elementwise_product == 1);
    CHECK(st.all_batch == 0);
  }
  SECTION("summed-only labels reduce before the product") {
    const auto st = run("ix,jy->ij", {{30, 5}, {20, 6}}, {{}, {}}, {30, 20});
    CHECK(st.elementwise_product == 1);
    CHECK(st.packed_operands == 2);
  }
  SECTION("tiny items take the direct kernel") {
    const auto st = run("bij,bjk->bik", {{9, 3, 4}, {9, 4, 5}}, {{}, {}}, {9, 3, 5});
    CHECK(st.direct == 1);
  }
  SECTION("batch labels run a GEMM per item (no session: no batch policy to resolve)") {
    const auto st = run("ijb,jkb->ikb", {{20, 16, 3}, {16, 18, 3}}, {{}, {}}, {20, 18, 3});
    CHECK(st.batched_gemm == 1);
    CHECK(st.gemm_calls == 3);
    CHECK(st.packed_operands == 0);
    CHECK(st.output_via_scratch == 0);
  }
  SECTION("batch-first destination goes through scratch") {
    const auto st = run("bij,bjk->bik", {{3, 20, 16}, {3, 16, 18}}, {{}, {}}, {3, 20, 18});
    CHECK(st.batched_gemm == 1);
    CHECK(st.packed_operands == 2);
    CHECK(st.output_via_scratch == 1);
  }
  SECTION("multi-label groups borrowed in memory order") {
    const auto st = run("abcd,cdef->abef", {{4, 5, 6, 7}, {6, 7, 3, 8}}, {{}, {}}, {4, 5, 3, 8});
    CHECK(st.gemm == 1);
    CHECK(st.packed_operands == 0);
  }
  SECTION("summed-only label with a GEMM") {
    const auto st = run("ikx,kj->ij", {{20, 30, 3}, {30, 25}}, {{}, {}}, {20, 25});
    CHECK(st.gemm == 1);
    CHECK(st.packed_operands == 1);
  }
  SECTION("one-operand einsums") {
    run("ij->ji", {{7, 9}}, {{}}, {9, 7});
    run("ii->i", {{6, 6}}, {{}}, {6});
    run("iij->j", {{5, 5, 4}}, {{}}, {4});
    const auto st = run("ijk->", {{30, 40, 50}}, {{}}, {});
    CHECK(st.unary == 1);
  }
  SECTION("dot product and matrix-vector") {
    run("i,i->", {{5000}, {5000}}, {{}, {}}, {});
    run("ij,j->i", {{300, 200}, {200}}, {{}, {}}, {300});
  }
}

TEMPLATE_TEST_CASE("N-ary einsum path equals the naive evaluation", "[ops][einsum]", double, C128) {
  std::mt19937_64 rng(3);
  struct Case {
    std::string text;
    std::vector<std::vector<index_t>> shapes;
    std::vector<index_t> out;
  };
  const Case cases[] = {
      {"ij,jk,kl->il", {{12, 30}, {30, 25}, {25, 9}}, {12, 9}},
      {"ab,bc,cd,de->ae", {{6, 7}, {7, 8}, {8, 9}, {9, 5}}, {6, 5}},
      {"ijk,jl,kl->i", {{10, 11, 12}, {11, 13}, {12, 13}}, {10}},
      {"abx,bcx,cay->xy", {{4, 5, 6}, {5, 7, 6}, {7, 4, 3}}, {6, 3}},
      {"ii,ij,jk->k", {{8, 8}, {8, 9}, {9, 10}}, {10}},
  };
  for (const auto& c : cases) {
    std::vector<StridedHost<TestType>> ops;
    for (const auto& s : c.shapes) {
      ops.push_back(tfbench::testing::make_strided<TestType>(s));
      tfbench::testing::fill_random(ops.back(), rng);
    }
    std::vector<StridedHost<TestType>*> ptrs;
    for (auto& o : ops) ptrs.push_back(&o);
    auto dest = tfbench::testing::make_strided<TestType>(c.out);
    INFO(c.text);
    CHECK(einsum_error<TestType>(c.text, ptrs, dest) < tfbench::testing::Tolerance<TestType>::value);
  }
}

TEST_CASE("greedy path contracts the smallest intermediate first", "[ops][einsum]") {
  // a (2x1000) . b (1000x1000) . c (1000x3): either order gives a small result, but contracting a
  // with b first makes a 2x1000 intermediate (b.c would make 1000x3: larger).
  const index_t sa[2] = {2, 1000}, sb[2] = {1000, 1000}, sc[2] = {1000, 3};
  const impl::RawLayout layouts[3] = {{sa, nullptr, 2}, {sb, nullptr, 2}, {sc, nullptr, 2}};
  const auto prog = impl::plan_einsum(ops::parse_einsum("ij,jk,kl->il"), layouts, nullptr, "test");
  REQUIRE(prog.steps.size() == 2);
  CHECK(prog.steps[0].lhs == 0);
  CHECK(prog.steps[0].rhs == 1);
  CHECK(prog.intermediate_elements[0] == 2000);
}

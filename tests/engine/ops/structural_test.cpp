// Sum over axes, permute and transfers against a host reference.

#include "ops_test_support.hpp"

namespace {

using namespace tfbench;
using namespace tfbench::testing;
using C128 = Kokkos::complex<double>;

}  // namespace

TEMPLATE_TEST_CASE("sum over axes matches the reference", "[ops][reduce]", double, float, C128) {
  using T = TestType;
  std::mt19937_64 rng(13);
  auto backend = ops_backend();
  struct Case {
    std::vector<index_t> shape;
    std::vector<int> order;
    std::vector<int> axes;
  };
  const Case cases[] = {
      {{12, 7, 5}, {}, {0}},       {{12, 7, 5}, {2, 1, 0}, {1}}, {{12, 7, 5}, {}, {0, 2}},
      {{12, 7, 5}, {1, 0, 2}, {}}, {{12, 7, 5}, {}, {0, 1, 2}},  {{40000}, {}, {0}},
      {{3, 30000}, {}, {1}},       {{300, 200}, {1, 0}, {0}},    {{4, 0, 3}, {}, {1}},
  };
  for (const auto& c : cases) {
    auto a = random_operand<T>(rng, c.shape, c.order, 1);
    in_session(backend, [&](Session& s) {
      auto r = ops::sum(s, a.view(), Span<const int>(c.axes.data(), c.axes.size()));
      std::vector<index_t> kept;
      for (std::size_t d = 0; d < c.shape.size(); ++d)
        if (std::find(c.axes.begin(), c.axes.end(), int(d)) == c.axes.end()) kept.push_back(c.shape[d]);
      REQUIRE(shape_vec(r.shape()) == kept);
      using W = Wide<T>;
      std::vector<W> wide(static_cast<std::size_t>(r.numel()), W(0));
      std::vector<T> want, got;
      for_each_index(c.shape, [&](const std::vector<index_t>& i) {
        index_t off = 0, step = 1;
        for (std::size_t d = 0, k = 0; d < c.shape.size(); ++d) {
          if (std::find(c.axes.begin(), c.axes.end(), int(d)) != c.axes.end()) continue;
          off += i[d] * step;
          step *= kept[k++];
        }
        wide[static_cast<std::size_t>(off)] += W(a.at(i));
      });
      for (const W& w : wide) want.push_back(static_cast<T>(w));
      for (Index k = 0; k < r.numel(); ++k) got.push_back(r.data()[k]);
      INFO("shape " << c.shape.size() << " axes " << c.axes.size());
      CHECK(max_relative_error(got, want) < Tolerance<T>::value);
    });
  }
}

TEST_CASE("sum_all and sum_into a strided destination", "[ops][reduce]") {
  std::mt19937_64 rng(2);
  auto backend = ops_backend();
  auto a = random_operand<double>(rng, {8, 6, 4});
  in_session(backend, [&](Session& s) {
    auto total = ops::sum_all(s, a.view());
    CHECK(total.rank() == 0);
    double want = 0;
    for_each_index({8, 6, 4}, [&](const std::vector<index_t>& i) { want += a.at(i); });
    CHECK(total.data()[0] == Approx(want).epsilon(1e-12));
    auto dest = random_operand<double>(rng, {8, 4}, {1, 0}, 2);
    auto dv = dest.view_mut();
    ops::sum_into(s, dv, a.view(), {1});
    for_each_index({8, 4}, [&](const std::vector<index_t>& i) {
      double w = 0;
      for (index_t j = 0; j < 6; ++j) w += a.at({i[0], j, i[1]});
      CHECK(dest.at(i) == Approx(w).epsilon(1e-12));
    });
  });
}

TEMPLATE_TEST_CASE("permute materializes any axis order", "[ops][permute]", double, float, C128, bool,
                   std::int32_t) {
  using T = TestType;
  auto backend = ops_backend();
  const std::vector<index_t> sh{40, 36, 3};
  std::vector<T> data;
  for (index_t i = 0; i < 40 * 36 * 3; ++i) data.push_back(static_cast<T>(i % 7 == 0 ? 1 : (i % 5) + 1));
  auto a = Tensor<T, DynRank, Host>::from_col_major({40, 36, 3}, data);
  const std::vector<std::vector<int>> perms{{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}};
  in_session(backend, [&](Session& s) {
    for (const auto& p : perms) {
      auto t = ops::permute(s, a, Span<const int>(p.data(), p.size()));
      for_each_index(shape_vec(t.shape()), [&](const std::vector<index_t>& i) {
        std::vector<index_t> src(3);
        for (int d = 0; d < 3; ++d) src[p[d]] = i[d];
        CHECK(t.at(Span<const Index>(i.data(), 3)) == a.at(Span<const Index>(src.data(), 3)));
      });
    }
    // Into a reversed, padded destination.
    auto dest = make_strided<T>({36, 40, 3}, {0, 1, 2}, 5, {true, false, true});
    HostOperand<T> d(dest);
    auto dv = d.view_mut();
    ops::permute_into(s, dv, a, {1, 0, 2});
    for_each_index({36, 40, 3},
                   [&](const std::vector<index_t>& i) { CHECK(d.at(i) == a.at(i[1], i[0], i[2])); });
  });
}

TEST_CASE("upload and download through the session", "[ops][transfer]") {
  auto backend = ops_backend();
  auto host = Tensor<double, DynRank, Host>::from_col_major({2, 3}, {1, 4, 2, 5, 3, 6});
  in_session(backend, [&](Session& s) {
    auto device = ops::upload(s, host);
    static_assert(std::is_same<decltype(device), Tensor<double, DynRank, Device>>::value, "device tensor");
    auto back = ops::download(s, device);
    CHECK(back.at(1, 0) == 4);
    CHECK(back.at(0, 2) == 3);
  });
}

// Erased operation inputs (the input half of the erased boundary) and dtypes.
#include <catch2/catch.hpp>

#include <complex>

#include "tfbench/engine/storage/storage.hpp"

using namespace tfbench;

TEST_CASE("dtypes: identity, names, sizes", "[storage][dtype]") {
  CHECK(dtype_of<double>() == DType::F64);
  CHECK(dtype_of<float>() == DType::F32);
  CHECK(dtype_of<std::complex<float>>() == DType::C64);
  CHECK(dtype_of<Kokkos::complex<double>>() == DType::C128);
  CHECK(dtype_of<bool>() == DType::Bool);
  CHECK(dtype_of<std::int32_t>() == DType::I32);
  CHECK(dtype_of<std::int64_t>() == DType::I64);
  CHECK(std::string(name(DType::C128)) == "c128");
  CHECK(parse_dtype("F64") == DType::F64);
  CHECK_FALSE(parse_dtype("f16").has_value());
  CHECK(size_of(DType::C64) == 8);
  CHECK(is_complex(DType::C64));
  CHECK(real_dtype(DType::C128) == DType::F64);
  CHECK_FALSE(has_dtype<std::string>::value);
}

TEST_CASE("TensorRead borrows layout from views and owners", "[storage][erased]") {
  auto t = Tensor<double, DynRank, Host>::from_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  TensorRead owner(t);
  CHECK(owner.dtype() == DType::F64);
  CHECK(owner.space() == MemorySpaceKind::Host);
  CHECK(owner.layout().compact_tag);
  CHECK(owner.layout().is_compact());
  CHECK(owner.layout().stride(1) == 2);
  CHECK(owner.shape().data() == t.shape().data());  // borrowed, not copied
  CHECK(owner.data() == t.data());
  CHECK(owner.numel() == 6);

  auto v = t.view().permute({1, 0}).slice(0, {2, -1, -1});
  TensorRead read(v);
  CHECK(read.layout().shape.data() == v.shape().data());
  CHECK(read.layout().strides.data() == v.strides().data());
  CHECK(read.layout().offset == v.offset());
  CHECK_FALSE(read.layout().is_compact());
  CHECK(read.window() == 6);

  // Typed recovery, one dtype check per call.
  auto back = read.typed<double>().into_host().value();
  CHECK(back.at(0, 1) == 6);
  CHECK(back.at(2, 0) == 1);
  CHECK(read.data_as<double>() == t.data());
  try {
    (void)read.data_as<float>();
    FAIL("expected DTypeMismatch");
  } catch (const StorageError& e) {
    CHECK(e.code() == StorageErrc::DTypeMismatch);
  }

  // Static rank and Device views erase the same way.
  auto f = Tensor<std::complex<double>, Rank<2>, Host>::zeros({2, 2});
  auto fv = f.view();
  TensorRead fr(fv);
  CHECK(fr.dtype() == DType::C128);
  CHECK(fr.rank() == 2);
  auto d = upload(t);
  TensorRead dr(d);
  CHECK(dr.space() == MemorySpaceKind::Device);
  CHECK_FALSE(dr.typed<double>().into_host().has_value());
}

TEST_CASE("TensorWrite borrows mutable views and owners", "[storage][erased]") {
  auto t = Tensor<float, DynRank, Host>::zeros({3, 2});
  {
    auto mv = t.view_mut().slice(1, {1, 2});
    TensorWrite w(mv);
    CHECK(w.dtype() == DType::F32);
    CHECK(w.layout().offset == 3);
    auto typed = w.typed<float>().into_host().value();
    typed.at(2, 0) = 9;
    CHECK(w.as_read().layout().offset == 3);
  }
  CHECK(t.at(2, 1) == 9);
  TensorWrite whole(t);
  CHECK(whole.layout().compact_tag);
  whole.data_as<float>()[0] = 1;
  CHECK(t.at(0, 0) == 1);
  CHECK(whole.layout().strides_value() == Strides{1, 3});
}

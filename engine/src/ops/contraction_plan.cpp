#include "tfbench/engine/ops/impl/contraction_plan.hpp"

#include <cstdlib>
#include <string>

#include "tfbench/engine/ops/error.hpp"

namespace tfbench::impl {
namespace {

using ops::OpError;
using ops::OpErrorCode;

/// Stride of `label` in an operand, 0 when the operand lacks it (broadcast).
index_t stride_in(const ContractOperand& op, char label) {
  const int i = op.labels.find(label);
  return i < 0 ? 0 : op.strides[i];
}

index_t product(const LabelList& labels, const LabelExtents& ext) {
  index_t p = 1;
  for (char l : labels) p *= ext[l];
  return p;
}

/// The labels of `group` ordered by the operand's |stride| (its memory order).
LabelList memory_order(const LabelList& group, const ContractOperand& op) {
  LabelList sorted = group;
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const char l = sorted[i];
    std::size_t j = i;
    while (j > 0 && std::llabs(stride_in(op, sorted[j - 1])) > std::llabs(stride_in(op, l))) {
      sorted[j] = sorted[j - 1];
      --j;
    }
    sorted[j] = l;
  }
  return sorted;
}

/// A group of labels as one matrix dimension: its labels must step through memory as one axis
/// (each label's stride is the previous one's times its extent). `stride` is that axis's stride.
struct Collapsed {
  bool ok = true;
  bool empty = true;
  index_t stride = 0;
};

template <class StrideOf>
Collapsed collapse(const LabelList& group, const LabelExtents& ext, StrideOf stride_of) {
  Collapsed c;
  if (group.empty()) return c;
  c.empty = false;
  c.stride = stride_of(group[0]);
  index_t expect = c.stride;
  for (char l : group) {
    if (stride_of(l) != expect || expect <= 0) {
      c.ok = false;
      return c;
    }
    expect *= ext[l];
  }
  return c;
}

/// How BLAS can take an operand [rows, cols] whose row labels are `rows` and column labels `cols`:
/// column-major with a leading dimension (rs == 1, cs >= rows) or row-major (cs == 1, rs >= cols).
/// The strides are those the GEMM call receives; an empty group gets the stride that keeps the
/// matrix BLAS-shaped. Anything else (`ok` false) is packed first.
template <class StrideOf>
MatrixForm matrix_form(const LabelList& rows, const LabelList& cols, const LabelExtents& ext,
                       StrideOf stride_of) {
  const Collapsed r = collapse(rows, ext, stride_of), c = collapse(cols, ext, stride_of);
  MatrixForm f;
  if (!r.ok || !c.ok) return f;
  const index_t nr = product(rows, ext), nc = product(cols, ext);
  f.rs = r.empty ? (!c.empty && c.stride == 1 ? nc : 1) : r.stride;
  f.cs = c.empty ? (f.rs == 1 ? nr : 1) : c.stride;
  const bool col_major = f.rs == 1 && (nc <= 1 || f.cs >= nr);
  const bool row_major = f.cs == 1 && (nr <= 1 || f.rs >= nc);
  f.ok = col_major || row_major;
  return f;
}

/// Appends the compact column-major strides of `labels` (in that order) to a stride table.
struct CompactTable {
  char label[kMaxOpRank];
  index_t stride[kMaxOpRank];
  int n = 0;
  index_t next = 1;
  void append(const LabelList& labels, const LabelExtents& ext) {
    for (char l : labels) {
      label[n] = l;
      stride[n++] = next;
      next *= ext[l];
    }
  }
  index_t of(char l) const {
    for (int i = 0; i < n; ++i)
      if (label[i] == l) return stride[i];
    return 0;
  }
  index_t elements() const { return next; }
};

LabelList concat(const LabelList& x, const LabelList& y, const LabelList& z = LabelList()) {
  LabelList r = x;
  for (char l : y) r.push_back(l);
  for (char l : z) r.push_back(l);
  return r;
}

/// Pack of an operand by copy into `order` (its non-unit labels), compact.
PackStep copy_pack(const ContractOperand& op, const LabelList& order, const LabelExtents& ext,
                   CompactTable* table) {
  PackStep p;
  p.kind = PackStep::Kind::Copy;
  table->append(order, ext);
  for (char l : order) {
    p.shape.push_back(ext[l]);
    p.in.push_back(stride_in(op, l));
    p.out.push_back(table->of(l));
  }
  p.elements = table->elements();
  return p;
}

/// Pack of an operand by summing its `summed` labels, the kept ones written compact in `order`.
PackStep reduce_pack(const ContractOperand& op, const LabelList& summed, const LabelList& order,
                     const LabelExtents& ext, CompactTable* table) {
  PackStep p;
  p.kind = PackStep::Kind::Reduce;
  table->append(order, ext);
  for (std::size_t i = 0; i < op.labels.size(); ++i) {
    const char l = op.labels[i];
    if (ext[l] == 1) continue;
    const bool sum = summed.contains(l);
    p.shape.push_back(ext[l]);
    p.in.push_back(op.strides[i]);
    p.reduced.push_back(sum);
    if (!sum) p.out.push_back(table->of(l));
  }
  p.elements = table->elements();
  return p;
}

}  // namespace

const char* name(ContractionRoute route) {
  switch (route) {
    case ContractionRoute::Unary:
      return "unary";
    case ContractionRoute::ElementwiseProduct:
      return "elementwise_product";
    case ContractionRoute::Direct:
      return "direct";
    case ContractionRoute::Gemm:
      return "gemm";
    case ContractionRoute::BatchedGemm:
      return "batched_gemm";
  }
  return "unknown";
}

ContractOperand fold_operand(const LabelList& labels, const RawLayout& layout, const char* where) {
  if (static_cast<int>(labels.size()) != layout.rank)
    throw OpError(OpErrorCode::InvalidSpec, where,
                  "operand of rank " + std::to_string(layout.rank) + " has " + std::to_string(labels.size()) +
                      " labels");
  const StrideList strides = strides_of(layout);
  ContractOperand op;
  for (int i = 0; i < layout.rank; ++i) {
    const int j = op.labels.find(labels[i]);
    if (j < 0) {
      op.labels.push_back(labels[i]);
      op.shape.push_back(layout.shape[i]);
      op.strides.push_back(strides[i]);
    } else {
      if (op.shape[j] != layout.shape[i])
        throw OpError(OpErrorCode::ShapeMismatch, where,
                      std::string("repeated label '") + labels[i] + "' spans extents " +
                          std::to_string(op.shape[j]) + " and " + std::to_string(layout.shape[i]));
      op.strides[j] += strides[i];
    }
  }
  return op;
}

void LabelExtents::bind(const ContractOperand& op, const char* where) {
  for (std::size_t i = 0; i < op.labels.size(); ++i) {
    index_t& e = of[static_cast<unsigned char>(op.labels[i])];
    if (e >= 0 && e != op.shape[i])
      throw OpError(OpErrorCode::ShapeMismatch, where,
                    std::string("label '") + op.labels[i] + "' has extent " + std::to_string(e) +
                        " in one operand and " + std::to_string(op.shape[i]) + " in another");
    e = op.shape[i];
  }
}

ContractionProgram plan_unary(const ContractOperand& a, const LabelList& out_labels, const LabelExtents& ext,
                              const index_t* dest_strides) {
  ContractionProgram p;
  p.route = ContractionRoute::Unary;
  LabelList kept, summed;
  for (char l : a.labels) {
    if (ext[l] == 1) continue;
    (out_labels.contains(l) ? kept : summed).push_back(l);
  }
  for (std::size_t i = 0; i < out_labels.size(); ++i) {
    const char l = out_labels[i];
    if (ext[l] == 0) p.empty = true;
    if (ext[l] == 1) continue;
    p.dest.shape.push_back(ext[l]);
    p.dest.out.push_back(dest_strides ? dest_strides[i] : 0);
  }
  p.result_labels = out_labels;
  if (!dest_strides) {
    CompactTable t;
    t.append(out_labels, ext);
    for (std::size_t i = 0, j = 0; i < out_labels.size(); ++i)
      if (ext[out_labels[i]] != 1) p.dest.out[j++] = t.of(out_labels[i]);
  }
  if (p.empty) return p;
  for (char l : summed)
    if (ext[l] == 0) p.zero = true;
  if (p.zero) return p;

  // The destination's stride for each kept label, in the operand's label order (Reduce) or in the
  // destination's order (Copy).
  auto dest_stride = [&](char l) {
    int j = 0;
    for (char o : out_labels) {
      if (ext[o] == 1) continue;
      if (o == l) return p.dest.out[j];
      ++j;
    }
    return index_t(0);
  };
  if (summed.empty()) {
    p.pack_a.kind = PackStep::Kind::Copy;
    for (char l : out_labels) {
      if (ext[l] == 1) continue;
      p.pack_a.shape.push_back(ext[l]);
      p.pack_a.in.push_back(stride_in(a, l));
      p.pack_a.out.push_back(dest_stride(l));
    }
  } else {
    p.pack_a.kind = PackStep::Kind::Reduce;
    for (std::size_t i = 0; i < a.labels.size(); ++i) {
      const char l = a.labels[i];
      if (ext[l] == 1) continue;
      const bool sum = summed.contains(l);
      p.pack_a.shape.push_back(ext[l]);
      p.pack_a.in.push_back(a.strides[i]);
      p.pack_a.reduced.push_back(sum);
      if (!sum) p.pack_a.out.push_back(dest_stride(l));
    }
  }
  return p;
}

ContractionProgram plan_binary(const ContractOperand& a, const ContractOperand& b,
                               const LabelList& out_labels, const LabelExtents& ext,
                               const index_t* dest_strides, PlanOptions options) {
  ContractionProgram p;
  LabelList batch, m, n, k, sum_a, sum_b;
  for (char l : a.labels) {
    if (ext[l] == 1) continue;
    const bool in_b = b.labels.contains(l), in_out = out_labels.contains(l);
    (in_b ? (in_out ? batch : k) : (in_out ? m : sum_a)).push_back(l);
  }
  for (char l : b.labels) {
    if (ext[l] == 1 || a.labels.contains(l)) continue;
    (out_labels.contains(l) ? n : sum_b).push_back(l);
  }

  // Destination shape/strides over its non-unit labels (the plan's own compact layout if free).
  LabelList dest_labels;
  for (std::size_t i = 0; i < out_labels.size(); ++i) {
    const char l = out_labels[i];
    if (ext[l] == 0) p.empty = true;
    if (ext[l] == 1) continue;
    dest_labels.push_back(l);
    p.dest.shape.push_back(ext[l]);
    p.dest.out.push_back(dest_strides ? dest_strides[i] : 0);
  }
  auto dest_stride = [&](char l) {
    const int j = dest_labels.find(l);
    return j < 0 ? index_t(0) : p.dest.out[j];
  };
  for (const LabelList* g : {&k, &sum_a, &sum_b})
    for (char l : *g)
      if (ext[l] == 0) p.zero = true;

  const bool free_layout = dest_strides == nullptr;
  auto set_free_layout = [&](const LabelList& order) {
    // The result's labels: `order` (non-unit) then every unit-extent output label.
    p.result_labels = order;
    for (char l : out_labels)
      if (ext[l] == 1) p.result_labels.push_back(l);
    CompactTable t;
    t.append(order, ext);
    for (std::size_t j = 0; j < dest_labels.size(); ++j) p.dest.out[j] = t.of(dest_labels[j]);
  };
  if (free_layout) {
    set_free_layout(k.empty() ? dest_labels : concat(m, n, batch));  // refined below for GEMM
  } else {
    p.result_labels = out_labels;
  }
  if (p.empty || p.zero) return p;

  CompactTable table_a, table_b;
  ContractOperand a_eff = a, b_eff = b;  // strides of what the kernels read
  auto effective = [&](const ContractOperand& src, const PackStep& pack, const CompactTable& t) {
    if (pack.kind == PackStep::Kind::None) return src;
    ContractOperand e;
    for (int i = 0; i < t.n; ++i) {
      e.labels.push_back(t.label[i]);
      e.shape.push_back(ext[t.label[i]]);
      e.strides.push_back(t.stride[i]);
    }
    return e;
  };
  auto count_pack = [&](const PackStep& pack) {
    if (pack.kind == PackStep::Kind::None) {
      ++p.borrowed_operands;
    } else {
      ++p.packed_operands;
      p.packed_elements += pack.elements;
    }
  };

  const index_t k_work = product(k, ext) * product(sum_a, ext) * product(sum_b, ext);
  if (k.empty()) {
    // Elementwise product with broadcast strides; operands carrying summed-only labels are reduced
    // first. With no free labels either, this is the all-batch contraction.
    p.route = ContractionRoute::ElementwiseProduct;
    p.all_batch = m.empty() && n.empty() && sum_a.empty() && sum_b.empty();
    if (!sum_a.empty()) {
      LabelList order;
      for (char l : a.labels)
        if (ext[l] != 1 && !sum_a.contains(l)) order.push_back(l);
      p.pack_a = reduce_pack(a, sum_a, order, ext, &table_a);
    }
    if (!sum_b.empty()) {
      LabelList order;
      for (char l : b.labels)
        if (ext[l] != 1 && !sum_b.contains(l)) order.push_back(l);
      p.pack_b = reduce_pack(b, sum_b, order, ext, &table_b);
    }
    a_eff = effective(a, p.pack_a, table_a);
    b_eff = effective(b, p.pack_b, table_b);
    for (char l : dest_labels) {
      p.outer.shape.push_back(ext[l]);
      p.outer.out.push_back(dest_stride(l));
      p.outer.a.push_back(stride_in(a_eff, l));
      p.outer.b.push_back(stride_in(b_eff, l));
    }
    count_pack(p.pack_a);
    count_pack(p.pack_b);
    return p;
  }

  if (!options.blas || product(m, ext) * product(n, ext) * k_work <= kDirectItemWork) {
    // Tiny items: one strided kernel, no packing, summed-only labels broadcast in the inner loop.
    p.route = ContractionRoute::Direct;
    for (char l : dest_labels) {
      p.outer.shape.push_back(ext[l]);
      p.outer.out.push_back(dest_stride(l));
      p.outer.a.push_back(stride_in(a, l));
      p.outer.b.push_back(stride_in(b, l));
    }
    for (const LabelList* g : {&k, &sum_a, &sum_b}) {
      for (char l : *g) {
        p.inner.shape.push_back(ext[l]);
        p.inner.a.push_back(stride_in(a, l));
        p.inner.b.push_back(stride_in(b, l));
      }
    }
    p.borrowed_operands = 2;
    return p;
  }

  // GEMM lowering: choose label orders within M, N, K so that as much as possible is borrowed.
  p.route = batch.empty() ? ContractionRoute::Gemm : ContractionRoute::BatchedGemm;
  const bool reduce_a = !sum_a.empty(), reduce_b = !sum_b.empty();
  ContractOperand dest_op;  // the destination as an operand, for fitting
  if (!free_layout) {
    dest_op.labels = dest_labels;
    dest_op.shape = p.dest.shape;
    dest_op.strides = p.dest.out;
  }
  LabelList m_cand[2], n_cand[2], k_cand[2];
  int nm = 0, nn = 0, nk = 0;
  auto add = [](LabelList* cands, int& count, const LabelList& c) {
    for (int i = 0; i < count; ++i)
      if (cands[i] == c) return;
    cands[count++] = c;
  };
  if (!free_layout) add(m_cand, nm, memory_order(m, dest_op));
  if (!reduce_a) add(m_cand, nm, memory_order(m, a));
  if (nm == 0) add(m_cand, nm, m);
  if (!free_layout) add(n_cand, nn, memory_order(n, dest_op));
  if (!reduce_b) add(n_cand, nn, memory_order(n, b));
  if (nn == 0) add(n_cand, nn, n);
  if (!reduce_a) add(k_cand, nk, memory_order(k, a));
  if (!reduce_b) add(k_cand, nk, memory_order(k, b));
  if (nk == 0) add(k_cand, nk, k);

  const index_t size_a = product(m, ext) * product(k, ext) * product(batch, ext);
  const index_t size_b = product(k, ext) * product(n, ext) * product(batch, ext);
  const index_t size_c = product(m, ext) * product(n, ext) * product(batch, ext);
  index_t best_cost = -1;
  LabelList bm, bn, bk;
  MatrixForm best_fa, best_fb, best_fc;
  for (int im = 0; im < nm; ++im) {
    for (int in = 0; in < nn; ++in) {
      for (int ik = 0; ik < nk; ++ik) {
        const MatrixForm fa =
            reduce_a ? MatrixForm{}
                     : matrix_form(m_cand[im], k_cand[ik], ext, [&](char l) { return stride_in(a, l); });
        const MatrixForm fb =
            reduce_b ? MatrixForm{}
                     : matrix_form(k_cand[ik], n_cand[in], ext, [&](char l) { return stride_in(b, l); });
        MatrixForm fc;
        if (free_layout)
          fc.ok = true;
        else
          fc = matrix_form(m_cand[im], n_cand[in], ext, [&](char l) { return dest_stride(l); });
        const index_t cost = (fa.ok ? 0 : size_a) + (fb.ok ? 0 : size_b) + (fc.ok ? 0 : 2 * size_c);
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          bm = m_cand[im];
          bn = n_cand[in];
          bk = k_cand[ik];
          best_fa = fa;
          best_fb = fb;
          best_fc = fc;
        }
      }
    }
  }

  // Batch labels in the destination's memory order (streaming writes across items).
  LabelList border = free_layout ? batch : memory_order(batch, dest_op);
  if (free_layout) set_free_layout(concat(bm, bn, border));
  const index_t mm = product(bm, ext), nn_ = product(bn, ext), kk = product(bk, ext);
  const MatrixForm packed_a{true, 1, mm}, packed_b{true, 1, kk}, packed_c{true, 1, mm};

  if (reduce_a) {
    p.pack_a = reduce_pack(a, sum_a, concat(bm, bk, border), ext, &table_a);
    best_fa = packed_a;
  } else if (!best_fa.ok) {
    p.pack_a = copy_pack(a, concat(bm, bk, border), ext, &table_a);
    best_fa = packed_a;
  }
  if (reduce_b) {
    p.pack_b = reduce_pack(b, sum_b, concat(bk, bn, border), ext, &table_b);
    best_fb = packed_b;
  } else if (!best_fb.ok) {
    p.pack_b = copy_pack(b, concat(bk, bn, border), ext, &table_b);
    best_fb = packed_b;
  }
  a_eff = effective(a, p.pack_a, table_a);
  b_eff = effective(b, p.pack_b, table_b);
  count_pack(p.pack_a);
  count_pack(p.pack_b);

  CompactTable table_c;
  if (free_layout) {
    best_fc = packed_c;
  } else if (!best_fc.ok) {
    p.out_via_scratch = true;
    table_c.append(concat(bm, bn, border), ext);
    p.out_scratch_elements = table_c.elements();
    for (char l : dest_labels) {
      p.finish.shape.push_back(ext[l]);
      p.finish.out.push_back(dest_stride(l));
      p.finish.a.push_back(table_c.of(l));
    }
    best_fc = packed_c;
  }
  auto c_stride = [&](char l) { return p.out_via_scratch ? table_c.of(l) : dest_stride(l); };

  p.gm = mm;
  p.gn = nn_;
  p.gk = kk;
  p.a_form = best_fa;
  p.b_form = best_fb;
  p.c_form = best_fc;
  // Batch labels, merged where all three operands step through them as through one.
  for (char l : border) {
    const index_t sc = c_stride(l), sa = stride_in(a_eff, l), sb = stride_in(b_eff, l);
    const std::size_t r = p.batch.shape.size();
    if (r > 0 && sc == p.batch.out[r - 1] * p.batch.shape[r - 1] &&
        sa == p.batch.a[r - 1] * p.batch.shape[r - 1] && sb == p.batch.b[r - 1] * p.batch.shape[r - 1]) {
      p.batch.shape[r - 1] *= ext[l];
      continue;
    }
    p.batch.shape.push_back(ext[l]);
    p.batch.out.push_back(sc);
    p.batch.a.push_back(sa);
    p.batch.b.push_back(sb);
  }
  return p;
}

}  // namespace tfbench::impl

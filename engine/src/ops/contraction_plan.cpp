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
  index_t count = 1;
  for (char l : labels) count *= ext[l];
  return count;
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
  PackStep pack;
  pack.kind = PackStep::Kind::Copy;
  table->append(order, ext);
  for (char l : order) {
    pack.shape.push_back(ext[l]);
    pack.in.push_back(stride_in(op, l));
    pack.out.push_back(table->of(l));
  }
  pack.elements = table->elements();
  return pack;
}

/// Pack of an operand by summing its `summed` labels, the kept ones written compact in `order`.
PackStep reduce_pack(const ContractOperand& op, const LabelList& summed, const LabelList& order,
                     const LabelExtents& ext, CompactTable* table) {
  PackStep pack;
  pack.kind = PackStep::Kind::Reduce;
  table->append(order, ext);
  for (std::size_t i = 0; i < op.labels.size(); ++i) {
    const char l = op.labels[i];
    if (ext[l] == 1) continue;
    const bool sum = summed.contains(l);
    pack.shape.push_back(ext[l]);
    pack.in.push_back(op.strides[i]);
    pack.reduced.push_back(sum);
    if (!sum) pack.out.push_back(table->of(l));
  }
  pack.elements = table->elements();
  return pack;
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
  ContractionProgram program;
  program.route = ContractionRoute::Unary;
  LabelList kept, summed;
  for (char l : a.labels) {
    if (ext[l] == 1) continue;
    (out_labels.contains(l) ? kept : summed).push_back(l);
  }
  for (std::size_t i = 0; i < out_labels.size(); ++i) {
    const char l = out_labels[i];
    if (ext[l] == 0) program.empty = true;
    if (ext[l] == 1) continue;
    program.dest.shape.push_back(ext[l]);
    program.dest.out.push_back(dest_strides ? dest_strides[i] : 0);
  }
  program.result_labels = out_labels;
  if (!dest_strides) {
    CompactTable t;
    t.append(out_labels, ext);
    for (std::size_t i = 0, j = 0; i < out_labels.size(); ++i)
      if (ext[out_labels[i]] != 1) program.dest.out[j++] = t.of(out_labels[i]);
  }
  if (program.empty) return program;
  for (char l : summed)
    if (ext[l] == 0) program.zero = true;
  if (program.zero) return program;

  // The destination's stride for each kept label, in the operand's label order (Reduce) or in the
  // destination's order (Copy).
  auto dest_stride = [&](char l) {
    int j = 0;
    for (char o : out_labels) {
      if (ext[o] == 1) continue;
      if (o == l) return program.dest.out[j];
      ++j;
    }
    return index_t(0);
  };
  if (summed.empty()) {
    program.pack_a.kind = PackStep::Kind::Copy;
    for (char l : out_labels) {
      if (ext[l] == 1) continue;
      program.pack_a.shape.push_back(ext[l]);
      program.pack_a.in.push_back(stride_in(a, l));
      program.pack_a.out.push_back(dest_stride(l));
    }
  } else {
    program.pack_a.kind = PackStep::Kind::Reduce;
    for (std::size_t i = 0; i < a.labels.size(); ++i) {
      const char l = a.labels[i];
      if (ext[l] == 1) continue;
      const bool sum = summed.contains(l);
      program.pack_a.shape.push_back(ext[l]);
      program.pack_a.in.push_back(a.strides[i]);
      program.pack_a.reduced.push_back(sum);
      if (!sum) program.pack_a.out.push_back(dest_stride(l));
    }
  }
  return program;
}

namespace {

/// The labels of a binary contraction by role; unit-extent labels take no part.
struct LabelRoles {
  LabelList batch;       // in A, B and the output
  LabelList left_free;   // in A and the output: the GEMM's rows (M)
  LabelList right_free;  // in B and the output: the GEMM's columns (N)
  LabelList contracted;  // in A and B only: the GEMM's inner dimension (K)
  LabelList summed_a;    // in A only: summed before the product
  LabelList summed_b;    // in B only
};

LabelRoles classify_labels(const ContractOperand& a, const ContractOperand& b, const LabelList& out_labels,
                           const LabelExtents& ext) {
  LabelRoles roles;
  for (char l : a.labels) {
    if (ext[l] == 1) continue;
    const bool in_b = b.labels.contains(l), in_out = out_labels.contains(l);
    (in_b ? (in_out ? roles.batch : roles.contracted) : (in_out ? roles.left_free : roles.summed_a))
        .push_back(l);
  }
  for (char l : b.labels) {
    if (ext[l] == 1 || a.labels.contains(l)) continue;
    (out_labels.contains(l) ? roles.right_free : roles.summed_b).push_back(l);
  }
  return roles;
}

/// The labels of `op` that a reduce pack keeps (non-unit, not summed), in the operand's order.
LabelList kept_labels(const ContractOperand& op, const LabelList& summed, const LabelExtents& ext) {
  LabelList kept;
  for (char l : op.labels)
    if (ext[l] != 1 && !summed.contains(l)) kept.push_back(l);
  return kept;
}

/// Up to two label orders of one GEMM dimension to try: the memory orders of the operands that may
/// be borrowed (and of a caller-fixed destination), or the classification order when there is none.
struct OrderCandidates {
  LabelList order[2];
  int count = 0;
  void add(const LabelList& labels) {
    for (int i = 0; i < count; ++i)
      if (order[i] == labels) return;
    order[count++] = labels;
  }
};

OrderCandidates order_candidates(const LabelList& group, const ContractOperand* first,
                                 const ContractOperand* second) {
  OrderCandidates candidates;
  for (const ContractOperand* op : {first, second})
    if (op) candidates.add(memory_order(group, *op));
  if (candidates.count == 0) candidates.add(group);
  return candidates;
}

/// A GEMM's label orders within M, N and K, and how BLAS would take A, B and C in them as they lie.
struct GemmLayout {
  LabelList rows, cols, inner;
  MatrixForm a, b, c;
};

/// Plans one binary contraction: classify the labels, lay out the destination, then lower to an
/// elementwise product, the direct kernel or GEMM.
class BinaryPlanner {
 public:
  BinaryPlanner(const ContractOperand& a, const ContractOperand& b, const LabelList& out_labels,
                const LabelExtents& ext, const index_t* dest_strides, PlanOptions options)
      : a_(a),
        b_(b),
        out_labels_(out_labels),
        ext_(ext),
        dest_strides_(dest_strides),
        free_layout_(dest_strides == nullptr),
        options_(options),
        roles_(classify_labels(a, b, out_labels, ext)) {}

  ContractionProgram plan() {
    lay_out_destination();
    if (free_layout_) {
      // Refined by the GEMM lowering, which picks its own row and column orders.
      choose_result_layout(roles_.contracted.empty()
                               ? dest_labels_
                               : concat(roles_.left_free, roles_.right_free, roles_.batch));
    } else {
      program_.result_labels = out_labels_;
    }
    if (program_.empty || program_.zero) return program_;
    if (roles_.contracted.empty()) {
      plan_elementwise_product();
    } else if (!options_.blas || static_cast<double>(item_work()) <= options_.direct_item_muladds) {
      plan_direct();
    } else {
      plan_gemm();
    }
    return program_;
  }

 private:
  /// The destination's shape and strides over its non-unit labels (the plan's own compact layout
  /// when the caller leaves it free); an empty output, or a zero summed extent, needs no kernel.
  void lay_out_destination() {
    for (std::size_t i = 0; i < out_labels_.size(); ++i) {
      const char l = out_labels_[i];
      if (ext_[l] == 0) program_.empty = true;
      if (ext_[l] == 1) continue;
      dest_labels_.push_back(l);
      program_.dest.shape.push_back(ext_[l]);
      program_.dest.out.push_back(dest_strides_ ? dest_strides_[i] : 0);
    }
    for (const LabelList* group : {&roles_.contracted, &roles_.summed_a, &roles_.summed_b})
      for (char l : *group)
        if (ext_[l] == 0) program_.zero = true;
  }

  /// A free destination laid out compact in `order` (non-unit labels), then every unit-extent
  /// output label.
  void choose_result_layout(const LabelList& order) {
    program_.result_labels = order;
    for (char l : out_labels_)
      if (ext_[l] == 1) program_.result_labels.push_back(l);
    CompactTable table;
    table.append(order, ext_);
    for (std::size_t j = 0; j < dest_labels_.size(); ++j) program_.dest.out[j] = table.of(dest_labels_[j]);
  }

  index_t dest_stride(char l) const {
    const int j = dest_labels_.find(l);
    return j < 0 ? index_t(0) : program_.dest.out[j];
  }

  /// Multiply-adds per batch item.
  index_t item_work() const {
    const index_t summed_work =
        product(roles_.contracted, ext_) * product(roles_.summed_a, ext_) * product(roles_.summed_b, ext_);
    return product(roles_.left_free, ext_) * product(roles_.right_free, ext_) * summed_work;
  }

  /// The operand as the kernels read it: itself when borrowed, else its compact scratch copy.
  ContractOperand as_read(const ContractOperand& source, const PackStep& pack,
                          const CompactTable& table) const {
    if (pack.kind == PackStep::Kind::None) return source;
    ContractOperand packed;
    for (int i = 0; i < table.n; ++i) {
      packed.labels.push_back(table.label[i]);
      packed.shape.push_back(ext_[table.label[i]]);
      packed.strides.push_back(table.stride[i]);
    }
    return packed;
  }

  void count_operand(const PackStep& pack) {
    if (pack.kind == PackStep::Kind::None) {
      ++program_.borrowed_operands;
    } else {
      ++program_.packed_operands;
      program_.packed_elements += pack.elements;
    }
  }

  /// The outer loop over the destination's labels, reading A and B with the given strides.
  void loop_over_destination(const ContractOperand& a_read, const ContractOperand& b_read) {
    for (char l : dest_labels_) {
      program_.outer.shape.push_back(ext_[l]);
      program_.outer.out.push_back(dest_stride(l));
      program_.outer.a.push_back(stride_in(a_read, l));
      program_.outer.b.push_back(stride_in(b_read, l));
    }
  }

  /// No contracted label: an elementwise product with broadcast strides; an operand carrying
  /// summed-only labels is reduced first. With no free labels either, the all-batch contraction.
  void plan_elementwise_product() {
    program_.route = ContractionRoute::ElementwiseProduct;
    program_.all_batch = roles_.left_free.empty() && roles_.right_free.empty() && roles_.summed_a.empty() &&
                         roles_.summed_b.empty();
    CompactTable table_a, table_b;
    if (!roles_.summed_a.empty())
      program_.pack_a =
          reduce_pack(a_, roles_.summed_a, kept_labels(a_, roles_.summed_a, ext_), ext_, &table_a);
    if (!roles_.summed_b.empty())
      program_.pack_b =
          reduce_pack(b_, roles_.summed_b, kept_labels(b_, roles_.summed_b, ext_), ext_, &table_b);
    loop_over_destination(as_read(a_, program_.pack_a, table_a), as_read(b_, program_.pack_b, table_b));
    count_operand(program_.pack_a);
    count_operand(program_.pack_b);
  }

  /// Tiny items: one strided kernel, no packing, summed-only labels broadcast in the inner loop.
  void plan_direct() {
    program_.route = ContractionRoute::Direct;
    loop_over_destination(a_, b_);
    for (const LabelList* group : {&roles_.contracted, &roles_.summed_a, &roles_.summed_b}) {
      for (char l : *group) {
        program_.inner.shape.push_back(ext_[l]);
        program_.inner.a.push_back(stride_in(a_, l));
        program_.inner.b.push_back(stride_in(b_, l));
      }
    }
    program_.borrowed_operands = 2;
  }

  /// The caller's destination as an operand, to fit label orders to; empty when the layout is free.
  ContractOperand destination_operand() const {
    ContractOperand dest;
    if (!free_layout_) {
      dest.labels = dest_labels_;
      dest.shape = program_.dest.shape;
      dest.strides = program_.dest.out;
    }
    return dest;
  }

  /// Tries the candidate orders of M, N and K and keeps the one that packs the fewest elements (a
  /// destination written through scratch counts twice: written, then copied); the first on a tie.
  GemmLayout choose_gemm_layout(const ContractOperand& dest) const {
    const bool borrow_a = roles_.summed_a.empty(), borrow_b = roles_.summed_b.empty();
    const ContractOperand* fixed_dest = free_layout_ ? nullptr : &dest;
    const ContractOperand* a_as_is = borrow_a ? &a_ : nullptr;
    const ContractOperand* b_as_is = borrow_b ? &b_ : nullptr;
    const OrderCandidates row_orders = order_candidates(roles_.left_free, fixed_dest, a_as_is);
    const OrderCandidates col_orders = order_candidates(roles_.right_free, fixed_dest, b_as_is);
    const OrderCandidates inner_orders = order_candidates(roles_.contracted, a_as_is, b_as_is);

    const index_t batch_items = product(roles_.batch, ext_);
    const index_t rows = product(roles_.left_free, ext_), cols = product(roles_.right_free, ext_),
                  inner = product(roles_.contracted, ext_);
    const index_t size_a = rows * inner * batch_items;
    const index_t size_b = inner * cols * batch_items;
    const index_t size_c = rows * cols * batch_items;
    auto a_stride = [&](char l) { return stride_in(a_, l); };
    auto b_stride = [&](char l) { return stride_in(b_, l); };
    auto c_stride = [&](char l) { return dest_stride(l); };
    index_t best_cost = -1;
    GemmLayout best;
    for (int r = 0; r < row_orders.count; ++r) {
      for (int c = 0; c < col_orders.count; ++c) {
        for (int i = 0; i < inner_orders.count; ++i) {
          GemmLayout trial{row_orders.order[r], col_orders.order[c], inner_orders.order[i], {}, {}, {}};
          if (borrow_a) trial.a = matrix_form(trial.rows, trial.inner, ext_, a_stride);
          if (borrow_b) trial.b = matrix_form(trial.inner, trial.cols, ext_, b_stride);
          if (free_layout_)
            trial.c.ok = true;
          else
            trial.c = matrix_form(trial.rows, trial.cols, ext_, c_stride);
          const index_t cost =
              (trial.a.ok ? 0 : size_a) + (trial.b.ok ? 0 : size_b) + (trial.c.ok ? 0 : 2 * size_c);
          if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = trial;
          }
        }
      }
    }
    return best;
  }

  /// A GEMM operand BLAS cannot take as it lies (or that carries summed-only labels) is packed
  /// compact into `order`; returns the form the GEMM reads it in.
  MatrixForm pack_gemm_operand(const ContractOperand& op, const LabelList& summed, const LabelList& order,
                               MatrixForm as_is, index_t packed_rows, PackStep* pack,
                               CompactTable* table) const {
    if (!summed.empty()) {
      *pack = reduce_pack(op, summed, order, ext_, table);
    } else if (!as_is.ok) {
      *pack = copy_pack(op, order, ext_, table);
    } else {
      return as_is;
    }
    return MatrixForm{true, 1, packed_rows};
  }

  /// The GEMM writes the destination directly when it fits (or the plan chose its layout), else a
  /// compact scratch product in `order` that one strided copy (`finish`) moves into the destination.
  MatrixForm place_gemm_output(const LabelList& order, MatrixForm as_is, index_t rows,
                               CompactTable* scratch) {
    const MatrixForm compact{true, 1, rows};
    if (free_layout_) return compact;
    if (as_is.ok) return as_is;
    program_.out_via_scratch = true;
    scratch->append(order, ext_);
    program_.out_scratch_elements = scratch->elements();
    for (char l : dest_labels_) {
      program_.finish.shape.push_back(ext_[l]);
      program_.finish.out.push_back(dest_stride(l));
      program_.finish.a.push_back(scratch->of(l));
    }
    return compact;
  }

  /// The batch loop over `order`, merging adjacent labels that all three operands step through as
  /// through one.
  template <class CStride>
  void merge_batch_axes(const LabelList& order, CStride c_stride, const ContractOperand& a_read,
                        const ContractOperand& b_read) {
    StridedLoop& batch = program_.batch;
    for (char l : order) {
      const index_t sc = c_stride(l), sa = stride_in(a_read, l), sb = stride_in(b_read, l);
      const std::size_t r = batch.shape.size();
      if (r > 0 && sc == batch.out[r - 1] * batch.shape[r - 1] && sa == batch.a[r - 1] * batch.shape[r - 1] &&
          sb == batch.b[r - 1] * batch.shape[r - 1]) {
        batch.shape[r - 1] *= ext_[l];
        continue;
      }
      batch.shape.push_back(ext_[l]);
      batch.out.push_back(sc);
      batch.a.push_back(sa);
      batch.b.push_back(sb);
    }
  }

  /// GEMM lowering: label orders within M, N and K chosen so that as much as possible is borrowed,
  /// then the operands packed or borrowed, the output placed, and the batch axes merged.
  void plan_gemm() {
    program_.route = roles_.batch.empty() ? ContractionRoute::Gemm : ContractionRoute::BatchedGemm;
    const ContractOperand dest = destination_operand();
    const GemmLayout layout = choose_gemm_layout(dest);
    // Batch labels in the destination's memory order (streaming writes across items).
    const LabelList batch_order = free_layout_ ? roles_.batch : memory_order(roles_.batch, dest);
    if (free_layout_) choose_result_layout(concat(layout.rows, layout.cols, batch_order));
    program_.gm = product(layout.rows, ext_);
    program_.gn = product(layout.cols, ext_);
    program_.gk = product(layout.inner, ext_);

    CompactTable table_a, table_b, table_c;
    program_.a_form = pack_gemm_operand(a_, roles_.summed_a, concat(layout.rows, layout.inner, batch_order),
                                        layout.a, program_.gm, &program_.pack_a, &table_a);
    program_.b_form = pack_gemm_operand(b_, roles_.summed_b, concat(layout.inner, layout.cols, batch_order),
                                        layout.b, program_.gk, &program_.pack_b, &table_b);
    const ContractOperand a_read = as_read(a_, program_.pack_a, table_a);
    const ContractOperand b_read = as_read(b_, program_.pack_b, table_b);
    count_operand(program_.pack_a);
    count_operand(program_.pack_b);

    program_.c_form =
        place_gemm_output(concat(layout.rows, layout.cols, batch_order), layout.c, program_.gm, &table_c);
    auto c_stride = [&](char l) { return program_.out_via_scratch ? table_c.of(l) : dest_stride(l); };
    merge_batch_axes(batch_order, c_stride, a_read, b_read);
  }

  const ContractOperand& a_;
  const ContractOperand& b_;
  const LabelList& out_labels_;
  const LabelExtents& ext_;
  const index_t* dest_strides_;
  const bool free_layout_;
  const PlanOptions options_;
  const LabelRoles roles_;
  LabelList dest_labels_;  // the destination's non-unit labels, in its order
  ContractionProgram program_;
};

}  // namespace

ContractionProgram plan_binary(const ContractOperand& a, const ContractOperand& b,
                               const LabelList& out_labels, const LabelExtents& ext,
                               const index_t* dest_strides, PlanOptions options) {
  return BinaryPlanner(a, b, out_labels, ext, dest_strides, options).plan();
}

}  // namespace tfbench::impl

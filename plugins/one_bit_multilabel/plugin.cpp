// Registrations of the one-bit single-label multi-label plugin (docs/plugins/one_bit_mll.md,
// docs/plugins/multilabel_baselines.md, docs/plugins/multilabel_metrics.md).
#include <algorithm>
#include <memory>

#include "baselines.hpp"
#include "label_metrics.hpp"
#include "one_bit_mll.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone::one_bit {
namespace {

constexpr const char* kPaper = "Qiu, Luo, Ye & Lin 2017, Nonconvex One-bit Single-label Multi-label Learning";
constexpr const char* kBaselinePage = "docs/plugins/multilabel_baselines.md";

/// Instances of a batch baseline's training set: `training_size`, else one pass of a finite source.
double training_instances(const BaselineSettings& o, const DataFootprint& data) {
  return o.training_size ? served_instances(data, static_cast<double>(*o.training_size)) : data.training_instances;
}

/// The initialisation (its batch and eigensolver on the 2k-column dilation) or a power step (a fresh
/// batch, the residual and the forward map over every measurement), plus the dilation basis.
Footprint one_bit_footprint(const Params& p, const FootprintContext& c) {
  const OneBitMllOptions o(p);
  const DataFootprint& data = c.data;
  const double unset = data.training_instances > 0 ? data.training_instances  // finite: the whole set
                                                   : static_cast<double>(BatchReader::endless_batch_size);
  const double n = o.batch_size ? served_instances(c.data, static_cast<double>(*o.batch_size)) : unset;
  const double n0 = served_instances(c.data, initializer_batch_size(p).value_or(n));
  const double m = data.measurements_per_instance;
  const double d1 = static_cast<double>(data.shape.d1), d2 = static_cast<double>(data.shape.d2);
  const Index k = o.rank;
  const double start = batch_bytes(data, n0) + eigensolver_bytes(data.shape.d1, data.shape.d2, k, 2 * 8.0 * n0);
  const double step = batch_bytes(data, n) + 3 * dense_bytes(n, m) + product_packing_bytes(d1, n);  // the batch holds y
  Footprint f;
  f.add(start > step ? "initialisation on " + format_count(n0) + " instances" : "power step on " + format_count(n) + " instances",
        std::max(start, step));
  f.add("dilation basis and model (2k columns, with copies)", 6 * dense_bytes(d1 + d2, 2.0 * static_cast<double>(k)));
  return f;
}

/// The training set held for the run and the Newton–CG vectors over its measurements.
Footprint leml_footprint(const Params& p, const FootprintContext& c) {
  const LemlOptions o(p);
  const DataFootprint& data = c.data;
  const double n = training_instances(o, data);
  Footprint f;
  f.add("training set of " + format_count(n) + " instances and the Newton–CG vectors over its labels",
        batch_bytes(data, n) + 8 * dense_bytes(n, data.measurements_per_instance) +
            product_packing_bytes(static_cast<double>(data.shape.d1), n));
  return f;
}

/// Dense d1 × d2 weights: the training set, n × d2 score temporaries (every label is scored) and
/// about nine d1 × d2 matrices in the solver (Newton–CG for the SVM, SVD thresholding for the trace norm).
Footprint dense_weights_footprint(const Params& p, const FootprintContext& c) {
  const OvaSvmOptions o(p);
  const DataFootprint& data = c.data;
  const double n = training_instances(o, data);
  const double d1 = static_cast<double>(data.shape.d1), d2 = static_cast<double>(data.shape.d2);
  Footprint f;
  f.add("training set of " + format_count(n) + " instances, its scores for every label",
        batch_bytes(data, n) + 2 * dense_bytes(n, d2) + 6 * dense_bytes(n, data.measurements_per_instance) +
            product_packing_bytes(d1, n));
  f.add("dense weights and the solver's copies (d1 × d2)", 9 * dense_bytes(d1, d2) + dense_bytes(d2, d2));
  return f;
}

/// The data the conformance checks run these estimators and metrics on: a finite one-bit
/// single-label problem (20 features, 6 labels, rank 2) with a fully labelled test set.
Json example_data() {
  return {{"name", "synthetic"}, {"operator", "single_label"}, {"d", 20}, {"d2", 6}, {"rank", 2}, {"truth", "unit_columns"},
          {"link", "sign"}, {"size", 3000}, {"test_size", 100}, {"test_full_labels", true}};
}

Registration one_bit_registration() {
  Registration r;
  r.example_data = example_data();
  r.kind = Kind::estimator;
  r.name = "one_bit_mll";
  r.summary = "one-bit single-label multi-label learning: alternating power iteration on the Hermitian dilation "
              "of W + √d2/(mλ)·𝒜'(y − sign(𝒜(W))), fresh batch per iteration";
  r.citation =
      std::string(kPaper) + ", Algorithm 1 (H of Eq. 4; dilation blocks corrected: docs/papers/one-bit-multilabel.md)";
  r.doc_page = "docs/plugins/one_bit_mll.md";
  r.schema = OneBitMllOptions::schema();
  IterativeEstimator::declare_policy(r.schema, {.init = "spectral_init"});
  r.example = {{"batch_size", 500}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<OneBitMultilabel>(OneBitMllOptions(p));
  };
  r.footprint = one_bit_footprint;
  return r;
}

Registration leml_registration() {
  Registration r;
  r.example_data = example_data();
  r.kind = Kind::estimator;
  r.name = "leml";
  r.summary = "LEML: W = UV', loss on observed labels + λ(‖U‖²+‖V‖²), alternating Newton–CG per factor";
  r.citation = "Yu, Jain, Kar & Dhillon 2014, Large-scale Multi-label Learning with Missing Labels (ICML), Eq. (2) "
               "and Section 3; the baseline of " + std::string(kPaper) + ", Tables 1-2";
  r.doc_page = kBaselinePage;
  r.schema = LemlOptions::schema();
  IterativeEstimator::declare_policy(r.schema, {.init = "random_init"});
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<Leml>(LemlOptions(p));
  };
  r.footprint = leml_footprint;
  return r;
}

Registration svm_registration() {
  Registration r;
  r.example_data = example_data();
  r.kind = Kind::estimator;
  r.name = "ova_svm";
  r.summary = "one-vs-all linear L2-SVMs (squared hinge + λ‖W‖²_F), generalised Newton–CG; no low-rank constraint";
  r.citation = std::string(kPaper) + ", Table 2 (SVM)";
  r.doc_page = kBaselinePage;
  r.schema = OvaSvmOptions::schema();
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<OneVsAllSvm>(OvaSvmOptions(p));
  };
  r.footprint = dense_weights_footprint;
  return r;
}

Registration recovery_error_registration() {
  Registration r;
  r.kind = Kind::metric;
  r.name = "recovery_error";
  r.summary = "‖W − W*‖₂ (absolute spectral norm), optionally with W's columns scaled to unit norm";
  r.citation = std::string(kPaper) + ", Theorem 1 and Figure 1 (recovery error)";
  r.doc_page = "docs/plugins/multilabel_metrics.md";
  r.schema.boolean("normalize_columns", false, "scale every column of W to unit norm first (W* has unit columns)");
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<RecoveryError>(p.boolean("normalize_columns"));
  };
  r.footprint = [](const Params&, const FootprintContext& c) {  // dense when a model removes its diagonal
    Footprint f;
    if (c.data.zero_diagonal_model)
      f.add("dense comparison of zero-diagonal models (d1 × d2)",
            dense_spectrum_bytes(static_cast<double>(c.data.shape.d1), static_cast<double>(c.data.shape.d2)));
    return f;
  };
  return r;
}

Registration precision_registration() {
  Registration r;
  r.example_data = example_data();
  r.kind = Kind::metric;
  r.name = "precision_at_k";
  r.summary = "fraction of each test instance's k top-scored labels that are positive, averaged over instances";
  r.citation = "Standard multi-label ranking metric (e.g. Yu et al. 2014, Section 6; Bhatia et al. 2015)";
  r.doc_page = "docs/plugins/multilabel_metrics.md";
  r.schema.integer("k", 1, "labels ranked per instance").at_least(1);
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<PrecisionAtK>(p.integer("k"));
  };
  r.footprint = [](const Params&, const FootprintContext& c) {  // every label of every test instance scored
    Footprint f;
    f.add("scores of every test label", 3 * dense_bytes(c.data.test_instances, static_cast<double>(c.data.shape.d2)));
    return f;
  };
  return r;
}

PluginDescriptor describe_one_bit_multilabel() {
  PluginDescriptor d;
  d.registrations.push_back(one_bit_registration());
  d.registrations.push_back(leml_registration());
  d.registrations.push_back(svm_registration());
  d.registrations.push_back(recovery_error_registration());
  d.registrations.push_back(precision_registration());
  return d;
}

}  // namespace
}  // namespace rankone::one_bit

RANKONE_PLUGIN(rankone::one_bit::describe_one_bit_multilabel)


TEST_CASE("@name@ recovers a planted model from noiseless data") {
  using namespace rankone;
  // y = x'w* + x'M*x, Gaussian x, d = 20, M* of rank 2 with eigenvalues of both signs, no noise.
  const Json data_ref = {{"name", "synthetic"}, {"d", 20}, {"rank", 2}, {"w_norm", 1.0},
                         {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
  ValidationContext ctx(registry(), nullptr);
  auto data = registry().create<DataSource>(validate_plugin_ref(data_ref, Kind::data_source, ctx, ""), Kind::data_source);
  data->open(1);
  const Json estimator_ref = {{"name", "@name@"}, {"rank", 2}, {"batch_size", 4000}, {"max_iterations", 40}};
  auto estimator = registry().create<Estimator>(validate_plugin_ref(estimator_ref, Kind::estimator, ctx, ""), Kind::estimator);
  Rng rng(2);
  estimator->start(*data, rng);
  while (estimator->step(*data)) {
  }
  INFO(estimator->summary().message);
  LowRankModel estimate = estimator->estimate(), truth = *data->truth();
  estimate.symmetrize = truth.symmetrize = true;  // x'Mx sees only the symmetric part of M
  const double error = difference_norms(estimate, &truth).frobenius / difference_norms(truth, nullptr).frobenius;
  CHECK(error < 1e-6);
  CHECK(estimator->summary().status == Status::converged);
}

TEST_CASE("@name@ recovers a planted model from noiseless data") {
  using namespace rankone;
  // y_i = <A_i, M*> with dense Gaussian A_i (the Gaussian ensemble), 20 × 20, M* of rank 2, 400
  // noiseless measurements (5k(d1 + d2)): a finite training set.
  const Json data_ref = {{"name", "synthetic"}, {"operator", "gaussian_ensemble"}, {"d", 20}, {"rank", 2},
                         {"truth", "general"}, {"size", 400}};
  ValidationContext ctx(registry(), nullptr);
  auto data = registry().create<DataSource>(validate_plugin_ref(data_ref, Kind::data_source, ctx, ""), Kind::data_source);
  data->open(1);
  const Json estimator_ref = {{"name", "@name@"}, {"rank", 2}};
  auto estimator = registry().create<Estimator>(validate_plugin_ref(estimator_ref, Kind::estimator, ctx, ""), Kind::estimator);
  Rng rng(2);
  estimator->start(*data, rng);
  while (estimator->step(*data)) {
  }
  INFO(estimator->summary().message);
  const LowRankModel estimate = estimator->estimate(), truth = *data->truth();
  const double error = difference_norms(estimate, &truth).frobenius / difference_norms(truth, nullptr).frobenius;
  CHECK(error < 1e-6);
  CHECK(estimator->summary().status == Status::converged);
}


TEST_CASE("@name@ measures what the built-in symmetric_rank_one measures") {
  using namespace rankone;
  ValidationContext ctx(registry(), nullptr);
  auto mine = registry().create<SensingOperator>(validate_plugin_ref(Json{{"name", "@name@"}}, Kind::sensing_operator, ctx, ""),
                                                 Kind::sensing_operator);
  auto reference = registry().create<SensingOperator>(
      validate_plugin_ref(Json{{"name", "symmetric_rank_one"}, {"first_order", false}}, Kind::sensing_operator, ctx, ""),
      Kind::sensing_operator);
  Rng rng(4);
  Matrix X(8, 30), L(8, 2), R(8, 2);
  rng.fill_normal(X.data(), X.size());
  rng.fill_normal(L.data(), L.size());
  rng.fill_normal(R.data(), R.size());
  Batch batch;
  batch.left = DesignSide::make_dense(X);
  batch.y = Vector::Zero(30);
  LowRankModel model;
  model.left = L;
  model.right = R;
  const Vector expected = reference->forward(batch, model);
  CHECK((mine->forward(batch, model) - expected).norm() <= 1e-12 * expected.norm());
}

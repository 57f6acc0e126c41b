
TEST_CASE("@name@ agrees with the built-in relative_error_M") {
  using namespace rankone;
  ValidationContext ctx(registry(), nullptr);
  auto data = registry().create<DataSource>(validate_plugin_ref(Json{{"name", "synthetic"}, {"d", 15}, {"rank", 3}}, Kind::data_source, ctx, ""),
                                            Kind::data_source);
  data->open(6);
  LowRankModel estimate = *data->truth();
  estimate.left *= 1.1;  // 10 % off
  auto mine = registry().create<Metric>(validate_plugin_ref(Json{{"name", "@name@"}}, Kind::metric, ctx, ""), Kind::metric);
  auto reference = registry().create<Metric>(
      validate_plugin_ref(Json{{"name", "relative_error_M"}, {"norm", "frobenius"}}, Kind::metric, ctx, ""), Kind::metric);
  const MetricContext context{estimate, data->truth(), nullptr, data->sensing_operator(), data->link(), 0, 0.0, 0};
  const double expected = reference->evaluate(context).at(0).second;
  CHECK(expected == Approx(0.1));
  CHECK(mine->evaluate(context).at(0).second == Approx(expected).epsilon(1e-10));
}

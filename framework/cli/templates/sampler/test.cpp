
TEST_CASE("@name@ draws designs of the requested variance") {
  using namespace rankone;
  ValidationContext ctx(registry(), nullptr);
  auto sampler = registry().create<Sampler>(validate_plugin_ref(Json{{"name", "@name@"}, {"variance", 4.0}}, Kind::sampler, ctx, ""),
                                            Kind::sampler);
  DesignSide side;
  Rng rng(3);
  sampler->sample(rng, 10, 20000, side);
  const Matrix x = side.to_dense();
  const double variance = x.array().square().mean() - x.mean() * x.mean();
  CHECK(sampler->moments(10).variance == Approx(4.0));
  CHECK(variance == Approx(4.0).epsilon(0.02));  // 200 000 draws: standard error 0.5 %
}


TEST_CASE("@name@ serves noiseless measurements of its truth") {
  using namespace rankone;
  ValidationContext ctx(registry(), nullptr);
  auto source = registry().create<DataSource>(validate_plugin_ref(Json{{"name", "@name@"}, {"d", 12}}, Kind::data_source, ctx, ""),
                                              Kind::data_source);
  source->open(5);
  const Batch batch = source->next(50);
  REQUIRE(batch.size() == 50);
  const Vector expected = source->sensing_operator().forward(batch, *source->truth());
  CHECK((batch.y - expected).norm() <= 1e-12 * expected.norm());
}

// Registry and plugin loader: every error a user can meet names the library and what was expected.
#include <catch2/catch.hpp>

#include <fstream>

#include "rankone/plugin/plugin_api.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

const fs::path bad_dir = RANKONE_BAD_PLUGIN_DIR;

std::string load_error(const fs::path& lib) {
  Registry r;
  r.load_default();
  try {
    r.load_library(lib);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the build's plugin folder is found without any environment variable", "[registry]") {
  Registry r;
  r.load_default();
  CHECK(fs::is_directory(Registry::default_plugin_folder()));
  CHECK(r.contains("gaussian"));
  CHECK(r.contains("symmetric_rank_one"));
  CHECK(r.contains("synthetic"));
  CHECK(r.contains("spectral"));
  CHECK(r.contains("combined_error"));
}

TEST_CASE("loading the same library twice is harmless", "[registry]") {
  Registry r;
  r.load_default();
  const auto n = r.all().size();
  r.load_folder(Registry::default_plugin_folder());
  CHECK(r.all().size() == n);
}

TEST_CASE("an API version mismatch names the library and both versions", "[registry]") {
  const std::string msg = load_error(bad_dir / "libbad_api_mismatch.so");
  CHECK_THAT(msg, Catch::Contains("libbad_api_mismatch.so"));
  CHECK_THAT(msg, Catch::Contains("999"));
  CHECK_THAT(msg, Catch::Contains("expects " + std::to_string(kPluginApiVersion)));
}

TEST_CASE("a build fingerprint mismatch names the library and both fingerprints", "[registry]") {
  const std::string msg = load_error(bad_dir / "libbad_fingerprint_mismatch.so");
  CHECK_THAT(msg, Catch::Contains("libbad_fingerprint_mismatch.so"));
  CHECK_THAT(msg, Catch::Contains("built-elsewhere"));
  CHECK_THAT(msg, Catch::Contains(core_build_fingerprint()));
}

TEST_CASE("a plugin compiled for another instruction set is refused, naming both", "[registry]") {
  const std::string msg = load_error(bad_dir / "libbad_isa_mismatch.so");
  CHECK_THAT(msg, Catch::Contains("libbad_isa_mismatch.so"));
  CHECK_THAT(msg, Catch::Contains(core_build_fingerprint()));
  CHECK_THAT(msg, Catch::Contains(";isa="));
  CHECK(std::string(core_build_fingerprint()).find(";isa=") != std::string::npos);
}

TEST_CASE("a duplicate name names both libraries", "[registry]") {
  const std::string msg = load_error(bad_dir / "libbad_duplicate_name.so");
  CHECK_THAT(msg, Catch::Contains("duplicate plugin name 'gaussian'"));
  CHECK_THAT(msg, Catch::Contains("libbad_duplicate_name.so"));
  CHECK_THAT(msg, Catch::Contains("librankone_samplers.so"));
}

TEST_CASE("a library without the entry point is rejected", "[registry]") {
  const std::string msg = load_error(bad_dir / "libbad_not_a_plugin.so");
  CHECK_THAT(msg, Catch::Contains("is not a RankOne plugin"));
}

TEST_CASE("missing and corrupt library files are clear errors", "[registry]") {
  CHECK_THAT(load_error(bad_dir / "libdoes_not_exist.so"), Catch::Contains("plugin library not found"));
  const fs::path corrupt = fs::temp_directory_path() / "rankone_corrupt_plugin.so";
  {
    std::ofstream out(corrupt, std::ios::binary);
    out << "this is not an ELF file";
  }
  const std::string msg = load_error(corrupt);
  CHECK_THAT(msg, Catch::Contains("cannot load plugin library"));
  CHECK_THAT(msg, Catch::Contains("rankone_corrupt_plugin.so"));
  CHECK_THAT(msg, Catch::Contains("file too short"));  // the dynamic loader's reason, not Boost's errno
  fs::remove(corrupt);
}

TEST_CASE("a library that registers one name twice is rejected whole", "[registry]") {
  Registry r;
  r.load_default();
  const auto before = r.all().size();
  CHECK_THROWS_WITH(r.load_library(bad_dir / "libbad_duplicate_within.so"),
                    Catch::Contains("duplicate plugin name 'twice_registered': registered twice by") &&
                        Catch::Contains("libbad_duplicate_within.so"));
  CHECK_FALSE(r.contains("twice_registered"));
  CHECK(r.all().size() == before);
}

TEST_CASE("errors from RANKONE_PLUGIN_PATH say so; a folder there loads every library in it", "[registry]") {
  test::ScratchDir s("plugin_path_folder");
  s.write("librankone_corrupt.so", "a text file that is long enough to be read as an ELF header by the loader\n");
  ::setenv("RANKONE_PLUGIN_PATH", s.path().c_str(), 1);
  Registry r;
  CHECK_THROWS_WITH(r.load_default(), Catch::StartsWith("RANKONE_PLUGIN_PATH: cannot load plugin library " +
                                                        (s.path() / "librankone_corrupt.so").string()));
  fs::remove(s.path() / "librankone_corrupt.so");
  fs::copy_file(bad_dir / "libbad_duplicate_name.so", s.path() / "libdup.so");
  Registry dup;
  CHECK_THROWS_WITH(dup.load_default(), Catch::StartsWith("RANKONE_PLUGIN_PATH: duplicate plugin name 'gaussian'") &&
                                            Catch::Contains((s.path() / "libdup.so").string()));
  ::unsetenv("RANKONE_PLUGIN_PATH");
}

TEST_CASE("an unknown name lists what exists and the closest match", "[registry]") {
  const auto& r = test::registry();
  try {
    r.get("gausian", Kind::sampler);
    FAIL("expected an error");
  } catch (const PluginError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("unknown sampler 'gausian'"));
    CHECK_THAT(msg, Catch::Contains("did you mean 'gaussian'"));
    CHECK_THAT(msg, Catch::Contains("bernoulli"));
  }
  CHECK_THROWS_WITH(r.get("gaussian", Kind::estimator), Catch::Contains("'gaussian' is a sampler, but an estimator is expected"));
}

TEST_CASE("RANKONE_PLUGIN_PATH adds libraries", "[registry]") {
  ::setenv("RANKONE_PLUGIN_PATH", (bad_dir / "libbad_api_mismatch.so").c_str(), 1);
  Registry r;
  CHECK_THROWS_WITH(r.load_default(), Catch::Contains("libbad_api_mismatch.so"));
  ::unsetenv("RANKONE_PLUGIN_PATH");
}

TEST_CASE("edit distance", "[registry]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("same", "same") == 0);
}

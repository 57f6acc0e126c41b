// Entry point of the sources library: the registrations of every data source in this folder.
#include "rankone/plugin/plugin_api.hpp"
#include "synthetic.hpp"

#ifdef RANKONE_HAVE_FILE_SOURCES
#include "csv_source.hpp"
#include "idx_source.hpp"
#include "image_source.hpp"
#include "libsvm_source.hpp"
#include "ratings_source.hpp"
#endif

namespace rankone::sources {

PluginDescriptor describe_sources() {
  PluginDescriptor d;
  d.registrations.push_back(synthetic_registration());
#ifdef RANKONE_HAVE_FILE_SOURCES
  d.registrations.push_back(libsvm_registration());
  d.registrations.push_back(csv_registration());
  d.registrations.push_back(idx_registration());
  d.registrations.push_back(ratings_registration());
  d.registrations.push_back(image_registration());
#endif
  return d;
}

}  // namespace rankone::sources

RANKONE_PLUGIN(rankone::sources::describe_sources)

#pragma once
/// \file Umbrella header: everything a plugin needs (interfaces, parameters, registry and entry
/// point, batches, the spectral estimate and BatchReader). The conformance checks a plugin's tests
/// run are in rankone/conformance/conformance.hpp.
#include "rankone/core/batch.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/options_table.hpp"
#include "rankone/core/params.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/core/threads.hpp"
#include "rankone/core/types.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/estimation/spectral.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/interfaces/footprint.hpp"
#include "rankone/interfaces/initializer.hpp"
#include "rankone/interfaces/metric.hpp"
#include "rankone/interfaces/sampler.hpp"
#include "rankone/interfaces/sensing_operator.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/plugin/plugin_api.hpp"
#include "rankone/plugin/registry.hpp"

#pragma once
/// \file A portable build's last step to bitwise-reproducible results across x86-64 machines.

namespace rankone::cli {

/// glibc picks variants of exp, log, pow, sin… at run time by the CPU's features, and its FMA
/// variants round differently in the last bit from the baseline ones (measured: docs/PERFORMANCE.md
/// #instruction-set). In a portable build (RANKONE_ARCH=portable) this re-executes the process once
/// with GLIBC_TUNABLES masking AVX2, FMA and AVX-512, so that libm computes the same on every machine;
/// trial hosts and MPI ranks inherit the setting. Does nothing in a native build, or when the
/// setting is already there, or when re-executing fails (the run then goes on unpinned).
void pin_baseline_libm(char** argv);

}  // namespace rankone::cli

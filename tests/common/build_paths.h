// The paths the tests find the built programs and the sources by. Defined in
// build_paths.cpp, which meson generates from build_paths.cpp.in
// (tests/meson.build): only that file names this clone's folders, so every
// other test object compiles alike in every clone and ccache reuses it (CI
// builds in a fresh clone in a new folder; paths in compile arguments made
// each test object miss).
#pragma once

namespace vmafexact::test {

// The built vmafexact tool and vmafexact-monitor ("" with -Dmonitor=disabled).
extern const char* const kCliPath;
extern const char* const kMonitorPath;
// The repository's root.
extern const char* const kSourceRoot;
// The folder holding fixtures/: -Dshared_dir, else the repository's tests/
// (VMAFEXACT_SHARED_DIR overrides it at run time: fixtures.h, shared_dir()).
extern const char* const kDefaultSharedDir;
// A small linear model (tests/fuzz/corpus/model_json/linear.json).
extern const char* const kModelFile;
// SciPy's BD-rate, the reference of the BD-rate tests (tests/tools/bd_rate_reference.py).
extern const char* const kBdRateReference;

}  // namespace vmafexact::test

// Where this vmafexact was built: its build folder and the plugin's folder in
// it, so that run from the build tree it finds the plugin built beside it
// (main.cpp). Defined in build_tree.cpp, which meson generates from
// build_tree.cpp.in: only that file names this clone's folders, so the tool's
// other objects compile alike in every clone and ccache reuses them (CI builds
// in a fresh clone in a new folder).
#pragma once

namespace vmafexact::cli {

extern const char* const kBuildRoot;
extern const char* const kBuildPluginDir;

}  // namespace vmafexact::cli

# Sourced by test.sh and sanitize.sh: lets ccache (which meson uses when it is
# installed) reuse objects compiled in another clone of the repository. CI
# builds in a fresh clone in a new folder each time; without these, the
# folder's path is part of every object's cache key (paths under it, and the
# working directory of -g builds), so every CI run compiled everything again.
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo}"
  # -g objects name their folder in the debug info; a cached one may name
  # another clone's, which only shows in a debugger's source paths.
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
fi

#!/bin/bash
# install.sh - the installed package works for the programs that use it:
# `cmake --install` into a temporary prefix puts every piece in place,
# libcachet.so exports the public API only, the embedding example of
# include/cachet/cachet.h builds and runs against the install both with
# pkg-config and with CMake's find_package(cachet), every man page renders,
# and the Python module (when built) imports from the install.
# Usage: install.sh BUILD-DIR CC CMAKE [PYTHON PYTHON-DIR]
BUILD=${1:?usage: $0 BUILD-DIR CC CMAKE [PYTHON PYTHON-DIR]}
CC=${2:-cc}
CMAKE=${3:-cmake}
PYTHON=${4:-}
PYDIR=${5:-}
source "$(dirname "$0")/cli/lib.bash" "$BUILD/cachet"
P="$TMP/prefix"

expect_status 0 "cmake --install" "$CMAKE" --install "$BUILD" --prefix "$P"
for f in bin/cachet lib/libcachet.a lib/libcachet.so lib/libcachet.so.0 \
         include/cachet/cachet.h include/cachet/sim.h lib/pkgconfig/cachet.pc \
         lib/cmake/cachet/cachetConfig.cmake lib/cmake/cachet/cachetConfigVersion.cmake \
         lib/cmake/cachet/cachetTargets.cmake share/cachet/configs/default.ini \
         share/cachet/configs/sweeps/l1d-size-assoc.ini \
         share/bash-completion/completions/cachet share/man/man1/cachet.1 \
         share/man/man1/cachet-run.1; do
    check "installed $f" test -e "$P/$f"
done

# the library: a versioned SONAME, and only functions the headers declare
expect_eq "$(objdump -p "$P/lib/libcachet.so" | awk '$1 == "SONAME" {print $2}')" \
    "libcachet.so.0" "SONAME"
sed -n 's/^[[:space:]]*\(ct_[a-z0-9_]*\);$/\1/p' "$BUILD/cachet.map" | sort > "$TMP/declared"
nm -D --defined-only "$P/lib/libcachet.so" | awk '$2 ~ /[TDBR]/ {print $3}' | sed 's/@.*//' |
    sort > "$TMP/exported"
expect_eq "$(comm -13 "$TMP/declared" "$TMP/exported" | tr '\n' ' ')" "" \
    "exported symbols the headers do not declare"
check "ct_sim_create is exported" grep -qx ct_sim_create "$TMP/exported"
check "ct_sim_feed is exported" grep -qx ct_sim_feed "$TMP/exported"
check "internals are hidden" test "$(grep -c '^ct_cache_init$' "$TMP/exported")" = 0
check "declared functions are exported (>= 100)" test "$(wc -l < "$TMP/exported")" -ge 100

# the example in the public header, word for word
sed -n '/--- example begin ---/,/--- example end ---/p' "$P/include/cachet/cachet.h" |
    sed '1d;$d' | sed 's/^ \*   \{0,1\}//; s/^ \*$//' > "$TMP/example.c"
check "the header has an example" grep -q ct_sim_feed "$TMP/example.c"

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
expect_status 0 "pkg-config finds cachet" pkg-config --exists cachet
# shellcheck disable=SC2046
expect_status 0 "example built with pkg-config" \
    "$CC" -Wall -Wextra -Werror -o "$TMP/ex-pc" "$TMP/example.c" $(pkg-config --cflags --libs cachet)
expect_status 0 "example (pkg-config) runs" env LD_LIBRARY_PATH="$P/lib" "$TMP/ex-pc"
check "example (pkg-config) prints its counts" grep -qx "l1d: 2048 accesses, 128 misses" "$TMP/out"
# shellcheck disable=SC2046
expect_status 0 "example linked statically with pkg-config --static" \
    "$CC" -o "$TMP/ex-static" "$TMP/example.c" $(pkg-config --cflags cachet) \
    "$P/lib/libcachet.a" $(pkg-config --static --libs cachet | sed 's/-lcachet//')
expect_status 0 "example (static) runs" "$TMP/ex-static"

mkdir -p "$TMP/cm"
cp "$TMP/example.c" "$TMP/cm/"
cat > "$TMP/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(embed C)
find_package(cachet 0.1 REQUIRED)
add_executable(embed example.c)
target_link_libraries(embed PRIVATE cachet::cachet)
CM
expect_status 0 "find_package project configures" \
    "$CMAKE" -S "$TMP/cm" -B "$TMP/cm/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC"
expect_status 0 "find_package project builds" "$CMAKE" --build "$TMP/cm/build"
expect_status 0 "example (find_package) runs" "$TMP/cm/build/embed"
check "example (find_package) prints its counts" grep -qx "l1d: 2048 accesses, 128 misses" "$TMP/out"

# the installed command, with an installed configuration
expect_status 0 "installed cachet runs" "$P/bin/cachet" run -q \
    -c "$P/share/cachet/configs/default.ini" workloads/matmul48-blocked.din.zst

# every man page renders, one per command that cachet --help lists, with a
# synopsis of its command
if command -v man >/dev/null; then
    for cmd in $("$P/bin/cachet" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p'); do
        check "man page of $cmd" test -e "$P/share/man/man1/cachet-$cmd.1"
    done
    for page in "$P"/share/man/man1/*.1; do
        MANPAGER=cat MANWIDTH=80 man -l "$page" > "$TMP/page" 2>"$TMP/err"
        check "man -l $(basename "$page") renders" grep -q "^NAME" "$TMP/page"
        check "man -l $(basename "$page") is quiet" test ! -s "$TMP/err"
        # a SYNOPSIS whose first line is the command the page describes
        # (cachet-sweep.1: "cachet sweep ..."), and no error as its text
        name=$(basename "$page" .1)
        syn=$(sed -n '/^SYNOPSIS/{n;p;q}' "$TMP/page" | tr -s ' ')
        case "$syn" in
            " ${name/-/ } "* | " ${name/-/ }") ok ;;
            *) bad "man -l $(basename "$page"): SYNOPSIS \"$syn\"" ;;
        esac
        if grep -q "unknown command" "$TMP/page"; then bad "$(basename "$page") is an error"; else ok; fi
    done
else
    echo "man not installed: pages not rendered"
fi

# bash completion: the commands come from cachet --help
out=$(bash -c 'source "$1"; COMP_WORDS=("$2" sw); COMP_CWORD=1; _cachet; echo "${COMPREPLY[*]}"' \
      _ "$P/share/bash-completion/completions/cachet" "$P/bin/cachet")
expect_eq "$out" "sweep" "completion of a command"

# the Python module, from the install alone
if [ -n "$PYTHON" ]; then
    expect_status 0 "python3 -c 'import cachet' against the install" \
        env PYTHONPATH="$P/$PYDIR" "$PYTHON" -c \
        'import cachet, sys; s = cachet.Simulator(); s.access("load", 64); print(cachet.__file__); sys.exit(s.stats()["levels"][0]["accesses"] != 1)'
    check "the module imported is the installed one" grep -q "^$P/" "$TMP/out"
else
    echo "the Python module is not built: not checked"
fi

finish

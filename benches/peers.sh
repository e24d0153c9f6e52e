#!/bin/sh
# Builds the peers that benches/family.sh measures canju against, from their public sources:
#   benches/peers.sh DIR [PIKAFISH_SRC] [FELICITY_SRC]
# Each source is a checkout (or unpacked archive) of github.com/official-pikafish/Pikafish
# and github.com/nguyenpham/FelicityEgtb; where one is not given, it is cloned into DIR
# (which needs the internet). Writes DIR/pikafish and DIR/fegtbxq and prints the lines to
# export for family.sh. A peer that cannot be had is skipped with a message.
#
# Pikafish is built without its evaluation network (NNUE_EMBEDDING_OFF) and with the
# network check taken out of `go perft`, which never evaluates: the network is a separate
# 50 MB download, and perft counts the legal move tree alone. FelicityEgtb is built with
# its own script's flags (-O2, the Xiangqi variant; `-include cstring` for a header that
# newer compilers no longer bring in by themselves).
set -eu
out=${1:?usage: benches/peers.sh DIR [PIKAFISH_SRC] [FELICITY_SRC]}
mkdir -p "$out"
out=$(cd "$out" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

source_of() { # name url given-source
    if [ -n "$3" ]; then
        echo "$3"
    elif [ -d "$out/src-$1" ] || git clone -q --depth 1 "$2" "$out/src-$1" 2>/dev/null; then
        echo "$out/src-$1"
    fi
}

pika=$(source_of pikafish https://github.com/official-pikafish/Pikafish "${2:-}")
if [ -n "$pika" ] && [ -f "$pika/src/engine.cpp" ]; then
    work="$out/build-pikafish"
    rm -rf "$work" && cp -r "$pika" "$work"
    # take the network check out of perft alone (see above)
    awk '/Engine::perft\(/ { inperft = 1 } inperft && /verify_network\(\);/ { inperft = 0; next } { print }' \
        "$work/src/engine.cpp" >"$work/src/engine.cpp.new" && mv "$work/src/engine.cpp.new" "$work/src/engine.cpp"
    arch=x86-64
    grep -q bmi2 /proc/cpuinfo 2>/dev/null && arch=x86-64-bmi2
    if make -C "$work/src" -j"$jobs" all ARCH="$arch" COMP=gcc EXTRACXXFLAGS=-DNNUE_EMBEDDING_OFF >"$out/pikafish.log" 2>&1; then
        cp "$work/src/pikafish" "$out/pikafish"
        echo "export PIKAFISH=$out/pikafish   # ARCH=$arch"
    else
        echo "pikafish: the build failed, see $out/pikafish.log" >&2
    fi
else
    echo "pikafish: no source (give a checkout, or allow git clone); skipped" >&2
fi

fel=$(source_of felicity https://github.com/nguyenpham/FelicityEgtb "${3:-}")
if [ -n "$fel" ] && [ -d "$fel/src/xq" ]; then
    work="$out/build-felicity"
    rm -rf "$work" && mkdir -p "$work"
    if (
        cd "$work" &&
        gcc -std=c99 -c "$fel"/src/lzma/*.c -D_7ZIP_ST &&
        for d in "" base xq fegtb fegtbgen; do
            for f in "$fel/src/$d"/*.cpp; do
                echo "$f"
            done
        done | xargs -P "$jobs" -n 4 g++ -c -std=c++17 -O2 -DNDEBUG -D_FELICITY_XQ_ -include cstring &&
        g++ -o "$out/fegtbxq" ./*.o -lpthread
    ) >"$out/felicity.log" 2>&1; then
        echo "export FELICITY=$out/fegtbxq"
    else
        echo "felicity: the build failed, see $out/felicity.log" >&2
    fi
else
    echo "felicity: no source (give a checkout, or allow git clone); skipped" >&2
fi

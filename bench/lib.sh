# Shared steps of the benchmark scripts (sourced, not run). The sourcing
# script sets `here` (bench/), `root` (the checkout) and `out` (bench/out)
# and defines `say` and `fail`.

# Prints the path of the release transitiond: $TRANSITIOND when given
# (checked), else the one `swift build -c release --static-swift-stdlib`
# builds now (its log on stderr).
transitiond_binary() {
    if [ -n "${TRANSITIOND:-}" ]; then
        [ -x "$TRANSITIOND" ] || fail "TRANSITIOND is not an executable: $TRANSITIOND"
        printf '%s\n' "$TRANSITIOND"
        return
    fi
    say "== building transitiond (swift build -c release --static-swift-stdlib --product transitiond)"
    (cd "$root" && swift build -c release --static-swift-stdlib --product transitiond >&2) || fail "swift build failed"
    local bin
    bin="$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)/transitiond"
    [ -x "$bin" ] || fail "transitiond is not an executable: $bin"
    printf '%s\n' "$bin"
}

# Prints the checkout's short commit, with "(+ uncommitted changes)" when
# tracked files differ from it.
commit_label() {
    local commit
    commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit (+ uncommitted changes)"
    fi
    printf '%s\n' "$commit"
}

# Builds bench/evemu-read.c into bench/out/evemu-read, installing
# libevemu's development files first when they are missing. Its pkg-config
# module is called "evemu"; Debian's evemu.pc requires libevdev.pc, so
# pkg-config only answers once libevdev-dev is installed too. The header is
# what decides whether to install.
build_evemu_read() {
    if ! pkg-config --exists evemu 2>/dev/null && [ ! -e /usr/include/evemu.h ]; then
        say "== installing libevemu-dev (apt-get)"
        local sudo=
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        $sudo apt-get install -y libevemu-dev libevdev-dev >&2 || fail "could not install libevemu-dev"
    fi
    local flags
    if flags=$(pkg-config --cflags --libs evemu 2>/dev/null); then :; else flags=-levemu; fi
    say "== building bench/out/evemu-read"
    # shellcheck disable=SC2086  # the flags are words
    gcc -O2 -Wall -o "$out/evemu-read" "$here/evemu-read.c" $flags || fail "cannot build evemu-read.c"
}

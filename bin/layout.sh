# The files an installation of transitiond consists of, laid out under a
# root folder (sourced, not run): used by bin/install (into / with prefix
# /usr/local) and bin/package (into a .deb's tree with prefix /usr).
#
# transitiond_layout ROOT PREFIX UNITDIR SYSUSERSDIR BINARY
#   ROOT        the folder the tree goes into ("/" to install)
#   PREFIX      /usr (a package) or /usr/local (bin/install)
#   UNITDIR     where the systemd units go (/lib/systemd/system, /etc/systemd/system)
#   SYSUSERSDIR where the sysusers.d entry goes (/usr/lib/sysusers.d, /etc/sysusers.d)
#   BINARY      the release binary to install
# The config goes to /etc/transitiond/transitiond.toml unless one is there.
transitiond_layout() {
  local root="$1" prefix="$2" unitdir="$3" sysusersdir="$4" binary="$5"
  local src
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  install -d -m 755 "$root$prefix/bin" "$root$unitdir" "$root$sysusersdir" "$root/etc/transitiond" \
    "$root$prefix/share/man/man1" "$root$prefix/share/man/man5" \
    "$root$prefix/share/bash-completion/completions" "$root$prefix/share/zsh/vendor-completions" \
    "$root$prefix/share/fish/vendor_completions.d" "$root$prefix/share/doc/transitiond"
  install -m 755 "$binary" "$root$prefix/bin/transitiond"
  # The units name /usr/bin/transitiond; elsewhere they name where it is.
  sed "s|/usr/bin/transitiond|$prefix/bin/transitiond|" "$src/systemd/transitiond.service" \
    > "$root$unitdir/transitiond.service"
  install -m 644 "$src/systemd/transitiond.socket" "$root$unitdir/transitiond.socket"
  install -m 644 "$src/systemd/transitiond-websocket.socket" "$root$unitdir/transitiond-websocket.socket"
  install -m 644 "$src/systemd/transitiond-metrics.socket" "$root$unitdir/transitiond-metrics.socket"
  chmod 644 "$root$unitdir/transitiond.service"
  install -m 644 "$src/systemd/sysusers.d/transitiond.conf" "$root$sysusersdir/transitiond.conf"
  if [ ! -e "$root/etc/transitiond/transitiond.toml" ]; then
    install -m 644 "$src/config/kiosk.toml" "$root/etc/transitiond/transitiond.toml"
  fi
  gzip -9n -c "$src/man/transitiond.1" > "$root$prefix/share/man/man1/transitiond.1.gz"
  gzip -9n -c "$src/man/transitiond.toml.5" > "$root$prefix/share/man/man5/transitiond.toml.5.gz"
  chmod 644 "$root$prefix/share/man/man1/transitiond.1.gz" "$root$prefix/share/man/man5/transitiond.toml.5.gz"
  # A completion file is sourced, not run: no #! line.
  "$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$root$prefix/share/bash-completion/completions/transitiond"
  "$binary" --generate-completion-script zsh > "$root$prefix/share/zsh/vendor-completions/_transitiond"
  "$binary" --generate-completion-script fish > "$root$prefix/share/fish/vendor_completions.d/transitiond.fish"
  chmod 644 "$root$prefix/share/bash-completion/completions/transitiond" \
    "$root$prefix/share/zsh/vendor-completions/_transitiond" "$root$prefix/share/fish/vendor_completions.d/transitiond.fish"
  install -m 644 "$src/docs/kiosk.md" "$src/docs/kiosk-web.md" "$src/docs/metrics.md" "$src/docs/protocol.md" "$src/config/example.toml" \
    "$root$prefix/share/doc/transitiond/"
}

# Builds the release binary (static Swift standard library) and prints its
# path; $TRANSITIOND_BINARY names one to use instead (the tests' debug build).
transitiond_release_binary() {
  if [ -n "${TRANSITIOND_BINARY:-}" ]; then echo "$TRANSITIOND_BINARY"; return; fi
  local src
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  # shellcheck source=bin/setup.sh
  source "$src/bin/setup.sh"
  transitiond_build_release || return
  echo "$src/.build/release/transitiond"
}
